/**
 * Target selection of the loop engine's rule 4 (gauntlet-protocol §3.6).
 *
 * The seed comes first until a validated seed survives on the branch. After that the priority is:
 * the still-unresolved human retry target, the still-failed row named by the previous decision,
 * the first failed row, the first open row. Durable row status always beats what a decision
 * suggests, so the seed decision's `<first row to take>` is informational only (§6 A15).
 */

import { seedLeg } from './companion.js';
import { parseDecision } from './decisions.js';
import type { LoopHistory } from './history.js';
import type { Ledger, LedgerRow } from './types.js';

/** Why a target was selected, in priority order. */
export type TargetReason =
  /** No validated seed survives yet (§3.6 "Select `seed` until …"). */
  | 'seed-not-survived'
  /** The row of the latest `row <n> retry` decision, still open or failed (§6 A14). */
  | 'retry-target'
  /** The still-failed row named by the previous decision. */
  | 'previous-decision'
  /** The lowest failed row. */
  | 'first-failed'
  /** The lowest open row. */
  | 'first-open';

/** The selected target and why it was chosen. */
export type TargetSelection =
  | { readonly target: 'seed'; readonly why: 'seed-not-survived'; readonly because: string }
  | {
      readonly target: number;
      readonly why: Exclude<TargetReason, 'seed-not-survived'>;
      /** One sentence naming the evidence for the choice. */
      readonly because: string;
    };

function isUnresolved(cells: LedgerRow | undefined): boolean {
  return cells !== undefined && (cells.status === 'open' || cells.status === 'failed');
}

function rowOf(ledger: Ledger, row: number): LedgerRow | undefined {
  return ledger.rows.find((cells) => cells.row === row);
}

/**
 * The row of the latest `row <n> retry | …` decision when that row is still `open` or `failed`
 * (§6 A14: the latest human retry is the human's current intent; older retries were answered by
 * the decisions after them).
 *
 * @param ledger the ledger; its decisions are in the order they were appended.
 * @returns the row number, or `null` when there is no retry or its row is resolved.
 */
export function unresolvedRetryTarget(ledger: Ledger): number | null {
  for (let index = ledger.decisions.length - 1; index >= 0; index--) {
    const decision = parseDecision(ledger.decisions[index] as string);
    if (decision.kind !== 'retry') continue;
    return isUnresolved(rowOf(ledger, decision.row)) ? decision.row : null;
  }
  return null;
}

/**
 * The row the previous decision names when that row's status is `failed` now.
 *
 * @param ledger the ledger (durable status).
 * @param previousDecision the target decision line of the latest admitted return, or `null`.
 * @returns the row number, or `null`.
 */
export function stillFailedPreviousRow(ledger: Ledger, previousDecision: string | null): number | null {
  if (previousDecision === null) return null;
  const decision = parseDecision(previousDecision);
  if (decision.kind !== 'outcome') return null;
  return rowOf(ledger, decision.row)?.status === 'failed' ? decision.row : null;
}

function lowest(ledger: Ledger, status: 'open' | 'failed'): number | null {
  let best: number | null = null;
  for (const cells of ledger.rows)
    if (cells.status === status && (best === null || cells.row < best)) best = cells.row;
  return best;
}

/**
 * Selects the next dispatch target by the §3.6 priority.
 *
 * Rule 1 and rule 2 run before this in the ordered table; this function does not look at the
 * allowance. It never selects a `done` or `cut` row.
 *
 * @param ledger the ledger as on disk now.
 * @param history the replayed history (seed survival, previous decision).
 * @returns the target with its reason, or `null` when no row is `open` or `failed` (rule 1's
 *   case: all-cut and baseline-complete ledgers never dispatch, not even the seed).
 */
export function selectTarget(ledger: Ledger, history: LoopHistory): TargetSelection | null {
  const failed = lowest(ledger, 'failed');
  const open = lowest(ledger, 'open');
  if (failed === null && open === null) return null;

  // A coordinated ledger seeds leg by leg: the seed is due while a leg with a non-cut row has
  // `seeded <member>: no` (§3.20; docs/decisions/legs.md L7).
  if (ledger.legs !== undefined ? seedLeg(ledger) !== null : history.seedSurvival === null)
    return {
      target: 'seed',
      why: 'seed-not-survived',
      because:
        'no validated `loop: seed evidence` commit with its `row 0 done` decision survives on the branch',
    };

  const retry = unresolvedRetryTarget(ledger);
  if (retry !== null)
    return {
      target: retry,
      why: 'retry-target',
      because: `row ${retry} is the still-unresolved target of the latest human retry`,
    };

  const previous = stillFailedPreviousRow(ledger, history.previousDecision);
  if (previous !== null)
    return {
      target: previous,
      why: 'previous-decision',
      because: `row ${previous} is still failed and named by the previous decision`,
    };

  if (failed !== null)
    return { target: failed, why: 'first-failed', because: `row ${failed} is the first failed row` };
  return { target: open as number, why: 'first-open', because: `row ${open} is the first open row` };
}
