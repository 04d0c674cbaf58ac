/**
 * RPI — Plan, Implement, a fresh Validate, and the bounded repair phase under the convergence law —
 * as an XState v5 statechart.
 *
 * Plan, Implement and the first Validate run once each. When the first round is not a PASS, the
 * repair phase repeats repair → measure → validate while the law holds. Every condition of the law
 * is its own named guard, a thin call into the pure predicates of src/convergence/, and the machine
 * keeps the pure fold's state (`startRepairPhase` / `admitRound` / `exhaustRepairBudget`) in its
 * context, so the terminal state the guards reach and the stop reason the fold records are two
 * computations of one law that tests compare.
 *
 * Side effects are named actors that throw NotProvidedError until the host supplies them with
 * `rpiMachine.provide({ actors })`: `plan`, `implement` (also invoked as `repair`),
 * `measureSubject`, `validateFresh`, `validateCrossFamily`, `finalCi`. The context is plain JSON.
 *
 * After convergence the `finalCi` state runs the caller's full CI command set once on the
 * integrated subject (seed 002); its receipt stands only when the subject digest measured before
 * and after the run equals the converged digest (`receiptFreshness`). A host without a CI command
 * set answers `configured: false` and the run converges as before.
 */

import { assign, fromPromise, setup } from 'xstate';
import { InputError, LoopchartError, NotProvidedError } from '../src/common/errors.js';
import { type Finding, finding } from '../src/common/finding.js';
import { converged, diversityUnsatisfied } from '../src/convergence/convergence-check.js';
import { findingSetGrew, reopenedFinding, subjectOrEvidenceChanged } from '../src/convergence/law.js';
import { checkRound, normalizeRound } from '../src/convergence/normalize-round.js';
import { receiptFreshness, type StaleReceiptReason } from '../src/convergence/receipt-freshness.js';
import { checkRepairRounds, withinRepairBudget } from '../src/convergence/repair-budget.js';
import {
  admitRound,
  exhaustRepairBudget,
  finishRepairPhase,
  type RepairPhaseResult,
  type RepairPhaseState,
  startRepairPhase,
} from '../src/convergence/repair-phase.js';
import { isRiskySurface, riskyPaths } from '../src/convergence/risky-surface.js';
import { upgradeRiskySurface } from '../src/convergence/risky-surface-upgrade.js';
import type { NormalizedRound, OpenFinding } from '../src/convergence/round.js';
import {
  notBuiltReport,
  notPlannedReport,
  type RpiReportV1,
  repairPhaseReport,
} from '../src/convergence/rpi-report.js';
import { repairFailedReport } from '../src/convergence/stage-failure-report.js';
import type { StopReason } from '../src/convergence/stop-reason.js';
import { isSubjectDigest } from '../src/convergence/subject-digest.js';
import type { ActorContract, ActorImplementations } from './actor-contract.js';

// ---------------------------------------------------------------------------------------------
// Input, actor contracts, context and output

/** How the caller declares whether the change touches a risky surface. */
export type RiskDeclaration = 'auto' | 'yes' | 'no';

/** What the host passes when it creates the RPI actor. */
export interface RpiInput {
  /** Repair rounds the caller allows (default 2); checked with `checkRepairRounds`. */
  readonly repairRounds?: number;
  /**
   * `yes` / `no` declare the change risky or not; `auto` (the default) classifies the changed
   * paths `measureSubject` reports, after the implementation and after every repair.
   */
  readonly risky?: RiskDeclaration;
  /** Whether a cross-family validator is available. Without one a risky PASS cannot converge. */
  readonly crossFamily?: boolean;
}

/** What Plan returned: the run's identities, or nothing. */
export type PlanOutcome =
  | {
      readonly planned: true;
      /** Where the intent came from (a file, an issue, `caller`); null when unknown. */
      readonly intentRef: string | null;
      /** SHA-256 of the exact intent bytes (64 lowercase hex), or null when there is no intent text. */
      readonly acceptanceDigest: string | null;
    }
  | { readonly planned: false; readonly reason: string };

