/**
 * Amendment items the loop engine forms itself, beyond the unreachable cut (gauntlet-protocol
 * §3.13, §3.17; amendment-surface "Standing grants", sections 1 and 5).
 *
 * A failed target's first result segment may carry, besides `unreachable: <what> - <where>`
 * (src/gauntlet/unreachable.ts) and `bound spent: …`, one of two amendment markers
 * (docs/decisions/amendments.md):
 *
 * - `amend: <what> - <evidence>`: the spec's text is factually wrong and `<evidence>` is the
 *   observation that falsified it. One requirement-preserving amend item: under amend permission
 *   (option 5) it is applied without a stop (one `## Amendments` entry, commit `loop: amend`,
 *   rows unchanged); without permission (option 4) it stops for the human.
 * - `redraw: <why>`: the problem statement or a component changed (the surface's redraw). A redraw
 *   always stops, under options 4 and 5 alike; only the human's `redraw` reply deletes the ledger.
 *
 * An amend item whose evidence the spec's `## Amendments` section already carries (an earlier
 * amendment answered that very observation and the row still fails on it) is the repeated-evidence
 * stop, under options 4 and 5 alike: applying it again would change nothing.
 *
 * Pure: no xstate, no node built-ins.
 */

import { firstResultSegment } from './evidence.js';

const AMEND_PREFIX = 'amend: ';
const REDRAW_PREFIX = 'redraw: ';
const SEPARATOR = ' - ';
const EVIDENCE_TAG = '; evidence: ';

/** What the first result segment of a failed target's evidence says about the spec. */
export type AmendmentMarker =
  | { readonly kind: 'amend'; readonly segment: string; readonly what: string; readonly evidence: string }
  | { readonly kind: 'redraw'; readonly segment: string; readonly why: string }
  /** No amendment marker; `malformed` when the segment starts like one but breaks its grammar. */
  | { readonly kind: 'none'; readonly segment: string | null; readonly malformed: boolean };

/**
 * Reads the amendment marker of an evidence cell: only its first result segment after the check
 * name counts (as for `unreachable:`, scenario U5). `amend: <what> - <evidence>` splits at the first
 * ` - ` that leaves a nonempty `<what>`; both halves are trimmed and must be nonempty.
 * `redraw: <why>` needs a nonempty `<why>`.
 *
 * @param evidence the evidence cell as written in the ledger (escaped).
 * @returns the marker.
 */
export function readAmendmentMarker(evidence: string): AmendmentMarker {
  const segment = firstResultSegment(evidence);
  if (segment === null) return { kind: 'none', segment: null, malformed: false };
  if (segment.startsWith(AMEND_PREFIX)) {
    const rest = segment.slice(AMEND_PREFIX.length);
    const at = rest.indexOf(SEPARATOR, 1);
    if (at > 0) {
      const what = rest.slice(0, at).trim();
      const found = rest.slice(at + SEPARATOR.length).trim();
      if (what !== '' && found !== '') return { kind: 'amend', segment, what, evidence: found };
    }
    return { kind: 'none', segment, malformed: true };
  }
  if (segment.startsWith(REDRAW_PREFIX)) {
    const why = segment.slice(REDRAW_PREFIX.length).trim();
    if (why !== '') return { kind: 'redraw', segment, why };
    return { kind: 'none', segment, malformed: true };
  }
  return {
    kind: 'none',
    segment,
    malformed: segment.startsWith('amend:') || segment.startsWith('redraw:'),
  };
}

/**
 * The `## Amendments` entry of an applied amend item: `row <n>: <what>; evidence: <evidence>`.
 * The evidence half is what the repeated-evidence check reads back.
 *
 * @param row the failed target that reported the item
 * @param what the one-line spec change
 * @param evidence the observation that falsified the old text
 * @param name how the entry names the row: `row <n>` by default; on a coordinated ledger the
 *   criterion, `criterion <ac> (row <n>, <leg>)` (docs/decisions/legs.md L12)
 */
export function amendmentEntry(row: number, what: string, evidence: string, name = `row ${row}`): string {
  return `${name}: ${what}${EVIDENCE_TAG}${evidence}`;
}

/** The progress line printed when an amend item is applied: `amended the spec: row <n> - <what>`. */
export function amendedItemLine(row: number, what: string): string {
  return `amended the spec: row ${row} - ${what}`;
}

