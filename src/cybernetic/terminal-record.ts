import { UnsupportedConclusionError } from './errors.js';
import type { InvalidInputRecord } from './invalid-input.js';
import { assertFrozenRunContract, type RunContract } from './run-contract.js';
import type { RunRecord } from './run-record.js';
import type { CandidateAttempt, CandidatePatch, RunTranscript } from './run-transcript.js';
import type { StopClass } from './stop-class.js';

export type { InvalidInputRecord } from './invalid-input.js';

/** The five terminal statuses of a cybernetic run. Only the first two are successes. */
export type TerminalStatus =
  | 'already-holds'
  | 'restored'
  | 'non-converged'
  | 'recovery-failure'
  | 'invalid-input';

/** Budget accounting in a terminal record. */
export interface BudgetUse {
  readonly limit: number;
  readonly spent: number;
}

/** Every frozen check passed before mutation; no patch was attempted. */
export interface AlreadyHoldsRecord {
  readonly status: 'already-holds';
  readonly contract: RunContract;
  /** The pre-mutation check results. */
  readonly baseline: RunRecord;
  readonly budget: BudgetUse;
}

/** Every frozen check passed together in one run within budget. */
export interface RestoredRecord {
  readonly status: 'restored';
  readonly contract: RunContract;
  readonly baseline: RunRecord;
  /** Every candidate patch with its run, decision and verdict, in order. */
  readonly attempts: readonly CandidateAttempt[];
  readonly budget: BudgetUse;
  /** The run in which every frozen check passed. */
  readonly finalRun: RunRecord;
}

/**
 * How the host proved the bounded scope is back at the checkpoint.
 * - `checkpoint-restored`: the restoration operation ran and the scope shows no delta from the checkpoint.
 * - `not-mutated`: nothing was ever applied (a pre-mutation stop), so the scope is the checkpoint.
 */
export type RestorationProof =
  | { readonly kind: 'checkpoint-restored'; readonly checkpoint: string; readonly operation: string }
  | { readonly kind: 'not-mutated'; readonly reason: string };

/** The run stopped with a stop class and the bounded scope was restored to the checkpoint. */
export interface NonConvergedRecord {
  readonly status: 'non-converged';
  readonly stopClass: StopClass;
  readonly why: string;
  readonly contract: RunContract;
  /** Null only for `checkpoint-unavailable`, which stops before the baseline run. */
  readonly baseline: RunRecord | null;
  readonly attempts: readonly CandidateAttempt[];
  /** A candidate refused before it was applied (scope widening detected up front). */
  readonly refusedCandidate: CandidatePatch | null;
  readonly budget: BudgetUse;
  readonly restoration: RestorationProof;
}

/**
 * Restoring the checkpoint failed (or left a delta): the run has no valid terminal success and
 * no clean `non-converged` rollback. Carries what was being stopped for, the failed operation and
 * the remaining working-tree delta.
 */
export interface RecoveryFailureRecord {
  readonly status: 'recovery-failure';
  readonly stopClass: StopClass;
  readonly why: string;
  readonly contract: RunContract;
  readonly baseline: RunRecord | null;
  readonly attempts: readonly CandidateAttempt[];
  readonly refusedCandidate: CandidatePatch | null;
  readonly budget: BudgetUse;
  readonly checkpoint: string;
  /** The restoration operation that failed, exactly as run. */
  readonly failedOperation: string;
  readonly error: string;
  /** Repository-relative paths that still differ from the checkpoint (may be unknown: empty). */
  readonly remainingDelta: readonly string[];
}

/** One terminal record of a cybernetic run. */
export type TerminalRecord =
  | AlreadyHoldsRecord
  | RestoredRecord
  | NonConvergedRecord
  | RecoveryFailureRecord
  | InvalidInputRecord;

/**
 * What the host observed when it restored the checkpoint after a stop.
 * - `restored`: the operation completed; `remainingDelta` is what still differs (must be empty
 *   for a clean rollback: a non-empty delta is a recovery failure).
 * - `failed`: the operation failed.
 * - `not-mutated`: no candidate was ever applied, so nothing needed restoring.
 */
export type RestorationObservation =
  | {
      readonly kind: 'restored';
      readonly checkpoint: string;
      readonly operation: string;
      readonly remainingDelta: readonly string[];
    }
  | {
      readonly kind: 'failed';
      readonly checkpoint: string;
      readonly operation: string;
      readonly error: string;
      readonly remainingDelta: readonly string[];
    }
  | { readonly kind: 'not-mutated' };

function budgetOf(transcript: RunTranscript): BudgetUse {
  return { limit: transcript.contract.budget, spent: transcript.budgetSpent };
}

