/**
 * Durable loop history: every counter the ordered table reads, rebuilt from the branch's commits
 * since the ledger base and the ledger on disk (gauntlet-protocol §2 "Counting semantics", §3.6,
 * §3.8, §3.11, §3.13, §3.18, §3.19; §6 A10, A11, A14, A21).
 *
 * The loop engine keeps no counter in memory that it cannot recover: seed repairs, verification
 * repairs, both stagnation windows, the previous decision, pending human retries, spent
 * escalations, action spend and answered unreachable stops all come from commit subjects, commit
 * bodies and the ledger as each commit left it. {@link historyFromCommits} is that replay; it is
 * pure and the same input always yields the same history, so a resumed run sees what the original
 * run saw.
 */

import { InputError } from '../common/errors.js';
import { type ActionSpend, extractActionRecords, foldActionRecords } from './action-records.js';
import { type CommitSubject, parseRepairBody, parseSubject } from './commits.js';
import { parseDecision } from './decisions.js';
import { splitEvidence, unescapeEvidence } from './evidence.js';
import { samePending } from './ledger.js';
import type { ActionRecord, CommitFact, Ledger } from './types.js';

// ---------------------------------------------------------------------------------------------
// Public shapes

/** Options of {@link historyFromCommits}. */
export interface HistoryOptions {
  /**
   * The ledger as it is on disk now (it may carry an in-flight `pending:` tuple). Seed survival,
   * spent escalations, retries and action spend are read from it.
   */
  readonly ledger: Ledger;
  /** Repo-relative path of the ledger file; a child commit touching only it changed no file outside the ledger. */
  readonly ledgerPath: string;
  /**
   * A memo of what earlier replays derived from commit ledgers, by commit SHA (see
   * {@link CommitLedgerFacts}): read before a ledger is asked for, and extended with every fact
   * this replay derives. Valid only for the same ledger base and ledger path, on a branch where
   * the commit has the same history since the base (a host keeps it in its history cache, keyed
   * and checked like the commits). The commits' SHAs must be distinct, as git's are. Default: none.
   */
  readonly facts?: Map<string, CommitLedgerFacts>;
}

/**
 * What the replay derives from the ledger one commit left (and the ledger before it): everything a
 * ledger request serves. A commit's facts depend only on the commits from the ledger base to it,
 * never on later ones, so a host can keep them with the commit and a resume needs no ledger
 * version it has seen (an append-only ledger's versions grow with the branch). A field is present
 * once derived; `null` means "derived: none, or the ledger did not parse".
 */
export interface CommitLedgerFacts {
  /** Child commits: the target's decision line the commit added (§1.5: the previous decision). */
  readonly target?: string | null;
  /** `loop: row <n> …` commits: row `<n>`'s status and evidence cells as the commit left them. */
  readonly cells?: { readonly status: string; readonly evidence: string } | null;
  /** `loop: repair row|seed …` commits: what the repair says about the dispatch it repaired. */
  readonly repair?: RepairKind;
  /** Child commits changing only the ledger: whether they changed no row status either (§3.8). */
  readonly empty?: boolean;
  /** `loop: seed evidence` commits: the seed decision lines (`row 0 done | …`) the commit added. */
  readonly seeds?: readonly string[] | null;
}

/** A commit named by the history: enough to show a person which commit decided something. */
export interface CommitRef {
  readonly sha: string;
  readonly subject: string;
}

/** Per-row window counters of rule 3 (§3.8). */
export interface RowHistory {
  /** 1-based row number. */
  readonly row: number;
  /**
   * The commit that opened this row's windows: the latest of this row's `loop: retry row <n>`,
   * any `loop: amend` and any `loop: cut row <m>` (§3.4 step 5). `loop: raise allowance` never
   * opens a window. `null` when the windows run from the ledger base.
   */
  readonly windowStart: CommitRef | null;
  /**
   * How many of this row's own child `loop: row <n> …` commits inside the window, counted back
   * from the latest, in a row changed no path other than the ledger and no row status (§3.8:
   * "changed no file outside the ledger and no row status"; "commits for different rows never
   * pair"; "exclude seed and parent commits"; §6 A10: other rows' and parent commits in between
   * neither pair nor break). Rule 3 fires at 2.
   */
  readonly emptyChildStreak: number;
  /**
   * Consecutive ordinary validation misses (`loop: repair row <n>` whose evidence is `iteration
   * <i>: <miss>`) inside the window (§3.12). An admitted child return for this row resets it ("a
   * conforming return resets the consecutive-miss count"), a validated seed resets it (§3.11);
   * interrupted repairs neither count nor reset (§6 A11). Rule 3 fires at 2.
   */
  readonly validationMissStreak: number;
  /**
   * The `<concrete miss>` of the latest ordinary validation-miss repair in the window (the text
   * after `iteration <i>: ` in its evidence), for the hint `two returns broke the contract: …`.
   */
  readonly lastConcreteMiss: string | null;
}

