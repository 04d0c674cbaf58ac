/**
 * "Validate the return" (gauntlet-protocol §3.10) plus the action-spend admission checks of
 * §3.19, as one pure function over facts the host gathered after a child dispatch.
 *
 * The order of the checks is the protocol's: the git boundary first (a failing boundary is an
 * interrupted return and the ledger at HEAD is never looked at), then the commit body's
 * attribution lines (a mismatch is ambiguous attribution, which stops for a human instead of
 * repairing: decision A12), then the subject, headers, table, decisions and action records
 * (each failure is one concrete validation miss that the parent repairs).
 */

import { describeValue } from '../common/describe-value.js';
import { LoopchartError } from '../common/errors.js';
import type { Finding } from '../common/finding.js';
import { hasControlCharacters, neutralizeText } from '../common/terminal-text.js';
import { extractActionRecords } from './action-records.js';
import { readAttribution } from './commits.js';
import { parseDecision } from './decisions.js';
import { evidenceProblem } from './evidence.js';
import { formatPending, samePending } from './ledger.js';
import type { ActionRecord, Ledger, LedgerRow, PendingTuple } from './types.js';

/** What the child process and git said at the end of a dispatch (§3.10 step 1). */
export interface ReturnBoundary {
  /** The child's return status: `DONE`, another status, or `null` when nothing was returned. */
  readonly returned: string | null;
  /** Text of the error when the dispatch itself failed (spawn failure, crash, async handle). */
  readonly dispatchError?: string;
  /** True when the host killed the child after it stayed silent too long. */
  readonly killedAfterSilence?: boolean;
  /** Output of `git status --porcelain` in the worktree after the return. */
  readonly porcelain: string;
  /** Output of `git rev-list HEAD_BEFORE..HEAD --count` after the return. */
  readonly commitCount: number;
}

/** The facts `validateReturn` judges. Everything is data the host read; nothing is fetched here. */
export interface ReturnFacts {
  /** The dispatched target: a row number or `seed`. Validation goes by target, never by iteration. */
  readonly target: number | 'seed';
  /** The pre-bump iteration count `i` sent to the child as `iteration: i`. */
  readonly iteration: number;
  /** The tuple written on disk before the dispatch. */
  readonly pending: PendingTuple;
  /** The ledger saved before the iterations bump and the tuple write. */
  readonly saved: Ledger;
  readonly boundary: ReturnBoundary;
  /** The single new commit's subject and body; required once the boundary passes. */
  readonly commit?: { readonly subject: string; readonly body: string };
  /**
   * The ledger at HEAD, or the findings of parsing it. Read it only after the boundary passed
   * (see {@link checkReturnBoundary}); required once the attribution lines match.
   */
  readonly headLedger?: Ledger | readonly Finding[];
  /**
   * Action records retained for this dispatch from the jobs file and earlier repair commit bodies.
   * Records already written in the saved ledger are carried automatically.
   */
  readonly retainedActionRecords?: readonly ActionRecord[];
}

/** The concrete reason of an interrupted return, in the protocol's words (§3.14 step 4). */
export type InterruptedReason =
  | `dispatch error: ${string}`
  | 'killed after silence'
  | 'non-DONE'
  | 'dirty tree'
  | `${number} commits`;

/** Stable names of the validation misses `validateReturn` reports. */
export type MissCode =
  | 'miss.subject'
  | 'miss.ledger-unreadable'
  | 'miss.tuple-retained'
  | 'miss.header'
  | 'miss.rows'
  | 'miss.seed-table'
  | 'miss.seed-decision'
  | 'miss.target'
  | 'miss.extra'
  | 'miss.evidence'
  | 'miss.decisions'
  | 'miss.decision-missing'
  | 'miss.decision-duplicate'
  | 'miss.decision-malformed'
  | 'miss.decision-unmatched'
  | 'miss.decision-order'
  | 'miss.decision-reused'
  | 'miss.action-record-dropped'
  | 'miss.control-bytes';

/** A row whose cells differ between the saved ledger and the admitted one. */
export interface ChangedRow {
  readonly row: number;
  /** `target` for the dispatched row, `extra` for another row closed beside it, `seeded` for a seed return. */
  readonly role: 'target' | 'extra' | 'seeded';
  readonly before: LedgerRow;
  readonly after: LedgerRow;
}

