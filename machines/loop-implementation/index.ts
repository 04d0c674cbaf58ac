/**
 * The pi-gauntlet loop engine ("loop-implementation") as an XState v5 statechart.
 *
 * States are the protocol's: entry (fresh seeding or authorized restore), implement (the ordered
 * table before each dispatch, the escalated round, dispatch, validation, repairs, interrupted
 * recovery, amendments), the human stops (one state per stop kind, each accepting exactly the
 * choices its menu offers), verify (gate set, verification repairs, reviews, closure) and the
 * terminal states. Every guard is a thin call into the pure protocol core in src/gauntlet/; every
 * side effect is a named actor that throws "not provided" until the host supplies it with
 * `machine.provide({ actors })` (src/host/ wires the real ones).
 *
 * The ordered table before each dispatch is one ordered list of guarded `always` transitions whose
 * descriptions carry the rule labels (R1..R4), so the generated diagram reads like the table.
 */
import { emptyLoopHistory } from '../../src/gauntlet/history.js';
import type { LoopOutput } from './context.js';
import { entryRegion } from './entry.js';
import { amendingInVerifyState, discardingState, humanStopRegion, redrawingState } from './human-stops.js';
import { implementRegion } from './implement.js';
import { legsRegion } from './legs.js';
import { loopSetup } from './setup.js';
import { verifyRegion } from './verify.js';
import { redrawnText, redrawReason, STOPPED_BY_HUMAN } from './views.js';

export type {
  CheckoutCleanliness,
  CheckoutHeadInput,
  CollectedActionRecords,
  CommitOutput,
  DispatchChildInput,
  DispatchPlanInput,
  Empty,
  FinishBranchInput,
  InspectWorkspaceInput,
  JobsCleanup,
  LoopImplementationActorContracts,
  LoopImplementationActors,
  PlannedDispatchInput,
  ProvenanceVerdict,
  RefreshInput,
  ResolvedImplModel,
  ResolveImplModelInput,
  RunGatesInput,
  RunReviewInput,
} from './actors.js';
export type {
  BoundaryFacts,
  ChildReport,
  CommitRequest,
  DispatchRecovery,
  FixRoundRequest,
  GateRun,
  HumanEvent,
  LoopContext,
  LoopImplementationInput,
  LoopOutput,
  LoopSettings,
  NoticeEvent,
  RefreshFacts,
  ReviewReport,
  WorkspaceFacts,
} from './context.js';
export { returnOutcomeOf, rulesOutcome, STOPPED_BY_HUMAN, verificationOutcomeOf } from './views.js';

/**
 * The loop engine statechart. Provide its actors with `loopImplementationMachine.provide({ actors
 * })` (see src/host/ for the real implementations and docs/api.md for the contracts).
 */
export const loopImplementationMachine = loopSetup.createMachine({
  id: 'loop-implementation',
  description: 'pi-gauntlet loop engine (loop-implementation)',
  context: ({ input }) => ({
    input,
    settings: null,
    settingsProblem: null,
    workspace: null,
    specText: null,
    spec: null,
    specFindings: [],
    ledger: null,
    ledgerFindings: [],
    history: emptyLoopHistory(),
    plan: null,
    model: null,
    child: null,
    boundary: null,
    actionRecords: [],
    interruption: null,
    stop: null,
    stopLedger: null,
    problem: null,
    gateFailure: null,
    verifiedHeads: {},
    repairedLeg: null,
    review: null,
    minors: [],
    closure: null,
    pendingChoice: null,
    head: null,
    legHeads: null,
    error: null,
  }),
  initial: 'entry',
  states: {
    entry: entryRegion,
    implement: implementRegion,
    legs: legsRegion,
    humanStop: humanStopRegion,
    amendingInVerify: amendingInVerifyState,
    discarding: discardingState,
    redrawing: redrawingState,
    verify: verifyRegion,

    finished: {
      type: 'final',
      description: 'Step 4: closure; verification complete',
      output: ({ context }) => ({ status: 'finished' as const, closure: context.closure }),
    },
    redrawn: {
      type: 'final',
      description: 'Redrawn: the ledger is deleted (`loop: redraw`); the next run seeds a fresh one',
      output: ({ context }) => ({
        status: 'stopped' as const,
        text: redrawnText(context.input.ledgerPath, redrawReason(context)),
      }),
    },
    stopped: {
      type: 'final',
      description: 'Stopped by the human; branch state preserved',
      output: () => ({ status: 'stopped' as const, text: STOPPED_BY_HUMAN }),
    },
    invalid: {
      type: 'final',
      description: 'Configuration error (exit code 2)',
      output: ({ context }) => ({
        status: 'invalid' as const,
        message: context.problem?.message ?? 'invalid input',
        findings: context.problem?.findings ?? [],
      }),
    },
    failed: {
      type: 'final',
      description: 'An effect failed unexpectedly (exit code 1)',
      output: ({ context }) => ({ status: 'failed' as const, message: context.error ?? 'the run failed' }),
    },
  },
  // The run's end is the output of the final state it reached (a host renders it as is).
  output: ({ event }) => (event as unknown as { output: LoopOutput }).output,
});
