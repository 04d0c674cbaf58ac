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
 */

import { assign, fromPromise, setup } from 'xstate';
import { NotProvidedError } from '../src/common/errors.js';
import type { Finding } from '../src/common/finding.js';
import {
  type ActionDisposition,
  actionDisposition,
  type CycleStreaks,
  FRESH_STREAKS,
  nextStreaks,
} from '../src/loop-protocol/cycle-record.js';
import type { EntryContract, PartialEntryContract } from '../src/loop-protocol/entry-contract.js';
import {
  completeEntryContract,
  type InferenceFacts,
  type InferredField,
  type MissingField,
} from '../src/loop-protocol/infer-or-stop.js';
import {
  aggregateBaseline,
  type MetricDirection,
  type NoisyBaseline,
} from '../src/loop-protocol/noisy-baseline.js';
import {
  assessProgress,
  type CycleClaim,
  type ProgressKind,
  type ProgressLedger,
  startProgressLedger,
} from '../src/loop-protocol/progress.js';
import {
  budgetLimitsOf,
  type ContinuationDecision,
  decideContinuation,
  type LoopFacts,
  plateauThresholdOfContract,
  type StopRule,
} from '../src/loop-protocol/stop-rules.js';
import type { ActorContract, ActorImplementations } from './actor-contract.js';

// ---------------------------------------------------------------------------------------------
// Events and actor contracts

/** How the baseline of a noisy metric is taken; absent for a loop without a metric. */
export interface MetricOptions {
  readonly direction: MetricDirection;
  /** Samples before acting (default 3). */
  readonly minSamples?: number;
  /** Floor of the tolerance (default 0). */
  readonly minimumTolerance?: number;
}

/** Starts a loop: the entry contract as given (fields may be missing) and the run's settings. */
export interface LoopProtocolStartEvent {
  readonly type: 'START';
  readonly contract: PartialEntryContract;
  /** Read-only repository facts low-risk inference may use. */
  readonly facts?: InferenceFacts;
  readonly metric?: MetricOptions | null;
  /** Same-error cycles before the repeated-error rule fires (default: the plateau threshold). */
  readonly repeatedErrorThreshold?: number;
  /** Whether an authorized wakeup can carry the loop into a later turn (default false). */
  readonly wakeupAuthorized?: boolean;
}

/** The user's direction for the fields the loop stopped on; merged into the contract as given. */
export interface LoopProtocolDirectionEvent {
  readonly type: 'DIRECTION';
  readonly fields: PartialEntryContract;
}

/** The user cancels the loop; it stops at once. */
export interface LoopProtocolCancelEvent {
  readonly type: 'CANCEL';
}

/** Events the machine handles besides actor outcomes. */
export type LoopProtocolEvent = LoopProtocolStartEvent | LoopProtocolDirectionEvent | LoopProtocolCancelEvent;

/** A normalized observation of the authoritative source (`observe`'s output). */
export interface Observation {
  /** False when the source disappeared or access to it was lost. */
  readonly available: boolean;
  readonly summary: string;
  /** The metric, for a loop that has one; null otherwise. */
  readonly metric: number | null;
  /** Fingerprint of the normalized observation. */
  readonly fingerprint: string;
  /** User changes now overlap the loop's rollback boundary. */
  readonly userChangesOverlap: boolean;
}

/** What `observe` gets. */
export interface ObserveInput {
  readonly cycle: number;
  /** `baseline` while sampling the baseline (with the sample number), `cycle` afterwards. */
  readonly purpose: 'baseline' | 'cycle';
  readonly sample: number;
  readonly contract: EntryContract;
}

/** How this cycle's observation compares (the protocol's compare step), handed to `choose`. */
export interface Comparison {
  readonly sameAsBaseline: boolean;
  readonly sameAsPrevious: boolean;
  readonly seenBefore: boolean;
  /** The metric minus the best known value, when both exist. */
  readonly metricDeltaFromBest: number | null;
}

/** What `choose` gets: the observation, the comparison and the ledger (read before choosing). */
export interface ChooseInput {
  readonly cycle: number;
  readonly observation: Observation;
  readonly comparison: Comparison;
  readonly ledger: ProgressLedger;
  readonly contract: EntryContract;
  /** Strategy changes recorded so far. */
  readonly pivots: readonly string[];
}

