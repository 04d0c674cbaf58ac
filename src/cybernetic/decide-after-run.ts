import type { RunContract } from './run-contract.js';
import type { RunRecord } from './run-record.js';
import { allChecksPass, unavailableChecks } from './run-record.js';
import { pathsOutsideScope } from './scope.js';
import {
  describeFailingSet,
  findOscillation,
  findRepeatedEquivalentFailure,
  isBudgetExhausted,
  type StopVerdict,
} from './stop-class.js';

/** Verdict on the pre-mutation baseline run (procedure step 5). */
export type BaselineVerdict =
  | { readonly kind: 'already-holds' }
  | { readonly kind: 'continue' }
  | StopVerdict;

/** Verdict after a candidate run (procedure step 8). */
export type AfterRunVerdict = { readonly kind: 'restored' } | { readonly kind: 'continue' } | StopVerdict;

/**
 * Decides the baseline: a check that cannot be executed stops the run as `unavailable-check`
 * (nothing was mutated); every check passing is `already-holds`; otherwise candidates may start.
 *
 * @param baseline run 0 of the frozen check set
 */
export function decideBaseline(baseline: RunRecord): BaselineVerdict {
  const unavailable = unavailableChecks(baseline);
  if (unavailable.length > 0)
    return {
      kind: 'stop',
      stopClass: 'unavailable-check',
      why: `before mutation, ${unavailable.join(', ')} could not be executed`,
    };
  if (allChecksPass(baseline)) return { kind: 'already-holds' };
  return { kind: 'continue' };
}

/** Everything the after-run verdict reads. */
export interface AfterRunFacts {
  readonly contract: RunContract;
  /** The baseline and every candidate run before this one, oldest first. */
  readonly earlierRuns: readonly RunRecord[];
  /** The retained run the candidate was compared with. */
  readonly retained: RunRecord;
  /** The candidate run just observed. */
  readonly run: RunRecord;
  /** Repository-relative paths the candidate changed. */
  readonly changedPaths: readonly string[];
  /** Budget units spent, this candidate included. */
  readonly budgetSpent: number;
}

/**
 * Decides what follows a candidate's full run, checking in {@link AFTER_RUN_ORDER}:
 * scope-widening, unavailable-check, restored, repeated-equivalent-failure, oscillation,
 * budget-exhaustion; `continue` when none holds. The function never returns `continue` once the
 * budget is spent, so a host that follows it never exceeds the budget.
 *
 * @param facts see {@link AfterRunFacts}
 * @returns `restored`, a `non-converged` stop with its class, or `continue`
 */
export function decideAfterRun(facts: AfterRunFacts): AfterRunVerdict {
  const { contract, earlierRuns, retained, run, changedPaths, budgetSpent } = facts;
  const k = run.run;
  const outside = pathsOutsideScope(contract.scope, changedPaths);
  if (outside.length > 0)
    return {
      kind: 'stop',
      stopClass: 'scope-widening',
      why: `candidate ${k} changed ${outside.join(', ')} outside the recorded scope`,
    };
  const unavailable = unavailableChecks(run);
  if (unavailable.length > 0)
    return {
      kind: 'stop',
      stopClass: 'unavailable-check',
      why: `in run ${k}, ${unavailable.join(', ')} could not be executed`,
    };
  if (allChecksPass(run)) return { kind: 'restored' };
  const earlierCandidates = earlierRuns.filter((earlier) => earlier.run > 0);
  const repeated = findRepeatedEquivalentFailure(earlierCandidates, run);
  if (repeated)
    return {
      kind: 'stop',
      stopClass: 'repeated-equivalent-failure',
      why: `run ${k} fails exactly as run ${repeated.run} did (failing ${describeFailingSet(run)}, same failure fingerprint)`,
    };
  const oscillation = findOscillation(earlierRuns, retained, run);
  if (oscillation)
    return {
      kind: 'stop',
      stopClass: 'oscillation',
      why: `run ${k} returns to the failing set ${describeFailingSet(run)} of run ${oscillation.returnedTo.run} after run ${oscillation.movedAwayIn.run} had moved to ${describeFailingSet(oscillation.movedAwayIn)}`,
    };
  if (isBudgetExhausted(contract.budget, budgetSpent))
    return {
      kind: 'stop',
      stopClass: 'budget-exhaustion',
      why: `all ${contract.budget} budget units are spent and run ${k} still fails ${describeFailingSet(run)}`,
    };
  return { kind: 'continue' };
}
