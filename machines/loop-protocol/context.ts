/**
 * The loop protocol machine's events, the contracts of its actors (what each is invoked with and
 * resolves to), its context and its output. Types only: plain JSON throughout.
 */
import type { Finding } from '../../src/common/finding.js';
import type { ActionDisposition, CycleStreaks } from '../../src/loop-protocol/cycle-record.js';
import type { EntryContract, PartialEntryContract } from '../../src/loop-protocol/entry-contract.js';
import type { InferenceFacts, InferredField, MissingField } from '../../src/loop-protocol/infer-or-stop.js';
import type { MetricDirection, NoisyBaseline } from '../../src/loop-protocol/noisy-baseline.js';
import type { CycleClaim, ProgressKind, ProgressLedger } from '../../src/loop-protocol/progress.js';
import type { ContinuationDecision } from '../../src/loop-protocol/stop-rules.js';
import type { ActorContract, ActorImplementations } from '../actor-contract.js';

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
