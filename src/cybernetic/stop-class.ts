import type { RunRecord } from './run-record.js';
import { sameFailingSet } from './run-record.js';

/**
 * Why a run ended `non-converged`.
 *
 * - `checkpoint-unavailable`: no exact checkpoint of the scope could be made (stops before mutation).
 * - `scope-widening`: a candidate changes, or would change, a path outside the recorded scope.
 * - `unavailable-check`: a frozen check could not be executed in a run.
 * - `repeated-equivalent-failure`: see {@link findRepeatedEquivalentFailure}.
 * - `oscillation`: see {@link findOscillation}.
 * - `budget-exhaustion`: every budget unit is spent and not every check passes.
 */
export type StopClass =
  | 'checkpoint-unavailable'
  | 'scope-widening'
  | 'unavailable-check'
  | 'repeated-equivalent-failure'
  | 'oscillation'
  | 'budget-exhaustion';

/** Every stop class, in the order they are checked (checkpoint first, before any run). */
export const STOP_CLASSES: readonly StopClass[] = [
  'checkpoint-unavailable',
  'scope-widening',
  'unavailable-check',
  'repeated-equivalent-failure',
  'oscillation',
  'budget-exhaustion',
];

/**
 * The order in which the verdict after a candidate run is decided when several conditions hold.
 * Authority first (a change outside the scope voids the run), then trust in the results (an
 * unavailable check means the run is incomplete), then success, then the specific no-progress
 * classes before the generic end of budget, because they say more about why the run failed.
 */
export const AFTER_RUN_ORDER = [
  'scope-widening',
  'unavailable-check',
  'restored',
  'repeated-equivalent-failure',
  'oscillation',
  'budget-exhaustion',
] as const;

/** A `non-converged` stop with its class and a sentence saying why. */
export interface StopVerdict {
  readonly kind: 'stop';
  readonly stopClass: StopClass;
  readonly why: string;
}

/**
 * Repeated equivalent failure: the candidate run fails equivalently (same failing set and same
 * failure fingerprint) to an earlier *candidate* run. The baseline is not a candidate failure, so
 * one candidate that reproduces the baseline exactly is only a `candidate-regression`.
 *
 * @param earlierCandidates candidate runs before this one, oldest first
 * @param run the candidate run just observed
 * @returns the earliest equivalent earlier candidate run, or undefined
 */
export function findRepeatedEquivalentFailure(
  earlierCandidates: readonly RunRecord[],
  run: RunRecord,
): RunRecord | undefined {
  if (run.failingSet.length === 0) return undefined;
  return earlierCandidates.find(
    (earlier) => sameFailingSet(earlier, run) && earlier.failureFingerprint === run.failureFingerprint,
  );
}

/** Where an oscillation returned: the earlier run it matches and the run that had moved away. */
export interface Oscillation {
  /** The earlier run whose failing set the candidate run returns to. */
  readonly returnedTo: RunRecord;
  /** A run between the two whose failing set differs. */
  readonly movedAwayIn: RunRecord;
}

/**
 * Oscillation: the check results return to an earlier state after having left it. Precisely,
 * candidate run C oscillates when some earlier run X (the baseline or a candidate run) has the
 * same failing set as C, that failing set differs from the retained state's failing set (C did
 * not just stay where the run stands), and some run between X and C has a different failing set
 * (the results really moved away and came back).
 *
 * @param earlierRuns the baseline and every candidate run before C, oldest first
 * @param retained the retained run C was compared with
 * @param run the candidate run C
 * @returns the most recent matching earlier run and the run that moved away, or undefined
 */
export function findOscillation(
  earlierRuns: readonly RunRecord[],
  retained: RunRecord,
  run: RunRecord,
): Oscillation | undefined {
  if (sameFailingSet(run, retained)) return undefined;
  for (let x = earlierRuns.length - 1; x >= 0; x--) {
    const returnedTo = earlierRuns[x] as RunRecord;
    if (!sameFailingSet(returnedTo, run)) continue;
    const movedAwayIn = earlierRuns.slice(x + 1).find((between) => !sameFailingSet(between, run));
    if (movedAwayIn) return { returnedTo, movedAwayIn };
  }
  return undefined;
}

/**
 * Whether the patch budget is spent.
 *
 * @param budget the frozen patch budget
 * @param spent budget units spent (one per attempted candidate)
 */
export function isBudgetExhausted(budget: number, spent: number): boolean {
  return spent >= budget;
}

/** Renders a failing set for people: `{a, b}`, or `{}` when nothing fails. */
export function describeFailingSet(run: RunRecord): string {
  return `{${run.failingSet.join(', ')}}`;
}
