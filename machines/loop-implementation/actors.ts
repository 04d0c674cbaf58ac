/**
 * The loop engine's actors as contracts: each one throws "not provided" until the host supplies it
 * with `loopImplementationMachine.provide({ actors })` (src/host/ wires the real ones).
 */
import { fromPromise } from 'xstate';
import { NotProvidedError } from '../../src/common/errors.js';
import type { DispatchPlan } from '../../src/gauntlet/dispatch.js';
import type { ReviewRole } from '../../src/gauntlet/review.js';
import type { ActionRecord, Ledger } from '../../src/gauntlet/types.js';
import type { ActorContract, ActorImplementations } from '../actor-contract.js';
import type {
  BoundaryFacts,
  ChildReport,
  CommitRequest,
  DispatchRecovery,
  FixRoundRequest,
  GateRun,
  LoopSettings,
  RefreshFacts,
  ReviewReport,
  WorkspaceFacts,
} from './context.js';

function notProvided(name: string) {
  return async (): Promise<never> => {
    throw new NotProvidedError(name);
  };
}

/** Input of `inspectWorkspace`. */
export interface InspectWorkspaceInput {
  readonly ledgerPath: string;
  readonly specPath: string;
  /** A coordinated run's checkouts (member -> path): their HEADs are read as `legHeads`. */
  readonly legCheckouts?: Readonly<Record<string, string>>;
}

/** Input of `refresh`. */
export interface RefreshInput {
  readonly ledgerPath: string;
  /** The ledger base: commits since it are read. */
  readonly base: string;
  /** A coordinated run's checkouts (member -> path): their HEADs are read as `legHeads`. */
  readonly legCheckouts?: Readonly<Record<string, string>>;
}

/** Input of `resolveImplModel`: the row (or verification repair) the escalated round is for. */
export interface ResolveImplModelInput {
  readonly row: number | 'verify';
}

/** Output of `resolveImplModel`; `model` is `null` when neither a configured nor a main-loop model exists. */
export interface ResolvedImplModel {
  readonly model: string | null;
}

/** Input of `reserveDispatch` and `readBoundary`: the planned dispatch and the ledger's path. */
export interface DispatchPlanInput {
  readonly plan: DispatchPlan;
  readonly ledgerPath: string;
}

/** Input of `dispatchChild`. */
export interface DispatchChildInput {
  readonly plan: DispatchPlan;
  readonly ledgerPath: string;
  readonly specPath: string;
  /** The failing gate run a verification repair answers, else `null`. */
  readonly gate: GateRun | null;
}

/** Input of the actors that act on the dispatch in flight (`recoverDispatch`, `checkProvenance`, …). */
export interface PlannedDispatchInput {
  readonly plan: DispatchPlan;
}

/** Output of `checkProvenance`: whether the checkout is exclusively the loop's, and why not. */
export type ProvenanceVerdict = { readonly owned: true } | { readonly owned: false; readonly what: string };

/** Output of `collectActionRecords`. */
export interface CollectedActionRecords {
  readonly actionRecords: readonly ActionRecord[];
}

/** Output of `cleanupJobs`. */
export interface JobsCleanup {
  readonly terminated: number;
  readonly problem: string | null;
}

/** Input of `resetCheckout` and `discardChanges`: the commit the checkout returns to. */
export interface CheckoutHeadInput {
  readonly head: string;
  /** A coordinated run's companion member whose checkout is reset (home when absent). */
  readonly leg?: string;
}

/** Output of `resetCheckout` and `discardChanges`: whether the tree is clean afterwards. */
export interface CheckoutCleanliness {
  readonly clean: boolean;
}

/** Output of the actors that make a commit (`commitLedger`, `runFixRound`): the new HEAD. */
export interface CommitOutput {
  readonly head: string;
}

