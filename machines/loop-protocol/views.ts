/**
 * Thin readers over the pure core (src/loop-protocol/): what the guards, actions and actor inputs
 * of every region compute from the context.
 */
import { describeError } from '../../src/common/describe-value.js';
import { NotProvidedError } from '../../src/common/errors.js';
import { actionDisposition, nextStreaks } from '../../src/loop-protocol/cycle-record.js';
import type { EntryContract } from '../../src/loop-protocol/entry-contract.js';
import { completeEntryContract } from '../../src/loop-protocol/infer-or-stop.js';
import { assessProgress, type CycleClaim, startProgressLedger } from '../../src/loop-protocol/progress.js';
import {
  budgetLimitsOf,
  type ContinuationDecision,
  decideContinuation,
  type LoopFacts,
  plateauThresholdOfContract,
} from '../../src/loop-protocol/stop-rules.js';
import type { LoopProtocolContext, Verification } from './context.js';

export function notProvided(name: string) {
  return async (): Promise<never> => {
    throw new NotProvidedError(name);
  };
}

/**
 * The text of an effect's error (`describeError`: its own string `message`, else the value as
 * text; never `[object Object]`, and never a throw that would stop the machine before it reaches
 * the continue / pivot / stop table).
 */
export const errorText = describeError;

export function outputOf<T>(event: unknown): T {
  return (event as { output: T }).output;
}

export function completion(context: LoopProtocolContext) {
  return completeEntryContract(context.given, context.start?.facts ?? {});
}

export function contractOf(context: LoopProtocolContext): EntryContract {
  if (context.contract === null) throw new Error('loop-protocol: no complete entry contract in context');
  return context.contract;
}

export function minSamplesOf(context: LoopProtocolContext): number {
  const metric = context.start?.metric;
  return metric ? (metric.minSamples ?? 3) : 1;
}

/** Everything `decideContinuation` reads, from the context. */
export function loopFactsOf(context: LoopProtocolContext): LoopFacts {
  const contract = contractOf(context);
  const plateauThreshold = plateauThresholdOfContract(contract);
  const choice = context.choice;
  return {
    userCancelled: context.cancelled,
    sourceAvailable: context.sourceLost === null,
    userChangesOverlapRollbackBoundary: context.boundaryOverlap !== null,
    successEvidence: context.verification?.successEvidence ?? [],
    terminalFailureEvidence: [
      ...(context.verification?.terminalFailureEvidence ?? []),
      ...context.failureEvidence,
    ],
    nextActionNeedsBroaderScope: choice?.needsBroaderScope ?? false,
    limits: budgetLimitsOf(contract),
    usage: { iterations: context.completedCycles, ...context.usage },
    progress: [...context.progress],
    nonProgressStreak: context.streaks.nonProgress,
    plateauThreshold,
    repeatedErrorStreak: context.streaks.repeatedError,
    repeatedErrorThreshold: context.start?.repeatedErrorThreshold ?? plateauThreshold,
    pivotAvailable: choice?.pivotAvailable ?? false,
    crossTurn: choice?.crossTurn ?? false,
    wakeupAuthorized: context.start?.wakeupAuthorized ?? false,
    permittedActionRemains: choice?.permittedActionRemains ?? true,
  };
}

export function decisionOf(context: LoopProtocolContext): ContinuationDecision {
  return decideContinuation(loopFactsOf(context));
}

/** A cycle's per-cycle fields, cleared before it starts. */
export const FRESH_CYCLE = {
  observation: null,
  comparison: null,
  choice: null,
  actEvidence: [],
  verification: null,
  progress: [],
  disposition: null,
} as const;

/** The verification recorded when the evaluator itself could not run. */
export function unavailableVerification(reason: string): Verification {
  return {
    verdict: 'unavailable',
    detail: reason,
    evidence: [`the evaluator could not run: ${reason}`],
    successEvidence: [],
    terminalFailureEvidence: [],
    claim: {},
    errorFingerprint: `evaluator-unavailable: ${reason}`,
  };
}

/** Records the verification: progress judged against the ledger, the streaks and the disposition. */
export function recordVerification(
  context: LoopProtocolContext,
  verification: Verification,
): Partial<LoopProtocolContext> {
  const claim: CycleClaim = {
    ...verification.claim,
    ...(context.observation ? { observationFingerprint: context.observation.fingerprint } : {}),
  };
  const assessed = assessProgress(claim, context.ledger ?? startProgressLedger(null, null), context.baseline);
  const actionTaken = context.choice?.action != null;
  return {
    verification,
    progress: assessed.kinds,
    ledger: assessed.ledger,
    completedCycles: context.completedCycles + 1,
    streaks: nextStreaks(context.streaks, assessed.kinds, verification.errorFingerprint),
    disposition: actionDisposition(actionTaken, assessed.kinds),
  };
}
