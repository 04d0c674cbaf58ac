/**
 * Data model of the pi-gauntlet loop engine ("loop-implementation") as loopchart implements it.
 *
 * Everything here is plain data: no I/O, no XState. Parsers produce these shapes, the rule
 * functions read them, and the serializer writes them back. Vocabulary follows the protocol:
 * a *row* is one acceptance criterion of the spec, a *target* is what one child dispatch works
 * on (a row number or the seed), *attempts* count admitted or repaired dispatches of a row, and
 * the *allowance* bounds them.
 *
 * See docs/ledger-format.md for the file format and docs/decisions.md for the choices made
 * where the protocol text is silent.
 */

/** Status of a ledger row. `cut` rows are out of scope; `done` and `cut` rows are resolved. */
export type RowStatus = 'open' | 'done' | 'failed' | 'cut';

/** All row statuses, in the order the protocol lists them. */
export const ROW_STATUSES: readonly RowStatus[] = ['open', 'done', 'failed', 'cut'];

/** What one dispatch works on: a numbered row, the seed, or a verification repair. */
export type Target = number | 'seed' | 'verify';

/**
 * The repository identity of a single-leg run (no `## Legs` section, or one member). A coordinated
 * run names its members instead (docs/decisions/legs.md).
 */
export const HOME = 'home';

/**
 * The in-flight dispatch tuple `pending: <target> | <repo> | <HEAD sha>`, written (uncommitted)
 * with the iterations bump before every dispatch and removed by the admitted commit or the
 * parent repair.
 */
export interface PendingTuple {
  readonly target: Target;
  /** `home` for a single-leg run. */
  readonly repo: string;
  /** Full 40-hex SHA of the dispatched checkout's HEAD before the dispatch (`HEAD_BEFORE`). */
  readonly head: string;
}

/** One row of the ledger's four-column table. Row text itself lives only in the spec. */
export interface LedgerRow {
  /** 1-based row number, in spec acceptance-criteria order. */
  readonly row: number;
  readonly status: RowStatus;
  /** Dispatch outcomes spent on this row; never reset or reduced. */
  readonly attempts: number;
  /**
   * The evidence cell exactly as written between the pipes, trimmed: result lines separated by
   * `;`, literal pipes escaped as `\|`. Empty string when the cell is empty.
   */
  readonly evidence: string;
}

/**
 * A parsed ledger. `decisions` keeps every line of `## Decisions` verbatim (unknown lines
 * included); use `parseDecision` to interpret one.
 *
 * `layout` is private to the parser and serializer: it remembers the source bytes of elements
 * that have not changed so that `serializeLedger(parseLedger(text).ledger) === text` for every
 * valid ledger. Code that builds or edits a ledger may drop it; the serializer then writes the
 * canonical layout.
 */
export interface Ledger {
  /** Line 1 of the file; identifies a ledger (default `# Loop ledger`). */
  readonly discriminant: string;
  /** Repo-relative spec path from the `**Spec:**` header. */
  readonly spec: string;
  /** Full SHA the ledger was seeded on (`base:`). */
  readonly base: string;
  /** The verification (CI) command (`verification:`). */
  readonly verification: string;
  /** The gate-set mode line (`checks:`), `commands` by default. */
  readonly checks: string;
  /** Dispatch counter; bounds nothing. */
  readonly iterations: number;
  /** Shared per-row attempt allowance. */
  readonly allowance: number;
  /** The in-flight dispatch tuple, when one is on disk. */
  readonly pending: PendingTuple | null;
  readonly rows: readonly LedgerRow[];
  /** Lines of `## Decisions`, in order, verbatim. */
  readonly decisions: readonly string[];
  /**
   * Coordinated runs only (§1.7, §3.20): the `base <member>:` / `seeded <member>:` header pairs
   * and the `## Leg mapping` table. Absent for single-leg ledgers, which carry no coordinated
   * metadata and stay byte-identical.
   */
  readonly legs?: LedgerLegs;
  /** Source formatting, owned by the parser/serializer. */
  readonly layout?: unknown;
}

/** One member of a coordinated ledger: its own base and whether its seed has been admitted. */
export interface LedgerMember {
  /** The member's name as the spec's `## Legs` declares it (the home member included). */
  readonly name: string;
  /** Full SHA of the member's checkout HEAD at seeding, read with that checkout's own git. */
  readonly base: string;
  /** `seeded <member>: yes` once that leg's complete seed row set validated. */
  readonly seeded: boolean;
}

/** One line of `## Leg mapping`: ledger row `row` is acceptance criterion `ac` in leg `leg`. */
export interface LegMappingEntry {
  readonly row: number;
  readonly ac: number;
  readonly leg: string;
}

