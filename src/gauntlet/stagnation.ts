/**
 * Rule 3 of the ordered table: stagnation hints (gauntlet-protocol §3.4, §3.8).
 *
 * Rule 3 never stops the loop (§6 A25: the 8.4.0 text made it a hint). When a row's last two
 * child commits inside its window changed nothing outside the ledger and no row status, or its
 * last two dispatches ended in validation misses, the row gets a fixed hint that rides along in
 * the `hint:` field of that row's next dispatch. A hint belongs to its row only; cut rows carry
 * none.
 */

import { type LoopHistory, rowHistoryOf } from './history.js';
import type { Ledger } from './types.js';

/** Hint for empty-child stagnation (§3.4 rule 3, exact text). */
export const EMPTY_CHILD_HINT = 'the last two attempts changed nothing outside the ledger';

/** Prefix of the validation-miss hint; the concrete miss of the last repair evidence follows. */
export const CONTRACT_BROKEN_HINT_PREFIX = 'two returns broke the contract: ';

/** How many consecutive empty commits or misses make a row stagnant. */
export const STAGNATION_PAIR = 2;

/** A rule-3 hint for one row. */
export interface Rule3Hint {
  readonly row: number;
  /** Which window fired. */
  readonly kind: 'empty-child' | 'validation-miss';
  /** The hint text for the `hint:` task field. */
  readonly text: string;
}

/**
 * The validation-miss hint: `two returns broke the contract: <concrete miss>`.
 *
 * @param concreteMiss the miss after `iteration <i>: ` in the last repair's evidence.
 */
export function contractBrokenHint(concreteMiss: string): string {
  return `${CONTRACT_BROKEN_HINT_PREFIX}${concreteMiss}`;
}

/**
 * The rule-3 hint of one row, or `null`.
 *
 * Only `open` and `failed` rows can carry a hint (a `done` row is never dispatched and a `cut`
 * row "carries none"). When both windows fire, the validation-miss hint wins: it names the
 * concrete contract breach, and a return that breaks the contract is never admitted, so its
 * emptiness says nothing new.
 *
 * @param ledger the ledger (row status).
 * @param history the replayed window counters.
 * @param row the 1-based row number.
 */
export function rule3HintFor(ledger: Ledger, history: LoopHistory, row: number): Rule3Hint | null {
  const cells = ledger.rows.find((candidate) => candidate.row === row);
  if (cells === undefined || (cells.status !== 'open' && cells.status !== 'failed')) return null;
  const windows = rowHistoryOf(history, row);
  if (windows.validationMissStreak >= STAGNATION_PAIR && windows.lastConcreteMiss !== null)
    return { row, kind: 'validation-miss', text: contractBrokenHint(windows.lastConcreteMiss) };
  if (windows.emptyChildStreak >= STAGNATION_PAIR)
    return { row, kind: 'empty-child', text: EMPTY_CHILD_HINT };
  return null;
}

/**
 * Every row's rule-3 hint (scenarios S1-S11). Which of them reaches a child is decided by target
 * selection: only the selected row's hint is sent, and a pending human retry hint for that row
 * wins over it.
 *
 * @param ledger the ledger (row status).
 * @param history the replayed window counters.
 * @returns one hint per stagnant open or failed row, ascending by row.
 */
export function rule3Hints(ledger: Ledger, history: LoopHistory): Rule3Hint[] {
  return [...ledger.rows]
    .sort((a, b) => a.row - b.row)
    .map((cells) => rule3HintFor(ledger, history, cells.row))
    .filter((hint): hint is Rule3Hint => hint !== null);
}