/** The verdict on one child return. */
export type ReturnOutcome =
  /** The boundary failed: route through interrupted recovery (§3.14); the ledger at HEAD was not read. */
  | { readonly kind: 'interrupted'; readonly target: number | 'seed'; readonly reason: InterruptedReason }
  /**
   * The commit's first two body lines are not the dispatched tuple and consumed iteration: the
   * commit cannot be attributed to this dispatch, so take the recovery-incomplete stop with state
   * preserved (decision A12). `what` goes into the stop header, `detail` says what was found.
   */
  | {
      readonly kind: 'unattributed';
      readonly target: number | 'seed';
      readonly what: 'ambiguous attribution';
      readonly detail: string;
    }
  /**
   * A clean one-commit return that breaks the contract: repair it (seed repair §3.11 or ordinary
   * repair §3.12). `miss` is one human-readable sentence without `;` or `|`, ready for
   * `iteration <i>: <miss>` evidence or a `seed miss: <miss>` body line.
   */
  | {
      readonly kind: 'miss';
      readonly target: number | 'seed';
      readonly code: MissCode;
      readonly miss: string;
    }
  /** The return conforms; `ledger` is the ledger at HEAD, now admitted. */
  | {
      readonly kind: 'admitted';
      readonly target: number | 'seed';
      readonly ledger: Ledger;
      /**
       * The target's new decision line: the seed's `row 0 done | ...` line, or the numbered
       * target's conforming outcome line (the next dispatch's `previous decision:`).
       */
      readonly decision: string;
      /** Rows whose cells changed, target first, then the others in row order. */
      readonly changedRows: readonly ChangedRow[];
      /** True for a numbered target admitted as `failed`: run unreachable routing (§3.13) next. */
      readonly routeUnreachable: boolean;
      /** The consumed count `i + 1` now in the `iterations:` header. */
      readonly consumedIteration: number;
    };

/** Codes of {@link ReturnFactsError}. */
export type ReturnFactsErrorCode =
  | 'return-facts.target'
  | 'return-facts.iteration'
  | 'return-facts.commit-count'
  | 'return-facts.porcelain'
  | 'return-facts.commit-missing'
  | 'return-facts.head-ledger-missing';

/**
 * The facts handed to {@link validateReturn} contradict each other or miss a piece the verdict
 * needs (a host bug, not a child's fault): the target is not the tuple's, the iteration is not the
 * saved count, the commit count is not a count, or the commit / HEAD ledger was not supplied
 * although the boundary passed.
 */
export class ReturnFactsError extends LoopchartError {
  declare readonly code: ReturnFactsErrorCode;

  /**
   * @param code which fact is wrong or missing
   * @param message one sentence naming the fact and what was expected
   */
  constructor(code: ReturnFactsErrorCode, message: string) {
    super(code, message);
  }
}

/**
 * Step 1 of §3.10: the boundary. Returns the interrupted reason, or `null` when the return is
 * DONE, the tree is clean and exactly one commit was made. When several reasons hold, the
 * strongest wins: dispatch error, killed after silence, non-DONE, dirty tree, commit count (A17).
 *
 * @param boundary what the child and git reported
 * @returns the reason to route through interrupted recovery, or `null` when the boundary passes
 * @throws ReturnFactsError when `commitCount` is not a non-negative integer, or `porcelain` is not text
 */
export function checkReturnBoundary(boundary: ReturnBoundary): InterruptedReason | null {
  if (!Number.isInteger(boundary.commitCount) || boundary.commitCount < 0)
    throw new ReturnFactsError(
      'return-facts.commit-count',
      `commit count must be a non-negative integer, got ${describeValue(boundary.commitCount)}`,
    );
  if (typeof boundary.porcelain !== 'string')
    throw new ReturnFactsError(
      'return-facts.porcelain',
      `the worktree status (git status --porcelain output) must be text, got ${describeValue(boundary.porcelain)}`,
    );
  if (boundary.dispatchError !== undefined) {
    const text = oneLine(boundary.dispatchError);
    return `dispatch error: ${text === '' ? 'no error text' : text}`;
  }
  if (boundary.killedAfterSilence === true) return 'killed after silence';
  if (boundary.returned !== 'DONE') return 'non-DONE';
  if (boundary.porcelain.trim() !== '') return 'dirty tree';
  if (boundary.commitCount !== 1) return `${boundary.commitCount} commits`;
  return null;
}

