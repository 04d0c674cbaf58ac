import {
  type AfterRunVerdict,
  type BaselineVerdict,
  decideAfterRun,
  decideBaseline,
} from './decide-after-run.js';
import { type CandidateDecision, decideCandidate } from './decide-candidate.js';
import {
  BudgetExceededError,
  CheckSetMismatchError,
  InvalidCandidateError,
  RunStoppedError,
} from './errors.js';
import { assertFrozenRunContract, type RunContract } from './run-contract.js';
import type { RunRecord } from './run-record.js';
import { pathsOutsideScope } from './scope.js';
import { isBudgetExhausted, type StopVerdict } from './stop-class.js';

/**
 * One candidate patch: the smallest change within the scope that could restore one failing
 * check (procedure step 6).
 */
export interface CandidatePatch {
  /** The host's identifier of the patch (e.g. a diff hash or stash-free commit id). */
  readonly id: string;
  /** The failing check this patch aims to restore; must not pass in the retained state. */
  readonly target: string;
  /** One line saying what the patch changes and why. */
  readonly summary: string;
  /** Repository-relative paths the patch changes (after applying: the observed changed paths). */
  readonly paths: readonly string[];
}

/** One attempted candidate with its full run, keep-or-revert decision and the verdict after it. */
export interface CandidateAttempt {
  /** 1-based; equals the run number of `run`. */
  readonly attempt: number;
  readonly patch: CandidatePatch;
  readonly run: RunRecord;
  readonly decision: CandidateDecision;
  readonly verdict: AfterRunVerdict;
  /** Budget units spent after this attempt. */
  readonly budgetSpent: number;
}

/** The latest verdict of a run: on the baseline, after a candidate, or a pre-apply stop. */
export type RunVerdict = BaselineVerdict | AfterRunVerdict;

/**
 * The run transcript so far: the frozen contract, the baseline, every attempt, the retained run
 * (the state the working tree is in: the baseline or the last kept candidate), the budget spent
 * and the latest verdict. Values are immutable; each step returns a new transcript.
 */
export interface RunTranscript {
  readonly contract: RunContract;
  readonly baseline: RunRecord;
  readonly attempts: readonly CandidateAttempt[];
  readonly retained: RunRecord;
  readonly budgetSpent: number;
  readonly verdict: RunVerdict;
  /** The candidate refused before it was applied, when the run stopped for scope widening that way. */
  readonly refusedCandidate: CandidatePatch | null;
}

/**
 * Starts the transcript from the pre-mutation baseline run and decides it (`already-holds`,
 * `unavailable-check` stop, or `continue`).
 *
 * @param contract the frozen contract
 * @param baseline run 0 recorded with `recordRun(contract, 0, ...)`
 * @throws UnfrozenContractError, CheckSetMismatchError (baseline not of this contract),
 *   InvalidCandidateError (baseline not numbered 0)
 */
export function beginRun(contract: RunContract, baseline: RunRecord): RunTranscript {
  assertFrozenRunContract(contract);
  assertSameChecks(contract, baseline);
  if (baseline.run !== 0)
    throw new InvalidCandidateError(`the baseline must be run 0, got run ${baseline.run}`);
  return Object.freeze({
    contract,
    baseline,
    attempts: Object.freeze([]),
    retained: baseline,
    budgetSpent: 0,
    verdict: decideBaseline(baseline),
    refusedCandidate: null,
  });
}

/**
 * Whether another candidate may be applied: the latest verdict is `continue` and budget remains.
 *
 * @param transcript the run so far
 */
export function mayApplyCandidate(transcript: RunTranscript): boolean {
  return (
    transcript.verdict.kind === 'continue' &&
    !isBudgetExhausted(transcript.contract.budget, transcript.budgetSpent)
  );
}

/** Outcome of {@link admitCandidate}. */
export type Admission =
  | { readonly admitted: true }
  | { readonly admitted: false; readonly transcript: RunTranscript; readonly verdict: StopVerdict };

