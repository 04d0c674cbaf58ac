import { converged, diversityUnsatisfied } from './convergence-check.js';
import { lawViolation, resolvedIds } from './law.js';
import { normalizeRound } from './normalize-round.js';
import { checkRepairRounds, withinRepairBudget } from './repair-budget.js';
import { RepairPhaseError } from './repair-phase-error.js';
import type { NormalizedRound, OpenFinding } from './round.js';
import type { StopReason } from './stop-reason.js';
import type { Verdict } from './verdict.js';

/**
 * The bounded repair phase of RPI (reference §1.2), as an incremental fold:
 * {@link startRepairPhase} takes round 0, {@link admitRound} takes one repair round at a time, and
 * {@link finishRepairPhase} reports. {@link runRepairPhase} is that fold over a list, so a
 * statechart that calls the same three functions cannot disagree with the batch function.
 */

/** The caller's declarations for one repair phase. */
export interface RepairPhaseOptions {
  /** Repair rounds the caller allows (default 2). Round 0 spends none. */
  readonly repairRounds?: number;
  /** Whether the change touches a risky surface, so a PASS needs two validator families. */
  readonly riskySurface?: boolean;
}

/**
 * Everything the law needs between rounds. Plain JSON, so it can sit in a statechart's context
 * and in a persisted snapshot.
 */
export interface RepairPhaseState {
  readonly repairRounds: number;
  readonly riskySurface: boolean;
  /** Repair rounds spent so far. */
  readonly roundsUsed: number;
  /** Ids closed by admitted rounds, in closing order. A closed id that reopens breaks the law. */
  readonly closedIds: readonly string[];
  /** The latest normalized round; the "previous" round of the next repair round. */
  readonly current: NormalizedRound;
  /** `repair round N: k open findings`, one line per round including round 0. */
  readonly checkedLines: readonly string[];
  /** Set once the phase stops; no further round is admitted. */
  readonly stopReason: StopReason | null;
  /** Whether the stop came from the law (conditions 2-4); a law stop over a PASS reports NOT_PROVEN. */
  readonly lawStopped: boolean;
}

/** What the repair phase reports when it stops. */
export interface RepairPhaseResult {
  readonly stopReason: StopReason;
  /** The current round's worst-of status, NOT_PROVEN for `diversity_unsatisfied` or a law stop over a PASS. */
  readonly status: Verdict;
  /** Repair rounds spent; never more than the declared bound. */
  readonly roundsUsed: number;
  /** The current round's open findings. They are never copied into `notChecked`. */
  readonly openFindings: readonly OpenFinding[];
  /** The per-round lines, then the current round's legs' `checked`. */
  readonly checked: readonly string[];
  /** The current round's legs' `not_checked`. */
  readonly notChecked: readonly string[];
  /** The current round's subject digest: the report's `subject_manifest_digest`. */
  readonly subjectDigest: string;
}

/**
 * The `checked` line recorded for a round.
 *
 * @param round 0 for the first fresh validation, then 1, 2, … for repair rounds
 * @param openFindings the size of the round's open finding set
 * @returns `repair round <round>: <openFindings> open findings`
 */
export function repairRoundLine(round: number, openFindings: number): string {
  return `repair round ${round}: ${openFindings} open findings`;
}

// The convergence check every admitted round ends with.
function afterConvergenceCheck(state: RepairPhaseState): RepairPhaseState {
  if (diversityUnsatisfied(state.current, state.riskySurface))
    return { ...state, stopReason: 'diversity_unsatisfied' };
  if (converged(state.current, state.riskySurface)) return { ...state, stopReason: 'converged' };
  return state;
}

/**
 * Starts a repair phase from the first fresh validation ("round 0", which spends no budget). The
 * returned state may already be stopped: a PASS converges at once, a risky PASS with one family
 * stops with `diversity_unsatisfied`.
 *
 * @param round0 untrusted first validation round (one leg or a list of legs)
 * @param options the caller's bound and risk declaration
 * @returns the phase state after round 0
 * @throws RepairPhaseError for an invalid `repairRounds` or `riskySurface`
 * @throws RoundShapeError when round 0 is malformed
 */
export function startRepairPhase(round0: unknown, options: RepairPhaseOptions = {}): RepairPhaseState {
  const repairRounds = checkRepairRounds(options.repairRounds);
  const riskySurface = options.riskySurface ?? false;
  if (typeof riskySurface !== 'boolean') {
    throw new RepairPhaseError(
      'repair-phase.risky-surface-invalid',
      `riskySurface must be a boolean, got ${JSON.stringify(riskySurface) ?? String(riskySurface)}`,
    );
  }
  const current = normalizeRound(round0);
  return afterConvergenceCheck({
    repairRounds,
    riskySurface,
    roundsUsed: 0,
    closedIds: [],
    current,
    checkedLines: [repairRoundLine(0, current.openIds.length)],
    stopReason: null,
    lawStopped: false,
  });
}

