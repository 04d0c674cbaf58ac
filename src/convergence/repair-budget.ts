import { RepairPhaseError } from './repair-phase-error.js';

/** The repair bound when the caller declares none. `0` reproduces a single pass exactly. */
export const REPAIR_ROUNDS_DEFAULT = 2;

/**
 * Condition 1: another repair round may be spent. Round 0 (the first fresh validation) spends
 * nothing, so the bound counts repair rounds only.
 *
 * @param roundsUsed repair rounds already spent
 * @param repairRounds the caller's declared bound
 * @returns true while `roundsUsed < repairRounds`
 */
export function withinRepairBudget(roundsUsed: number, repairRounds: number): boolean {
  return roundsUsed < repairRounds;
}

/**
 * Checks the caller's repair bound. The bound is a declaration and is never widened at runtime.
 *
 * @param value untrusted `repairRounds`; undefined means {@link REPAIR_ROUNDS_DEFAULT}
 * @returns the bound
 * @throws RepairPhaseError `repair-phase.repair-rounds-invalid` unless a non-negative safe integer
 */
export function checkRepairRounds(value: unknown): number {
  if (value === undefined) return REPAIR_ROUNDS_DEFAULT;
  if (typeof value !== 'number' || !Number.isSafeInteger(value) || value < 0) {
    throw new RepairPhaseError(
      'repair-phase.repair-rounds-invalid',
      `repairRounds must be a non-negative integer, got ${JSON.stringify(value) ?? String(value)}`,
    );
  }
  return value === 0 ? 0 : value; // -0 reads as 0 in reports
}
