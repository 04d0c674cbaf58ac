/**
 * The history replay as it was before it became lazy: a forward pass over every commit with its
 * ledger, kept only as a test reference. The property test in history-equivalence.test.ts checks
 * that the lazy replay in src/gauntlet/history.ts answers exactly what this one answers.
 */

import {
  type ActionSpend,
  extractActionRecords,
  foldActionRecords,
} from '../../src/gauntlet/action-records.js';
import { type CommitSubject, parseRepairBody, parseSubject } from '../../src/gauntlet/commits.js';
import { parseDecision } from '../../src/gauntlet/decisions.js';
import { splitEvidence, unescapeEvidence } from '../../src/gauntlet/evidence.js';
import type {
  AdmittedReturn,
  CommitRef,
  HistoryOptions,
  LoopHistory,
  PendingRetry,
  RowHistory,
  SeedSurvival,
} from '../../src/gauntlet/history.js';
import { samePending } from '../../src/gauntlet/ledger.js';
import type { ActionRecord, CommitFact, Ledger } from '../../src/gauntlet/types.js';

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
  if (step.subject.kind === 'seed-evidence' || (step.subject.kind === 'record-row' && step.subject.row === 0))
    return added.find((line) => parseDecision(line).kind === 'seed') ?? null;
  if (step.subject.kind !== 'row' && step.subject.kind !== 'record-row') return null;
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
  for (const step of steps) {
    const s = step.subject;
    if ((s.kind === 'row' && !rejected[step.index]) || (s.kind === 'record-row' && s.row > 0)) latest = step;
  }
  if (latest === null || (latest.subject.kind !== 'row' && latest.subject.kind !== 'record-row')) return null;
  const row = latest.subject.row;
  const cells = latest.fact.ledger?.rows.find((candidate) => candidate.row === row);
  // A companion record names no status: an unreadable ledger leaves it failed with no evidence.
  const named = latest.subject.kind === 'row' ? latest.subject.status : 'failed';
  const admittedStatus = cells?.status === 'done' || cells?.status === 'failed' ? cells.status : named;
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

export function referenceHistory(commits: readonly CommitFact[], options: HistoryOptions): LoopHistory {
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