/** Input of `runGates`. */
export interface RunGatesInput {
  readonly ledger: Ledger;
  /** The home member's name (`home` on a single leg). */
  readonly home?: string;
  /** Legs already verified in this verify session (their pairs do not run again). */
  readonly verified?: Readonly<Record<string, string>>;
  /** The leg whose failure a repair just answered: its pairs run first (rerun scope). */
  readonly failing?: string | null;
}

/** Input of `runReview`. */
export interface RunReviewInput {
  readonly role: ReviewRole;
  readonly base: string;
  readonly specPath: string;
  readonly ledgerPath: string;
}

/** Input of `finishBranch`. */
export interface FinishBranchInput {
  /** The closure block verify closed with. */
  readonly closure: string;
  readonly head: string;
}

/** An actor's empty input or output. */
export type Empty = Record<string, never>;

/**
 * What every actor of the loop engine is invoked with and resolves to, by actor name. `loopActors`
 * below must satisfy it, so it cannot drift from what the machine invokes.
 */
export interface LoopImplementationActorContracts {
  readonly inspectWorkspace: ActorContract<InspectWorkspaceInput, WorkspaceFacts>;
  readonly resolveSettings: ActorContract<Empty, LoopSettings>;
  readonly commitLedger: ActorContract<CommitRequest, CommitOutput>;
  readonly refresh: ActorContract<RefreshInput, RefreshFacts>;
  readonly resolveImplModel: ActorContract<ResolveImplModelInput, ResolvedImplModel>;
  readonly reserveDispatch: ActorContract<DispatchPlanInput, Empty>;
  readonly dispatchChild: ActorContract<DispatchChildInput, ChildReport>;
  readonly recoverDispatch: ActorContract<PlannedDispatchInput, DispatchRecovery>;
  readonly readBoundary: ActorContract<DispatchPlanInput, BoundaryFacts>;
  readonly checkProvenance: ActorContract<PlannedDispatchInput, ProvenanceVerdict>;
  readonly collectActionRecords: ActorContract<PlannedDispatchInput, CollectedActionRecords>;
  readonly cleanupJobs: ActorContract<PlannedDispatchInput, JobsCleanup>;
  readonly resetCheckout: ActorContract<CheckoutHeadInput, CheckoutCleanliness>;
  readonly finishDispatch: ActorContract<PlannedDispatchInput, Empty>;
  readonly discardChanges: ActorContract<CheckoutHeadInput, CheckoutCleanliness>;
  readonly runGates: ActorContract<RunGatesInput, GateRun>;
  readonly runReview: ActorContract<RunReviewInput, ReviewReport>;
  readonly runFixRound: ActorContract<FixRoundRequest, CommitOutput>;
  readonly finishBranch: ActorContract<FinishBranchInput, Empty>;
}

/**
 * The actor logic a host provides to the loop engine, by actor name: pass (some of) them to
 * `loopImplementationMachine.provide({ actors })`.
 */
export type LoopImplementationActors = ActorImplementations<LoopImplementationActorContracts>;

