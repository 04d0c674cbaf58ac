/**
 * The RPI machine's `setup`: its types, actors, guards and actions. Every region (validating.ts,
 * law.ts) and the top-level states in index.ts are typed against this one object, so guard,
 * action and actor names are checked in every file.
 */
import { assign, fromPromise, setup } from 'xstate';
import { finding } from '../../src/common/finding.js';
import { converged, diversityUnsatisfied } from '../../src/convergence/convergence-check.js';
import { findingSetGrew, reopenedFinding, subjectOrEvidenceChanged } from '../../src/convergence/law.js';
import { checkRound } from '../../src/convergence/normalize-round.js';
import { receiptFreshness } from '../../src/convergence/receipt-freshness.js';
import { withinRepairBudget } from '../../src/convergence/repair-budget.js';
import { admitRound, exhaustRepairBudget, startRepairPhase } from '../../src/convergence/repair-phase.js';
import { isRiskySurface, riskyPaths } from '../../src/convergence/risky-surface.js';
import { upgradeRiskySurface } from '../../src/convergence/risky-surface-upgrade.js';
import type {
  FinalCiOutcome,
  FinalCiRequest,
  ImplementOutcome,
  ImplementRequest,
  PlanOutcome,
  RpiActors,
  RpiContext,
  RpiInput,
  RpiOutcome,
  RpiTerminal,
  SubjectMeasure,
  ValidateRequest,
} from './context.js';
import {
  candidate,
  describeFailure,
  errorOf,
  finalCiReceiptOf,
  identityWellFormed,
  notProvided,
  outputOf,
  runningPhase,
} from './views.js';

/** The one setup every region's state config is typed against. */
export const rpiSetup = setup({
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