/** The smallest permitted action with a causal reason, or explicitly none, and what remains. */
export interface Choice {
  readonly action: { readonly kind: 'action' | 'hypothesis'; readonly summary: string } | null;
  readonly reason: string;
  /** The next useful action needs broader scope or new authority. */
  readonly needsBroaderScope: boolean;
  /** One meaningfully different strategy inside scope has not been tried yet. */
  readonly pivotAvailable: boolean;
  /** Another permitted action remains after this one. */
  readonly permittedActionRemains: boolean;
  /** The next cycle would start in a later turn. */
  readonly crossTurn: boolean;
}

/** What `act` gets: the one action of the cycle, applied by the sole writer. */
export interface ActInput {
  readonly cycle: number;
  readonly action: NonNullable<Choice['action']>;
}

/** What `act` reports: evidence and the budget it used. */
export interface ActOutput {
  readonly evidence: readonly string[];
  readonly elapsedMs: number;
  readonly tokens: number;
  readonly cost: number;
}

/** What `verify` gets: the declared evaluator, run against the same source state. */
export interface VerifyInput {
  readonly cycle: number;
  readonly evaluator: string;
  readonly action: Choice['action'];
}

/** The evaluator's result and the cycle's claims of progress. */
export interface Verification {
  readonly verdict: 'pass' | 'fail' | 'unavailable';
  readonly detail: string | null;
  readonly evidence: readonly string[];
  /** Terminal evidence that success holds (success is never confirmed without it). */
  readonly successEvidence: readonly string[];
  /** Terminal evidence that the loop failed for good. */
  readonly terminalFailureEvidence: readonly string[];
  /** What the cycle claims to have achieved; judged against the ledger. */
  readonly claim: CycleClaim;
  /** Fingerprint of the error the cycle ended in, or null. */
  readonly errorFingerprint: string | null;
}

/** What `checkpoint` gets: confirm at baseline, or move the rollback boundary after a kept action. */
export interface CheckpointInput {
  readonly cycle: number;
  readonly purpose: 'baseline' | 'kept';
}

/** Whether a checkpoint restoring only loop-owned changes exists now. */
export interface CheckpointResult {
  readonly ok: boolean;
  readonly checkpoint: string | null;
  /** Why not, when not (e.g. user edits inside the rollback boundary). */
  readonly reason: string | null;
}

/** What `rollback` gets: restore the last checkpoint after a discarded action. */
export interface RollbackInput {
  readonly cycle: number;
  readonly checkpoint: string | null;
}

/** Whether the discarded action's changes were rolled back. */
export interface RollbackResult {
  readonly restored: boolean;
  readonly detail: string | null;
}

// ---------------------------------------------------------------------------------------------
// Context

/** The machine's context: plain JSON. */
export interface LoopProtocolContext {
  readonly start: Omit<LoopProtocolStartEvent, 'type' | 'contract'> | null;
  /** The contract as given (START, then DIRECTION merged in). */
  readonly given: PartialEntryContract;
  readonly contract: EntryContract | null;
  readonly inferred: readonly InferredField[];
  readonly missing: readonly MissingField[];
  readonly findings: readonly Finding[];
  readonly samples: readonly number[];
  readonly baseline: NoisyBaseline | null;
  readonly baselineObservation: Observation | null;
  readonly checkpoint: string | null;
  readonly ledger: ProgressLedger | null;
  /** The current cycle: 0 during the baseline. */
  readonly cycle: number;
  /** Cycles whose verification was recorded. */
  readonly completedCycles: number;
  readonly observation: Observation | null;
  readonly previousFingerprint: string | null;
  readonly comparison: Comparison | null;
  readonly choice: Choice | null;
  readonly actEvidence: readonly string[];
  readonly verification: Verification | null;
  readonly progress: readonly ProgressKind[];
  readonly disposition: ActionDisposition | null;
  readonly streaks: CycleStreaks;
  readonly usage: { readonly elapsedMs: number; readonly tokens: number; readonly cost: number };
  readonly cancelled: boolean;
  readonly sourceLost: string | null;
  readonly boundaryOverlap: string | null;
  /** Terminal failure evidence found by the loop itself (a failed rollback, no checkpoint). */
  readonly failureEvidence: readonly string[];
  readonly pivots: readonly string[];
  readonly decision: ContinuationDecision | null;
}