/**
 * The lines of a `git status --porcelain` (v1) text that say something, each kept whole.
 *
 * A v1 line is `XY PATH`: the index's status column, the worktree's status column, a space, the
 * path. A blank first column is meaningful (` M file` is changed but not staged, `M  file` is
 * staged), so no line is trimmed; only lines that are empty or all blanks are dropped.
 *
 * @param porcelain the status text, lines separated by `\n` (a trailing newline is fine)
 * @returns the non-blank lines in order, leading blanks intact (empty when the tree is clean)
 */
export function porcelainLines(porcelain: string): string[] {
  return porcelain.split('\n').filter((line) => line.trim() !== '');
}

/**
 * Validates one child return against the saved pre-dispatch ledger (§3.10, §3.19).
 *
 * @param facts the dispatch, the saved ledger, the boundary observations and, once the boundary
 *   passed, the commit and the ledger at HEAD
 * @returns `interrupted` (boundary failed), `unattributed` (body lines do not attribute the commit
 *   to this dispatch), `miss` (one concrete validation miss) or `admitted`
 * @throws ReturnFactsError when the facts contradict each other or a needed fact is missing
 */
export function validateReturn(facts: ReturnFacts): ReturnOutcome {
  const { target, saved } = facts;
  checkFacts(facts);

  const reason = checkReturnBoundary(facts.boundary);
  if (reason !== null) return { kind: 'interrupted', target, reason };

  if (facts.commit === undefined)
    throw new ReturnFactsError(
      'return-facts.commit-missing',
      'the boundary passed but the commit subject and body were not supplied',
    );
  const consumed = saved.iterations + 1;
  const attribution = checkAttribution(facts.commit.body, facts.pending, consumed);
  if (attribution !== null)
    return { kind: 'unattributed', target, what: 'ambiguous attribution', detail: attribution };

  const miss = (code: MissCode, text: string): ReturnOutcome => ({
    kind: 'miss',
    target,
    code,
    miss: oneLine(text),
  });

  const subjectMiss = checkSubjectForm(facts.commit.subject, target);
  if (subjectMiss !== null) return miss('miss.subject', subjectMiss);

  const head = facts.headLedger;
  if (head === undefined)
    throw new ReturnFactsError(
      'return-facts.head-ledger-missing',
      'the commit is attributed to this dispatch but the ledger at HEAD was not supplied',
    );
  if (isFindings(head)) {
    const first = head[0];
    return miss(
      'miss.ledger-unreadable',
      first === undefined
        ? 'the ledger at HEAD could not be read'
        : first.code === 'ledger.absent'
          ? 'the commit deletes the ledger file'
          : `the ledger at HEAD does not parse: ${first.reason}`,
    );
  }

  const control = controlBytesIn(saved, head);
  if (control !== null) return miss('miss.control-bytes', control);

  const headerMiss = checkHeaders(saved, head, facts.pending, consumed);
  if (headerMiss !== null) return miss(headerMiss.code, headerMiss.text);

  const rowsMiss = checkRowIdentifiers(saved, head);
  if (rowsMiss !== null) return miss('miss.rows', rowsMiss);

  const table = target === 'seed' ? checkSeedTable(saved, head) : checkOrdinaryTable(saved, head, target);
  if (table.kind === 'miss') return miss(table.code, table.text);

  if (target !== 'seed') {
    const status = table.changed[0]?.after.status;
    const expected = `loop: row ${target} ${status}`;
    if (facts.commit.subject !== expected)
      return miss(
        'miss.subject',
        `commit subject is ${shownSubject(facts.commit.subject)}, expected "${expected}"`,
      );
  }

  const dropped = droppedActionRecord(saved, head, facts.retainedActionRecords ?? []);
  if (dropped !== null)
    return miss(
      'miss.action-record-dropped',
      `the return dropped the action record "${dropped}" (repeat carried records verbatim in a decision)`,
    );

  return {
    kind: 'admitted',
    target,
    ledger: head,
    decision: table.decision,
    changedRows: table.changed,
    routeUnreachable: target !== 'seed' && table.changed[0]?.after.status === 'failed',
    consumedIteration: consumed,
  };
}