/** The validated seed that survives on the branch (§3.6). */
export interface SeedSurvival {
  /** The admitted `loop: seed evidence` commit. */
  readonly sha: string;
  /** Its `row 0 done | seeded <k> rows, closed <m> on baseline | …` decision, still in the ledger. */
  readonly decision: string;
}

/**
 * A human retry whose row has not been dispatched since (§6 A14). Its hint goes out with the
 * row's next dispatch and wins over a rule-3 hint (§3.4).
 */
export interface PendingRetry {
  readonly row: number;
  /** The middle cell of `row <n> retry | <hint> | allowed attempts <m>`. */
  readonly hint: string;
  /** The retry decision line, verbatim. */
  readonly decision: string;
  /** The `loop: retry row <n>` commit. */
  readonly sha: string;
}

/** The latest admitted ordinary child return (the input of unreachable routing, §3.13). */
export interface AdmittedReturn {
  /** The dispatched (target) row. */
  readonly row: number;
  /** The child's `loop: row <n> <status>` commit, or the home `loop: record <member> row <n>` of a companion's. */
  readonly sha: string;
  /** The target's status as admitted. */
  readonly status: 'done' | 'failed';
  /**
   * The target's evidence cell as admitted (escaped, as written in the ledger of that commit), not
   * the current cell: routing is keyed to the admitted return (§3.13). `null` when that commit's
   * ledger could not be read.
   */
  readonly evidence: string | null;
  /** The target's decision line in that return, or `null` when it could not be read. */
  readonly decision: string | null;
  /**
   * The first human answer after the admission: a `loop: retry row <n>`, `loop: raise allowance`,
   * `loop: cut row <m>` or `loop: amend` commit (§3.13: "Treat a human retry, `rows +N`, an applied
   * amendment answering the stop, or an applied cut as answering that return"). `null` while
   * unanswered; an answered return never re-fires its routing.
   */
  readonly answeredBy: CommitRef | null;
}

/** Everything the ordered table needs to know about the past of a run. */
export interface LoopHistory {
  /**
   * `loop: repair seed` commits since the ledger base, interrupted and validation-miss alike
   * (§3.11 "Count seed attempts as `loop: repair seed` commits since ledger base").
   */
  readonly seedRepairCount: number;
  /**
   * The `seed miss: <concrete miss>` or `seed interrupted: <reason>` line of the latest
   * `loop: repair seed` body (§3.11 "Recover the count and reason from branch history").
   */
  readonly lastSeedRepairReason: string | null;
  /**
   * The admitted `loop: seed evidence` commit whose `row 0 done` decision is in the ledger now;
   * `null` until the seed survives (§3.6 "Read seed survival from the ledger at HEAD and the
   * matching validated commit, not from evidence completeness").
   */
  readonly seedSurvival: SeedSurvival | null;
  /**
   * Home `loop: repair verification` markers since the ledger base, plus one for a `pending:
   * verify` tuple that no marker body names (§3.18 "match marker bodies to pending tuples to avoid
   * counting one dispatch twice"). Markers naming the same tuple and iteration count once.
   */
  readonly verificationRepairs: number;
  /** Window counters, one entry per ledger row, in row order. */
  readonly rows: readonly RowHistory[];
  /**
   * The target's conforming decision line of the latest admitted child return (§1.5), never an
   * extra's, retry, escalation, raise or legacy line; `null` (sent as `none`) before any admission
   * and after an ordinary validation-miss repair (§3.12 "Set previous decision to `none`").
   */
  readonly previousDecision: string | null;
  /** Human retries not yet followed by a dispatch of their row, oldest first (§6 A14). */
  readonly pendingRetries: readonly PendingRetry[];
  /** Rows with a durable `row <n> escalated | …` decision, ascending (§3.7). */
  readonly escalationsSpent: readonly number[];
  /**
   * Spend per action: the highest k recorded in the ledger's decisions and evidence and in every
   * `loop: repair …` body; identical copies count once (§3.19 rule 4). In first-seen order:
   * decisions, then evidence, then repair bodies oldest first.
   */
  readonly actionSpend: readonly ActionSpend[];
  /**
   * The latest admitted ordinary child return, answered or not (§3.13, scenario U7): a home
   * `loop: row <n> <status>` commit that was not rejected, or the home record of a companion's
   * row return (`loop: record <member> row <n>`, n > 0; docs/decisions/legs.md L12).
   */
  readonly latestAdmission: AdmittedReturn | null;
}