/** What the implementer is asked to do: build (round 0) or repair the open findings (round n). */
export interface ImplementRequest {
  /** 0 for the implementation, n for repair round n. */
  readonly round: number;
  /** The open findings the repair must close; empty for the implementation. */
  readonly openFindings: readonly OpenFinding[];
}

/** What the implementer returned. `built: false` means it returned nothing. */
export interface ImplementOutcome {
  readonly built: boolean;
  /** A short note for people (e.g. `exit 1`), or null. */
  readonly detail: string | null;
}

/** The subject as measured after an implementation or repair. */
export interface SubjectMeasure {
  /** The subject-manifest digest (64 lowercase hex). */
  readonly digest: string;
  /** Repository-relative paths changed since the run's base, under the subject's roots. */
  readonly changedPaths: readonly string[];
}

/** Which validator leg is asked to judge. */
export type ValidatorLeg = 'fresh' | 'cross-family';

/** What a validator is asked to judge. */
export interface ValidateRequest {
  /** 0 for the first fresh validation, n for repair round n. */
  readonly round: number;
  readonly leg: ValidatorLeg;
  /** The digest of the subject to judge; the leg must name this digest. */
  readonly subjectDigest: string;
}

/** What the final CI actor is asked: the digest the repair phase converged on. */
export interface FinalCiRequest {
  readonly subjectDigest: string;
}

/** One CI command of the final run and how it ended. */
export interface FinalCiCommandResult {
  readonly command: string;
  /** The exit code, or null when a signal or a timeout ended it. */
  readonly exitCode: number | null;
  /** `exit <code>`, `signal <name>` or a timeout, for people. */
  readonly detail: string;
}

/**
 * What the final CI actor returned: `configured: false` when the caller gave no CI command set,
 * else the receipt: the digests measured right before and right after the run and each command's
 * result (the commands run in order and stop at the first that fails).
 */
export type FinalCiOutcome =
  | { readonly configured: false }
  | {
      readonly configured: true;
      /** Every command that ran exited 0 and none was skipped. */
      readonly passed: boolean;
      readonly digestBefore: string;
      readonly digestAfter: string;
      readonly commands: readonly FinalCiCommandResult[];
    };

/** The final CI receipt as the run records it: the actor's outcome plus the freshness verdict. */
export type FinalCiReceipt =
  | { readonly status: 'not_configured' }
  | {
      readonly status: 'passed' | 'failed' | 'stale';
      readonly convergedDigest: string;
      readonly digestBefore: string;
      readonly digestAfter: string;
      /** Why the receipt is stale, or null when it is fresh. */
      readonly staleReason: StaleReceiptReason | null;
      readonly commands: readonly FinalCiCommandResult[];
    };

/** How a run ended: a stop reason of the repair phase, or a stage that never reached it. */
export type RpiTerminal =
  | Exclude<StopReason, 'not_converged'>
  | 'final_ci_failed'
  | 'final_ci_stale_receipt'
  | 'not_planned'
  | 'not_built'
  | 'repair_failed'
  | 'round_rejected'
  | 'failed';

/** An effect that failed unexpectedly, as JSON (the error object itself does not persist). */
export interface RpiFailure {
  /** The state whose actor failed (`planning`, `implementing`, `validateFresh`, …). */
  readonly stage: string;
  /** The error's stable code (`LoopchartError.code`), or `internal`. */
  readonly code: string;
  readonly message: string;
  /** Whether the error is the user's input or configuration (an InputError: exit code 2). */
  readonly input: boolean;
  readonly findings: readonly Finding[];
}

