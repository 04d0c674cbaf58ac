/**
 * The loop protocol contract as an XState v5 statechart: the entry contract (infer low-risk
 * fields, stop for user direction on material ones), the baseline (noisy-metric samples, the
 * checkpoint confirmed to cover only loop-owned changes), and the cycle observe → compare →
 * choose → act → verify → record, closed by one ordered table of the continue / pivot / stop
 * rules (`STOP_RULE_ORDER`).
 *
 * Every guard calls a pure function of src/loop-protocol/ (`completeEntryContract`,
 * `aggregateBaseline`, `assessProgress`, `decideContinuation`); observe, choose, act, verify,
 * checkpoint and rollback are named actors whose defaults throw NotProvidedError until the host
 * provides them. The context is plain JSON.
 *
 * One file per region of the generated diagrams: entry.ts (idle, entry, awaitingDirection),
 * baseline.ts, cycle.ts and deciding.ts (the table); setup.ts holds the actors, guards and
 * actions, views.ts the readers over the pure core, context.ts the types.
 */
import { FRESH_STREAKS } from '../../src/loop-protocol/cycle-record.js';
import { baselineRegion } from './baseline.js';
import { cycleRegion } from './cycle.js';
import { decidingState } from './deciding.js';
import { awaitingDirectionState, entryState, idleState } from './entry.js';
import { loopProtocolSetup } from './setup.js';
import { FRESH_CYCLE } from './views.js';

export type {
  ActInput,
  ActOutput,
  CheckpointInput,
  CheckpointResult,
  Choice,
  ChooseInput,
  Comparison,
  LoopProtocolActorContracts,
  LoopProtocolActors,
  LoopProtocolCancelEvent,
  LoopProtocolContext,
  LoopProtocolDirectionEvent,
  LoopProtocolEvent,
  LoopProtocolOutput,
  LoopProtocolStartEvent,
  MetricOptions,
  Observation,
  ObserveInput,
  RollbackInput,
  RollbackResult,
  Verification,
  VerifyInput,
} from './context.js';
export { loopFactsOf } from './views.js';

/** The loop protocol statechart (registry name `loop-protocol`). */
export const loopProtocolMachine = loopProtocolSetup.createMachine({
  id: 'loop-protocol',
  description: 'The loop protocol contract: observe, compare, choose, act, verify, record; stop or continue.',
  context: {
    start: null,
    given: {},
    contract: null,
    inferred: [],
    missing: [],
    findings: [],
    samples: [],
    baseline: null,
    baselineObservation: null,
    checkpoint: null,
    ledger: null,
    cycle: 0,
    completedCycles: 0,
    ...FRESH_CYCLE,
    previousFingerprint: null,
    streaks: FRESH_STREAKS,
    usage: { elapsedMs: 0, tokens: 0, cost: 0 },
    cancelled: false,
    sourceLost: null,
    boundaryOverlap: null,
    failureEvidence: [],
    pivots: [],
    decision: null,
  },
  initial: 'idle',
  // The output is computed before the final snapshot exists, so the status is read from the
  // context: no complete contract means the loop never started.
  output: ({ context }) => ({
    status:
      context.contract !== null
        ? 'stopped'
        : context.findings.length > 0
          ? 'invalid-contract'
          : 'cancelled-before-start',
    decision: context.decision,
    findings: context.findings,
    missing: context.missing,
    completedCycles: context.completedCycles,
  }),
  states: {
    idle: idleState,
    entry: entryState,
    awaitingDirection: awaitingDirectionState,
    baseline: baselineRegion,
    cycle: cycleRegion,
    deciding: decidingState,
    invalidContract: { type: 'final', description: 'A present field of the entry contract is invalid.' },
    cancelledBeforeStart: { type: 'final', description: 'Cancelled while waiting for direction.' },
    stopped: {
      type: 'final',
      description: 'Stopped by a rule; the final report is built from the transcript.',
    },
  },
});