/**
 * Concludes a run that has reached a verdict.
 *
 * - `already-holds` and `restored` verdicts give their records (no restoration is needed; pass
 *   none).
 * - a stop verdict needs the host's restoration observation and gives `non-converged` only for
 *   a clean rollback (`restored` with no remaining delta, or `not-mutated` when no candidate was
 *   applied); a failed restoration or a remaining delta gives `recovery-failure`.
 *
 * @param transcript the finished run
 * @param restoration what the host observed restoring the checkpoint (stops only)
 * @returns the terminal record
 * @throws UnsupportedConclusionError when the run has not finished (`continue`), when a stop
 *   comes without a restoration observation, when a success comes with one, or when
 *   `not-mutated` is claimed although candidates were applied
 */
export function concludeRun(transcript: RunTranscript, restoration?: RestorationObservation): TerminalRecord {
  const verdict = transcript.verdict;
  switch (verdict.kind) {
    case 'continue':
      throw new UnsupportedConclusionError('a terminal record', 'the run has not reached a verdict yet');
    case 'already-holds':
      if (restoration)
        throw new UnsupportedConclusionError('already-holds', 'nothing was mutated, nothing is restored');
      return Object.freeze({
        status: 'already-holds',
        contract: transcript.contract,
        baseline: transcript.baseline,
        budget: budgetOf(transcript),
      });
    case 'restored': {
      if (restoration)
        throw new UnsupportedConclusionError(
          'restored',
          'a restored run keeps its candidates; it is not rolled back',
        );
      const last = transcript.attempts.at(-1);
      if (!last) throw new UnsupportedConclusionError('restored', 'no candidate run exists');
      return Object.freeze({
        status: 'restored',
        contract: transcript.contract,
        baseline: transcript.baseline,
        attempts: transcript.attempts,
        budget: budgetOf(transcript),
        finalRun: last.run,
      });
    }
    case 'stop': {
      if (!restoration)
        throw new UnsupportedConclusionError(
          'non-converged',
          'the bounded scope must be restored to the checkpoint first; pass the restoration observation',
        );
      const common = {
        stopClass: verdict.stopClass,
        why: verdict.why,
        contract: transcript.contract,
        baseline: transcript.baseline,
        attempts: transcript.attempts,
        refusedCandidate: transcript.refusedCandidate,
        budget: budgetOf(transcript),
      };
      if (restoration.kind === 'not-mutated') {
        if (transcript.attempts.length > 0)
          throw new UnsupportedConclusionError(
            'non-converged',
            `${transcript.attempts.length} candidate(s) were applied, so the scope was mutated and must be restored`,
          );
        return Object.freeze({
          status: 'non-converged',
          ...common,
          restoration: { kind: 'not-mutated' as const, reason: 'no candidate patch was applied' },
        });
      }
      if (restoration.kind === 'failed')
        return Object.freeze({
          status: 'recovery-failure',
          ...common,
          checkpoint: restoration.checkpoint,
          failedOperation: restoration.operation,
          error: restoration.error,
          remainingDelta: [...restoration.remainingDelta],
        });
      if (restoration.remainingDelta.length > 0)
        return Object.freeze({
          status: 'recovery-failure',
          ...common,
          checkpoint: restoration.checkpoint,
          failedOperation: restoration.operation,
          error:
            'the restoration operation completed but the working tree still differs from its pre-run state (see the remaining delta)',
          remainingDelta: [...restoration.remainingDelta],
        });
      return Object.freeze({
        status: 'non-converged',
        ...common,
        restoration: {
          kind: 'checkpoint-restored' as const,
          checkpoint: restoration.checkpoint,
          operation: restoration.operation,
        },
      });
    }
  }
}

/**
 * The record of a run that could not make an exact checkpoint of its scope: it stops before
 * mutation as `non-converged` with stop class `checkpoint-unavailable` (the recovery mechanism is
 * unavailable), with no baseline run and no patch.
 *
 * @param contract the frozen contract
 * @param reason why no exact checkpoint could be made
 * @throws UnfrozenContractError for a contract not created by `freezeRunContract`
 */
export function concludeCheckpointUnavailable(contract: RunContract, reason: string): NonConvergedRecord {
  assertFrozenRunContract(contract);
  return Object.freeze({
    status: 'non-converged',
    stopClass: 'checkpoint-unavailable',
    why: `no exact checkpoint of the scope could be made: ${reason}`,
    contract,
    baseline: null,
    attempts: [],
    refusedCandidate: null,
    budget: { limit: contract.budget, spent: 0 },
    restoration: { kind: 'not-mutated' as const, reason: 'the run stopped before the first mutation' },
  });
}

/** Whether a terminal record reports a success (`already-holds` or `restored`). */
export function isTerminalSuccess(record: TerminalRecord): boolean {
  return record.status === 'already-holds' || record.status === 'restored';
}