/** The RPI actor's context: plain JSON, so a snapshot persists and restores exactly. */
export interface RpiContext {
  readonly repairRounds: number;
  readonly risky: RiskDeclaration;
  readonly crossFamily: boolean;
  /** Whether the change touches a risky surface (declared, or measured and never lowered). */
  readonly riskySurface: boolean;
  /** The risky paths measured so far (for `auto`). */
  readonly riskyPaths: readonly string[];
  readonly intentRef: string | null;
  readonly acceptanceDigest: string | null;
  /** The subject as last measured. */
  readonly subject: SubjectMeasure | null;
  /** The legs of the round being validated, as the validators returned them. */
  readonly legs: readonly unknown[];
  /** Every round judged so far (round 0 first), each its list of legs. */
  readonly rounds: readonly (readonly unknown[])[];
  /** The repair phase (the pure fold's state); null until round 0 is judged. */
  readonly phase: RepairPhaseState | null;
  /** Why the round was refused (shape problems, or a leg that judged another subject). */
  readonly rejection: readonly Finding[];
  /** Why a stage returned nothing (Plan's reason, the implementer's note). */
  readonly stageNote: string | null;
  readonly failure: RpiFailure | null;
  /** The final CI receipt after convergence; null until the final CI step ran. */
  readonly finalCi: FinalCiReceipt | null;
  readonly terminal: RpiTerminal | null;
}

/** What the run reports when it ends (the actor's output). */
export interface RpiOutcome {
  readonly terminal: RpiTerminal;
  /** The repair phase's stop reason, when the phase stopped. */
  readonly stopReason: StopReason | null;
  /** Whether the run converged (the only success). */
  readonly converged: boolean;
  /** The rpi-report.v1, or null when no report can be made (a refused round, a failed effect). */
  readonly report: RpiReportV1 | null;
  /** The repair phase result, when the phase stopped. */
  readonly result: RepairPhaseResult | null;
  readonly roundsUsed: number;
  readonly openFindings: readonly OpenFinding[];
  readonly rejection: readonly Finding[];
  readonly stageNote: string | null;
  readonly failure: RpiFailure | null;
  /** The final CI receipt (`not_configured` without a CI command set), or null when the run never converged. */
  readonly finalCi: FinalCiReceipt | null;
}

// ---------------------------------------------------------------------------------------------
// Pure views of the context (thin calls into src/convergence/)

/** The output an invoked actor's done event carries (named guards and actions see the bare event union). */
function outputOf<T>(event: { readonly type: string }): T {
  return (event as unknown as { output: T }).output;
}

/** The error an invoked actor's error event carries. */
function errorOf(event: { readonly type: string }): unknown {
  return (event as unknown as { error: unknown }).error;
}

function notProvided(name: string) {
  return async (): Promise<never> => {
    throw new NotProvidedError(name);
  };
}

/** The round being validated, merged; only call once `checkRound` accepted it. */
function candidate(context: RpiContext): NormalizedRound {
  return normalizeRound(context.legs);
}

function runningPhase(context: RpiContext): RepairPhaseState {
  if (context.phase === null) throw new Error('the repair phase has not started');
  return context.phase;
}

/** The round the next implement, measure or validate belongs to. */
function nextRound(context: RpiContext): number {
  return context.phase === null ? 0 : context.phase.roundsUsed + 1;
}

function describeFailure(stage: string, error: unknown): RpiFailure {
  if (error instanceof LoopchartError) {
    return {
      stage,
      code: error.code,
      message: error.message,
      input: error instanceof InputError,
      findings: [...error.findings],
    };
  }
  const message =
    error instanceof Error
      ? error.message
      : typeof error === 'object' &&
          error !== null &&
          typeof (error as { message?: unknown }).message === 'string'
        ? (error as { message: string }).message
        : String(error);
  return { stage, code: 'internal', message, input: false, findings: [] };
}

