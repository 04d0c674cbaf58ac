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
  /** The child's `loop: row <n> <status>` commit. */
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
  /** The latest admitted ordinary child return, answered or not (§3.13, scenario U7). */
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

/** What a parent repair commit says about the dispatch it repaired. */
type RepairKind =
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
function rowRepairKind(fact: CommitFact, row: number): RepairKind {
  const cells = fact.ledger?.rows.find((candidate) => candidate.row === row);
  const head = cells === undefined ? undefined : splitEvidence(cells.evidence)[0];
  if (head !== undefined) {
    const m = ITERATION_EVIDENCE.exec(unescapeEvidence(head));
    if (m) {
      const rest = (m[2] as string).trim();
      if (INTERRUPTED.test(rest)) return { kind: 'interrupted' };
      if (rest !== '') return { kind: 'miss', miss: rest };
    }
  }
  const reason = parseRepairBody(fact.body).reason;
  if (reason?.kind === 'interrupted') return { kind: 'interrupted' };
  if (reason?.kind === 'miss') return { kind: 'miss', miss: reason.text };
  return { kind: 'unknown' };
}

/** The `seed miss: …` / `seed interrupted: …` line of a `loop: repair seed` body. */
function seedRepairReason(fact: CommitFact): string | null {
  const reason = parseRepairBody(fact.body).reason;
  if (reason?.kind === 'seed-miss') return `seed miss: ${reason.text}`;
  if (reason?.kind === 'seed-interrupted') return `seed interrupted: ${reason.text}`;
  return null;
}

function seedRepairKind(fact: CommitFact): RepairKind {
  const reason = seedRepairReason(fact);
  if (reason === null) return { kind: 'unknown' };
  return reason.startsWith('seed miss: ') ? { kind: 'miss', miss: reason } : { kind: 'interrupted' };
}

function normalizePath(path: string): string {
  return path.replace(/\\/g, '/').replace(/^(\.\/)+/, '');
}

/** Decision lines present in `after` but not in `before`, counting repeated lines as a multiset. */
function newDecisionLines(before: Ledger | null, after: Ledger): string[] {
  const remaining = new Map<string, number>();
  for (const line of before?.decisions ?? []) remaining.set(line, (remaining.get(line) ?? 0) + 1);
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

interface Step {
  readonly index: number;
  readonly fact: CommitFact;
  readonly subject: CommitSubject;
  /** The ledger of the nearest earlier commit that has one. */
  readonly before: Ledger | null;
  /** For repair commits: what the repair says about its dispatch. */
  readonly repair: RepairKind | null;
}

function refOf(fact: CommitFact): CommitRef {
  return { sha: fact.sha, subject: fact.subject };
}

function checkInput(commits: readonly CommitFact[], options: HistoryOptions): void {
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
        `commit ${index + 1} is not a commit fact (sha, subject, body, paths, ledger)`,
      );
  });
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

function stepsOf(commits: readonly CommitFact[]): Step[] {
  const steps: Step[] = [];
  let latestLedger: Ledger | null = null;
  commits.forEach((fact, index) => {
    const subject = parseSubject(fact.subject);
    let repair: RepairKind | null = null;
    if (subject.kind === 'repair-row') repair = rowRepairKind(fact, subject.row);
    else if (subject.kind === 'repair-seed') repair = seedRepairKind(fact);
    steps.push({ index, fact, subject, before: latestLedger, repair });
    if (fact.ledger !== null) latestLedger = fact.ledger;
  });
  return steps;
}

/**
 * True when a child commit was rejected: the next loop commit after it is a validation-miss
 * repair (row or seed) of the dispatch that produced it. A rejected child commit stays on the
 * branch (only its ledger is restored); an interrupted return's commits are reset away, so an
 * interrupted repair never rejects an earlier commit. A repair whose body names a dispatch tuple
 * made on top of this commit belongs to a later dispatch, so it does not reject it either.
 */
function isRejected(steps: readonly Step[], index: number): boolean {
  const child = steps[index] as Step;
  for (const step of steps.slice(index + 1)) {
    if (step.subject.kind === 'other') continue;
    if (step.repair?.kind !== 'miss') return false;
    return parseRepairBody(step.fact.body).pending?.head !== child.fact.sha;
  }
  return false;
}

function isChild(step: Step): boolean {
  return step.subject.kind === 'row' || step.subject.kind === 'seed-evidence';
}

