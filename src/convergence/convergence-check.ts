import type { NormalizedRound } from './round.js';

/** Distinct validator families a PASS needs on a risky surface (the fresh and a cross-family leg). */
export const RISKY_SURFACE_MIN_FAMILIES = 2;

/**
 * Converged: the round's worst-of status is PASS and, on a risky surface, at least two distinct
 * validator families judged it.
 *
 * @param round a normalized round
 * @param riskySurface whether the change touches a risky surface
 * @returns true when the repair phase may stop with `converged`
 */
export function converged(round: NormalizedRound, riskySurface: boolean): boolean {
  return round.status === 'PASS' && !diversityUnsatisfied(round, riskySurface);
}

/**
 * A PASS on a risky surface judged by fewer than two distinct validator families. It is a stop,
 * reported NOT_PROVEN, never a repair trigger; a FAIL or NOT_PROVEN round is not concerned.
 *
 * @param round a normalized round
 * @param riskySurface whether the change touches a risky surface
 * @returns true when the repair phase must stop with `diversity_unsatisfied`
 */
export function diversityUnsatisfied(round: NormalizedRound, riskySurface: boolean): boolean {
  return round.status === 'PASS' && riskySurface && round.families.length < RISKY_SURFACE_MIN_FAMILIES;
}
