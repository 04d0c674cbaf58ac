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
 *
 * One file per region of the generated diagrams: validating.ts and law.ts; the top-level states
 * (the overview) are here. setup.ts holds the actors, guards and actions, views.ts the pure views
 * of the context and the outcome, context.ts the types.
 */
import { checkRepairRounds } from '../../src/convergence/repair-budget.js';
import type { RpiTerminal } from './context.js';
import { lawRegion } from './law.js';
import { rpiSetup } from './setup.js';
import { validatingRegion } from './validating.js';
import { nextRound, rpiOutcome, runningPhase } from './views.js';

export type {
  FinalCiCommandResult,
  FinalCiOutcome,
  FinalCiReceipt,
  FinalCiRequest,
  ImplementOutcome,
  ImplementRequest,
  MeasureSubjectInput,
  PlanOutcome,
  RiskDeclaration,
  RpiActorContracts,
  RpiActors,
  RpiContext,
  RpiFailure,
  RpiInput,
  RpiOutcome,
  RpiTerminal,
  SubjectMeasure,
  ValidateRequest,
  ValidatorLeg,
} from './context.js';
export { finalCiLine, rpiOutcome } from './views.js';

function terminal(name: RpiTerminal, description: string) {
  return {
    type: 'final' as const,
    description,
    entry: { type: 'finish' as const, params: { terminal: name } },
  };
}

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
    validating: validatingRegion,
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
    law: lawRegion,
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