/** The coordinated part of a ledger. */
export interface LedgerLegs {
  /** Members in membership order (the order of the spec's `## Legs`), home included. */
  readonly members: readonly LedgerMember[];
  /** One entry per ledger row, in row order. */
  readonly mapping: readonly LegMappingEntry[];
}

/** A decision line of `## Decisions`, interpreted. */
export type Decision =
  /** `row <n> <done|failed> | <summary> | <next>`: a child's outcome for one row. */
  | {
      readonly kind: 'outcome';
      readonly row: number;
      readonly status: 'done' | 'failed';
      readonly summary: string;
      readonly next: string;
      readonly line: string;
    }
  /** `row 0 done | seeded <k> rows, closed <m> on baseline | <first row to take>`. */
  | {
      readonly kind: 'seed';
      readonly seeded: number;
      readonly closed: number;
      readonly firstRow: string;
      readonly line: string;
    }
  /** `row <n> retry | <hint> | allowed attempts <m>`: a human retry; +1 effective allowance. */
  | {
      readonly kind: 'retry';
      readonly row: number;
      readonly hint: string;
      readonly allowedAttempts: number;
      readonly line: string;
    }
  /** `row <n> escalated | implModel round | allowed attempts <m>`: the row's escalated round is spent. */
  | { readonly kind: 'escalated'; readonly row: number; readonly line: string }
  /** `rows +<N> | <words>`: the human raised the shared allowance. */
  | { readonly kind: 'raise'; readonly amount: number; readonly words: string; readonly line: string }
  /** Anything else (legacy grant history, hand notes): kept verbatim, never interpreted. */
  | { readonly kind: 'other'; readonly line: string };

/** Disposition of an acceptance criterion in the spec (the nested line under the AC bullet). */
export type Disposition =
  | { readonly kind: 'in-scope'; readonly explicit: boolean }
  | { readonly kind: 'deviates'; readonly why: string; readonly text: string }
  | { readonly kind: 'deferred'; readonly where: string; readonly text: string }
  | {
      readonly kind: 'venue';
      readonly env: string;
      readonly observation: string;
      readonly text: string;
    }
  | { readonly kind: 'elsewhere'; readonly repo: string; readonly text: string };

/** One acceptance criterion of the spec. */
export interface SpecRow {
  /** 1-based row number in AC order (nested disposition lines are not rows). */
  readonly row: number;
  /** The AC text, verbatim after the checkbox. */
  readonly text: string;
  /** 1-based line of the AC bullet in the spec. */
  readonly line: number;
  readonly disposition: Disposition;
}

/** The decoded `**Amend-grant:**` header of a spec. */
export type AmendGrant =
  | { readonly kind: 'none' }
  | { readonly kind: 'active'; readonly sentence: string }
  | { readonly kind: 'malformed'; readonly lines: readonly { line: number; text: string }[] };

/** One member declared by a spec's `## Legs` section (docs/decisions/legs.md, L1). */
export interface SpecLeg {
  /** Member name: lowercase letters, digits, `.`, `_`, `-`; used in tuples, headers and mapping. */
  readonly name: string;
  /** True for the member whose checkout holds the spec and the ledger. */
  readonly home: boolean;
  /** The acceptance criteria (1-based spec AC numbers) this leg implements, ascending, unique. */
  readonly acs: readonly number[];
  /** 1-based line of the member's list item in the spec. */
  readonly line: number;
}

/** A parsed spec: what the loop reads at seed, authorized restore and amendments. */
export interface Spec {
  /** Text of the first `# ` heading, if any. */
  readonly title: string | null;
  readonly rows: readonly SpecRow[];
  readonly amendGrant: AmendGrant;
  /**
   * The members of `## Legs`, in the order listed (membership order), when the spec has that
   * section. Absent otherwise; one member or none is a single-leg (`home`) run.
   */
  readonly legs?: readonly SpecLeg[];
}

/** `ran <action> (<k> of <bound>)` or `bound spent: <action> (<k> of <bound>)`. */
export interface ActionRecord {
  readonly kind: 'ran' | 'bound-spent';
  readonly action: string;
  readonly k: number;
  readonly bound: number;
  /** The record as written (either accepted spelling). */
  readonly text: string;
}

/**
 * What the host knows about one commit since the ledger base, oldest first. Built by the effects
 * layer from one `git log` and one batched read of the ledger blob per commit.
 */
export interface CommitFact {
  readonly sha: string;
  readonly subject: string;
  /** Commit body (message without the subject line and the blank line after it). */
  readonly body: string;
  /** Repo-relative paths the commit changed. */
  readonly paths: readonly string[];
  /** The ledger as committed by this commit, when it exists and parses. */
  readonly ledger: Ledger | null;
}