/**
 * The entries of the spec's `## Amendments` section (its `- ` bullets, text after the dash,
 * trimmed), in order. A spec without the section has none.
 *
 * @param specText the spec as on disk.
 */
export function amendmentEntries(specText: string): readonly string[] {
  const lines = specText.split(/\r?\n/);
  const start = lines.findIndex((line) => line.trim() === '## Amendments');
  if (start === -1) return [];
  const entries: string[] = [];
  for (let index = start + 1; index < lines.length; index++) {
    const line = lines[index] as string;
    if (/^#{1,6}[ \t]/.test(line)) break;
    // `s`: an entry may hold U+2028/U+2029 (evidence may), which `.` would not match. The line is
    // trimmed, so a bullet's text is never blank.
    const bullet = /^[-*][ \t]+(.*)/s.exec(line.trim());
    if (bullet !== null) entries.push((bullet[1] as string).trim());
  }
  return entries;
}

/**
 * Whether an entry already answers this evidence: it ends with `; evidence: <evidence>`.
 *
 * @param entries the spec's `## Amendments` entries ({@link amendmentEntries}).
 * @param evidence the observation an amend item carries.
 */
export function evidenceAlreadyAmended(entries: readonly string[], evidence: string): string | null {
  const tail = `${EVIDENCE_TAG}${evidence}`;
  return entries.find((entry) => entry.endsWith(tail)) ?? null;
}

/** Input of {@link routeAmendmentMarker}. */
export interface AmendmentRoutingInput {
  /** The target row of the admitted failed return. */
  readonly row: number;
  /** Its evidence cell as admitted (escaped). */
  readonly evidence: string;
  /** The spec's `## Amendments` entries. */
  readonly amendments: readonly string[];
  /** True under option 5 (an active `**Amend-grant:**`). */
  readonly amendPermission: boolean;
  /**
   * How the `## Amendments` entry names the row (`row <n>` when absent); a coordinated run names
   * the criterion, `criterion <ac> (row <n>, <leg>)`.
   */
  readonly rowName?: string;
}

/** What routing an amendment marker decides. */
export type AmendmentRouting =
  /** No amendment marker: back to the ordered table. */
  | { readonly kind: 'continue' }
  /** A requirement-preserving amend item: applied under permission, else a human stop. */
  | {
      readonly kind: 'spec-amend';
      readonly row: number;
      readonly what: string;
      readonly evidence: string;
      /** The `## Amendments` entry to write. */
      readonly entry: string;
      /** True under amend permission: commit `loop: amend` and continue in the same run. */
      readonly autoApply: boolean;
      /** `amended the spec: row <n> - <what>` */
      readonly amendedLine: string;
    }
  /** The evidence was already answered by an amendment: stop, options 4 and 5 alike. */
  | {
      readonly kind: 'repeated-evidence';
      readonly row: number;
      readonly what: string;
      readonly evidence: string;
      /** The earlier `## Amendments` entry that carries the same evidence. */
      readonly earlier: string;
    }
  /** A redraw item: always stops. */
  | { readonly kind: 'redraw'; readonly row: number; readonly why: string };

/**
 * Routes the amendment marker of one unanswered admitted failed return. The caller has already
 * ruled out `bound spent:` and `unreachable:` (they come first).
 *
 * @param input the row, its admitted evidence, the spec's amendments and the permission.
 * @returns continue, an amend item (auto-applied or for the human), the repeated-evidence stop or
 *   the redraw stop.
 */
export function routeAmendmentMarker(input: AmendmentRoutingInput): AmendmentRouting {
  const marker = readAmendmentMarker(input.evidence);
  const { row } = input;
  switch (marker.kind) {
    case 'none':
      return { kind: 'continue' };
    case 'redraw':
      return { kind: 'redraw', row, why: marker.why };
    case 'amend': {
      const earlier = evidenceAlreadyAmended(input.amendments, marker.evidence);
      if (earlier !== null)
        return { kind: 'repeated-evidence', row, what: marker.what, evidence: marker.evidence, earlier };
      return {
        kind: 'spec-amend',
        row,
        what: marker.what,
        evidence: marker.evidence,
        entry: amendmentEntry(row, marker.what, marker.evidence, input.rowName),
        autoApply: input.amendPermission,
        amendedLine: amendedItemLine(row, marker.what),
      };
    }
  }
}
