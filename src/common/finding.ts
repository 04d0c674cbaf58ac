/**
 * A problem found in some input (a ledger, a spec, a child return, a configuration), reported
 * instead of thrown so that one pass can name every problem at once.
 *
 * Pure parsers and validators in loopchart return findings; the host turns them into a
 * {@link LoopchartError} at its boundary.
 */
export interface Finding {
  /** Stable machine-readable name of the check that failed, e.g. `ledger.header.missing`. */
  readonly code: string;
  /** 1-based line number in the input, or 0 when the finding concerns the whole input. */
  readonly line: number;
  /** One sentence a person can act on. */
  readonly reason: string;
}

/** Creates a {@link Finding}. */
export function finding(code: string, line: number, reason: string): Finding {
  return { code, line, reason };
}

/** Renders findings one per line as `line <n>: <reason> (<code>)`, or `<reason> (<code>)` for line 0. */
export function formatFindings(findings: readonly Finding[]): string {
  return findings
    .map((f) => (f.line > 0 ? `line ${f.line}: ${f.reason} (${f.code})` : `${f.reason} (${f.code})`))
    .join('\n');
}