/**
 * The history of a run with no commit after the ledger base: nothing counted, nothing survived.
 *
 * @param ledger the current ledger; one zeroed window entry per row.
 * @returns a fresh {@link LoopHistory}.
 */
export function emptyLoopHistory(ledger?: Ledger): LoopHistory {
  return {
    seedRepairCount: 0,
    lastSeedRepairReason: null,
    seedSurvival: null,
    verificationRepairs: 0,
    rows: (ledger?.rows ?? []).map((cells) => emptyRowHistory(cells.row)),
    previousDecision: null,
    pendingRetries: [],
    escalationsSpent: [],
    actionSpend: [],
    latestAdmission: null,
  };
}

/**
 * The window counters of one row; zeros when the history has no entry for it.
 *
 * @param history the loop history.
 * @param row the 1-based row number.
 */
export function rowHistoryOf(history: LoopHistory, row: number): RowHistory {
  return history.rows.find((entry) => entry.row === row) ?? emptyRowHistory(row);
}

function emptyRowHistory(row: number): RowHistory {
  return { row, windowStart: null, emptyChildStreak: 0, validationMissStreak: 0, lastConcreteMiss: null };
}

// ---------------------------------------------------------------------------------------------
// Reading one commit

/**
 * What a parent repair commit says about the dispatch it repaired: a validation miss (with the
 * concrete miss), an interruption, or neither (treated like an interruption: it proves no miss).
 */
export type RepairKind =
  | { readonly kind: 'miss'; readonly miss: string }
  | { readonly kind: 'interrupted' }
  /** Neither evidence nor body says which: treated like an interrupted repair (it proves no miss). */
  | { readonly kind: 'unknown' };

const ITERATION_EVIDENCE = /^iteration (\d+): (.*)$/s;
const INTERRUPTED = /^interrupted - /;

/**
 * Reads a `loop: repair row <n>` commit. Its evidence for the row decides (`iteration <i>:
 * interrupted - …` or `iteration <i>: <miss>`, §3.12, §3.14); the body's reason line
 * (`miss: …` / `interrupted: …`) is the fallback when that commit's ledger is unreadable.
 */
function rowRepairKind(ledger: Ledger | null, body: string, row: number): RepairKind {
  const cells = ledger?.rows.find((candidate) => candidate.row === row);
  const head = cells === undefined ? undefined : splitEvidence(cells.evidence)[0];
  if (head !== undefined) {
    const m = ITERATION_EVIDENCE.exec(unescapeEvidence(head));
    if (m) {
      const rest = (m[2] as string).trim();
      if (INTERRUPTED.test(rest)) return { kind: 'interrupted' };
      if (rest !== '') return { kind: 'miss', miss: rest };
    }
  }
  const reason = parseRepairBody(body).reason;
  if (reason?.kind === 'interrupted') return { kind: 'interrupted' };
  if (reason?.kind === 'miss') return { kind: 'miss', miss: reason.text };
  return { kind: 'unknown' };
}

/** The `seed miss: …` / `seed interrupted: …` line of a `loop: repair seed` body. */
function seedRepairReason(body: string): string | null {
  const reason = parseRepairBody(body).reason;
  if (reason?.kind === 'seed-miss') return `seed miss: ${reason.text}`;
  if (reason?.kind === 'seed-interrupted') return `seed interrupted: ${reason.text}`;
  return null;
}

function seedRepairKind(body: string): RepairKind {
  const reason = seedRepairReason(body);
  if (reason === null) return { kind: 'unknown' };
  return reason.startsWith('seed miss: ') ? { kind: 'miss', miss: reason } : { kind: 'interrupted' };
}

function normalizePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
}

/** Decision lines present in `after` but not in `before`, counting repeated lines as a multiset. */
function newDecisionLines(before: Ledger | null, after: Ledger): string[] {
  const old = before?.decisions ?? [];
  // The protocol appends decisions: when `before` is a prefix of `after`, the tail is what was added.
  let prefix = old.length <= after.decisions.length;
  for (let i = 0; prefix && i < old.length; i++) prefix = old[i] === after.decisions[i];
  if (prefix) return after.decisions.slice(old.length);
  const remaining = new Map<string, number>();
  for (const line of old) remaining.set(line, (remaining.get(line) ?? 0) + 1);
  const added: string[] = [];
  for (const line of after.decisions) {
    const left = remaining.get(line) ?? 0;
    if (left > 0) remaining.set(line, left - 1);
    else added.push(line);
  }
  return added;
}

function anyRowStatusChanged(before: Ledger, after: Ledger): boolean {
  const statusBefore = new Map(before.rows.map((cells) => [cells.row, cells.status]));
  if (statusBefore.size !== after.rows.length) return true;
  return after.rows.some((cells) => statusBefore.get(cells.row) !== cells.status);
}

// ---------------------------------------------------------------------------------------------
// The replay

