/**
 * Pure views of the RPI context (thin calls into src/convergence/): what the guards, actions and
 * actor inputs of every region compute, and the run's outcome.
 */

import { describeError } from '../../src/common/describe-value.js';
import { InputError, LoopchartError, NotProvidedError } from '../../src/common/errors.js';
import { normalizeRound } from '../../src/convergence/normalize-round.js';
import { receiptFreshness } from '../../src/convergence/receipt-freshness.js';
import { finishRepairPhase, type RepairPhaseState } from '../../src/convergence/repair-phase.js';
import type { NormalizedRound } from '../../src/convergence/round.js';
import {
  notBuiltReport,
  notPlannedReport,
  type RpiReportV1,
  repairPhaseReport,
} from '../../src/convergence/rpi-report.js';
import { repairFailedReport } from '../../src/convergence/stage-failure-report.js';
import { isSubjectDigest } from '../../src/convergence/subject-digest.js';
import type {
  FinalCiOutcome,
  FinalCiReceipt,
  PlanOutcome,
  RpiContext,
  RpiFailure,
  RpiOutcome,
} from './context.js';

/** The output an invoked actor's done event carries (named guards and actions see the bare event union). */
export function outputOf<T>(event: { readonly type: string }): T {
  return (event as unknown as { output: T }).output;
}

/** The error an invoked actor's error event carries. */
export function errorOf(event: { readonly type: string }): unknown {
  return (event as unknown as { error: unknown }).error;
}

export function notProvided(name: string) {
  return async (): Promise<never> => {
    throw new NotProvidedError(name);
  };
}

/** The round being validated, merged; only call once `checkRound` accepted it. */
export function candidate(context: RpiContext): NormalizedRound {
  return normalizeRound(context.legs);
}

export function runningPhase(context: RpiContext): RepairPhaseState {
  if (context.phase === null) throw new Error('the repair phase has not started');
  return context.phase;
}

/** The round the next implement, measure or validate belongs to. */
export function nextRound(context: RpiContext): number {
  return context.phase === null ? 0 : context.phase.roundsUsed + 1;
}

export function describeFailure(stage: string, error: unknown): RpiFailure {
  if (error instanceof LoopchartError) {
    return {
      stage,
      code: error.code,
      message: error.message,
      input: error instanceof InputError,
      findings: [...error.findings],
    };
  }
  return { stage, code: 'internal', message: describeError(error), input: false, findings: [] };
}

export function identityWellFormed(outcome: PlanOutcome): boolean {
  if (!outcome.planned) return false;
  const refOk =
    outcome.intentRef === null || (typeof outcome.intentRef === 'string' && outcome.intentRef.trim() !== '');
  const digestOk = outcome.acceptanceDigest === null || isSubjectDigest(outcome.acceptanceDigest);
  return refOk && digestOk;
}

/**
 * The outcome of a finished run, computed from its context: the report the terminal calls for
 * (repair phase report, NOT_PLANNED, NOT_BUILT, the failed-repair report) and the phase result.
 *
 * @param context the context of an actor that reached a final state
 * @returns the run's outcome
 */
export function rpiOutcome(context: RpiContext): RpiOutcome {
  const terminal = context.terminal ?? 'failed';
  const identity = { intentRef: context.intentRef, acceptanceDigest: context.acceptanceDigest };
  const phase = context.phase;
  const stopped = phase !== null && phase.stopReason !== null;
  const result = stopped ? finishRepairPhase(phase) : null;
  let report: RpiReportV1 | null = null;
  if (terminal === 'not_planned') report = notPlannedReport();
  else if (terminal === 'not_built') report = notBuiltReport(identity);
  else if (terminal === 'repair_failed' && phase !== null) report = repairFailedReport(phase, identity);
  else if (result !== null && terminal !== 'round_rejected' && terminal !== 'failed')
    report = repairPhaseReport(result, identity);
  if (report !== null && (terminal === 'final_ci_failed' || terminal === 'final_ci_stale_receipt')) {
    // The validators converged, but the integrated subject has no fresh passing CI receipt.
    report = { ...report, status: 'NOT_PROVEN', checked: [...report.checked, finalCiLine(context.finalCi)] };
  } else if (report !== null && terminal === 'converged' && context.finalCi !== null) {
    // A passing receipt is checked; a run without a CI command set says so in not_checked.
    const line = finalCiLine(context.finalCi);
    report =
      context.finalCi.status === 'not_configured'
        ? { ...report, not_checked: [...report.not_checked, line] }
        : { ...report, checked: [...report.checked, line] };
  }
  return {
    terminal,
    stopReason: result?.stopReason ?? null,
    converged: terminal === 'converged',
    report,
    result,
    roundsUsed: phase?.roundsUsed ?? 0,
    openFindings: phase?.current.openFindings ?? [],
    rejection: context.rejection,
    stageNote: context.stageNote,
    failure: context.failure,
    finalCi: context.finalCi,
  };
}

/**
 * The report line of a final CI receipt (`final CI: not configured`, `final CI: passed on <digest>`, …).
 *
 * @param receipt the receipt, or null when the step never ran
 */
export function finalCiLine(receipt: FinalCiReceipt | null): string {
  if (receipt === null) return 'final CI: not run';
  if (receipt.status === 'not_configured') return 'final CI: not configured';
  const commands = receipt.commands.map((c) => `${c.command} (${c.detail})`).join('; ');
  if (receipt.status === 'stale')
    return `final CI: stale receipt (${receipt.staleReason}): converged ${receipt.convergedDigest}, before ${receipt.digestBefore}, after ${receipt.digestAfter}; ${commands}`;
  return `final CI: ${receipt.status} on ${receipt.convergedDigest}: ${commands}`;
}

export function finalCiReceiptOf(context: RpiContext, outcome: FinalCiOutcome): FinalCiReceipt {
  if (!outcome.configured) return { status: 'not_configured' };
  const convergedDigest = runningPhase(context).current.subjectDigest;
  const freshness = receiptFreshness(convergedDigest, outcome.digestBefore, outcome.digestAfter);
  return {
    status: !freshness.fresh ? 'stale' : outcome.passed ? 'passed' : 'failed',
    convergedDigest,
    digestBefore: outcome.digestBefore,
    digestAfter: outcome.digestAfter,
    staleReason: freshness.fresh ? null : freshness.reason,
    commands: outcome.commands.map((c) => ({ command: c.command, exitCode: c.exitCode, detail: c.detail })),
  };
}
