import { CheckSetMismatchError } from './errors.js';
import type { RunRecord } from './run-record.js';

/**
 * The keep-or-revert decision for one candidate patch (procedure step 7).
 *
 * - `keep`: at least one check that did not pass in the retained state passes now, and every
 *   check that passed there still passes.
 * - `revert` with reason `candidate-regression`: otherwise. `cause` says which half failed:
 *   `no-improvement` (nothing newly passes), `broke-passing-check` (something that passed does
 *   not pass now; this wins when both hold, since it is the more serious). The budget unit
 *   the candidate spent stays spent.
 */
export type CandidateDecision =
  | {
      readonly decision: 'keep';
      /** Checks that did not pass in the retained state and pass now, in contract order. */
      readonly newlyPassing: readonly string[];
    }
  | {
      readonly decision: 'revert';
      readonly reason: 'candidate-regression';
      readonly cause: 'no-improvement' | 'broke-passing-check';
      readonly newlyPassing: readonly string[];
      /** Checks that passed in the retained state and do not pass now, in contract order. */
      readonly newlyFailing: readonly string[];
    };

/**
 * Compares a candidate's full run with the immediately preceding retained state.
 *
 * A check that becomes unavailable counts as not passing: a previously passing check that can no
 * longer run is a regression.
 *
 * @param retained the run of the retained state (the baseline, or the last kept candidate)
 * @param candidate the run after the candidate patch
 * @returns keep, or revert as `candidate-regression`
 * @throws CheckSetMismatchError when the two runs do not cover the same checks in the same order
 */
export function decideCandidate(retained: RunRecord, candidate: RunRecord): CandidateDecision {
  const before = retained.results.map((result) => result.name);
  const after = candidate.results.map((result) => result.name);
  if (before.length !== after.length || before.some((name, i) => name !== after[i]))
    throw new CheckSetMismatchError(
      before.filter((name) => !after.includes(name)),
      after.filter((name) => !before.includes(name)),
    );
  const newlyPassing: string[] = [];
  const newlyFailing: string[] = [];
  retained.results.forEach((was, i) => {
    const now = candidate.results[i];
    if (now === undefined) return;
    if (was.outcome !== 'passed' && now.outcome === 'passed') newlyPassing.push(was.name);
    if (was.outcome === 'passed' && now.outcome !== 'passed') newlyFailing.push(was.name);
  });
  if (newlyPassing.length > 0 && newlyFailing.length === 0) return { decision: 'keep', newlyPassing };
  return {
    decision: 'revert',
    reason: 'candidate-regression',
    cause: newlyFailing.length > 0 ? 'broke-passing-check' : 'no-improvement',
    newlyPassing,
    newlyFailing,
  };
}