function checkFacts(facts: ReturnFacts): void {
  if (facts.pending.target !== facts.target)
    throw new ReturnFactsError(
      'return-facts.target',
      `dispatched target ${String(facts.target)} is not the pending tuple's target ${String(facts.pending.target)}`,
    );
  if (facts.iteration !== facts.saved.iterations)
    throw new ReturnFactsError(
      'return-facts.iteration',
      `iteration ${facts.iteration} is not the saved ledger's pre-bump count ${facts.saved.iterations}`,
    );
  if (typeof facts.target === 'number') {
    const row = facts.saved.rows.find((r) => r.row === facts.target);
    if (row === undefined || (row.status !== 'open' && row.status !== 'failed'))
      throw new ReturnFactsError(
        'return-facts.target',
        `target row ${facts.target} is not an open or failed row of the saved ledger`,
      );
  }
}

/** Returns why the body does not attribute the commit, or `null` when its first two lines match. */
function checkAttribution(body: string, pending: PendingTuple, consumed: number): string | null {
  const { pendingLine, iterationLine } = readAttribution(body);
  const tuple = formatPending(pending);
  const iteration = `iteration: ${consumed}`;
  if (pendingLine !== tuple) return `commit body line 1 is "${pendingLine ?? ''}", expected "${tuple}"`;
  if (iterationLine !== iteration)
    return `commit body line 2 is "${iterationLine ?? ''}", expected "${iteration}"`;
  return null;
}

/**
 * Where the returned ledger holds a control byte (NUL, ESC, BEL, other C0, DEL, C1) in a cell or
 * a decision line the return wrote (tab included), or `null`. Such bytes would drive the
 * terminal of whoever reads the ledger; cells the saved ledger already held are not the child's.
 */
function controlBytesIn(saved: Ledger, ledger: Ledger): string | null {
  const before = new Set([...saved.rows.map((row) => row.evidence), ...saved.decisions]);
  const written = (text: string) => !before.has(text) && (hasControlCharacters(text) || text.includes('\t'));
  for (const row of ledger.rows)
    if (written(row.evidence))
      return `row ${row.row}'s evidence holds a control byte: ${neutralizeText(row.evidence, { singleLine: true, maxLength: 120 })}`;
  for (const [index, line] of ledger.decisions.entries())
    if (written(line))
      return `decision line ${index + 1} holds a control byte: ${neutralizeText(line, { singleLine: true, maxLength: 120 })}`;
  return null;
}

/** A subject quoted with its invisible bytes visible (JSON escapes, and `\ufeff` for a BOM). */
function shownSubject(subject: string): string {
  return JSON.stringify(subject).replace(/\ufeff/g, '\\ufeff');
}

/**
 * The subject's form (A18), matched exactly: a leading space, a tab or a byte-order mark is a miss.
 * The status it names is checked against the table later.
 */
function checkSubjectForm(subject: string, target: number | 'seed'): string | null {
  const shown = shownSubject(subject);
  if (target === 'seed')
    return subject === 'loop: seed evidence'
      ? null
      : `commit subject is ${shown}, expected "loop: seed evidence"`;
  const match = /^loop: row (\d+) (done|failed)$/.exec(subject);
  if (match === null || Number(match[1]) !== target)
    return `commit subject is ${shown}, expected "loop: row ${target} done" or "loop: row ${target} failed"`;
  return null;
}

