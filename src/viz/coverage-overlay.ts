/**
 * What a diagram needs from a coverage result to draw gaps: a {@link TransitionCoverage} or one
 * machine's entry of `visualizations/coverage.json` both fit.
 */
export interface CoverageOverlay {
  readonly transitions: { readonly missing: readonly { readonly key: string }[] };
  readonly states?: { readonly missing: readonly string[] };
}

/** The uncovered transition keys and unentered state ids of an overlay (empty sets for none). */
export function uncoveredSets(overlay: CoverageOverlay | undefined): {
  transitions: ReadonlySet<string>;
  states: ReadonlySet<string>;
} {
  return {
    transitions: new Set(overlay?.transitions.missing.map((t) => t.key) ?? []),
    states: new Set(overlay?.states?.missing ?? []),
  };
}