/**
 * Checks a proposed candidate before it is applied. A candidate that needs paths outside the
 * recorded scope is not applied: the run stops as `scope-widening` without spending budget,
 * because no candidate was attempted.
 *
 * @param transcript the run so far
 * @param patch the proposed patch (its intended paths)
 * @returns admitted, or the stopped transcript
 * @throws RunStoppedError, BudgetExceededError, InvalidCandidateError (see {@link recordCandidate})
 */
export function admitCandidate(transcript: RunTranscript, patch: CandidatePatch): Admission {
  assertMayApply(transcript);
  validatePatch(transcript, patch);
  const outside = pathsOutsideScope(transcript.contract.scope, patch.paths);
  if (outside.length === 0) return { admitted: true };
  const verdict: StopVerdict = {
    kind: 'stop',
    stopClass: 'scope-widening',
    why: `candidate ${patch.id} needs ${outside.join(', ')} outside the recorded scope; it was not applied`,
  };
  return {
    admitted: false,
    verdict,
    transcript: Object.freeze({ ...transcript, verdict, refusedCandidate: patch }),
  };
}

/**
 * Records one applied candidate: spends one budget unit, decides keep or revert against the
 * retained run, and decides the verdict after the run.
 *
 * @param transcript the run so far; its verdict must be `continue`
 * @param patch the applied patch; `paths` are the paths it actually changed
 * @param run the full run after the patch, numbered `attempts.length + 1`
 * @returns the next transcript; its last attempt holds the decision and verdict
 * @throws RunStoppedError when the run already has a verdict other than `continue`;
 *   BudgetExceededError when no budget is left; InvalidCandidateError for an empty id, a target
 *   that is not a frozen check failing in the retained state, or a wrongly numbered run;
 *   CheckSetMismatchError when the run is not of this contract's check set
 */
export function recordCandidate(
  transcript: RunTranscript,
  patch: CandidatePatch,
  run: RunRecord,
): RunTranscript {
  assertMayApply(transcript);
  validatePatch(transcript, patch);
  assertSameChecks(transcript.contract, run);
  const attempt = transcript.attempts.length + 1;
  if (run.run !== attempt)
    throw new InvalidCandidateError(`candidate ${attempt} must come with run ${attempt}, got run ${run.run}`);
  const budgetSpent = transcript.budgetSpent + 1;
  const decision = decideCandidate(transcript.retained, run);
  const verdict = decideAfterRun({
    contract: transcript.contract,
    earlierRuns: [transcript.baseline, ...transcript.attempts.map((a) => a.run)],
    retained: transcript.retained,
    run,
    changedPaths: patch.paths,
    budgetSpent,
  });
  const record: CandidateAttempt = Object.freeze({ attempt, patch, run, decision, verdict, budgetSpent });
  return Object.freeze({
    ...transcript,
    attempts: Object.freeze([...transcript.attempts, record]),
    retained: decision.decision === 'keep' ? run : transcript.retained,
    budgetSpent,
    verdict,
  });
}

function assertMayApply(transcript: RunTranscript): void {
  if (transcript.verdict.kind !== 'continue')
    throw new RunStoppedError(
      transcript.verdict.kind === 'stop'
        ? `non-converged: ${transcript.verdict.stopClass}`
        : transcript.verdict.kind,
    );
  if (isBudgetExhausted(transcript.contract.budget, transcript.budgetSpent))
    throw new BudgetExceededError(transcript.contract.budget);
}

function validatePatch(transcript: RunTranscript, patch: CandidatePatch): void {
  if (patch.id.trim() === '') throw new InvalidCandidateError('the patch has no id');
  const target = transcript.retained.results.find((result) => result.name === patch.target);
  if (target === undefined)
    throw new InvalidCandidateError(`target "${patch.target}" is not a check of the frozen contract`);
  if (target.outcome === 'passed')
    throw new InvalidCandidateError(
      `target "${patch.target}" already passes; a candidate must aim at a failing check`,
    );
}

function assertSameChecks(contract: RunContract, run: RunRecord): void {
  const expected = contract.checks.map((check) => check.name);
  const actual = run.results.map((result) => result.name);
  if (expected.length !== actual.length || expected.some((name, i) => name !== actual[i]))
    throw new CheckSetMismatchError(
      expected.filter((name) => !actual.includes(name)),
      actual.filter((name) => !expected.includes(name)),
    );
}