function checkHeaders(
  saved: Ledger,
  head: Ledger,
  pending: PendingTuple,
  consumed: number,
): { code: MissCode; text: string } | null {
  if (head.pending !== null) {
    if (samePending(head.pending, pending))
      return {
        code: 'miss.tuple-retained',
        text: 'the commit kept the dispatched pending line (a child commit must remove it)',
      };
    return { code: 'miss.header', text: 'the commit changed the pending header' };
  }
  if (head.iterations !== consumed)
    return {
      code: 'miss.header',
      text: `header iterations is ${head.iterations}, expected the consumed count ${consumed}`,
    };
  const fixed: [string, string | number, string | number][] = [
    ['allowance', saved.allowance, head.allowance],
    ['base', saved.base, head.base],
    ['verification', saved.verification, head.verification],
    ['checks', saved.checks, head.checks],
    ['Spec', saved.spec, head.spec],
    ['line 1 discriminant', saved.discriminant, head.discriminant],
  ];
  for (const [name, before, after] of fixed)
    if (before !== after)
      return { code: 'miss.header', text: `header ${name} changed from "${before}" to "${after}"` };
  return null;
}

function checkRowIdentifiers(saved: Ledger, head: Ledger): string | null {
  const before = saved.rows.map((r) => r.row);
  const after = head.rows.map((r) => r.row);
  for (const row of before) if (!after.includes(row)) return `row ${row} was removed from the table`;
  for (const row of after) if (!before.includes(row)) return `row ${row} was added to the table`;
  if (before.join(',') !== after.join(',')) return 'the table rows were reordered';
  return null;
}

type TableVerdict =
  | { kind: 'miss'; code: MissCode; text: string }
  | { kind: 'ok'; decision: string; changed: ChangedRow[] };

function sameRow(a: LedgerRow, b: LedgerRow): boolean {
  return a.status === b.status && a.attempts === b.attempts && a.evidence === b.evidence;
}

function rowPairs(saved: Ledger, head: Ledger): { before: LedgerRow; after: LedgerRow }[] {
  return saved.rows.map((before, index) => ({ before, after: head.rows[index] as LedgerRow }));
}

function checkSeedTable(saved: Ledger, head: Ledger): TableVerdict {
  const changed: ChangedRow[] = [];
  let seeded = 0;
  let closed = 0;
  for (const { before, after } of rowPairs(saved, head)) {
    if (sameRow(before, after)) continue;
    const n = before.row;
    if (before.status === 'cut') return seedMiss(`the seed changed cut row ${n}`);
    if (after.status === 'failed') return seedMiss(`the seed marked row ${n} failed`);
    if (after.attempts !== before.attempts)
      return seedMiss(`the seed changed row ${n} attempts from ${before.attempts} to ${after.attempts}`);
    if (before.status !== after.status && !(before.status === 'open' && after.status === 'done'))
      return seedMiss(`the seed moved row ${n} from ${before.status} to ${after.status} (only open to done)`);
    if (before.status === 'done') return seedMiss(`the seed changed done row ${n}`);
    const bound = checkEvidenceBound(after.evidence, n);
    if (bound !== null) return { kind: 'miss', code: 'miss.evidence', text: bound };
    if (after.evidence !== before.evidence) seeded += 1;
    if (before.status === 'open' && after.status === 'done') closed += 1;
    changed.push({ row: n, role: 'seeded', before, after });
  }
  if (seeded === 0) return seedMiss('the seed gave no row evidence');

  const appended = appendedDecisions(saved, head);
  if (appended.kind === 'miss') return appended;
  if (appended.lines.length !== 1)
    return {
      kind: 'miss',
      code: 'miss.seed-decision',
      text: `the seed appended ${appended.lines.length} decision lines, expected exactly one row 0 line`,
    };
  const line = appended.lines[0] as string;
  const decision = parseDecision(line);
  if (decision.kind !== 'seed')
    return {
      kind: 'miss',
      code: 'miss.seed-decision',
      text: 'the new decision is not "row 0 done | seeded K rows, closed M on baseline | first row to take"',
    };
  if (decision.seeded !== seeded)
    return {
      kind: 'miss',
      code: 'miss.seed-decision',
      text: `the seed decision counts ${decision.seeded} rows seeded but this return gave evidence to ${seeded}`,
    };
  if (decision.closed !== closed)
    return {
      kind: 'miss',
      code: 'miss.seed-decision',
      text: `the seed decision counts ${decision.closed} closed on baseline but this return closed ${closed}`,
    };
  return { kind: 'ok', decision: line, changed };
}

