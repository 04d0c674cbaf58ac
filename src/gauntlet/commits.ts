/**
 * Commit subjects and bodies of the loop engine (gauntlet-protocol §2).
 *
 * The loop counts everything from `git log --format=%s <base>..HEAD` and reads attribution and
 * repair history from `git show -s --format=%b`, so subjects have exactly one spelling each and
 * bodies put machine-read lines first. Subjects the protocol leaves open are decided in
 * docs/decisions/formats.md: `loop: escalate row <n>` (§6 A5), `loop: verification changes`
 * (§6 A30) and `loop: verification fix` for the verification-repair child.
 */

import { InputError } from '../common/errors.js';
import { formatActionRecord, parseActionRecord } from './action-records.js';
import { FULL_SHA, formatPending, parsePending } from './ledger.js';
import type { ActionRecord, PendingTuple } from './types.js';

/** A commit subject, interpreted. Row numbers are positive integers. */
export type CommitSubject =
  /** `loop: seed ledger`: the parent's skeleton commit at Entry step 5. */
  | { readonly kind: 'seed-ledger' }
  /** `loop: seed evidence`: an admitted seed child commit. */
  | { readonly kind: 'seed-evidence' }
  /** `loop: row <n> <done|failed>`: an ordinary child commit for target row n. */
  | { readonly kind: 'row'; readonly row: number; readonly status: 'done' | 'failed' }
  /** `loop: repair row <n>`: parent repair after a validation miss or an interrupted dispatch. */
  | { readonly kind: 'repair-row'; readonly row: number }
  /** `loop: repair seed`: parent seed repair; their number is the seed count. */
  | { readonly kind: 'repair-seed' }
  /** `loop: repair verification`: parent marker of one verification repair dispatch. */
  | { readonly kind: 'repair-verification' }
  /** `loop: retry row <n>`: the human chose Retry. */
  | { readonly kind: 'retry-row'; readonly row: number }
  /** `loop: raise allowance`: the human chose `rows +N`. */
  | { readonly kind: 'raise-allowance' }
  /** `loop: cut row <n>`: an approved amendment cut row n (spec and ledger). */
  | { readonly kind: 'cut-row'; readonly row: number }
  /** `loop: amend`: any other approved amendment (spec and ledger). */
  | { readonly kind: 'amend' }
  /**
   * `loop: redraw`: the human redrew the spec; the commit deletes the ledger (and nothing else).
   * The next run seeds a fresh ledger (docs/decisions/amendments.md).
   */
  | { readonly kind: 'redraw' }
  /** `loop: escalate row <n>`: the escalation decision for row n (§6 A5). */
  | { readonly kind: 'escalate-row'; readonly row: number }
  /** `loop: migrate allowance`: legacy `cap:` ledger migrated by an authorized resume. */
  | { readonly kind: 'migrate-allowance' }
  /**
   * `loop: record <repo> row <n>`: a companion leg's admitted return recorded at home; row 0 is a
   * companion's seed (docs/decisions/legs.md L10).
   */
  | { readonly kind: 'record-row'; readonly repo: string; readonly row: number }
  /** `loop: verification changes`: tracked changes the gate set produced during verify (§6 A30). */
  | { readonly kind: 'verification-changes' }
  /** `loop: verification fix`: the verification-repair child's commit. */
  | { readonly kind: 'verification-repair' }
  /** Any other subject, verbatim. */
  | { readonly kind: 'other'; readonly subject: string };

const FIXED: Record<string, CommitSubject> = {
  'loop: seed ledger': { kind: 'seed-ledger' },
  'loop: seed evidence': { kind: 'seed-evidence' },
  'loop: repair seed': { kind: 'repair-seed' },
  'loop: repair verification': { kind: 'repair-verification' },
  'loop: raise allowance': { kind: 'raise-allowance' },
  'loop: amend': { kind: 'amend' },
  'loop: redraw': { kind: 'redraw' },
  'loop: migrate allowance': { kind: 'migrate-allowance' },
  'loop: verification changes': { kind: 'verification-changes' },
  'loop: verification fix': { kind: 'verification-repair' },
};