/** Every actor the machine invokes, by its source name. */
export const loopActors = {
  /**
   * Reads HEAD, dirt, the ledger, the spec, a pending tuple's before-image, and the reservation
   * `reserveDispatch` stored (with the subjects of the commits since its HEAD_BEFORE).
   */
  inspectWorkspace: fromPromise<WorkspaceFacts, InspectWorkspaceInput>(notProvided('inspectWorkspace')),
  /** Resolves the allowance setting and `loopEngine.escalateAfter` once per run. */
  resolveSettings: fromPromise<LoopSettings, Record<string, never>>(notProvided('resolveSettings')),
  /** Writes the ledger (and the spec for amendments) and makes exactly one commit. */
  commitLedger: fromPromise<{ head: string }, CommitRequest>(notProvided('commitLedger')),
  /** Reads the ledger on disk and every commit since the ledger base. */
  refresh: fromPromise<RefreshFacts, RefreshInput>(notProvided('refresh')),
  /** Resolves `escalationLoop.implModel`; `null` when neither a configured nor a main-loop model exists. */
  resolveImplModel: fromPromise<{ model: string | null }, { row: number | 'verify' }>(
    notProvided('resolveImplModel'),
  ),
  /**
   * Stores the plan durably (reported back as `WorkspaceFacts.reservation` until `finishDispatch`),
   * then writes the reserved ledger (bump and tuple) on disk, uncommitted. The child's task is the
   * plan's (`childTask`): the host adds only its paths.
   */
  reserveDispatch: fromPromise<Record<string, never>, { plan: DispatchPlan; ledgerPath: string }>(
    notProvided('reserveDispatch'),
  ),
  /** Runs one child for the planned dispatch and reports its return. */
  dispatchChild: fromPromise<
    ChildReport,
    {
      plan: DispatchPlan;
      ledgerPath: string;
      specPath: string;
      gate: GateRun | null;
    }
  >(notProvided('dispatchChild')),
  /** At resume: finds out whether the dispatch in flight was launched and how it ended. */
  recoverDispatch: fromPromise<DispatchRecovery, { plan: DispatchPlan }>(notProvided('recoverDispatch')),
  /** Reads git after a return: unexpected dirt, new commits, the single commit and its ledger. */
  readBoundary: fromPromise<BoundaryFacts, { plan: DispatchPlan; ledgerPath: string }>(
    notProvided('readBoundary'),
  ),
  /** Interrupted recovery step 1: exclusive checkout provenance. */
  checkProvenance: fromPromise<{ owned: true } | { owned: false; what: string }, { plan: DispatchPlan }>(
    notProvided('checkProvenance'),
  ),
  /**
   * Action accounting (§3.19 rule 1), before anything is reset or discarded: the records the
   * dispatch left (its jobs file, the bodies of its attributed commits, records the child added to
   * the ledger), kept durably so that a run resumed after the reset still reports them.
   */
  collectActionRecords: fromPromise<{ actionRecords: readonly ActionRecord[] }, { plan: DispatchPlan }>(
    notProvided('collectActionRecords'),
  ),
  /** Interrupted recovery step 2: terminates the child's owned background jobs. */
  cleanupJobs: fromPromise<{ terminated: number; problem: string | null }, { plan: DispatchPlan }>(
    notProvided('cleanupJobs'),
  ),
  /** Interrupted recovery step 3: `reset --hard HEAD_BEFORE` and `clean -fd`, then checks the tree. */
  resetCheckout: fromPromise<{ clean: boolean }, CheckoutHeadInput>(notProvided('resetCheckout')),
  /** After a durable admission or repair: deletes the dispatch's jobs file and clears the reservation. */
  finishDispatch: fromPromise<Record<string, never>, { plan: DispatchPlan }>(notProvided('finishDispatch')),
  /** Discards unowned dirt after explicit human authorization (commit-boundary stop). */
  discardChanges: fromPromise<{ clean: boolean }, { head: string }>(notProvided('discardChanges')),
  /** Verify step 1: runs the gate set fail-fast; commits gate-produced tracked changes. */
  runGates: fromPromise<GateRun, RunGatesInput>(notProvided('runGates')),
  /**
   * Verify steps 2 and 3: dispatches the role's reviewer (docs/review-contract.md) and reports its
   * validated return with the role's fix rounds and grants read from branch history.
   */
  runReview: fromPromise<
    ReviewReport,
    { role: ReviewRole; base: string; specPath: string; ledgerPath: string }
  >(notProvided('runReview')),
  /**
   * One fix round: runs the fixer on the review's tasks, then commits the round's durable marker
   * (`loop: <role> fix round <k>`). Throws when the fixer leaves uncommitted changes.
   */
  runFixRound: fromPromise<{ head: string }, FixRoundRequest>(notProvided('runFixRound')),
  /** Step 5: finishing the branch, a host hook (the default does nothing). */
  finishBranch: fromPromise<Record<string, never>, { closure: string; head: string }>(
    notProvided('finishBranch'),
  ),
} satisfies LoopImplementationActors;
