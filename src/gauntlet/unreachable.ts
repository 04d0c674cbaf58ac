/**
 * Unreachable-return routing (gauntlet-protocol §3.13, reference `unreachable-returns.md`).
 *
 * Each admitted failed target is routed once before the ordered table. Only the target's first
 * result segment after the check name is read: `bound spent: …` stops on the row with the
 * ordinary row menu; `unreachable: <what> - <where>` turns a non-`venue:` row into one amend item
 * (auto-applied only under amend permission) while `venue:` rows stay on the ordinary failed
 * path; anything else, malformed markers included, returns to the ordered table. A routing that a
 * human retry, `rows +N`, cut or amendment answered never fires again, even while the evidence is
 * unchanged; a newly admitted failed return is routed afresh.
 */

import { firstResultSegment } from './evidence.js';
import type { AdmittedReturn, CommitRef } from './history.js';
import type { SpecRow } from './types.js';

/** The recommendation line of the bound-spent stop (§3.13, exact text). */
export const BOUND_SPENT_RECOMMENDATION = 'Recommendation: none - named action bound spent';

/** Characters of row text kept in the `## Out of scope` entry. */
export const OUT_OF_SCOPE_ROW_TEXT_LENGTH = 60;

const BOUND_SPENT = /^bound spent: .+$/s;
const UNREACHABLE_PREFIX = 'unreachable: ';
const SEPARATOR = ' - ';

/** What the first result segment of a failed target's evidence says. */
export type UnreachableMarker =
  | { readonly kind: 'bound-spent'; readonly segment: string }
  | { readonly kind: 'unreachable'; readonly segment: string; readonly what: string; readonly where: string }
  /** No marker; `segment` is `null` when the cell has no result line. */
  | { readonly kind: 'none'; readonly segment: string | null; readonly malformed: boolean };

/**
 * Reads the marker of an evidence cell: only its first result segment after the check name,
 * split on unescaped semicolons, trimmed and unescaped (§3.13; scenario U5: later segments never
 * count). `unreachable: <what> - <where>` splits at the first ` - ` that leaves a nonempty
 * `<what>` (§6 A27); `<what>` and `<where>` are trimmed and must both be nonempty.
 *
 * @param evidence the evidence cell as written in the ledger (escaped).
 * @returns the marker; a segment that starts like a marker but breaks its grammar is
 *   `none` with `malformed: true` (it stays on the ordinary failed-attempt path).
 */
export function readUnreachableMarker(evidence: string): UnreachableMarker {
  const segment = firstResultSegment(evidence);
  if (segment === null) return { kind: 'none', segment: null, malformed: false };
  if (BOUND_SPENT.test(segment)) return { kind: 'bound-spent', segment };
  if (segment.startsWith(UNREACHABLE_PREFIX)) {
    const rest = segment.slice(UNREACHABLE_PREFIX.length);
    // `.+ - .+`: the separator cannot be the first characters of the rest.
    const at = rest.indexOf(SEPARATOR, 1);
    if (at > 0) {
      const what = rest.slice(0, at).trim();
      const where = rest.slice(at + SEPARATOR.length).trim();
      if (what !== '' && where !== '') return { kind: 'unreachable', segment, what, where };
    }
    return { kind: 'none', segment, malformed: true };
  }
  return { kind: 'none', segment, malformed: segment.startsWith('bound spent:') };
}

/**
 * The recommended disposition for an unreachable row:
 * `deviates: unreachable in this checkout - <what>; proof at <where>` (plain text; escape it for a
 * ledger cell with the evidence helpers).
 */
export function unreachableDisposition(what: string, where: string): string {
  return `deviates: unreachable in this checkout - ${what}; proof at ${where}`;
}

/**
 * The spec's `## Out of scope` entry for an unreachable row:
 * `<row text, first 60 chars> - unreachable in this checkout - <what>`. Characters are code
 * points (no emoji is cut in half) and trailing blanks of the cut text are dropped so the entry
 * never shows a doubled space.
 */
export function outOfScopeEntry(rowText: string, what: string): string {
  const head = [...rowText.trim()].slice(0, OUT_OF_SCOPE_ROW_TEXT_LENGTH).join('').trimEnd();
  return `${head} - unreachable in this checkout - ${what}`;
}

