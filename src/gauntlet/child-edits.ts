/**
 * The ledger edits a child makes, done for it (docs/agents.md, the child tools): record a row's
 * outcome, seed evidence, account an action spend, and build the commit message. Pure.
 *
 * Every edit starts from the reserved ledger on disk (iterations bumped, the pending tuple in
 * place) and returns the ledger the child commits. Anything the child contract forbids is refused
 * with a {@link ChildEditError} naming the rule, so an agent that calls these tools cannot spend an
 * attempt on a formatting slip: it gets the error before anything is written.
 */
import { InputError } from '../common/errors.js';
import {
  distinctActionRecords,
  extractActionRecords,
  foldActionRecords,
  parseActionRecord,
} from './action-records.js';
import { legRows } from './companion.js';
import { formatOutcomeDecision, formatSeedDecision, MAX_DECISION_CELL } from './decisions.js';
import type { ChildTask } from './dispatch.js';
import { evidenceProblem, splitUnescaped } from './evidence.js';
import type { ActionRecord, Ledger, LedgerRow } from './types.js';

/** Stable codes of {@link ChildEditError}: which rule of the child contract the request breaks. */
export type ChildEditErrorCode =
  /** The tool does not fit the task's kind (e.g. `record` for a seed). */
  | 'child.kind'
  /** The ledger on disk carries no pending tuple, or not this dispatch's (already recorded?). */
  | 'child.pending'
  /** A row number the ledger does not have. */
  | 'child.row'
  /** A row the contract does not let this return change (cut, done, failed extra, the target as extra). */
  | 'child.row-status'
  /** An evidence cell that is not bounded evidence. */
  | 'child.evidence'
  /** A decision cell that is empty, too long, multi-line or would repeat an earlier line. */
  | 'child.decision'
  /** A seed that gives no row evidence, or closes a row it gives no evidence to. */
  | 'child.seed'
  /** An action spend past its bound, with a different bound, or a `ran` without its reservation. */
  | 'child.spend';

/** A child tool request that the child contract forbids. Exit code 2 at the CLI. */
export class ChildEditError extends InputError {
  declare readonly code: ChildEditErrorCode;

  /**
   * @param code the rule broken
   * @param message one sentence naming what was refused and what to do instead
   */
  constructor(code: ChildEditErrorCode, message: string) {
    super(code, message);
  }
}

/** One extra row closed beside the target. */
export interface ExtraClosure {
  readonly row: number;
  /** Evidence cell: `<check>; <result>…`. */
  readonly evidence: string;
}

/** What `loopchart child record` writes for a numbered target. */
export interface RowRecord {
  readonly status: 'done' | 'failed';
  /** The target's evidence cell: `<check>; <result 1>[; <result 2>[; <result 3>]]`. */
  readonly evidence: string;
  /** Middle cell of the decision: what happened (1-200 characters with the carried records). */
  readonly summary: string;
  /** Last cell of the decision: the next step. */
  readonly next: string;
  /** Other open rows closed as done beside the target. */
  readonly extras?: readonly ExtraClosure[];
}

/** What `loopchart child seed` writes. */
export interface SeedRecord {
  /** Row number to evidence cell, for every row the baseline gave evidence to. */
  readonly evidence: ReadonlyMap<number, string>;
  /** Rows among them that already pass on the baseline (closed as done). */
  readonly closeOnBaseline?: readonly number[];
  /** The row to take first, e.g. `row 2`; default: the first open row left, or `none`. */
  readonly firstRow?: string;
}

/**
 * Escapes the pipes of an evidence cell that are not escaped yet, so `a | b` becomes `a \| b`
 * while `a \| b` stays as it is.
 *
 * @param cell evidence text as the child typed it
 */
export function escapeLonePipes(cell: string): string {
  return splitUnescaped(cell.trim(), '|').join('\\|');
}

function requireEvidence(cell: string, row: number): string {
  const escaped = escapeLonePipes(cell);
  const problem = evidenceProblem(escaped);
  if (problem !== null)
    throw new ChildEditError(
      'child.evidence',
      `row ${row} ${problem}; write "<check>; <result 1>[; <result 2>[; <result 3>]]"`,
    );
  return escaped;
}

function requirePending(reserved: Ledger, task: Pick<ChildTask, 'target' | 'commitBody'>): void {
  const pending = reserved.pending;
  if (pending === null)
    throw new ChildEditError(
      'child.pending',
      'the ledger on disk has no pending line: this dispatch was already recorded (reset the ledger file with `git checkout -- <ledger>` only if you made that edit by hand and want to redo it)',
    );
  if (pending.target !== task.target)
    throw new ChildEditError(
      'child.pending',
      `the ledger's pending line is for target ${String(pending.target)}, but the task is for ${String(task.target)}`,
    );
}