function seedMiss(text: string): TableVerdict {
  return { kind: 'miss', code: 'miss.seed-table', text };
}

function checkOrdinaryTable(saved: Ledger, head: Ledger, target: number): TableVerdict {
  const changed: ChangedRow[] = [];
  let targetChange: ChangedRow | null = null;
  for (const { before, after } of rowPairs(saved, head)) {
    const n = before.row;
    if (n === target) {
      if (after.status !== 'done' && after.status !== 'failed')
        return {
          kind: 'miss',
          code: 'miss.target',
          text: `target row ${n} is ${after.status}, expected done or failed`,
        };
      if (after.attempts !== before.attempts + 1)
        return {
          kind: 'miss',
          code: 'miss.target',
          text: `target row ${n} attempts went from ${before.attempts} to ${after.attempts}, expected ${before.attempts + 1}`,
        };
      const bound = checkEvidenceBound(after.evidence, n);
      if (bound !== null) return { kind: 'miss', code: 'miss.evidence', text: bound };
      targetChange = { row: n, role: 'target', before, after };
      continue;
    }
    if (sameRow(before, after)) continue;
    if (before.status === 'cut') return extraMiss(`cut row ${n} changed`);
    if (before.status === 'done') return extraMiss(`done row ${n} changed`);
    if (after.status === 'failed')
      return extraMiss(`row ${n} was marked failed beside target ${target} (only the target may fail)`);
    if (before.status === 'failed')
      return extraMiss(
        `failed row ${n} changed beside target ${target} (only open rows may close as extras)`,
      );
    if (after.attempts !== before.attempts)
      return extraMiss(
        `row ${n} attempts changed from ${before.attempts} to ${after.attempts} (extras keep their attempts)`,
      );
    if (after.status !== 'done')
      return extraMiss(`row ${n} changed without closing (extras may only go from open to done)`);
    const bound = checkEvidenceBound(after.evidence, n);
    if (bound !== null) return { kind: 'miss', code: 'miss.evidence', text: bound };
    changed.push({ row: n, role: 'extra', before, after });
  }
  if (targetChange === null)
    return { kind: 'miss', code: 'miss.target', text: `target row ${target} is missing from the table` };
  changed.unshift(targetChange);

  const appended = appendedDecisions(saved, head);
  if (appended.kind === 'miss') return appended;
  const verdict = matchDecisions(appended.lines, changed, saved.decisions);
  if (verdict !== null) return verdict;
  return { kind: 'ok', decision: appended.lines[0] as string, changed };
}

function extraMiss(text: string): TableVerdict {
  return { kind: 'miss', code: 'miss.extra', text };
}

/**
 * Checks the evidence bound of a changed row (§1.4): nonempty check name plus at most three
 * nonempty result lines, one physical line, pipes escaped, no angle markup; no command format.
 */
function checkEvidenceBound(evidence: string, row: number): string | null {
  const problem = evidenceProblem(evidence);
  return problem === null ? null : `row ${row} ${problem}`;
}

function appendedDecisions(
  saved: Ledger,
  head: Ledger,
): { kind: 'miss'; code: MissCode; text: string } | { kind: 'ok'; lines: string[] } {
  for (let index = 0; index < saved.decisions.length; index += 1) {
    if (head.decisions[index] !== saved.decisions[index])
      return {
        kind: 'miss',
        code: 'miss.decisions',
        text:
          index < head.decisions.length
            ? `prior decision line ${index + 1} was changed`
            : `prior decision line ${index + 1} was removed`,
      };
  }
  return { kind: 'ok', lines: head.decisions.slice(saved.decisions.length) };
}

/** Loose shape used only to name a row in a miss; acceptance uses the exact regex below. */
const ROW_DECISION_HEAD = /^row (\d+) (\S+) \|/;