/** The progress line printed when the cut is applied: `amended the spec: row <n> - unreachable in this checkout - <what>`. */
export function amendedSpecLine(row: number, what: string): string {
  return `amended the spec: row ${row} - unreachable in this checkout - ${what}`;
}

/** Why routing returned to the ordered table. */
export type ContinueReason =
  /** The admitted target is not failed: nothing to route. */
  | 'not-failed'
  /** A human retry, `rows +N`, cut or amendment answered this admission (U7). */
  | 'answered'
  /** The first result segment carries no marker (or a malformed one). */
  | 'no-marker'
  /** `unreachable:` on a `venue:` row: the ordinary failed-attempt path, disposition unchanged (U3). */
  | 'venue-row'
  /** The admitted evidence could not be read (the commit's ledger did not parse). */
  | 'evidence-unreadable';

/** The routing decision for one admitted return. */
export type UnreachableRouting =
  | {
      readonly kind: 'continue';
      readonly row: number;
      readonly why: ContinueReason;
      /** The answering commit when `why` is `answered`. */
      readonly answeredBy: CommitRef | null;
    }
  | {
      /** Stop on the row with the ordinary row menu (retry, `rows +N`, Amend, Stop), options 4 and 5 alike. */
      readonly kind: 'bound-spent';
      readonly row: number;
      /** The first result segment, e.g. `bound spent: capture (1 of 1)`. */
      readonly marker: string;
      readonly recommendation: typeof BOUND_SPENT_RECOMMENDATION;
    }
  | {
      /** One amend item outside the dispatch loop. */
      readonly kind: 'amend';
      readonly row: number;
      readonly what: string;
      readonly where: string;
      /** `deviates: unreachable in this checkout - <what>; proof at <where>` */
      readonly disposition: string;
      /** `<row text, first 60 chars> - unreachable in this checkout - <what>` */
      readonly outOfScope: string;
      /**
       * True under amend permission: cut the row in one `loop: cut row <n>` commit, print
       * {@link amendedLine} and continue the ordered table in the same turn. False: take the
       * amendment surface's human batch before any write or dispatch.
       */
      readonly autoApply: boolean;
      /** `amended the spec: row <n> - unreachable in this checkout - <what>` */
      readonly amendedLine: string;
    };

/** Input of {@link routeUnreachableReturn}. */
export interface UnreachableRoutingInput {
  /** The admitted return (from {@link historyFromCommits}'s `latestAdmission`). */
  readonly admission: AdmittedReturn;
  /** The target's spec row (held disposition and text). */
  readonly specRow: SpecRow;
  /** True under option 5 or an active amendment grant (a budget-only grant gives none). */
  readonly amendPermission: boolean;
}

/**
 * Routes one admitted return (scenarios U1, U3, U5, U7, U9). Pure: it names what to do and never
 * changes action counts or bounds (U9: only an approved amendment can raise a bound).
 *
 * @param input the admission, its spec row and whether amendments auto-apply.
 * @returns `continue` (back to the ordered table), `bound-spent` (row stop) or `amend` (one amend
 *   item, auto-applied or for the human).
 */
export function routeUnreachableReturn(input: UnreachableRoutingInput): UnreachableRouting {
  const { admission, specRow, amendPermission } = input;
  const row = admission.row;
  const proceed = (why: ContinueReason, answeredBy: CommitRef | null = null): UnreachableRouting => ({
    kind: 'continue',
    row,
    why,
    answeredBy,
  });
  if (admission.status !== 'failed') return proceed('not-failed');
  if (admission.answeredBy !== null) return proceed('answered', admission.answeredBy);
  if (admission.evidence === null) return proceed('evidence-unreadable');

  const marker = readUnreachableMarker(admission.evidence);
  if (marker.kind === 'bound-spent')
    return { kind: 'bound-spent', row, marker: marker.segment, recommendation: BOUND_SPENT_RECOMMENDATION };
  if (marker.kind === 'none') return proceed('no-marker');
  if (specRow.disposition.kind === 'venue') return proceed('venue-row');
  return {
    kind: 'amend',
    row,
    what: marker.what,
    where: marker.where,
    disposition: unreachableDisposition(marker.what, marker.where),
    outOfScope: outOfScopeEntry(specRow.text, marker.what),
    autoApply: amendPermission,
    amendedLine: amendedSpecLine(row, marker.what),
  };
}
