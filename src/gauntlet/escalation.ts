/**
 * The escalation threshold of the loop engine (gauntlet-protocol §3.7).
 *
 * Each numbered row gets at most one escalated round: a dispatch on the configured
 * `escalationLoop.implModel`. It is due once the row's pre-dispatch attempts reach
 * `min(escalateAfter, effective allowance - 1)`, so an unescalated row is escalated no later than
 * its last allowed attempt. A durable `row <n> escalated | …` decision marks the round spent. The
 * seed never escalates, and the spec's amendment grant (including its budget token) is never an
 * input here (scenario X7).
 */

import { InputError } from '../common/errors.js';
import { effectiveAllowance } from './allowance.js';
import { decisionIndex } from './decisions.js';
import type { Ledger } from './types.js';

/**
 * Checks the held `escalateAfter` setting.
 *
 * @param escalateAfter the value held for the run (`loopEngine.escalateAfter`).
 * @throws {InputError} `rules.escalate-after` when it is not a non-negative safe integer.
 */
export function requireEscalateAfter(escalateAfter: number): void {
  if (!Number.isSafeInteger(escalateAfter) || escalateAfter < 0)
    throw new InputError(
      'rules.escalate-after',
      `escalateAfter must be a non-negative integer (loopEngine.escalateAfter), got ${String(escalateAfter)}`,
    );
}

/**
 * `threshold = min(escalateAfter, effective allowance - 1)` (§3.7).
 *
 * With allowance 1 the threshold is 0, so a row's first dispatch is already escalated (scenario
 * X3). The result can be negative for an allowance of 0; such a row is exhausted and rule 2 stops
 * before the threshold is consulted.
 *
 * @param escalateAfter the held `loopEngine.escalateAfter` value.
 * @param effective the row's effective allowance ({@link effectiveAllowance}).
 * @returns the attempt count at which the escalated round is due.
 */
export function escalationThreshold(escalateAfter: number, effective: number): number {
  return Math.min(escalateAfter, effective - 1);
}

/**
 * True when the ledger holds a durable `row <n> escalated | …` decision for the row: its escalated
 * round is spent and never repeats.
 *
 * @param ledger the ledger whose decisions are read.
 * @param row the 1-based row number.
 */
export function isEscalationSpent(ledger: Ledger, row: number): boolean {
  return decisionIndex(ledger.decisions).escalated.has(row);
}

/**
 * True when dispatching this numbered row now is its escalated round (§3.7): the row has no
 * durable escalation decision and its pre-dispatch attempts are at or above
 * {@link escalationThreshold}. Scenario X1: allowance 4, `escalateAfter` 2, attempts 2 → true.
 *
 * @param ledger the ledger before the dispatch (its attempts are the pre-dispatch attempts).
 * @param row the 1-based row number of the selected target (never the seed).
 * @param escalateAfter the held `loopEngine.escalateAfter` value.
 * @returns false for a row the table does not hold.
 * @throws {InputError} `rules.escalate-after` when `escalateAfter` is not a non-negative integer.
 */
export function isEscalatedRound(ledger: Ledger, row: number, escalateAfter: number): boolean {
  requireEscalateAfter(escalateAfter);
  const cells = ledger.rows.find((candidate) => candidate.row === row);
  if (cells === undefined) return false;
  if (isEscalationSpent(ledger, row)) return false;
  return cells.attempts >= escalationThreshold(escalateAfter, effectiveAllowance(ledger, row));
}