/**
 * One commit as the history reads it from `git log`: subject, body and changed paths. The ledger
 * the commit left is asked for separately (see {@link replayHistory}), and only for the few commits
 * whose ledger decides something.
 */
export interface HistoryCommit {
  readonly sha: string;
  readonly subject: string;
  /** Commit body; only the bodies of `loop: repair …` commits are read. */
  readonly body: string;
  /** Repo-relative paths the commit changed. */
  readonly paths: readonly string[];
}

/**
 * The replay's request for the ledger of one commit: the index (into the commit list) of the commit
 * whose ledger is needed. The answer is the ledger as that commit left it (the one it committed, or
 * the one it inherited when it did not touch the ledger), or `null` when there is none or it does
 * not parse.
 */
export type LedgerRequest = number;

function refOf(commit: HistoryCommit): CommitRef {
  return { sha: commit.sha, subject: commit.subject };
}

function checkOptions(options: HistoryOptions): void {
  if (
    typeof options !== 'object' ||
    options === null ||
    typeof options.ledger !== 'object' ||
    options.ledger === null
  )
    throw new InputError('history.input', 'options.ledger must be the ledger as it is on disk now');
  if (typeof options.ledgerPath !== 'string' || options.ledgerPath.trim() === '')
    throw new InputError('history.input', 'options.ledgerPath must be the repo-relative ledger path');
}

function checkCommits(commits: readonly HistoryCommit[], withLedger: boolean): void {
  if (!Array.isArray(commits))
    throw new InputError('history.input', 'commits must be an array of commit facts, oldest first');
  commits.forEach((fact, index) => {
    const ok =
      typeof fact === 'object' &&
      fact !== null &&
      typeof fact.sha === 'string' &&
      typeof fact.subject === 'string' &&
      typeof fact.body === 'string' &&
      Array.isArray(fact.paths);
    if (!ok)
      throw new InputError(
        'history.input',
        withLedger
          ? `commit ${index + 1} is not a commit fact (sha, subject, body, paths, ledger)`
          : `commit ${index + 1} is not a commit (sha, subject, body, paths)`,
      );
  });
}

function isAnswer(subject: CommitSubject): boolean {
  const kind = subject.kind;
  return kind === 'retry-row' || kind === 'raise-allowance' || kind === 'cut-row' || kind === 'amend';
}

type Lazy<T> = Generator<LedgerRequest, T, Ledger | null>;

/**
 * The replay over one commit list. Everything that subjects and bodies decide is read in one pass;
 * everything that needs a commit's ledger is computed lazily, newest first, and stops as soon as
 * the answer is known, so a long branch costs one pass over its subjects plus the few ledgers the
 * latest windows need (independent of how many ledger versions the branch holds).
 */
class Replay {
  readonly subjects: CommitSubject[];
  /** The caller's memo of facts derived from ledgers, by commit SHA, or `null`. */
  private readonly facts: Map<string, CommitLedgerFacts> | null;
  /** Index of the next commit with a loop subject, or -1. */
  private readonly nextLoop: Int32Array;
  private readonly ledgers = new Map<number, Ledger | null>();
  /** Index of the latest commit at or before `i` whose ledger is not null, or -1; filled lazily. */
  private readonly lastParsed = new Map<number, number>();
  private readonly repairKinds = new Map<number, RepairKind>();
  private readonly rejected = new Map<number, boolean>();

  constructor(
    readonly commits: readonly HistoryCommit[],
    readonly ledgerPath: string,
    facts?: Map<string, CommitLedgerFacts>,
  ) {
    this.facts = facts ?? null;
    this.subjects = commits.map((commit) => parseSubject(commit.subject));
    this.nextLoop = new Int32Array(commits.length);
    let next = -1;
    for (let i = commits.length - 1; i >= 0; i--) {
      this.nextLoop[i] = next;
      if ((this.subjects[i] as CommitSubject).kind !== 'other') next = i;
    }
  }

  private commit(index: number): HistoryCommit {
    return this.commits[index] as HistoryCommit;
  }

  /**
   * The fact `key` of commit `index`: from the memo when it is there, else derived by `derive` (a
   * generator not started yet, so an answer from the memo asks for no ledger) and kept.
   */
  private *fact<K extends keyof CommitLedgerFacts>(
    index: number,
    key: K,
    derive: Lazy<Exclude<CommitLedgerFacts[K], undefined>>,
  ): Lazy<Exclude<CommitLedgerFacts[K], undefined>> {
    if (this.facts === null) return yield* derive;
    const sha = this.commit(index).sha;
    const known = this.facts.get(sha)?.[key];
    if (known !== undefined) return known as Exclude<CommitLedgerFacts[K], undefined>;
    const value = yield* derive;
    this.facts.set(sha, { ...this.facts.get(sha), [key]: value });
    return value;
  }