/** The index of the step that opens `row`'s windows, or -1 for the ledger base. */
function windowStartIndex(steps: readonly Step[], row: number): number {
  let start = -1;
  for (const step of steps) {
    const s = step.subject;
    if (s.kind === 'amend' || s.kind === 'cut-row' || (s.kind === 'retry-row' && s.row === row))
      start = step.index;
  }
  return start;
}

function isEmptyChildCommit(step: Step, ledgerPath: string): boolean {
  const own = normalizePath(ledgerPath);
  if (step.fact.paths.some((path) => normalizePath(path) !== own)) return false;
  // Without both ledgers the status change cannot be proven absent: count it as progress.
  if (step.fact.ledger === null || step.before === null) return false;
  return !anyRowStatusChanged(step.before, step.fact.ledger);
}

function rowHistory(
  steps: readonly Step[],
  rejected: readonly boolean[],
  row: number,
  ledgerPath: string,
): RowHistory {
  const start = windowStartIndex(steps, row);
  const inWindow = steps.slice(start + 1);

  let emptyChildStreak = 0;
  for (const step of inWindow) {
    if (step.subject.kind !== 'row' || step.subject.row !== row) continue;
    emptyChildStreak = isEmptyChildCommit(step, ledgerPath) ? emptyChildStreak + 1 : 0;
  }

  let validationMissStreak = 0;
  let lastConcreteMiss: string | null = null;
  for (const step of inWindow) {
    const s = step.subject;
    if (s.kind === 'repair-row' && s.row === row && step.repair?.kind === 'miss') {
      validationMissStreak++;
      lastConcreteMiss = step.repair.miss;
    } else if (s.kind === 'row' && s.row === row && !rejected[step.index]) {
      validationMissStreak = 0;
    } else if (s.kind === 'seed-evidence' && !rejected[step.index]) {
      validationMissStreak = 0;
    }
  }

  const startStep = start >= 0 ? steps[start] : undefined;
  return {
    row,
    windowStart: startStep === undefined ? null : refOf(startStep.fact),
    emptyChildStreak,
    validationMissStreak,
    lastConcreteMiss,
  };
}

function seedSurvivalOf(
  steps: readonly Step[],
  rejected: readonly boolean[],
  ledger: Ledger,
): SeedSurvival | null {
  const now = new Set(ledger.decisions);
  let survival: SeedSurvival | null = null;
  for (const step of steps) {
    if (step.subject.kind !== 'seed-evidence' || rejected[step.index] || step.fact.ledger === null) continue;
    const decision = newDecisionLines(step.before, step.fact.ledger).find(
      (line) => parseDecision(line).kind === 'seed' && now.has(line),
    );
    if (decision !== undefined) survival = { sha: step.fact.sha, decision };
  }
  return survival;
}

function verificationRepairsOf(steps: readonly Step[], ledger: Ledger): number {
  const seen = new Set<string>();
  let count = 0;
  let pendingNamed = false;
  for (const step of steps) {
    if (step.subject.kind !== 'repair-verification') continue;
    const { pending: tuple, iteration } = parseRepairBody(step.fact.body);
    if (tuple !== null && tuple.target === 'verify') {
      const key = `${tuple.repo} ${tuple.head} ${iteration ?? ''}`;
      if (seen.has(key)) continue;
      seen.add(key);
      if (samePending(tuple, ledger.pending)) pendingNamed = true;
    }
    count++;
  }
  if (ledger.pending?.target === 'verify' && !pendingNamed) count++;
  return count;
}

/** The target's decision line added by an admitted child commit. */
function targetDecisionOf(step: Step): string | null {
  if (step.fact.ledger === null) return null;
  const added = newDecisionLines(step.before, step.fact.ledger);
  if (step.subject.kind === 'seed-evidence')
    return added.find((line) => parseDecision(line).kind === 'seed') ?? null;
  if (step.subject.kind !== 'row') return null;
  const row = step.subject.row;
  return (
    added.find((line) => {
      const decision = parseDecision(line);
      return decision.kind === 'outcome' && decision.row === row;
    }) ?? null
  );
}

function previousDecisionOf(steps: readonly Step[], rejected: readonly boolean[]): string | null {
  let previous: string | null = null;
  for (const step of steps) {
    if (isChild(step) && !rejected[step.index]) previous = targetDecisionOf(step);
    else if (step.subject.kind === 'repair-row' && step.repair?.kind === 'miss') previous = null;
  }
  return previous;
}