const ROW_SUBJECT = /^loop: (row|repair row|retry row|cut row|escalate row) ([1-9]\d*)(?: (done|failed))?$/;
/** A companion's seed is recorded as row 0 (legs L10), so the record's row may be 0. */
const RECORD_SUBJECT = /^loop: record ([^\s|]+) row (0|[1-9]\d*)$/;

const ROW_KINDS = {
  'repair row': 'repair-row',
  'retry row': 'retry-row',
  'cut row': 'cut-row',
  'escalate row': 'escalate-row',
} as const;

/**
 * Interprets a commit subject (the `%s` of `git log`). Matching is exact: a subject that differs
 * by case, spacing or a trailing word is `other`.
 *
 * @param subject one subject line.
 * @returns the interpreted subject; never throws.
 */
export function parseSubject(subject: string): CommitSubject {
  const fixed = Object.hasOwn(FIXED, subject) ? FIXED[subject] : undefined;
  if (fixed !== undefined) return fixed;
  const m = ROW_SUBJECT.exec(subject);
  if (m) {
    const row = Number(m[2]);
    const status = m[3] as 'done' | 'failed' | undefined;
    if (Number.isSafeInteger(row)) {
      if (m[1] === 'row' && status !== undefined) return { kind: 'row', row, status };
      if (m[1] !== 'row' && status === undefined)
        return { kind: ROW_KINDS[m[1] as keyof typeof ROW_KINDS], row };
    }
  }
  const r = RECORD_SUBJECT.exec(subject);
  if (r && Number.isSafeInteger(Number(r[2])))
    return { kind: 'record-row', repo: r[1] as string, row: Number(r[2]) };
  return { kind: 'other', subject };
}

function requireRow(row: number): void {
  if (!Number.isSafeInteger(row) || row < 1)
    throw new InputError('commit.invalid', `row must be an integer >= 1, got ${row}`);
}

/**
 * Writes a commit subject.
 *
 * @param subject any interpreted subject; `other` is written verbatim.
 * @returns the subject line.
 * @throws {InputError} `commit.invalid` for a row that is not a positive integer (a record's may
 *   be 0, a companion's seed), a repo that is not one word, or an `other` subject that spans lines.
 */
export function formatSubject(subject: CommitSubject): string {
  switch (subject.kind) {
    case 'seed-ledger':
      return 'loop: seed ledger';
    case 'seed-evidence':
      return 'loop: seed evidence';
    case 'row':
      requireRow(subject.row);
      return `loop: row ${subject.row} ${subject.status}`;
    case 'repair-row':
      requireRow(subject.row);
      return `loop: repair row ${subject.row}`;
    case 'repair-seed':
      return 'loop: repair seed';
    case 'repair-verification':
      return 'loop: repair verification';
    case 'retry-row':
      requireRow(subject.row);
      return `loop: retry row ${subject.row}`;
    case 'raise-allowance':
      return 'loop: raise allowance';
    case 'cut-row':
      requireRow(subject.row);
      return `loop: cut row ${subject.row}`;
    case 'amend':
      return 'loop: amend';
    case 'redraw':
      return 'loop: redraw';
    case 'escalate-row':
      requireRow(subject.row);
      return `loop: escalate row ${subject.row}`;
    case 'migrate-allowance':
      return 'loop: migrate allowance';
    case 'record-row':
      // Row 0 is a companion's seed (legs L10).
      if (subject.row !== 0) requireRow(subject.row);
      if (!/^[^\s|]+$/.test(subject.repo))
        throw new InputError('commit.invalid', `repo "${subject.repo}" must be one word without pipes`);
      return `loop: record ${subject.repo} row ${subject.row}`;
    case 'verification-changes':
      return 'loop: verification changes';
    case 'verification-repair':
      return 'loop: verification fix';
    case 'other':
      if (/[\r\n]/.test(subject.subject)) throw new InputError('commit.invalid', 'a subject is one line');
      return subject.subject;
  }
}

/**
 * True for subjects a dispatched child writes (`loop: seed evidence`, `loop: row <n> <status>`,
 * `loop: verification fix`); every other loop subject is the parent's.
 */
export function isChildSubject(subject: CommitSubject): boolean {
  return subject.kind === 'seed-evidence' || subject.kind === 'row' || subject.kind === 'verification-repair';
}

// ---------------------------------------------------------------------------------------------
// Bodies

