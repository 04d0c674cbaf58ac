/**
 * Every actor of the loop machine (machines/loop-implementation/), implemented over the effects
 * layer for one worktree. Pass the result to `loopImplementationMachine.provide({ actors })`;
 * `createRunner` (runner.ts) does that for you.
 */
import type { AnyActorLogic } from 'xstate';
import type { BoundaryFacts, DispatchPlanInput } from '../../machines/loop-implementation/index.js';
import { createGitPort, type GitPortOptions } from '../effects/git.js';
import { resolveGitDir } from '../effects/git-dir.js';
import {
  dispatchChildActor,
  finishDispatchActor,
  recoverDispatchActor,
  reserveDispatchActor,
} from './dispatch-actors.js';
import type { HostOptions, HostSession } from './host-session.js';
import {
  byLeg,
  companionOr,
  companionProvenance,
  readCompanionBoundary,
  reserveCompanionDispatch,
  resetByLeg,
} from './leg-actors.js';
import { cleanupJobsActor, collectActionRecordsActor, discardChangesActor } from './recovery-actors.js';
import { finishBranchActor, runFixRoundActor, runReviewActor } from './review-actors.js';
import { resolveImplModelActor, resolveSettingsActor } from './settings-actors.js';
import { stateFilesOf } from './state-files.js';
import { runGatesActor } from './verify-actors.js';
import {
  commitLedgerActor,
  inspectWorkspaceActor,
  readBoundaryActor,
  refreshActor,
} from './workspace-actors.js';
import { forgetWorktree } from './worktree-facts.js';
import { acquireWorktreeLock } from './worktree-lock.js';

/**
 * Opens a host session: resolves the worktree's git directory and takes the worktree lock. Close it
 * with `session.lock.release()` when the run ends.
 *
 * @param options the run's options
 * @param git options of the git port (e.g. extra environment)
 * @throws WorktreeLockedError when another live runner holds the worktree; InputError
 *   (`git.not-a-worktree`) when the worktree is not a git worktree
 */
export async function openHostSession(options: HostOptions, git: GitPortOptions = {}): Promise<HostSession> {
  const gitDir = await resolveGitDir(options.worktree);
  const files = stateFilesOf(gitDir);
  const lock = await acquireWorktreeLock(files.lock);
  return {
    options,
    git: createGitPort(options.worktree, git),
    gitDir,
    files,
    lock,
    logDir: null,
    ledgerByCommit: new Map(),
    ledgerByBlob: new Map(),
    observed: null,
    commitRanges: new Map(),
    ancestry: new Map(),
    plan: null,
    lastGateFailure: null,
    sideEffects: 0,
  };
}

/**
 * The loop machine's actors for one host session.
 *
 * @param session an open host session (see {@link openHostSession})
 * @returns the actor implementations, keyed as the machine's `setup` names them
 */
export function createLoopActors(session: HostSession) {
  // Actors that only read HEAD and status, or that forget them themselves before they write
  // (reserveDispatch, commitLedger, resetCheckout, cleanupJobs, finishDispatch), may reuse the run's
  // observation; every other actor forgets it before it starts (worktree-facts.ts).
  const writes = <Logic extends AnyActorLogic>(logic: Logic): Logic => forgettingWorktree(session, logic);
  return {
    inspectWorkspace: writes(inspectWorkspaceActor(session)),
    resolveSettings: resolveSettingsActor(session),
    commitLedger: commitLedgerActor(session),
    refresh: refreshActor(session),
    resolveImplModel: resolveImplModelActor(session),
    // A dispatch whose tuple names a companion member works in that member's checkout (§3.20).
    reserveDispatch: companionOr<DispatchPlanInput, Record<string, never>>(
      session,
      reserveDispatchActor,
      (leg, input) => reserveCompanionDispatch(session, leg, input.plan, input.ledgerPath),
    ),
    dispatchChild: writes(byLeg(session, dispatchChildActor)),
    recoverDispatch: writes(byLeg(session, recoverDispatchActor)),
    readBoundary: companionOr<DispatchPlanInput, BoundaryFacts>(session, readBoundaryActor, (leg, input) =>
      readCompanionBoundary(session, leg, input.plan, input.ledgerPath),
    ),
    checkProvenance: byLeg(session, (s) => companionProvenance(session, s)),
    collectActionRecords: byLeg(session, collectActionRecordsActor),
    cleanupJobs: byLeg(session, cleanupJobsActor),
    resetCheckout: resetByLeg(session),
    finishDispatch: byLeg(session, finishDispatchActor),
    discardChanges: writes(discardChangesActor(session)),
    runGates: writes(runGatesActor(session)),
    runReview: writes(runReviewActor(session)),
    runFixRound: writes(runFixRoundActor(session)),
    finishBranch: writes(finishBranchActor(session)),
  };
}

/** `logic` that forgets the session's observation of HEAD and status whenever it starts. */
function forgettingWorktree<Logic extends AnyActorLogic>(session: HostSession, logic: Logic): Logic {
  const start = logic.start;
  return {
    ...logic,
    start: (snapshot, scope) => {
      forgetWorktree(session);
      start?.(snapshot, scope);
    },
  };
}
