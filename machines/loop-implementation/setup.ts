/**
 * The loop engine's `setup`: its types, actors, guards and actions. Every region of the statechart
 * (entry.ts, implement.ts, recovery.ts, human-stops.ts, verify.ts) is a state config typed against
 * this one object, so guard, action and actor names are checked in every file.
 */
import { assign, emit, setup } from 'xstate';
import { distinctActionRecords } from '../../src/gauntlet/action-records.js';
import type { DispatchPlan } from '../../src/gauntlet/dispatch.js';
import { loopActors } from './actors.js';
import type {
  BoundaryFacts,
  ChildReport,
  DispatchRecovery,
  GateRun,
  HumanEvent,
  LoopContext,
  LoopImplementationInput,
  LoopOutput,
  NoticeEvent,
} from './context.js';
import { loopGuards } from './guards.js';
import { reportOf } from './review-guards.js';
import { choiceEdit, describeError, redrawRequest, ruleStop, rules } from './views.js';

/** The one setup every region's state config is typed against. */
export const loopSetup = setup({
  types: {
    context: {} as LoopContext,
    input: {} as LoopImplementationInput,
    output: {} as LoopOutput,
    events: {} as HumanEvent,
    emitted: {} as NoticeEvent,
  },
  actors: loopActors,
  guards: loopGuards,
  actions: {
    notice: emit((_, params: { text: string }) => ({ type: 'notice' as const, text: params.text })),
    /** The reserved ledger (bump and tuple) is now the ledger on disk. */
    keepReserved: assign({ ledger: ({ context }) => (context.plan as DispatchPlan).reserved }),
    /** Action accounting (§3.19): the records the dispatch left join the retained ones. */
    keepCollectedRecords: assign({
      actionRecords: ({ context, event }) =>
        distinctActionRecords([
          ...context.actionRecords,
          ...(event as unknown as { output: { actionRecords: LoopContext['actionRecords'] } }).output
            .actionRecords,
        ]),
    }),
    /** Keeps what the child reported. */
    keepChildReport: assign({ child: ({ event }) => (event as unknown as { output: ChildReport }).output }),
    /** A dispatch that failed to run is a `dispatch error` return. */
    keepDispatchError: assign({
      child: ({ event }) => ({
        returned: null,
        dispatchError: describeError((event as unknown as { error: unknown }).error),
      }),
    }),
    /** Keeps how a dispatch found in flight at resume ended. */
    keepRecoveredReport: assign({
      child: ({ event }) => {
        const { launched: _launched, ...report } = (
          event as unknown as { output: Extract<DispatchRecovery, { launched: true }> }
        ).output;
        return report;
      },
    }),
    /** Keeps what git said after the return, and retains the jobs file's action records. */
    keepBoundary: assign(({ context, event }) => {
      const boundary = (event as unknown as { output: BoundaryFacts }).output;
      return {
        boundary,
        actionRecords: distinctActionRecords([...context.actionRecords, ...(boundary.actionRecords ?? [])]),
      };
    }),
    /** The escalated round is due but no model resolves: `Problem: escalationLoop.implModel unavailable`. */
    stopMissingModel: assign(({ context }) => {
      const outcome = rules(context);
      return {
        stop: { kind: 'missing-model' as const, row: outcome.kind === 'dispatch-row' ? outcome.row : 0 },
        stopLedger: context.ledger,
      };
    }),
    /** A verification repair is due but no model resolves: the verification stop, without a repair. */
    stopMissingRepairModel: assign(({ context }) => ({
      stop: {
        kind: 'verification-failed' as const,
        repairs: context.history.verificationRepairs,
        problem: { kind: 'missing-model' as const },
      },
      stopLedger: context.ledger,
    })),
    /** Holds the stop the ordered table chose (rule 2, the seed count, unreachable routing). */
    keepRuleStop: assign(({ context }) => ({ stop: ruleStop(context), stopLedger: context.ledger })),
    /**
     * Holds a recovery-incomplete stop (§3.15): the saved pre-dispatch cells are what it lists,
     * nothing is repaired, no attempt is consumed.
     */
    stopRecovery: assign(({ context }, params: { what: string; detail?: string; interruption?: string }) => {
      const plan = context.plan as DispatchPlan;
      return {
        stop: {
          kind: 'recovery-incomplete' as const,
          iteration: plan.iteration,
          what: params.what,
          ...(params.detail === undefined ? {} : { detail: params.detail }),
        },
        stopLedger: plan.saved,
        ...(params.interruption === undefined ? {} : { interruption: params.interruption }),
      };
    }),
    /** Computes the ledger (and spec) edit of the accepted human choice. */
    keepChoice: assign({ pendingChoice: ({ context, event }) => choiceEdit(context, event) }),
    /** Keeps the redraw commit (`loop: redraw`, the ledger deleted) for the `redrawing` state. */
    keepRedraw: assign({
      pendingChoice: ({ context, event }) =>
        redrawRequest(context, event.type === 'human.redraw' ? event.reason : 'redraw'),
    }),
    /**
     * Keeps a gate run: its failure (or none) and the HEAD it left, which includes the commit of
     * tracked changes the gates produced, so a verification repair plans on that HEAD.
     */
    keepGateRun: assign(({ context, event }) => {
      const run = (event as unknown as { output: GateRun }).output;
      return {
        gateFailure: run.passed ? null : run,
        head: run.head,
        // Coordinated verify: the legs that passed keep their HEADs for the rerun scope and the closure.
        verifiedHeads: { ...context.verifiedHeads, ...(run.verified ?? {}) },
        repairedLeg: null,
      };
    }),
    /** Keeps the review report that just arrived (verify steps 2-3). */
    keepReview: assign({ review: ({ event }) => reportOf(event) }),
    /** Keeps the message of an effect that failed unexpectedly (the run ends in `failed`). */
    storeError: assign({
      error: ({ event }) => describeError((event as unknown as { error?: unknown }).error),
    }),
  },
});