function bodyLines(body: string): string[] {
  return body.split('\n').map((line) => (line.endsWith('\r') ? line.slice(0, -1) : line));
}

const ITERATION_LINE = /^iteration: (0|[1-9]\d*)$/;

/**
 * Writes the two attribution lines every dispatched child's commit body starts with (§1.6):
 * the exact `pending:` tuple and `iteration: <i + 1>` (the consumed count).
 *
 * @param pending the tuple written before the dispatch.
 * @param consumedIteration `i + 1`, the bumped `iterations:` header.
 * @returns the two lines joined by `\n` (no trailing newline).
 * @throws {InputError} `pending.invalid` for a bad tuple; `commit.invalid` for a bad count.
 */
export function formatAttribution(pending: PendingTuple, consumedIteration: number): string {
  if (!Number.isSafeInteger(consumedIteration) || consumedIteration < 1)
    throw new InputError(
      'commit.invalid',
      `the consumed iteration must be an integer >= 1, got ${consumedIteration}`,
    );
  return `${formatPending(pending)}\niteration: ${consumedIteration}`;
}

/** The first two lines of a commit body, read as attribution. */
export interface Attribution {
  /** Line 1 verbatim, or `null` when the body is empty. */
  readonly pendingLine: string | null;
  /** Line 2 verbatim, or `null` when the body has one line. */
  readonly iterationLine: string | null;
  /** Line 1 as a tuple, or `null` when it is not exactly the tuple grammar. */
  readonly pending: PendingTuple | null;
  /** Line 2's count, or `null` when it is not exactly `iteration: <n>`. */
  readonly iteration: number | null;
}

/**
 * Reads the two attribution lines of a commit body (the `%b` of `git show -s`). The lines are
 * read exactly, without trimming: the protocol requires the exact tuple line.
 *
 * @param body the commit body.
 * @returns both lines verbatim and, when they parse, the tuple and the count.
 */
export function readAttribution(body: string): Attribution {
  const lines = body === '' ? [] : bodyLines(body);
  const pendingLine = lines[0] ?? null;
  const iterationLine = lines[1] ?? null;
  const pending =
    pendingLine !== null && pendingLine === pendingLine.trim() ? parsePending(pendingLine) : null;
  const m = iterationLine === null ? null : ITERATION_LINE.exec(iterationLine);
  const iteration = m ? Number(m[1]) : null;
  return {
    pendingLine,
    iterationLine,
    pending,
    iteration: iteration !== null && Number.isSafeInteger(iteration) ? iteration : null,
  };
}

/**
 * True when the body's first two lines are exactly the dispatched tuple and consumed iteration.
 *
 * @param body the commit body.
 * @param pending the tuple written before the dispatch.
 * @param consumedIteration `i + 1`.
 */
export function attributionMatches(body: string, pending: PendingTuple, consumedIteration: number): boolean {
  const { pendingLine, iterationLine } = readAttribution(body);
  return pendingLine === formatPending(pending) && iterationLine === `iteration: ${consumedIteration}`;
}

/**
 * Writes a child commit body: the attribution lines, then one action record per line (carried
 * records first, §3.19).
 *
 * @throws {InputError} as {@link formatAttribution} and `formatActionRecord`.
 */
export function formatChildBody(
  pending: PendingTuple,
  consumedIteration: number,
  records: readonly ActionRecord[] = [],
): string {
  return [formatAttribution(pending, consumedIteration), ...records.map(formatActionRecord)].join('\n');
}

/** Why a parent repaired (or what it admitted), as written on the repair body's reason line. */
export type RepairReason =
  /** `seed miss: <concrete miss>`: a seed return failed validation. */
  | { readonly kind: 'seed-miss'; readonly text: string }
  /** `seed interrupted: <reason>`: a seed dispatch was interrupted. */
  | { readonly kind: 'seed-interrupted'; readonly text: string }
  /** `miss: <concrete miss>`: a numbered target's return failed validation. */
  | { readonly kind: 'miss'; readonly text: string }
  /** `interrupted: <reason>`: a numbered target or verification dispatch was interrupted. */
  | { readonly kind: 'interrupted'; readonly text: string }
  /** `admitted: <sha>`: the verification child's commit this marker admits. */
  | { readonly kind: 'admitted'; readonly child: string };