/**
 * Offers the next repair round's validation to a running phase. The bound is checked before the
 * round is read: over the bound the phase stops with `repair_budget_exhausted` and the round is
 * neither normalized nor counted, so a malformed round there does not throw. Otherwise the round
 * spends one unit of budget, is judged by the law, and, when admitted, by the convergence check.
 *
 * @param state a running phase (`stopReason === null`)
 * @param round untrusted validation round of the repair just made
 * @returns the next state, stopped or still running
 * @throws RepairPhaseError `repair-phase.already-stopped` when `state` has stopped
 * @throws RoundShapeError when the round is within the bound and malformed
 */
export function admitRound(state: RepairPhaseState, round: unknown): RepairPhaseState {
  if (state.stopReason !== null) {
    throw new RepairPhaseError(
      'repair-phase.already-stopped',
      `the repair phase already stopped (${state.stopReason}); no further round is admitted`,
    );
  }
  if (!withinRepairBudget(state.roundsUsed, state.repairRounds)) return exhaustRepairBudget(state);
  const previous = state.current;
  const current = normalizeRound(round);
  const roundsUsed = state.roundsUsed + 1;
  const spent: RepairPhaseState = {
    ...state,
    roundsUsed,
    current,
    checkedLines: [...state.checkedLines, repairRoundLine(roundsUsed, current.openIds.length)],
  };
  const violation = lawViolation(previous, current, state.closedIds);
  if (violation !== null) return { ...spent, stopReason: violation, lawStopped: true };
  return afterConvergenceCheck({
    ...spent,
    closedIds: [...state.closedIds, ...resolvedIds(previous, current)],
  });
}

/**
 * Stops a running phase whose budget is spent with `repair_budget_exhausted` (condition 1). This
 * is what {@link admitRound} does over the bound; a statechart calls it directly when its
 * `withinRepairBudget` guard fails, instead of dispatching a repair it may not spend.
 *
 * @param state a running phase with `roundsUsed >= repairRounds`
 * @returns the stopped state
 * @throws RepairPhaseError `repair-phase.already-stopped` when `state` has stopped, or
 *   `repair-phase.budget-remaining` when a repair round may still be spent
 */
export function exhaustRepairBudget(state: RepairPhaseState): RepairPhaseState {
  if (state.stopReason !== null) {
    throw new RepairPhaseError(
      'repair-phase.already-stopped',
      `the repair phase already stopped (${state.stopReason}); no further round is admitted`,
    );
  }
  if (withinRepairBudget(state.roundsUsed, state.repairRounds)) {
    throw new RepairPhaseError(
      'repair-phase.budget-remaining',
      `${state.repairRounds - state.roundsUsed} of ${state.repairRounds} repair rounds remain; the budget is not spent`,
    );
  }
  return { ...state, stopReason: 'repair_budget_exhausted' };
}

/**
 * Reports a phase. A phase still running means the supplied rounds ran out: `not_converged`, or
 * `repair_budget_exhausted` when the budget is spent with findings still open (post-rule 1). The
 * status is the current round's, turned NOT_PROVEN for `diversity_unsatisfied` and for a law stop
 * over a PASS (a flip is not a proof; post-rule 2). A FAIL that broke the law stays FAIL.
 *
 * @param state any phase state
 * @returns the phase result
 */
export function finishRepairPhase(state: RepairPhaseState): RepairPhaseResult {
  let stopReason: StopReason = state.stopReason ?? 'not_converged';
  if (
    stopReason === 'not_converged' &&
    !withinRepairBudget(state.roundsUsed, state.repairRounds) &&
    state.current.openIds.length > 0
  ) {
    stopReason = 'repair_budget_exhausted';
  }
  let status = state.current.status;
  if (stopReason === 'diversity_unsatisfied' || (state.lawStopped && status === 'PASS'))
    status = 'NOT_PROVEN';
  return {
    stopReason,
    status,
    roundsUsed: state.roundsUsed,
    openFindings: state.current.openFindings,
    checked: [...state.checkedLines, ...state.current.checked],
    notChecked: state.current.notChecked,
    subjectDigest: state.current.subjectDigest,
  };
}

/**
 * Runs the repair phase over validations already made: the first is round 0, each later one is
 * one repair round's validation. Rounds after the stop are never read.
 *
 * @param validations untrusted list of rounds (each one leg or a list of legs), at least one
 * @param options `repairRounds` (non-negative integer, default 2) and `riskySurface` (default false)
 * @returns the phase result
 * @throws RepairPhaseError `repair-phase.no-rounds` when `validations` is not a non-empty list, or
 *   for invalid options
 * @throws RoundShapeError when a round that is read is malformed
 */
export function runRepairPhase(
  validations: readonly unknown[],
  options: RepairPhaseOptions = {},
): RepairPhaseResult {
  if (!Array.isArray(validations) || validations.length === 0) {
    throw new RepairPhaseError(
      'repair-phase.no-rounds',
      'the repair phase needs at least one validation round',
    );
  }
  let state = startRepairPhase(validations[0], options);
  for (let i = 1; i < validations.length && state.stopReason === null; i += 1) {
    state = admitRound(state, validations[i]);
  }
  return finishRepairPhase(state);
}