  *ledgerAt(index: number): Lazy<Ledger | null> {
    if (this.ledgers.has(index)) return this.ledgers.get(index) ?? null;
    const ledger = yield index;
    this.ledgers.set(index, ledger);
    return ledger;
  }

  /** The ledger of the nearest earlier commit that has one (`before`), or `null`. */
  *before(index: number): Lazy<Ledger | null> {
    const walked: number[] = [];
    let found = -1;
    for (let i = index - 1; i >= 0; i--) {
      const known = this.lastParsed.get(i);
      if (known !== undefined) {
        found = known;
        break;
      }
      walked.push(i);
      if ((yield* this.ledgerAt(i)) !== null) {
        found = i;
        break;
      }
    }
    for (const i of walked) if (i >= found) this.lastParsed.set(i, found);
    return found < 0 ? null : yield* this.ledgerAt(found);
  }

  *repairKind(index: number): Lazy<RepairKind | null> {
    const subject = this.subjects[index] as CommitSubject;
    if (subject.kind !== 'repair-row' && subject.kind !== 'repair-seed') return null;
    const known = this.repairKinds.get(index);
    if (known !== undefined) return known;
    const body = this.commit(index).body;
    const kind =
      subject.kind === 'repair-row'
        ? yield* this.fact(index, 'repair', this.rowRepairOf(index, body, subject.row))
        : seedRepairKind(body);
    this.repairKinds.set(index, kind);
    return kind;
  }

  /**
   * True when a child commit was rejected: the next loop commit after it is a validation-miss
   * repair (row or seed) of the dispatch that produced it. A rejected child commit stays on the
   * branch (only its ledger is restored); an interrupted return's commits are reset away, so an
   * interrupted repair never rejects an earlier commit. A repair whose body names a dispatch tuple
   * made on top of this commit belongs to a later dispatch, so it does not reject it either.
   */
  private *rowRepairOf(index: number, body: string, row: number): Lazy<RepairKind> {
    return rowRepairKind(yield* this.ledgerAt(index), body, row);
  }

  *isRejected(index: number): Lazy<boolean> {
    const known = this.rejected.get(index);
    if (known !== undefined) return known;
    const next = this.nextLoop[index] as number;
    let result = false;
    if (next >= 0) {
      const repair = yield* this.repairKind(next);
      result =
        repair?.kind === 'miss' &&
        parseRepairBody(this.commit(next).body).pending?.head !== this.commit(index).sha;
    }
    this.rejected.set(index, result);
    return result;
  }

  isChild(index: number): boolean {
    const kind = (this.subjects[index] as CommitSubject).kind;
    return kind === 'row' || kind === 'seed-evidence';
  }

  *isEmptyChildCommit(index: number): Lazy<boolean> {
    const own = normalizePath(this.ledgerPath);
    if (this.commit(index).paths.some((path) => normalizePath(path) !== own)) return false;
    return yield* this.fact(index, 'empty', this.noStatusChanged(index));
  }

  private *noStatusChanged(index: number): Lazy<boolean> {
    const after = yield* this.ledgerAt(index);
    const before = yield* this.before(index);
    // Without both ledgers the status change cannot be proven absent: count it as progress.
    if (after === null || before === null) return false;
    return !anyRowStatusChanged(before, after);
  }

  /** The decision lines a commit added to the ledger it inherited. */
  *addedDecisions(index: number): Lazy<string[] | null> {
    const after = yield* this.ledgerAt(index);
    if (after === null) return null;
    return newDecisionLines(yield* this.before(index), after);
  }

  /** The target's decision line added by an admitted child commit. */
  *targetDecision(index: number): Lazy<string | null> {
    return yield* this.fact(index, 'target', this.addedTarget(index));
  }

  /** The seed decision lines a `loop: seed evidence` commit added, or `null` without its ledger. */
  *addedSeeds(index: number): Lazy<readonly string[] | null> {
    return yield* this.fact(index, 'seeds', this.addedSeedLines(index));
  }

  private *addedSeedLines(index: number): Lazy<readonly string[] | null> {
    const added = yield* this.addedDecisions(index);
    return added === null ? null : added.filter((line) => parseDecision(line).kind === 'seed');
  }

  /** The subject row's status and evidence as a `loop: row <n> …` commit left them. */
  *rowCells(index: number, row: number): Lazy<{ readonly status: string; readonly evidence: string } | null> {
    return yield* this.fact(index, 'cells', this.cellsAt(index, row));
  }

  private *cellsAt(
    index: number,
    row: number,
  ): Lazy<{ readonly status: string; readonly evidence: string } | null> {
    const cells = (yield* this.ledgerAt(index))?.rows.find((candidate) => candidate.row === row);
    return cells === undefined ? null : { status: cells.status, evidence: cells.evidence };
  }

