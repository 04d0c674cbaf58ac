/**
 * Effective allowance arithmetic of the loop engine (gauntlet-protocol §3.5).
 *
 * A row may spend as many attempts as the ledger's shared `allowance:` header plus one for each
 * human retry of that row recorded in `## Decisions`. Nothing else moves the bound: the `<m>`
 * written in a retry line is history, and raises, escalations and legacy grants are ignored here.
 * Verification repairs and the seed count use the bare header allowance instead.
 */

import { decisionIndex } from './decisions.js';
import type { Ledger, LedgerRow } from './types.js';

/**
 * Counts the `row <n> retry | … | allowed attempts <m>` lines of `## Decisions` for one row.
 *
 * @param ledger the ledger whose decisions are read.
 * @param row the 1-based row number.
 * @returns how many retry decisions name `row`; each line counts once, whatever its `<m>`.
 */
export function retryCount(ledger: Ledger, row: number): number {
  return decisionIndex(ledger.decisions).retries.get(row) ?? 0;
}

/**
 * The row's effective allowance: the header `allowance:` plus the count of that row's retry
 * decisions (§3.5: "Count each retry once; the stored `<m>` is historical, not an absolute
 * override. Ignore every other decision and grant in this arithmetic.").
 *
 * With allowance 4 and two retries of row 3 the result is 6 even when the stored `<m>` values are
 * 5 and 99 (scenario A1). The same value is the denominator of every `row <n>: <attempts> of
 * <effective allowance>` stop line.
 *
 * @param ledger the ledger (header allowance and decisions).
 * @param row the 1-based row number; a row absent from the table still gets the arithmetic.
 * @returns `ledger.allowance + retryCount(ledger, row)`.
 */
export function effectiveAllowance(ledger: Ledger, row: number): number {
  return ledger.allowance + retryCount(ledger, row);
}

/**
 * True when a row is unresolved (`open` or `failed`) and its attempts have reached its effective
 * allowance (§3.4 rule 2, §3.5). `done` and `cut` rows are exempt whatever their attempts
 * (scenario A5); a migrated row already at or above its allowance is exhausted (scenario A3).
 *
 * @param ledger the ledger.
 * @param row the 1-based row number.
 * @returns false for a row the table does not hold.
 */
export function isExhausted(ledger: Ledger, row: number): boolean {
  const cells = ledger.rows.find((candidate) => candidate.row === row);
  if (cells === undefined) return false;
  return isRowExhausted(ledger, cells);
}

function isRowExhausted(ledger: Ledger, cells: LedgerRow): boolean {
  if (cells.status !== 'open' && cells.status !== 'failed') return false;
  return cells.attempts >= effectiveAllowance(ledger, cells.row);
}

/**
 * Every exhausted row, in ascending row order. Rule 2 stops on the first of them (§6 A13) and the
 * stop lists them all.
 *
 * @param ledger the ledger.
 * @returns the exhausted rows' table cells, lowest row first; empty when none is exhausted.
 */
export function exhaustedRows(ledger: Ledger): LedgerRow[] {
  return ledger.rows.filter((cells) => isRowExhausted(ledger, cells)).sort((a, b) => a.row - b.row);
}