function rowOf(ledger: Ledger, row: number): LedgerRow {
  const found = ledger.rows.find((candidate) => candidate.row === row);
  if (found === undefined)
    throw new ChildEditError(
      'child.row',
      `the ledger has no row ${row} (rows: ${ledger.rows.map((r) => r.row).join(', ')})`,
    );
  return found;
}

function withRows(ledger: Ledger, changes: ReadonlyMap<number, Partial<LedgerRow>>): Ledger {
  return { ...ledger, rows: ledger.rows.map((row) => ({ ...row, ...(changes.get(row.row) ?? {}) })) };
}

function recordKey(record: ActionRecord): string {
  return `${record.kind}\u0000${record.action}\u0000${record.k}\u0000${record.bound}`;
}

/**
 * The records of `records` that `ledger` does not carry yet (in its evidence cells or decisions),
 * once each, in the parenthesised spelling: what the return must still write so that no record is
 * dropped (§3.19).
 *
 * @param records carried records (the task's) and records spent in this dispatch (the jobs file's)
 * @param ledger the ledger about to be committed
 */
export function recordsToRepeat(records: readonly string[], ledger: Ledger): string[] {
  const present = new Set(
    [...ledger.rows.map((r) => r.evidence), ...ledger.decisions].flatMap(extractActionRecords).map(recordKey),
  );
  const parsed = records.map(parseActionRecord).filter((r): r is ActionRecord => r !== null);
  return distinctActionRecords(parsed)
    .filter((record) => !present.has(recordKey(record)))
    .map((record) =>
      record.kind === 'ran'
        ? `ran ${record.action} (${record.k} of ${record.bound})`
        : `bound spent: ${record.action} (${record.k} of ${record.bound})`,
    );
}

function cell(text: string, what: string): string {
  const trimmed = text.trim().replace(/\s+/g, ' ');
  const length = [...trimmed].length;
  if (length < 1 || length > MAX_DECISION_CELL)
    throw new ChildEditError(
      'child.decision',
      `the ${what} must have 1-${MAX_DECISION_CELL} characters, got ${length}`,
    );
  if (trimmed.includes(' | '))
    throw new ChildEditError(
      'child.decision',
      `the ${what} must not contain " | " (it separates decision cells)`,
    );
  return trimmed;
}

/**
 * Records the outcome of a numbered target on the reserved ledger: the target's status, attempts
 * +1 and evidence; extras closed as done with unchanged attempts; one decision line per changed
 * row, target first, with every carried or spent action record repeated as a sentence before the
 * child's own words; the pending line removed. Headers and earlier decisions are untouched.
 *
 * @param reserved the ledger on disk (bumped, with this dispatch's pending tuple)
 * @param task the task (its target, commit body and carried action records)
 * @param outcome status, evidence, decision cells and extras
 * @param spent action records this dispatch wrote to the jobs file
 * @returns the ledger to commit
 * @throws ChildEditError for anything the contract forbids
 */
export function recordRowOutcome(
  reserved: Ledger,
  task: Pick<ChildTask, 'kind' | 'target' | 'commitBody' | 'actionRecords'>,
  outcome: RowRecord,
  spent: readonly string[] = [],
): Ledger {
  if (task.kind !== 'row' || typeof task.target !== 'number')
    throw new ChildEditError(
      'child.kind',
      task.kind === 'seed'
        ? 'this dispatch is the seed: use `loopchart child seed`, not `child record`'
        : 'this dispatch is a verification repair: fix the code and commit; never record a row',
    );
  requirePending(reserved, task);
  const target = task.target;
  const row = rowOf(reserved, target);
  if (row.status !== 'open' && row.status !== 'failed')
    throw new ChildEditError(
      'child.row-status',
      `target row ${target} is ${row.status}; it cannot be recorded`,
    );
  const changes = new Map<number, Partial<LedgerRow>>([
    [
      target,
      {
        status: outcome.status,
        attempts: row.attempts + 1,
        evidence: requireEvidence(outcome.evidence, target),
      },
    ],
  ]);
  const next = cell(outcome.next, 'next step');
  const extraLines: string[] = [];
  for (const extra of outcome.extras ?? []) {
    if (extra.row === target)
      throw new ChildEditError('child.row-status', `row ${target} is the target; it cannot also be an extra`);
    if (changes.has(extra.row))
      throw new ChildEditError('child.row-status', `row ${extra.row} is given twice as an extra`);
    const other = rowOf(reserved, extra.row);
    if (other.status !== 'open')
      throw new ChildEditError(
        'child.row-status',
        `row ${extra.row} is ${other.status}: only open rows may close beside the target (never fail an extra, never touch done or cut rows)`,
      );
    changes.set(extra.row, { status: 'done', evidence: requireEvidence(extra.evidence, extra.row) });
    extraLines.push(
      formatOutcomeDecision(extra.row, 'done', cell(`closed beside row ${target}`, 'summary'), next),
    );
  }
  const edited = withRows({ ...reserved, pending: null }, changes);
  const repeated = recordsToRepeat([...task.actionRecords, ...spent], edited);
  const ownWords = cell(outcome.summary, 'summary');
  const summary = cell(
    [...repeated.map((r) => `${r}.`), ownWords].join(' '),
    'summary with the carried action records',
  );
  const decision = formatOutcomeDecision(target, outcome.status, summary, next);
  const lines = [decision, ...extraLines];
  for (const line of lines)
    if (reserved.decisions.includes(line))
      throw new ChildEditError(
        'child.decision',
        `the decision "${line}" repeats an earlier line verbatim; say what happened in this attempt`,
      );
  return { ...edited, decisions: [...reserved.decisions, ...lines] };
}

