import type { RepairPhaseState } from './repair-phase.js';

/**
 * A running repair phase whose change was found to touch a risky surface after it started (a
 * repair wrote a risky path the first implementation did not). Risk only ever rises during a
 * phase: a PASS then needs two validator families, and a repair cannot make a change less risky
 * by reverting the path it touched earlier.
 *
 * Only the convergence check reads `riskySurface`, and it stops the phase at the first PASS, so
 * upgrading between rounds gives the same stop as declaring the phase risky from round 0.
 *
 * @param state any phase state
 * @param risky whether the change measured now touches a risky surface
 * @returns `state` itself when nothing changes, else a copy with `riskySurface: true`
 */
export function upgradeRiskySurface(state: RepairPhaseState, risky: boolean): RepairPhaseState {
  if (!risky || state.riskySurface) return state;
  return { ...state, riskySurface: true };
}