const REASON_LINE = /^(seed miss|seed interrupted|miss|interrupted|admitted): (.+)$/s;

/** Line breaks inside a reason are folded to spaces: the body keeps one reason line. */
function oneLine(text: string): string {
  return text.replace(/\s*[\r\n]+\s*/g, ' ').trim();
}

/**
 * Writes a reason line, e.g. `seed miss: decision counts 3 rows, 2 got evidence` (also the
 * seed redispatch `hint:` text).
 *
 * @throws {InputError} `commit.invalid` for a blank text or a child that is not a full SHA.
 */
export function formatRepairReason(reason: RepairReason): string {
  if (reason.kind === 'admitted') {
    if (!FULL_SHA.test(reason.child))
      throw new InputError('commit.invalid', `admitted child "${reason.child}" is not a full lowercase SHA`);
    return `admitted: ${reason.child}`;
  }
  const text = oneLine(reason.text);
  if (text === '') throw new InputError('commit.invalid', `the ${reason.kind} reason is blank`);
  const label = {
    'seed-miss': 'seed miss',
    'seed-interrupted': 'seed interrupted',
    miss: 'miss',
    interrupted: 'interrupted',
  }[reason.kind];
  return `${label}: ${text}`;
}

/** A parent repair commit body, read. */
export interface RepairBody {
  /** The repaired dispatch's tuple (line 1), when present. */
  readonly pending: PendingTuple | null;
  /** The consumed iteration (line 2), when present. */
  readonly iteration: number | null;
  /** The first reason line, when present. */
  readonly reason: RepairReason | null;
  /** Every action record line, in order (the retained accounting). */
  readonly records: readonly ActionRecord[];
}

/**
 * Writes a parent repair body for `loop: repair row <n>`, `loop: repair seed` or
 * `loop: repair verification`: the tuple and consumed iteration (so markers match their
 * dispatch), the reason line, then every retained action record.
 *
 * @param repair the tuple, consumed iteration, reason and retained records.
 * @returns the body text (no trailing newline).
 * @throws {InputError} as {@link formatAttribution}, {@link formatRepairReason} and
 *   `formatActionRecord`.
 */
export function formatRepairBody(repair: {
  readonly pending: PendingTuple;
  readonly iteration: number;
  readonly reason: RepairReason;
  readonly records?: readonly ActionRecord[];
}): string {
  return [
    formatAttribution(repair.pending, repair.iteration),
    formatRepairReason(repair.reason),
    ...(repair.records ?? []).map(formatActionRecord),
  ].join('\n');
}

/**
 * Reads a parent repair body. Tolerant: lines in any order are recognised by their own grammar,
 * other lines are ignored, so a hand-written `seed miss: ...` body still yields its reason.
 *
 * @param body the commit body.
 * @returns the tuple, iteration, first reason and all action records found.
 */
export function parseRepairBody(body: string): RepairBody {
  let pending: PendingTuple | null = null;
  let iteration: number | null = null;
  let reason: RepairReason | null = null;
  const records: ActionRecord[] = [];
  for (const line of bodyLines(body)) {
    const trimmed = line.trim();
    if (pending === null && trimmed.startsWith('pending:')) {
      pending = parsePending(trimmed);
      continue;
    }
    const it = ITERATION_LINE.exec(trimmed);
    if (it && iteration === null) {
      iteration = Number(it[1]);
      continue;
    }
    const r = REASON_LINE.exec(trimmed);
    if (r) {
      if (reason === null) reason = toReason(r[1] as string, (r[2] as string).trim());
      continue;
    }
    const record = parseActionRecord(trimmed);
    if (record !== null) records.push(record);
  }
  return { pending, iteration, reason, records };
}

function toReason(label: string, text: string): RepairReason | null {
  switch (label) {
    case 'seed miss':
      return { kind: 'seed-miss', text };
    case 'seed interrupted':
      return { kind: 'seed-interrupted', text };
    case 'miss':
      return { kind: 'miss', text };
    case 'interrupted':
      return { kind: 'interrupted', text };
    default:
      return FULL_SHA.test(text) ? { kind: 'admitted', child: text } : null;
  }
}