/**
 * Records a seed return on the reserved ledger: evidence for the given rows (open rows only), the
 * baseline closures as done, attempts unchanged, the one `row 0 done | seeded <k> rows, closed <m>
 * on baseline | <first row>` line with the counts computed (the first row, unless given: the first
 * open row left of the seed's leg), carried and spent action records appended to the first seeded
 * row's evidence (within the three-result bound), the pending line removed; on a coordinated run's
 * home leg also `seeded <member>: yes`.
 *
 * @param reserved the ledger on disk (bumped, with the seed's pending tuple)
 * @param task the task
 * @param seed the evidence per row, the baseline closures and the first row to take
 * @param spent action records this dispatch wrote to the jobs file
 * @returns the ledger to commit
 * @throws ChildEditError for anything the seed contract forbids
 */
export function recordSeed(
  reserved: Ledger,
  task: Pick<ChildTask, 'kind' | 'target' | 'commitBody' | 'actionRecords' | 'leg'>,
  seed: SeedRecord,
  spent: readonly string[] = [],
): Ledger {
  if (task.kind !== 'seed')
    throw new ChildEditError(
      'child.kind',
      task.kind === 'row'
        ? `this dispatch is row ${String(task.target)}: use \`loopchart child record\`, not \`child seed\``
        : 'this dispatch is a verification repair: fix the code and commit; never seed',
    );
  requirePending(reserved, task);
  if (seed.evidence.size === 0)
    throw new ChildEditError('child.seed', 'a seed gives evidence to at least one row');
  const close = new Set(seed.closeOnBaseline ?? []);
  for (const row of close)
    if (!seed.evidence.has(row))
      throw new ChildEditError('child.seed', `row ${row} is closed on the baseline but has no evidence`);
  const rows = [...seed.evidence.keys()].sort((a, b) => a - b);
  const changes = new Map<number, Partial<LedgerRow>>();
  for (const n of rows) {
    const row = rowOf(reserved, n);
    if (row.status !== 'open')
      throw new ChildEditError(
        'child.row-status',
        `row ${n} is ${row.status}: the seed gives evidence to open rows only (never fail a row, never touch cut or done rows)`,
      );
    const evidence = requireEvidence(seed.evidence.get(n) as string, n);
    if (evidence === row.evidence)
      throw new ChildEditError(
        'child.seed',
        `row ${n} already has this evidence; the seed counts rows whose evidence changes`,
      );
    changes.set(n, { evidence, ...(close.has(n) ? { status: 'done' as const } : {}) });
  }
  let edited = withRows({ ...reserved, pending: null }, changes);
  const repeated = recordsToRepeat([...task.actionRecords, ...spent], edited);
  const first = rows[0] as number;
  if (repeated.length > 0) {
    const withRecords = [changes.get(first)?.evidence as string, ...repeated].join('; ');
    const problem = evidenceProblem(withRecords);
    if (problem !== null)
      throw new ChildEditError(
        'child.evidence',
        `row ${first} must also carry the action records ${repeated.join(', ')} and then ${problem}; give it fewer result lines`,
      );
    edited = withRows(edited, new Map([[first, { evidence: withRecords }]]));
  }
  // The first row to take is the leg's own: a coordinated seed names its leg's first open row
  // (`## Leg mapping`, docs/decisions/legs.md L24), never another leg's.
  const left = seedLegRows(edited, task).find((row) => row.status === 'open' && !close.has(row.row));
  const firstRow = cell(
    seed.firstRow ?? (left === undefined ? 'none' : `row ${left.row}`),
    'first row to take',
  );
  const decision = formatSeedDecision(rows.length, close.size, firstRow);
  // A coordinated home leg's seed sets its own `seeded <member>: yes` (docs/decisions/legs.md L9);
  // a companion's is set by the loop's record commit.
  const leg = task.leg;
  const legs =
    leg === undefined || leg.companion || edited.legs === undefined
      ? edited.legs
      : {
          ...edited.legs,
          members: edited.legs.members.map((m) => (m.name === leg.member ? { ...m, seeded: true } : m)),
        };
  return { ...edited, ...(legs === undefined ? {} : { legs }), decisions: [...reserved.decisions, decision] };
}

