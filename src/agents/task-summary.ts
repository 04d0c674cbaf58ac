/**
 * A child task in plain words (`loopchart child show`, and the task section of every child
 * prompt). Pure: the caller reads the task, the ledger on disk and the spec.
 */
import { legRows } from '../gauntlet/companion.js';
import { type ChildTask, taskFilePath } from '../gauntlet/dispatch.js';
import { criterionOfRow } from '../gauntlet/leg-amendments.js';
import type { Ledger, LedgerRow, SpecRow } from '../gauntlet/types.js';

/** What {@link renderTaskSummary} reads. */
export interface TaskSummaryInput {
  readonly task: ChildTask;
  /** The ledger on disk (the reserved one while the dispatch runs). */
  readonly ledger: Ledger | null;
  /**
   * The row texts by ledger row (`row` is the ledger row; on a coordinated run each carries its
   * criterion's text through `## Leg mapping`, see `ledgerRowTexts`); `[]` when unknown.
   */
  readonly specRows: readonly SpecRow[];
  /** Action records already written to the jobs file in this dispatch. */
  readonly spent?: readonly string[];
}

/**
 * The rows a dispatch may touch: on a coordinated run only its leg's (`## Leg mapping`), else every
 * row.
 */
export function dispatchRows(ledger: Ledger | null, task: ChildTask): readonly LedgerRow[] {
  if (ledger === null) return [];
  return task.leg === undefined || ledger.legs === undefined ? ledger.rows : legRows(ledger, task.leg.member);
}

function rowLine(ledger: Ledger | null, specRows: readonly SpecRow[], n: number): string {
  const row = ledger?.rows.find((r) => r.row === n);
  const text = specRows.find((r) => r.row === n)?.text ?? '(row text not found in the spec)';
  const ac = ledger?.legs === undefined ? null : criterionOfRow(ledger, n);
  const state =
    row === undefined
      ? ''
      : ` [${row.status}, ${row.attempts} attempt${row.attempts === 1 ? '' : 's'}${row.evidence === '' ? '' : `, evidence: ${row.evidence}`}]`;
  return `  row ${n}${ac === null ? '' : ` (criterion ${ac})`}: ${text}${state}`;
}

/**
 * Renders the task for a person or an agent: what this dispatch is for, the rows it concerns, the
 * hint and previous decision, the carried action records and where the files are.
 *
 * @param input the task, the ledger on disk, the spec rows and the spends so far
 * @returns the text, ending with a newline
 */
export function renderTaskSummary(input: TaskSummaryInput): string {
  const { task, ledger, specRows } = input;
  const lines: string[] = [];
  if (task.kind === 'seed') {
    lines.push(
      'This dispatch is the seed: measure the baseline. Run the checks of the open rows on the code as it is (change no code), give each row you checked its evidence, and close the rows that already pass.',
    );
    const open = dispatchRows(ledger, task).filter((r) => r.status === 'open');
    lines.push('Open rows:', ...open.map((r) => rowLine(ledger, specRows, r.row)));
  } else if (task.kind === 'row') {
    lines.push(
      `This dispatch is row ${String(task.target)}: make it pass if you can, then record the attempt as done or failed.`,
      rowLine(ledger, specRows, task.target as number),
    );
    const others = dispatchRows(ledger, task).filter((r) => r.status === 'open' && r.row !== task.target);
    if (others.length > 0)
      lines.push(
        'Other open rows (close one beside the target only when your change makes it pass too):',
        ...others.map((r) => rowLine(ledger, specRows, r.row)),
      );
    lines.push(`Previous decision on this row: ${task.previousDecision}`);
  } else {
    const v = task.verification;
    lines.push(
      'This dispatch is a verification repair: every row is closed, but a gate of the final verification fails. Fix the code so that it passes. Change nothing in the ledger.',
    );
    if (v !== null)
      lines.push(
        `Failing gate ${v.gate}: \`${v.command}\` exited ${v.exitCode}. Its output is in ${v.logPath}.`,
        `Blocking calls: ${v.blockingCalls}.`,
      );
  }
  if (task.hint !== null) lines.push(`Hint: ${task.hint}`);
  if (task.model !== null) lines.push(`Model for this dispatch: ${task.model}`);
  const spent = input.spent ?? [];
  if (task.actionRecords.length > 0 || spent.length > 0)
    lines.push(
      'Action records (spends so far; the tools repeat them in the ledger for you, never spend past a bound):',
      ...[...task.actionRecords, ...spent].map((r) => `  ${r}`),
    );
  const leg = task.leg;
  if (leg !== undefined)
    lines.push(
      leg.companion
        ? `Leg: ${leg.member}, a companion checkout. The home ledger ${leg.homeLedger} is read only: the tools put your rows and decisions into your commit's body.`
        : `Leg: ${leg.member}, the home checkout. Only the rows of leg ${leg.member} are yours.`,
    );
  lines.push(
    `Worktree: ${task.worktree}`,
    `Ledger: ${taskFilePath(task, 'ledger')} (edit it only through the tools)`,
    `Spec: ${taskFilePath(task, 'spec')}`,
    `Iteration: ${task.iteration + 1} (this dispatch's number)`,
  );
  return `${lines.join('\n')}\n`;
}