function isAnswer(subject: CommitSubject): boolean {
  const kind = subject.kind;
  return kind === 'retry-row' || kind === 'raise-allowance' || kind === 'cut-row' || kind === 'amend';
}

function latestAdmissionOf(steps: readonly Step[], rejected: readonly boolean[]): AdmittedReturn | null {
  let latest: Step | null = null;
  for (const step of steps) if (step.subject.kind === 'row' && !rejected[step.index]) latest = step;
  if (latest === null || latest.subject.kind !== 'row') return null;
  const row = latest.subject.row;
  const cells = latest.fact.ledger?.rows.find((candidate) => candidate.row === row);
  const admittedStatus =
    cells?.status === 'done' || cells?.status === 'failed' ? cells.status : latest.subject.status;
  const answer = steps.slice(latest.index + 1).find((step) => isAnswer(step.subject));
  return {
    row,
    sha: latest.fact.sha,
    status: admittedStatus,
    evidence: cells?.evidence ?? null,
    decision: targetDecisionOf(latest),
    answeredBy: answer === undefined ? null : refOf(answer.fact),
  };
}

function pendingRetriesOf(steps: readonly Step[], ledger: Ledger): PendingRetry[] {
  const latestRetry = new Map<number, Step>();
  for (const step of steps) if (step.subject.kind === 'retry-row') latestRetry.set(step.subject.row, step);
  const pending: PendingRetry[] = [];
  for (const [row, retry] of latestRetry) {
    const dispatchedSince =
      ledger.pending?.target === row ||
      steps
        .slice(retry.index + 1)
        .some(
          (step) =>
            (step.subject.kind === 'row' || step.subject.kind === 'repair-row') && step.subject.row === row,
        );
    if (dispatchedSince) continue;
    let decision: { line: string; hint: string } | null = null;
    for (const line of ledger.decisions) {
      const parsed = parseDecision(line);
      if (parsed.kind === 'retry' && parsed.row === row) decision = { line, hint: parsed.hint };
    }
    if (decision === null) continue;
    pending.push({ row, hint: decision.hint, decision: decision.line, sha: retry.fact.sha });
  }
  return pending.sort((a, b) => indexOfSha(steps, a.sha) - indexOfSha(steps, b.sha));
}

function indexOfSha(steps: readonly Step[], sha: string): number {
  return steps.findIndex((step) => step.fact.sha === sha);
}

function escalationsSpentOf(ledger: Ledger): number[] {
  const rows = new Set<number>();
  for (const line of ledger.decisions) {
    const decision = parseDecision(line);
    if (decision.kind === 'escalated') rows.add(decision.row);
  }
  return [...rows].sort((a, b) => a - b);
}

function actionSpendOf(steps: readonly Step[], ledger: Ledger): ActionSpend[] {
  const records: ActionRecord[] = [];
  for (const line of ledger.decisions) records.push(...extractActionRecords(line));
  for (const cells of ledger.rows) records.push(...extractActionRecords(cells.evidence));
  for (const step of steps) {
    const kind = step.subject.kind;
    if (kind === 'repair-row' || kind === 'repair-seed' || kind === 'repair-verification')
      records.push(...extractActionRecords(step.fact.body));
  }
  return foldActionRecords(records);
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
  checkInput(commits, options);
  const { ledger, ledgerPath } = options;
  const steps = stepsOf(commits);
  const rejected = steps.map((step) => isChild(step) && isRejected(steps, step.index));

  const seedRepairs = steps.filter((step) => step.subject.kind === 'repair-seed');
  const lastSeedRepair = seedRepairs.at(-1);

  return {
    seedRepairCount: seedRepairs.length,
    lastSeedRepairReason: lastSeedRepair === undefined ? null : seedRepairReason(lastSeedRepair.fact),
    seedSurvival: seedSurvivalOf(steps, rejected, ledger),
    verificationRepairs: verificationRepairsOf(steps, ledger),
    rows: ledger.rows.map((cells) => rowHistory(steps, rejected, cells.row, ledgerPath)),
    previousDecision: previousDecisionOf(steps, rejected),
    pendingRetries: pendingRetriesOf(steps, ledger),
    escalationsSpent: escalationsSpentOf(ledger),
    actionSpend: actionSpendOf(steps, ledger),
    latestAdmission: latestAdmissionOf(steps, rejected),
  };
}