/** The machine's output when it is done. */
export interface LoopProtocolOutput {
  readonly status: 'stopped' | 'invalid-contract' | 'cancelled-before-start';
  readonly decision: ContinuationDecision | null;
  readonly findings: readonly Finding[];
  readonly missing: readonly MissingField[];
  readonly completedCycles: number;
}

// ---------------------------------------------------------------------------------------------
// Thin readers over the pure core

function notProvided(name: string) {
  return async (): Promise<never> => {
    throw new NotProvidedError(name);
  };
}

function errorText(error: unknown): string {
  if (error instanceof Error) return error.message;
  if (typeof error === 'object' && error !== null && 'message' in error)
    return String((error as { message: unknown }).message);
  return String(error);
}

function outputOf<T>(event: unknown): T {
  return (event as { output: T }).output;
}

function completion(context: LoopProtocolContext) {
  return completeEntryContract(context.given, context.start?.facts ?? {});
}

function contractOf(context: LoopProtocolContext): EntryContract {
  if (context.contract === null) throw new Error('loop-protocol: no complete entry contract in context');
  return context.contract;
}

function minSamplesOf(context: LoopProtocolContext): number {
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

function decisionOf(context: LoopProtocolContext): ContinuationDecision {
  return decideContinuation(loopFactsOf(context));
}

/** A cycle's per-cycle fields, cleared before it starts. */
const FRESH_CYCLE = {
  observation: null,
  comparison: null,
  choice: null,
  actEvidence: [],
  verification: null,
  progress: [],
  disposition: null,
} as const;

/** The verification recorded when the evaluator itself could not run. */
function unavailableVerification(reason: string): Verification {
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
function recordVerification(
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

// ---------------------------------------------------------------------------------------------
// The machine

/** One row of the continue / pivot / stop table. */
function rule(
  label: string,
  decision: ContinuationDecision['decision'],
  name: StopRule | 'progress-made' | 'within-patience',
  target: string,
) {
  return {
    description: label,
    guard: { type: 'decided' as const, params: { decision, rule: name } },
    target,
    actions: 'recordDecision' as const,
  };
}

/** What every actor of the loop protocol machine is invoked with and resolves to, by actor name. */
export interface LoopProtocolActorContracts {
  readonly observe: ActorContract<ObserveInput, Observation>;
  readonly choose: ActorContract<ChooseInput, Choice>;
  readonly act: ActorContract<ActInput, ActOutput>;
  readonly verify: ActorContract<VerifyInput, Verification>;
  readonly checkpoint: ActorContract<CheckpointInput, CheckpointResult>;
  readonly rollback: ActorContract<RollbackInput, RollbackResult>;
}

/** The actor logic a host provides to the loop protocol machine, by actor name (`.provide({ actors })`). */
export type LoopProtocolActors = ActorImplementations<LoopProtocolActorContracts>;

/** The loop protocol statechart (registry name `loop-protocol`). */
export const loopProtocolMachine = setup({
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
}).createMachine({
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
    idle: {
      description: 'Waiting for the entry contract.',
      on: {
        START: {
          target: 'entry',
          actions: assign({
            start: ({ event }) => {
              const { type: _type, contract: _contract, ...settings } = event;
              return settings;
            },
            given: ({ event }) => event.contract,
          }),
        },
      },
    },
    entry: {
      description: 'Entry contract: infer low-risk fields, stop for direction on material ones.',
      always: [
        {
          description: 'E1 a present field is invalid',
          guard: 'entryInvalid',
          target: 'invalidContract',
          actions: assign({
            findings: ({ context }) => {
              const done = completion(context);
              return done.kind === 'invalid' ? done.findings : [];
            },
          }),
        },
        {
          description: 'E2 stop for user direction',
          guard: 'entryNeedsDirection',
          target: 'awaitingDirection',
          actions: assign({
            missing: ({ context }) => {
              const done = completion(context);
              return done.kind === 'stop' ? done.missing : [];
            },
            inferred: ({ context }) => {
              const done = completion(context);
              return done.kind === 'invalid' ? [] : done.inferred;
            },
          }),
        },
        {
          description: 'E3 contract complete',
          target: 'baseline',
          actions: assign(({ context }) => {
            const done = completion(context);
            return done.kind === 'complete'
              ? { contract: done.contract, inferred: done.inferred, missing: [] }
              : {};
          }),
        },
      ],
    },
    awaitingDirection: {
      description: 'Stopped for user direction: the missing material fields are named.',
      on: {
        DIRECTION: {
          target: 'entry',
          actions: assign({ given: ({ context, event }) => ({ ...context.given, ...event.fields }) }),
        },
        CANCEL: { target: 'cancelledBeforeStart' },
      },
    },
    baseline: {
      description: 'Baseline: observe once (or sample a noisy metric) and confirm the checkpoint.',
      initial: 'sampling',
      on: { CANCEL: { target: 'deciding', actions: 'cancel' } },
      states: {
        sampling: {
          invoke: {
            id: 'observe',
            src: 'observe',
            input: ({ context }) => ({
              cycle: 0,
              purpose: 'baseline' as const,
              sample: context.samples.length + 1,
              contract: contractOf(context),
            }),
            onDone: [
              {
                description: 'the source is gone',
                guard: 'observationLost',
                target: '#loop-protocol.deciding',
                actions: assign({ sourceLost: ({ event }) => `baseline: ${event.output.summary}` }),
              },
              {
                description: 'the metric is gone',
                guard: 'metricMissing',
                target: '#loop-protocol.deciding',
                actions: assign({ sourceLost: () => 'baseline: the observation gave no metric' }),
              },
              {
                target: 'sampled',
                actions: assign({
                  samples: ({ context, event }) =>
                    event.output.metric === null
                      ? context.samples
                      : [...context.samples, event.output.metric],
                  baselineObservation: ({ event }) => event.output,
                  previousFingerprint: ({ event }) => event.output.fingerprint,
                }),
              },
            ],
            onError: {
              target: '#loop-protocol.deciding',
              actions: assign({ sourceLost: ({ event }) => `baseline: ${errorText(event.error)}` }),
            },
          },
        },
        sampled: {
          always: [
            { description: 'take another sample', guard: 'moreSamplesNeeded', target: 'sampling' },
            {
              target: 'confirmingCheckpoint',
              actions: assign({
                baseline: ({ context }) => {
                  const metric = context.start?.metric;
                  if (!metric) return null;
                  const aggregated = aggregateBaseline(context.samples, {
                    direction: metric.direction,
                    ...(metric.minSamples === undefined ? {} : { minSamples: metric.minSamples }),
                    ...(metric.minimumTolerance === undefined
                      ? {}
                      : { minimumTolerance: metric.minimumTolerance }),
                  });
                  return aggregated.ok ? aggregated.baseline : null;
                },
              }),
            },
          ],
        },
        confirmingCheckpoint: {
          invoke: {
            id: 'checkpoint',
            src: 'checkpoint',
            input: () => ({ cycle: 0, purpose: 'baseline' as const }),
            onDone: [
              {
                description: 'the checkpoint would touch user work',
                guard: 'checkpointRefused',
                target: '#loop-protocol.deciding',
                actions: assign({
                  boundaryOverlap: ({ event }) =>
                    event.output.reason ?? 'the checkpoint cannot isolate loop changes',
                }),
              },
              {
                target: '#loop-protocol.cycle',
                actions: assign({
                  checkpoint: ({ event }) => event.output.checkpoint,
                  ledger: ({ context }) =>
                    startProgressLedger(context.baseline, context.baselineObservation?.fingerprint ?? null),
                  cycle: 1,
                }),
              },
            ],
            onError: {
              target: '#loop-protocol.deciding',
              actions: assign({
                failureEvidence: ({ context, event }) => [
                  ...context.failureEvidence,
                  `no checkpoint could be confirmed: ${errorText(event.error)}`,
                ],
              }),
            },
          },
        },
      },
    },
    cycle: {
      description: 'One cycle: observe, compare, choose, act, verify, record.',
      initial: 'observing',
      on: { CANCEL: { target: 'deciding', actions: 'cancel' } },
      states: {
        observing: {
          description: '1. Observe the authoritative source and normalize the result.',
          invoke: {
            id: 'observe',
            src: 'observe',
            input: ({ context }) => ({
              cycle: context.cycle,
              purpose: 'cycle' as const,
              sample: 1,
              contract: contractOf(context),
            }),
            onDone: [
              {
                description: 'the source is gone',
                guard: 'observationLost',
                target: '#loop-protocol.deciding',
                actions: assign({ sourceLost: ({ event }) => event.output.summary }),
              },
              {
                description: 'user changes overlap the rollback boundary',
                guard: 'userChangesOverlap',
                target: '#loop-protocol.deciding',
                actions: assign({ boundaryOverlap: ({ event }) => event.output.summary }),
              },
              {
                target: 'comparing',
                actions: assign({ observation: ({ event }) => event.output }),
              },
            ],
            onError: {
              target: '#loop-protocol.deciding',
              actions: assign({ sourceLost: ({ event }) => errorText(event.error) }),
            },
          },
        },
        comparing: {
          description: '2. Compare with the baseline, the best known state and the previous fingerprint.',
          always: {
            target: 'choosing',
            actions: assign(({ context }) => {
              const observation = context.observation;
              const best = context.ledger?.bestMetric ?? null;
              return {
                comparison: {
                  sameAsBaseline: observation?.fingerprint === context.baselineObservation?.fingerprint,
                  sameAsPrevious: observation?.fingerprint === context.previousFingerprint,
                  seenBefore:
                    context.ledger?.observedFingerprints.includes(observation?.fingerprint ?? '') ?? false,
                  metricDeltaFromBest:
                    observation?.metric != null && best !== null ? observation.metric - best : null,
                },
                previousFingerprint: observation?.fingerprint ?? context.previousFingerprint,
              };
            }),
          },
        },
        choosing: {
          description: '3. Choose the smallest permitted action with a causal reason, or none.',
          invoke: {
            id: 'choose',
            src: 'choose',
            input: ({ context }) => ({
              cycle: context.cycle,
              observation: context.observation as Observation,
              comparison: context.comparison as Comparison,
              ledger: context.ledger ?? startProgressLedger(null, null),
              contract: contractOf(context),
              pivots: context.pivots,
            }),
            onDone: [
              {
                description: 'the next useful action needs broader scope',
                guard: 'needsBroaderScope',
                target: '#loop-protocol.deciding',
                actions: assign({ choice: ({ event }) => event.output }),
              },
              {
                description: 'explicitly no action',
                guard: 'noActionChosen',
                target: 'verifying',
                actions: assign({ choice: ({ event }) => event.output }),
              },
              { target: 'acting', actions: assign({ choice: ({ event }) => event.output }) },
            ],
            onError: {
              description: 'nothing permitted could be chosen',
              target: '#loop-protocol.deciding',
              actions: assign({
                choice: ({ event }) => ({
                  action: null,
                  reason: `choosing failed: ${errorText(event.error)}`,
                  needsBroaderScope: false,
                  pivotAvailable: false,
                  permittedActionRemains: false,
                  crossTurn: false,
                }),
              }),
            },
          },
        },
        acting: {
          description: '4. One writer applies the action.',
          invoke: {
            id: 'act',
            src: 'act',
            input: ({ context }) => ({
              cycle: context.cycle,
              action: context.choice?.action ?? { kind: 'action' as const, summary: '' },
            }),
            onDone: {
              target: 'verifying',
              actions: assign({
                actEvidence: ({ event }) => event.output.evidence,
                usage: ({ context, event }) => ({
                  elapsedMs: context.usage.elapsedMs + event.output.elapsedMs,
                  tokens: context.usage.tokens + event.output.tokens,
                  cost: context.usage.cost + event.output.cost,
                }),
              }),
            },
            onError: {
              target: 'verifying',
              actions: assign({
                actEvidence: ({ event }) => [`the action failed: ${errorText(event.error)}`],
              }),
            },
          },
        },
        verifying: {
          description: '5. Run the declared evaluator against the same source state.',
          invoke: {
            id: 'verify',
            src: 'verify',
            input: ({ context }) => ({
              cycle: context.cycle,
              evaluator: contractOf(context).evaluator,
              action: context.choice?.action ?? null,
            }),
            onDone: {
              target: 'recording',
              actions: assign(({ context, event }) => recordVerification(context, event.output)),
            },
            onError: {
              target: 'recording',
              actions: assign(({ context, event }) =>
                recordVerification(context, unavailableVerification(errorText(event.error))),
              ),
            },
          },
        },
        recording: {
          description: '6. Record the evidence, delta, decision and remaining budget.',
          always: [
            { description: 'kept: move the rollback boundary', guard: 'actionKept', target: 'retaining' },
            { description: 'discarded: roll back', guard: 'actionDiscarded', target: 'rollingBack' },
            { description: 'skipped', target: '#loop-protocol.deciding' },
          ],
        },
        retaining: {
          invoke: {
            id: 'checkpoint',
            src: 'checkpoint',
            input: ({ context }) => ({ cycle: context.cycle, purpose: 'kept' as const }),
            onDone: [
              {
                description: 'the new boundary would touch user work',
                guard: 'checkpointRefused',
                target: '#loop-protocol.deciding',
                actions: assign({
                  boundaryOverlap: ({ event }) =>
                    event.output.reason ?? 'the checkpoint cannot isolate loop changes',
                }),
              },
              {
                target: '#loop-protocol.deciding',
                actions: assign({ checkpoint: ({ event }) => event.output.checkpoint }),
              },
            ],
            onError: {
              target: '#loop-protocol.deciding',
              actions: assign({
                failureEvidence: ({ context, event }) => [
                  ...context.failureEvidence,
                  `cycle ${context.cycle}: the checkpoint could not be moved: ${errorText(event.error)}`,
                ],
              }),
            },
          },
        },
        rollingBack: {
          invoke: {
            id: 'rollback',
            src: 'rollback',
            input: ({ context }) => ({ cycle: context.cycle, checkpoint: context.checkpoint }),
            onDone: [
              {
                description: 'the rollback failed',
                guard: 'rollbackFailed',
                target: '#loop-protocol.deciding',
                actions: assign({
                  failureEvidence: ({ context, event }) => [
                    ...context.failureEvidence,
                    `cycle ${context.cycle}: rollback failed: ${event.output.detail ?? 'no detail'}`,
                  ],
                }),
              },
              { target: '#loop-protocol.deciding' },
            ],
            onError: {
              target: '#loop-protocol.deciding',
              actions: assign({
                failureEvidence: ({ context, event }) => [
                  ...context.failureEvidence,
                  `cycle ${context.cycle}: rollback failed: ${errorText(event.error)}`,
                ],
              }),
            },
          },
        },
      },
    },
    deciding: {
      description: '7. Evaluate every terminal condition before another cycle (STOP_RULE_ORDER).',
      always: [
        rule('S1 user-cancelled', 'stop', 'user-cancelled', 'stopped'),
        rule('S2 source-lost', 'stop', 'source-lost', 'stopped'),
        rule('S3 rollback-boundary-overlap', 'stop', 'rollback-boundary-overlap', 'stopped'),
        rule('S4 success', 'stop', 'success', 'stopped'),
        rule('S5 terminal-failure', 'stop', 'terminal-failure', 'stopped'),
        rule('S6 scope-needs-broadening', 'stop', 'scope-needs-broadening', 'stopped'),
        rule('S7 budget-exhausted', 'stop', 'budget-exhausted', 'stopped'),
        rule('S8 no-wakeup', 'stop', 'no-wakeup', 'stopped'),
        {
          ...rule('S9 plateau: pivot', 'pivot', 'plateau', 'cycle'),
          actions: ['recordDecision', 'pivot'],
        },
        rule('S9 plateau: stop', 'stop', 'plateau', 'stopped'),
        {
          ...rule('S10 repeated-error: pivot', 'pivot', 'repeated-error', 'cycle'),
          actions: ['recordDecision', 'pivot'],
        },
        rule('S10 repeated-error: stop', 'stop', 'repeated-error', 'stopped'),
        rule('S11 no-permitted-action', 'stop', 'no-permitted-action', 'stopped'),
        {
          ...rule('continue: progress made', 'continue', 'progress-made', 'cycle'),
          actions: ['recordDecision', 'nextCycle'],
        },
        {
          ...rule('continue: within patience', 'continue', 'within-patience', 'cycle'),
          actions: ['recordDecision', 'nextCycle'],
        },
      ],
    },
    invalidContract: { type: 'final', description: 'A present field of the entry contract is invalid.' },
    cancelledBeforeStart: { type: 'final', description: 'Cancelled while waiting for direction.' },
    stopped: {
      type: 'final',
      description: 'Stopped by a rule; the final report is built from the transcript.',
    },
  },
});