  private *addedTarget(index: number): Lazy<string | null> {
    const subject = this.subjects[index] as CommitSubject;
    const added = yield* this.addedDecisions(index);
    if (added === null) return null;
    if (subject.kind === 'seed-evidence' || (subject.kind === 'record-row' && subject.row === 0))
      return added.find((line) => parseDecision(line).kind === 'seed') ?? null;
    if (subject.kind !== 'row' && subject.kind !== 'record-row') return null;
    const row = subject.row;
    return (
      added.find((line) => {
        const decision = parseDecision(line);
        return decision.kind === 'outcome' && decision.row === row;
      }) ?? null
    );
  }
}

/** The index of the commit that opens each row's windows (-1 for the ledger base), by row. */
interface Windows {
  /** The latest `loop: amend` or `loop: cut row <m>`: it opens every row's windows. */
  readonly common: number;
  /** The latest `loop: retry row <n>` per row. */
  readonly retries: ReadonlyMap<number, number>;
}

function windowStart(windows: Windows, row: number): number {
  return Math.max(windows.common, windows.retries.get(row) ?? -1);
}

function* rowHistory(replay: Replay, windows: Windows, row: number): Lazy<RowHistory> {
  const start = windowStart(windows, row);
  const { subjects, commits } = replay;

  // Counted back from the latest: the run of empty child commits for this row that ends the window.
  let emptyChildStreak = 0;
  for (let i = commits.length - 1; i > start; i--) {
    const s = subjects[i] as CommitSubject;
    if (s.kind !== 'row' || s.row !== row) continue;
    if (!(yield* replay.isEmptyChildCommit(i))) break;
    emptyChildStreak++;
  }

  // Misses since the latest admitted return of this row (or admitted seed), and the latest miss.
  let validationMissStreak = 0;
  let streakDone = false;
  let lastConcreteMiss: string | null = null;
  for (let i = commits.length - 1; i > start && !(streakDone && lastConcreteMiss !== null); i--) {
    const s = subjects[i] as CommitSubject;
    if (s.kind === 'repair-row' && s.row === row) {
      const repair = yield* replay.repairKind(i);
      if (repair?.kind !== 'miss') continue;
      if (!streakDone) validationMissStreak++;
      if (lastConcreteMiss === null) lastConcreteMiss = repair.miss;
    } else if (!streakDone && ((s.kind === 'row' && s.row === row) || s.kind === 'seed-evidence')) {
      if (!(yield* replay.isRejected(i))) streakDone = true;
    }
  }

  const startCommit = start >= 0 ? commits[start] : undefined;
  return {
    row,
    windowStart: startCommit === undefined ? null : refOf(startCommit),
    emptyChildStreak,
    validationMissStreak,
    lastConcreteMiss,
  };
}

function* seedSurvivalOf(replay: Replay, ledger: Ledger): Lazy<SeedSurvival | null> {
  const now = new Set(ledger.decisions);
  for (let i = replay.commits.length - 1; i >= 0; i--) {
    if ((replay.subjects[i] as CommitSubject).kind !== 'seed-evidence') continue;
    if (yield* replay.isRejected(i)) continue;
    const decision = (yield* replay.addedSeeds(i))?.find((line) => now.has(line));
    if (decision !== undefined) return { sha: (replay.commits[i] as HistoryCommit).sha, decision };
  }
  return null;
}

function* previousDecisionOf(replay: Replay): Lazy<string | null> {
  for (let i = replay.commits.length - 1; i >= 0; i--) {
    const kind = (replay.subjects[i] as CommitSubject).kind;
    if (replay.isChild(i)) {
      if (!(yield* replay.isRejected(i))) return yield* replay.targetDecision(i);
    } else if (kind === 'record-row') {
      // A companion return the parent recorded (§3.20): its target's decision, never rejected.
      return yield* replay.targetDecision(i);
    } else if (kind === 'repair-row') {
      if ((yield* replay.repairKind(i))?.kind === 'miss') return null;
    }
  }
  return null;
}