/** The rows a seed of `task` concerns: its leg's on a coordinated run, else every row. */
function seedLegRows(ledger: Ledger, task: Pick<ChildTask, 'leg'>): readonly LedgerRow[] {
  return task.leg === undefined || ledger.legs === undefined ? ledger.rows : legRows(ledger, task.leg.member);
}

/** The single commit a child makes. */
export interface ChildCommitMessage {
  readonly subject: string;
  /** The task's two `commitBody` lines, then every action record, one a line. */
  readonly body: string;
}

/**
 * The commit message for the ledger about to be committed: the subject the loop expects (for a
 * row, the target's status as recorded), the body starting with the task's two `commitBody`
 * lines, then the carried and spent action records.
 *
 * @param task the task
 * @param ledger the ledger about to be committed
 * @param spent records this dispatch wrote to the jobs file
 * @throws ChildEditError (`child.pending`) for a row whose outcome was not recorded yet
 */
export function childCommitMessage(
  task: Pick<ChildTask, 'kind' | 'target' | 'commitBody' | 'actionRecords'>,
  ledger: Ledger,
  spent: readonly string[] = [],
): ChildCommitMessage {
  let subject: string;
  if (task.kind === 'seed') subject = 'loop: seed evidence';
  else if (task.kind === 'verify') subject = 'loop: verification fix';
  else {
    const row = ledger.rows.find((r) => r.row === task.target);
    if (ledger.pending !== null || row === undefined || (row.status !== 'done' && row.status !== 'failed'))
      throw new ChildEditError(
        'child.pending',
        `row ${String(task.target)} is not recorded yet: run \`loopchart child record\` first`,
      );
    subject = `loop: row ${row.row} ${row.status}`;
  }
  const records = distinctActionRecords(
    [...task.actionRecords, ...spent].map(parseActionRecord).filter((r): r is ActionRecord => r !== null),
  ).map((r) => r.text);
  return { subject, body: [...task.commitBody, ...records].join('\n') };
}

/** The three spend steps of `loopchart child spend`. */
export type SpendStep = 'reserve' | 'ran' | 'spent';

/**
 * The action-record line one spend step writes to the jobs file (§3.19): `reserve` writes
 * `ran <action> (<k+1> of <bound>)` before the action launches, `ran` repeats that line once it
 * ran, `spent` writes `bound spent: <action> (<k> of <bound>)` when the bound is reached and the
 * row needs more.
 *
 * @param records every record so far: the task's carried records and the jobs file's lines
 * @param step the step
 * @param action the action's name (one line, no parentheses, pipes or semicolons)
 * @param bound the action's bound
 * @throws ChildEditError (`child.spend`) for a spend past the bound, a changed bound, a `ran`
 *   without a reservation, or `spent` before the bound is reached
 */
export function spendLine(
  records: readonly string[],
  step: SpendStep,
  action: string,
  bound: number,
): string {
  const name = action.trim();
  if (name === '' || /[()\r\n;|]/.test(name))
    throw new ChildEditError('child.spend', `action name "${action}" must be one line without ( ) | or ;`);
  if (!Number.isSafeInteger(bound) || bound < 1)
    throw new ChildEditError('child.spend', `the bound must be a whole number >= 1, got ${bound}`);
  const parsed = records.map(parseActionRecord).filter((r): r is ActionRecord => r !== null);
  const spend = foldActionRecords(parsed).find((s) => s.action === name);
  const k = spend?.k ?? 0;
  if (spend !== undefined && spend.bound !== bound)
    throw new ChildEditError(
      'child.spend',
      `${name} was recorded with bound ${spend.bound}; only an approved amendment changes a bound`,
    );
  if (step === 'reserve') {
    if (spend?.spent === true || k >= bound)
      throw new ChildEditError(
        'child.spend',
        `${name} has spent its bound (${k} of ${bound}): do not run it again; record \`child spend spent ${name} --bound ${bound}\` and fail the row with "bound spent:" as its first result`,
      );
    return `ran ${name} (${k + 1} of ${bound})`;
  }
  if (step === 'ran') {
    if (k === 0)
      throw new ChildEditError(
        'child.spend',
        `${name} has no reservation: run \`child spend reserve\` before launching it`,
      );
    return `ran ${name} (${k} of ${bound})`;
  }
  if (k < bound)
    throw new ChildEditError(
      'child.spend',
      `${name} has ${k} of ${bound} spends recorded; its bound is not spent`,
    );
  return `bound spent: ${name} (${k} of ${bound})`;
}
