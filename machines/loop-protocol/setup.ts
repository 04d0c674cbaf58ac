/**
 * The loop protocol machine's `setup`: its types, actors, guards and actions. Every region
 * (entry.ts, baseline.ts, cycle.ts, deciding.ts) is a state config typed against this one object,
 * so guard, action and actor names are checked in every file.
 */
import { assign, fromPromise, setup } from 'xstate';
import { FRESH_STREAKS } from '../../src/loop-protocol/cycle-record.js';
import type { ContinuationDecision } from '../../src/loop-protocol/stop-rules.js';
import type {
  ActInput,
  ActOutput,
  CheckpointInput,
  CheckpointResult,
  Choice,
  ChooseInput,
  LoopProtocolActors,
  LoopProtocolContext,
  LoopProtocolEvent,
  LoopProtocolOutput,
  Observation,
  ObserveInput,
  RollbackInput,
  RollbackResult,
  Verification,
  VerifyInput,
} from './context.js';
import { completion, decisionOf, FRESH_CYCLE, minSamplesOf, notProvided, outputOf } from './views.js';

/** The one setup every region's state config is typed against. */
export const loopProtocolSetup = setup({
  types: {
    context: {} as LoopProtocolContext,
    events: {} as LoopProtocolEvent,
    output: {} as LoopProtocolOutput,
  },
  actors: {
    /** Observes the authoritative source and normalizes the result. */
    observe: fromPromise<Observation, ObserveInput>(notProvided('observe')),
    /** Chooses the smallest permitted action with a causal reason, or explicitly none. */
    choose: fromPromise<Choice, ChooseInput>(notProvided('choose')),
    /** The one writer applies the action. */
    act: fromPromise<ActOutput, ActInput>(notProvided('act')),
    /** Runs the declared evaluator against the same source state. */
    verify: fromPromise<Verification, VerifyInput>(notProvided('verify')),
    /** Confirms (or moves) a checkpoint that restores only the loop's own changes. */
    checkpoint: fromPromise<CheckpointResult, CheckpointInput>(notProvided('checkpoint')),
    /** Restores the last checkpoint after a discarded action, never with destructive git recovery. */
    rollback: fromPromise<RollbackResult, RollbackInput>(notProvided('rollback')),
  } satisfies LoopProtocolActors,
  guards: {
    /** A field present in the contract does not satisfy the schema. */
    entryInvalid: ({ context }) => completion(context).kind === 'invalid',
    /** A missing field would change scope, authority, the success metric or an external action. */
    entryNeedsDirection: ({ context }) => completion(context).kind === 'stop',
    /** The observation says the source is gone. */
    observationLost: ({ event }) => !outputOf<Observation>(event).available,
    /** A metric loop observed no metric: the authoritative source no longer gives it. */
    metricMissing: ({ context, event }) =>
      Boolean(context.start?.metric) && outputOf<Observation>(event).metric === null,
    /** User changes overlap the rollback boundary. */
    userChangesOverlap: ({ event }) => outputOf<Observation>(event).userChangesOverlap,
    /**
     * A noisy metric needs more samples to define its tolerance. A loop without a metric observes
     * once: its samples stay empty, so counting them would sample forever.
     */
    moreSamplesNeeded: ({ context }) =>
      Boolean(context.start?.metric) && context.samples.length < minSamplesOf(context),
    /** The checkpoint cannot restore only the loop's own changes. */
    checkpointRefused: ({ event }) => !outputOf<CheckpointResult>(event).ok,
    /** The chosen next action needs broader scope or new authority. */
    needsBroaderScope: ({ event }) => outputOf<Choice>(event).needsBroaderScope,
    /** The loop explicitly chose no action this cycle. */
    noActionChosen: ({ event }) => outputOf<Choice>(event).action === null,
    /** The action was taken and the cycle made progress. */
    actionKept: ({ context }) => context.disposition === 'kept',
    /** The action was taken without progress. */
    actionDiscarded: ({ context }) => context.disposition === 'discarded',
    /** The rollback did not restore the checkpoint. */
    rollbackFailed: ({ event }) => !outputOf<RollbackResult>(event).restored,
    /** The continue / pivot / stop decision of the pure core is this one. */
    decided: ({ context }, params: { decision: ContinuationDecision['decision']; rule: string }) => {
      const decision = decisionOf(context);
      return decision.decision === params.decision && decision.rule === params.rule;
    },
  },
  actions: {
    recordDecision: assign({ decision: ({ context }) => decisionOf(context) }),
    cancel: assign({ cancelled: true }),
    /** Continue: the next cycle starts with its per-cycle fields cleared. */
    nextCycle: assign(({ context }) => ({ ...FRESH_CYCLE, cycle: context.cycle + 1 })),
    /** Pivot: record the strategy change; the new strategy starts with fresh patience. */
    pivot: assign(({ context }) => ({
      ...FRESH_CYCLE,
      cycle: context.cycle + 1,
      streaks: FRESH_STREAKS,
      pivots: [
        ...context.pivots,
        `after cycle ${context.cycle} (${context.decision?.rule ?? 'patience'}): ${context.choice?.reason ?? 'a different strategy'}`,
      ],
    })),
  },
});