function* latestAdmissionOf(replay: Replay): Lazy<AdmittedReturn | null> {
  const { subjects, commits } = replay;
  for (let i = commits.length - 1; i >= 0; i--) {
    const subject = subjects[i] as CommitSubject;
    // A companion's admitted row return is the home record of it (`loop: record <m> row <n>`,
    // never rejected; row 0 is a seed), routed like a home row return (L12).
    const record = subject.kind === 'record-row' && subject.row > 0;
    if (!record && (subject.kind !== 'row' || (yield* replay.isRejected(i)))) continue;
    const row = (subject as { readonly row: number }).row;
    const cells = yield* replay.rowCells(i, row);
    // A record's subject carries no status: when its ledger cannot be read, its evidence is
    // unreadable as well and routing continues (`evidence-unreadable`).
    const subjectStatus = record ? 'failed' : (subject as { readonly status: 'done' | 'failed' }).status;
    const admittedStatus =
      cells?.status === 'done' || cells?.status === 'failed' ? cells.status : subjectStatus;
    let answeredBy: CommitRef | null = null;
    for (let j = i + 1; j < commits.length && answeredBy === null; j++)
      if (isAnswer(subjects[j] as CommitSubject)) answeredBy = refOf(commits[j] as HistoryCommit);
    return {
      row,
      sha: (commits[i] as HistoryCommit).sha,
      status: admittedStatus,
      evidence: cells?.evidence ?? null,
      decision: yield* replay.targetDecision(i),
      answeredBy,
    };
  }
  return null;
}

/** What subjects and bodies alone decide: one pass, oldest first, no ledger read. */
interface SubjectFacts {
  readonly seedRepairCount: number;
  readonly lastSeedRepair: number;
  readonly verificationRepairs: number;
  readonly windows: Windows;
  readonly pendingRetries: PendingRetry[];
  readonly repairRecords: ActionRecord[];
}

function subjectFacts(replay: Replay, ledger: Ledger): SubjectFacts {
  const { subjects, commits } = replay;
  let seedRepairCount = 0;
  let lastSeedRepair = -1;
  let common = -1;
  const retries = new Map<number, number>();
  /** Rows dispatched (child or repair commit) after their latest retry. */
  const dispatchedSince = new Set<number>();
  const seen = new Set<string>();
  let verificationRepairs = 0;
  let pendingNamed = false;
  const repairRecords: ActionRecord[] = [];
  subjects.forEach((s, i) => {
    const commit = commits[i] as HistoryCommit;
    switch (s.kind) {
      case 'repair-seed':
        seedRepairCount++;
        lastSeedRepair = i;
        break;
      case 'amend':
      case 'cut-row':
        common = i;
        break;
      case 'retry-row':
        retries.set(s.row, i);
        dispatchedSince.delete(s.row);
        break;
      case 'row':
      case 'repair-row':
        dispatchedSince.add(s.row);
        break;
      case 'repair-verification': {
        const { pending: tuple, iteration } = parseRepairBody(commit.body);
        if (tuple !== null && tuple.target === 'verify') {
          const key = `${tuple.repo} ${tuple.head} ${iteration ?? ''}`;
          if (seen.has(key)) return;
          seen.add(key);
          if (samePending(tuple, ledger.pending)) pendingNamed = true;
        }
        verificationRepairs++;
        break;
      }
    }
    if (s.kind === 'repair-row' || s.kind === 'repair-seed' || s.kind === 'repair-verification')
      repairRecords.push(...extractActionRecords(commit.body));
  });
  if (ledger.pending?.target === 'verify' && !pendingNamed) verificationRepairs++;

  const pendingRetries: PendingRetry[] = [];
  for (const [row, index] of [...retries].sort((a, b) => a[1] - b[1])) {
    if (ledger.pending?.target === row || dispatchedSince.has(row)) continue;
    let decision: { line: string; hint: string } | null = null;
    for (const line of ledger.decisions) {
      const parsed = parseDecision(line);
      if (parsed.kind === 'retry' && parsed.row === row) decision = { line, hint: parsed.hint };
    }
    if (decision === null) continue;
    pendingRetries.push({
      row,
      hint: decision.hint,
      decision: decision.line,
      sha: (commits[index] as HistoryCommit).sha,
    });
  }
  return {
    seedRepairCount,
    lastSeedRepair,
    verificationRepairs,
    windows: { common, retries },
    pendingRetries,
    repairRecords,
  };
}

function escalationsSpentOf(ledger: Ledger): number[] {
  const rows = new Set<number>();
  for (const line of ledger.decisions) {
    const decision = parseDecision(line);
    if (decision.kind === 'escalated') rows.add(decision.row);
  }
  return [...rows].sort((a, b) => a - b);
}

function actionSpendOf(ledger: Ledger, repairRecords: readonly ActionRecord[]): ActionSpend[] {
  const records: ActionRecord[] = [];
  for (const line of ledger.decisions) records.push(...extractActionRecords(line));
  for (const cells of ledger.rows) records.push(...extractActionRecords(cells.evidence));
  records.push(...repairRecords);
  return foldActionRecords(records);
}