function matchDecisions(
  lines: readonly string[],
  changed: readonly ChangedRow[],
  prior: readonly string[],
): TableVerdict | null {
  const seen = new Map<number, number>();
  for (const [index, line] of lines.entries()) {
    const position = index + 1;
    const head = ROW_DECISION_HEAD.exec(line);
    if (head === null)
      return {
        kind: 'miss',
        code: 'miss.decision-malformed',
        text: `new decision line ${position} is not a row outcome decision`,
      };
    const row = Number(head[1]);
    const change = changed.find((c) => c.row === row);
    if (change === undefined)
      return {
        kind: 'miss',
        code: 'miss.decision-unmatched',
        text: `new decision line ${position} is for row ${row}, which this return did not change`,
      };
    if (seen.has(row))
      return { kind: 'miss', code: 'miss.decision-duplicate', text: `two new decision lines for row ${row}` };
    seen.set(row, position);
    if (head[2] !== change.after.status)
      return {
        kind: 'miss',
        code: 'miss.decision-unmatched',
        text: `the decision for row ${row} says ${head[2]} but row ${row} is ${change.after.status}`,
      };
    if (!conformingOutcome(line, row, change.after.status))
      return { kind: 'miss', code: 'miss.decision-malformed', text: malformedDetail(line, row, position) };
    if (prior.includes(line))
      return {
        kind: 'miss',
        code: 'miss.decision-reused',
        text: `the decision for row ${row} repeats an earlier line verbatim (an old line is not a new line)`,
      };
  }
  for (const change of changed)
    if (!seen.has(change.row))
      return {
        kind: 'miss',
        code: 'miss.decision-missing',
        text: `no new decision line for changed row ${change.row}`,
      };
  const target = changed[0] as ChangedRow;
  if (seen.get(target.row) !== 1)
    return {
      kind: 'miss',
      code: 'miss.decision-order',
      text: `the first new decision is not the target's (row ${target.row} must come first)`,
    };
  return null;
}

/** The protocol's exact check: `^row <that row> <that status> \| .{1,200} \| .{1,200}$`. */
function conformingOutcome(line: string, row: number, status: string): boolean {
  return new RegExp(`^row ${row} ${status} \\| .{1,200} \\| .{1,200}$`, 'u').test(line);
}

function malformedDetail(line: string, row: number, position: number): string {
  const rest = line.slice(line.indexOf('|') + 1);
  const last = rest.lastIndexOf(' | ');
  if (!rest.startsWith(' ') || last < 0)
    return `new decision line ${position} for row ${row} does not have the form row N STATUS, summary, next cells`;
  const cells = [rest.slice(1, last), rest.slice(last + 3)];
  for (const [index, cell] of cells.entries()) {
    const length = [...cell].length;
    const name = index === 0 ? 'middle' : 'last';
    if (length < 1 || length > 200)
      return `new decision line ${position} for row ${row} is malformed: its ${name} cell has ${length} characters (1 to 200 allowed)`;
  }
  return `new decision line ${position} for row ${row} is malformed`;
}

function droppedActionRecord(saved: Ledger, head: Ledger, retained: readonly ActionRecord[]): string | null {
  const present = new Set(ledgerActionRecords(head).map(recordKey));
  const carried = [...retained, ...ledgerActionRecords(saved)];
  for (const record of carried) if (!present.has(recordKey(record))) return record.text;
  return null;
}

function ledgerActionRecords(ledger: Ledger): ActionRecord[] {
  return [...ledger.rows.map((r) => r.evidence), ...ledger.decisions].flatMap(extractActionRecords);
}

/** Identity of a record: identical copies are one spend, whichever spelling was used (A7). */
function recordKey(record: ActionRecord): string {
  return `${record.kind}\u0000${record.action}\u0000${record.k}\u0000${record.bound}`;
}

function isFindings(value: Ledger | readonly Finding[]): value is readonly Finding[] {
  return Array.isArray(value);
}

/**
 * Collapses text to one line without `;` or `|` (they become `,` and `/`) and without angle
 * markup (`<tag>` becomes `(tag)`), so that it can sit in one evidence segment, a decision cell
 * or a commit body line without changing their structure.
 *
 * @param text any text, possibly multi-line
 * @returns the text on one trimmed line
 */
export function oneLine(text: string): string {
  return text
    .replace(/\s+/g, ' ')
    .replace(/;/g, ',')
    .replace(/\|/g, '/')
    .replace(/<([A-Za-z!/?][^<>]*)>/g, '($1)')
    .trim();
}