function identityWellFormed(outcome: PlanOutcome): boolean {
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

function finalCiReceiptOf(context: RpiContext, outcome: FinalCiOutcome): FinalCiReceipt {
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

// ---------------------------------------------------------------------------------------------
// The machine

/** Input of `measureSubject`: the round the subject is measured for. */
export interface MeasureSubjectInput {
  readonly round: number;
}

/** What every actor of the rpi machine is invoked with and resolves to, by actor name. */
export interface RpiActorContracts {
  readonly plan: ActorContract<Record<string, never>, PlanOutcome>;
  readonly implement: ActorContract<ImplementRequest, ImplementOutcome>;
  readonly measureSubject: ActorContract<MeasureSubjectInput, SubjectMeasure>;
  readonly validateFresh: ActorContract<ValidateRequest, unknown>;
  readonly validateCrossFamily: ActorContract<ValidateRequest, unknown>;
  readonly finalCi: ActorContract<FinalCiRequest, FinalCiOutcome>;
}

/** The actor logic a host provides to the rpi machine, by actor name (`.provide({ actors })`). */
export type RpiActors = ActorImplementations<RpiActorContracts>;

const rpiSetup = setup({
  types: {
    context: {} as RpiContext,
    input: {} as RpiInput,
    output: {} as RpiOutcome,
  },
  actors: {
    /** Plan: resolves the intent and its identities, or returns nothing (NOT_PLANNED). */
    plan: fromPromise<PlanOutcome, Record<string, never>>(notProvided('plan')),
    /** The implementer: builds the change (round 0) or repairs the open findings (round n). */
    implement: fromPromise<ImplementOutcome, ImplementRequest>(notProvided('implement')),
    /** Measures the subject: its manifest digest and the paths changed since the run's base. */
    measureSubject: fromPromise<SubjectMeasure, { round: number }>(notProvided('measureSubject')),
    /** The fresh validator: one leg over the measured subject (untrusted JSON, checked here). */
    validateFresh: fromPromise<unknown, ValidateRequest>(notProvided('validateFresh')),
    /** The cross-family validator, invoked on risky surfaces only. */
    validateCrossFamily: fromPromise<unknown, ValidateRequest>(notProvided('validateCrossFamily')),
    /** The final CI: the caller's full CI command set, once, on the converged subject. */
    finalCi: fromPromise<FinalCiOutcome, FinalCiRequest>(notProvided('finalCi')),
  } satisfies RpiActors,
  guards: {
    planReturnedNothing: ({ event }) => outputOf<PlanOutcome>(event).planned === false,
    planIdentityWellFormed: ({ event }) => identityWellFormed(outputOf<PlanOutcome>(event)),
    implementerBuilt: ({ event }) => outputOf<ImplementOutcome>(event).built === true,
    crossFamilyLegDue: ({ context }) => context.riskySurface && context.crossFamily,
    roundMalformed: ({ context }) => checkRound(context.legs).length > 0,
    roundJudgedAnotherSubject: ({ context }) => candidate(context).subjectDigest !== context.subject?.digest,
    repairPhaseNotStarted: ({ context }) => context.phase === null,
    // The law's conditions, each as the predicate that holds when the round may be admitted.
    noClosedFindingReopens: ({ context }) =>
      !reopenedFinding(candidate(context), runningPhase(context).closedIds),
    openSetNotLarger: ({ context }) => !findingSetGrew(runningPhase(context).current, candidate(context)),
    subjectOrEvidenceChanged: ({ context }) =>
      subjectOrEvidenceChanged(runningPhase(context).current, candidate(context)),
    withinRepairBudget: ({ context }) =>
      withinRepairBudget(runningPhase(context).roundsUsed, runningPhase(context).repairRounds),
    // The convergence check after every admitted round.
    diversityUnsatisfied: ({ context }) =>
      diversityUnsatisfied(runningPhase(context).current, runningPhase(context).riskySurface),
    converged: ({ context }) => converged(runningPhase(context).current, runningPhase(context).riskySurface),
    // The final CI step after convergence.
    finalCiNotConfigured: ({ event }) => outputOf<FinalCiOutcome>(event).configured === false,
    finalCiReceiptStale: ({ context, event }) => {
      const outcome = outputOf<FinalCiOutcome>(event);
      return (
        outcome.configured &&
        !receiptFreshness(
          runningPhase(context).current.subjectDigest,
          outcome.digestBefore,
          outcome.digestAfter,
        ).fresh
      );
    },
    finalCiPassed: ({ event }) => {
      const outcome = outputOf<FinalCiOutcome>(event);
      return outcome.configured && outcome.passed;
    },
  },
  actions: {
    recordIdentity: assign(({ event }) => {
      const output = outputOf<PlanOutcome>(event);
      return output.planned ? { intentRef: output.intentRef, acceptanceDigest: output.acceptanceDigest } : {};
    }),
    recordPlanNote: assign({
      stageNote: ({ event }) => {
        const output = outputOf<PlanOutcome>(event);
        return output.planned ? null : output.reason;
      },
    }),
    refusePlanIdentity: assign({
      failure: () => ({
        stage: 'planning',
        code: 'rpi.plan-identity-invalid',
        message:
          'Plan returned an intent reference that is blank or an acceptance digest that is not 64 lowercase hex',
        input: true,
        findings: [],
      }),
    }),
    recordImplementNote: assign({
      stageNote: ({ event }) => outputOf<ImplementOutcome>(event).detail,
    }),
    recordSubject: assign(({ context, event }) => {
      const subject = outputOf<SubjectMeasure>(event);
      const measured = context.risky === 'auto' ? riskyPaths([...subject.changedPaths]) : [];
      const riskySurface =
        context.risky === 'yes' ||
        (context.risky === 'auto' && (context.riskySurface || isRiskySurface([...subject.changedPaths])));
      return {
        subject: { digest: subject.digest, changedPaths: [...subject.changedPaths] },
        riskySurface,
        riskyPaths: [...new Set([...context.riskyPaths, ...measured])],
        phase: context.phase === null ? null : upgradeRiskySurface(context.phase, riskySurface),
      };
    }),
    clearLegs: assign({ legs: () => [] }),
    recordLeg: assign({
      legs: ({ context, event }) => [...context.legs, outputOf<unknown>(event)],
    }),
    rejectMalformedRound: assign({ rejection: ({ context }) => checkRound(context.legs) }),
    rejectForeignSubject: assign({
      rejection: ({ context }) => [
        finding(
          'rpi.round-subject-mismatch',
          0,
          `the round judged subject ${candidate(context).subjectDigest}, but the subject measured is ${context.subject?.digest ?? 'unknown'}`,
        ),
      ],
    }),
    startRepairPhase: assign(({ context }) => ({
      phase: startRepairPhase(context.legs, {
        repairRounds: context.repairRounds,
        riskySurface: context.riskySurface,
      }),
      rounds: [...context.rounds, context.legs],
    })),
    admitRound: assign(({ context }) => ({
      phase: admitRound(runningPhase(context), context.legs),
      rounds: [...context.rounds, context.legs],
    })),
    exhaustRepairBudget: assign({ phase: ({ context }) => exhaustRepairBudget(runningPhase(context)) }),
    recordFailure: assign({
      failure: ({ event }, params: { stage: string }) => describeFailure(params.stage, errorOf(event)),
    }),
    recordFinalCi: assign({
      finalCi: ({ context, event }) => finalCiReceiptOf(context, outputOf<FinalCiOutcome>(event)),
    }),
    finish: assign({ terminal: (_, params: { terminal: RpiTerminal }) => params.terminal }),
  },
});

function terminal(name: RpiTerminal, description: string) {
  return {
    type: 'final' as const,
    description,
    entry: { type: 'finish' as const, params: { terminal: name } },
  };
}

/** The RPI statechart (registry name `rpi`). */
export const rpiMachine = rpiSetup.createMachine({
  id: 'rpi',
  context: ({ input }) => ({
    repairRounds: checkRepairRounds(input.repairRounds),
    risky: input.risky ?? 'auto',
    crossFamily: input.crossFamily ?? false,
    riskySurface: input.risky === 'yes',
    riskyPaths: [],
    intentRef: null,
    acceptanceDigest: null,
    subject: null,
    legs: [],
    rounds: [],
    phase: null,
    rejection: [],
    stageNote: null,
    failure: null,
    finalCi: null,
    terminal: null,
  }),
  initial: 'planning',
  output: ({ context }) => rpiOutcome(context),
  states: {
    planning: {
      description: 'Plan resolves the intent once',
      invoke: {
        id: 'plan',
        src: 'plan',
        input: () => ({}),
        onDone: [
          {
            description: 'Plan returned nothing',
            guard: 'planReturnedNothing',
            target: 'not_planned',
            actions: 'recordPlanNote',
          },
          {
            description: 'planned',
            guard: 'planIdentityWellFormed',
            target: 'implementing',
            actions: 'recordIdentity',
          },
          { description: 'Plan identity malformed', target: 'failed', actions: 'refusePlanIdentity' },
        ],
        onError: { target: 'failed', actions: { type: 'recordFailure', params: { stage: 'planning' } } },
      },
    },
    implementing: {
      description: 'the implementer builds the change once',
      invoke: {
        id: 'implement',
        src: 'implement',
        input: () => ({ round: 0, openFindings: [] }),
        onDone: [
          { description: 'built', guard: 'implementerBuilt', target: 'measuring' },
          { description: 'Implement returned nothing', target: 'not_built', actions: 'recordImplementNote' },
        ],
        onError: { target: 'failed', actions: { type: 'recordFailure', params: { stage: 'implementing' } } },
      },
    },
    measuring: {
      description: 'the subject-manifest digest and the changed paths',
      invoke: {
        id: 'measureSubject',
        src: 'measureSubject',
        input: ({ context }) => ({ round: nextRound(context) }),
        onDone: { target: 'validating', actions: 'recordSubject' },
        onError: { target: 'failed', actions: { type: 'recordFailure', params: { stage: 'measuring' } } },
      },
    },
    validating: {
      description: 'a fresh validator judges the subject; a cross-family leg too on risky surfaces',
      entry: 'clearLegs',
      initial: 'fresh',
      onDone: 'checkingRound',
      states: {
        fresh: {
          invoke: {
            id: 'validateFresh',
            src: 'validateFresh',
            input: ({ context }) => ({
              round: nextRound(context),
              leg: 'fresh' as const,
              subjectDigest: context.subject?.digest ?? '',
            }),
            onDone: { target: 'choosingLegs', actions: 'recordLeg' },
            onError: {
              target: '#rpi.failed',
              actions: { type: 'recordFailure', params: { stage: 'validateFresh' } },
            },
          },
        },
        choosingLegs: {
          always: [
            {
              description: 'risky surface: a cross-family leg judges too',
              guard: 'crossFamilyLegDue',
              target: 'crossFamily',
            },
            { description: 'the fresh leg is the round', target: 'judged' },
          ],
        },
        crossFamily: {
          invoke: {
            id: 'validateCrossFamily',
            src: 'validateCrossFamily',
            input: ({ context }) => ({
              round: nextRound(context),
              leg: 'cross-family' as const,
              subjectDigest: context.subject?.digest ?? '',
            }),
            onDone: { target: 'judged', actions: 'recordLeg' },
            onError: {
              target: '#rpi.failed',
              actions: { type: 'recordFailure', params: { stage: 'validateCrossFamily' } },
            },
          },
        },
        judged: { type: 'final' },
      },
    },
    checkingRound: {
      description: 'a round that is not a round is refused, never judged',
      always: [
        {
          description: 'round shape invalid',
          guard: 'roundMalformed',
          target: 'round_rejected',
          actions: 'rejectMalformedRound',
        },
        {
          description: 'the round judged another subject',
          guard: 'roundJudgedAnotherSubject',
          target: 'round_rejected',
          actions: 'rejectForeignSubject',
        },
        {
          description: 'round 0: the first fresh validation spends no budget',
          guard: 'repairPhaseNotStarted',
          target: 'convergenceCheck',
          actions: 'startRepairPhase',
        },
        { description: 'a repair round: judged by the law', target: 'law' },
      ],
    },
    law: {
      description: 'the convergence law over the repair round, in the order C3, C2, C4',
      initial: 'reopen',
      states: {
        reopen: {
          always: [
            {
              description: 'C3 no closed finding reopens',
              guard: 'noClosedFindingReopens',
              target: 'growth',
            },
            {
              description: 'C3 broken: a closed finding reopened',
              target: '#rpi.reopened_finding',
              actions: 'admitRound',
            },
          ],
        },
        growth: {
          always: [
            { description: 'C2 open set not larger', guard: 'openSetNotLarger', target: 'progress' },
            {
              description: 'C2 broken: the open set grew',
              target: '#rpi.finding_set_grew',
              actions: 'admitRound',
            },
          ],
        },
        progress: {
          always: [
            {
              description: 'C4 subject or evidence changed',
              guard: 'subjectOrEvidenceChanged',
              target: '#rpi.convergenceCheck',
              actions: 'admitRound',
            },
            {
              description: 'C4 broken: same subject, no binding evidence',
              target: '#rpi.no_subject_or_evidence_change',
              actions: 'admitRound',
            },
          ],
        },
      },
    },
    convergenceCheck: {
      description: 'after every admitted round: converged, diversity, or another repair within C1',
      always: [
        {
          description: 'risky PASS judged by fewer than two families',
          guard: 'diversityUnsatisfied',
          target: 'diversity_unsatisfied',
        },
        {
          description: 'PASS: the final CI runs on the converged subject',
          guard: 'converged',
          target: 'finalCi',
        },
        { description: 'C1 within repair budget', guard: 'withinRepairBudget', target: 'repairing' },
        {
          description: 'C1 broken: no repair round left',
          target: 'repair_budget_exhausted',
          actions: 'exhaustRepairBudget',
        },
      ],
    },
    repairing: {
      description: 'the orchestrator repairs the open findings',
      invoke: {
        id: 'repair',
        src: 'implement',
        input: ({ context }) => ({
          round: nextRound(context),
          openFindings: runningPhase(context).current.openFindings,
        }),
        onDone: [
          { description: 'repaired', guard: 'implementerBuilt', target: 'measuring' },
          {
            description: 'the repair returned nothing',
            target: 'repair_failed',
            actions: 'recordImplementNote',
          },
        ],
        onError: { target: 'failed', actions: { type: 'recordFailure', params: { stage: 'repairing' } } },
      },
    },
    finalCi: {
      description: 'the full CI command set runs once on the converged subject; its receipt must be fresh',
      invoke: {
        id: 'finalCi',
        src: 'finalCi',
        input: ({ context }) => ({ subjectDigest: runningPhase(context).current.subjectDigest }),
        onDone: [
          {
            description: 'no CI command set: final CI not configured',
            guard: 'finalCiNotConfigured',
            target: 'converged',
            actions: 'recordFinalCi',
          },
          {
            description: 'the subject changed around the CI run: stale receipt',
            guard: 'finalCiReceiptStale',
            target: 'final_ci_stale_receipt',
            actions: 'recordFinalCi',
          },
          {
            description: 'final CI passed on the converged subject',
            guard: 'finalCiPassed',
            target: 'converged',
            actions: 'recordFinalCi',
          },
          { description: 'final CI failed', target: 'final_ci_failed', actions: 'recordFinalCi' },
        ],
        onError: { target: 'failed', actions: { type: 'recordFailure', params: { stage: 'finalCi' } } },
      },
    },
    final_ci_failed: terminal(
      'final_ci_failed',
      'a final CI command failed on the converged subject: NOT_PROVEN',
    ),
    final_ci_stale_receipt: terminal(
      'final_ci_stale_receipt',
      'the subject digest moved around the final CI run: NOT_PROVEN',
    ),
    converged: terminal('converged', 'PASS (two families on a risky surface): status PASS'),
    diversity_unsatisfied: terminal('diversity_unsatisfied', 'risky PASS with one family: NOT_PROVEN'),
    repair_budget_exhausted: terminal('repair_budget_exhausted', 'C1: no repair round left'),
    reopened_finding: terminal('reopened_finding', 'C3: a closed finding is open again'),
    finding_set_grew: terminal('finding_set_grew', 'C2: more open findings than the round before'),
    no_subject_or_evidence_change: terminal(
      'no_subject_or_evidence_change',
      'C4: same digest and no binding evidence',
    ),
    not_planned: terminal('not_planned', 'report status NOT_PLANNED'),
    not_built: terminal('not_built', 'report status NOT_BUILT'),
    repair_failed: terminal('repair_failed', 'a repair returned nothing: NOT_PROVEN, no subject digest'),
    round_rejected: terminal(
      'round_rejected',
      'a malformed round or a leg over another subject: invalid input',
    ),
    failed: terminal('failed', 'an effect failed'),
  },
});