/**
 * Replays the branch history of a run into the counters of the ordered table, asking for commit
 * ledgers only where they decide something.
 *
 * The generator yields a {@link LedgerRequest} (a commit index) whenever it needs the ledger a
 * commit left, and must be resumed with that ledger (or `null`). Subjects and bodies are read in
 * one pass; the ledger-dependent counters are computed newest first and stop at the first commit
 * that settles them, so the number of ledgers asked for depends on the latest windows, not on the
 * length of the branch. {@link historyFromCommits} drives it from commit facts that already carry
 * their ledgers; a host drives it from `git log` plus a blob reader (src/host/history-facts.ts).
 *
 * @param commits the commits of `<ledger base>..HEAD`, oldest first.
 * @param options the ledger on disk now and its repo-relative path.
 * @returns (as the generator's return value) the {@link LoopHistory}.
 * @throws {InputError} `history.input` when `commits` or `options` do not have the documented shape.
 */
export function* replayHistory(
  commits: readonly HistoryCommit[],
  options: HistoryOptions,
): Generator<LedgerRequest, LoopHistory, Ledger | null> {
  checkCommits(commits, false);
  checkOptions(options);
  return yield* replayChecked(commits, options);
}

function* replayChecked(commits: readonly HistoryCommit[], options: HistoryOptions): Lazy<LoopHistory> {
  const { ledger, ledgerPath } = options;
  const replay = new Replay(commits, ledgerPath, options.facts);
  const facts = subjectFacts(replay, ledger);
  const rows: RowHistory[] = [];
  for (const cells of ledger.rows) rows.push(yield* rowHistory(replay, facts.windows, cells.row));
  const lastSeedRepair = commits[facts.lastSeedRepair];
  return {
    seedRepairCount: facts.seedRepairCount,
    lastSeedRepairReason: lastSeedRepair === undefined ? null : seedRepairReason(lastSeedRepair.body),
    seedSurvival: yield* seedSurvivalOf(replay, ledger),
    verificationRepairs: facts.verificationRepairs,
    rows,
    previousDecision: yield* previousDecisionOf(replay),
    pendingRetries: facts.pendingRetries,
    escalationsSpent: escalationsSpentOf(ledger),
    actionSpend: actionSpendOf(ledger, facts.repairRecords),
    latestAdmission: yield* latestAdmissionOf(replay),
  };
}

/**
 * Replays the branch history of a run into the counters of the ordered table.
 *
 * Commits are read by subject (§2), body (seed repair reasons, verification-marker tuples, action
 * records) and the ledger each commit left. A child commit counts as admitted unless the next
 * loop commit is a validation-miss repair of its dispatch. Commits with unknown subjects are
 * ignored. The caller validates a child commit at HEAD before asking (a resumed dispatch goes
 * through pending recovery first); history reads every commit on the branch as settled.
 *
 * @param commits the commits of `<ledger base>..HEAD` (§6 A21: the ledger's `base:` sha), oldest
 *   first, each with its subject, body, changed paths and parsed ledger.
 * @param options the ledger on disk now and its repo-relative path.
 * @returns the {@link LoopHistory}; one {@link RowHistory} per row of `options.ledger`.
 * @throws {InputError} `history.input` when `commits` or `options` do not have the documented shape.
 */
export function historyFromCommits(commits: readonly CommitFact[], options: HistoryOptions): LoopHistory {
  checkCommits(commits, true);
  checkOptions(options);
  const replay = replayChecked(commits, options);
  let step = replay.next();
  while (!step.done) step = replay.next((commits[step.value] as CommitFact).ledger);
  return step.value;
}

/**
 * {@link replayHistory} driven by an asynchronous ledger reader (a host's blob reader).
 *
 * @param commits the commits of `<ledger base>..HEAD`, oldest first.
 * @param options the ledger on disk now and its repo-relative path.
 * @param ledgerAt the ledger commit `index` left, or `null` (called at most once per index).
 * @returns the {@link LoopHistory}.
 */
export async function historyFromLog(
  commits: readonly HistoryCommit[],
  options: HistoryOptions,
  ledgerAt: (index: number) => Promise<Ledger | null>,
): Promise<LoopHistory> {
  const replay = replayHistory(commits, options);
  let step = replay.next();
  while (!step.done) step = replay.next(await ledgerAt(step.value));
  return step.value;
}

/**
 * The action records of the loop's repair commits (`loop: repair row|seed|verification` bodies),
 * oldest first, duplicates included (§3.19 rule 4 reads them with the ledger's).
 *
 * @param commits commits since the ledger base, oldest first.
 */
export function repairActionRecords(
  commits: readonly Pick<HistoryCommit, 'subject' | 'body'>[],
): ActionRecord[] {
  const records: ActionRecord[] = [];
  for (const commit of commits) {
    const kind = parseSubject(commit.subject).kind;
    if (kind === 'repair-row' || kind === 'repair-seed' || kind === 'repair-verification')
      records.push(...extractActionRecords(commit.body));
  }
  return records;
}
