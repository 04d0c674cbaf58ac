/**
 * Every actor of the loop machine (machines/loop-implementation/), implemented over the effects
 * layer for one worktree. Pass the result to `loopImplementationMachine.provide({ actors })`;
 * `createRunner` (runner.ts) does that for you.
 */
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
  checkProvenanceActor,
  cleanupJobsActor,
  collectActionRecordsActor,
  discardChangesActor,
  resetCheckoutActor,
} from './recovery-actors.js';
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
  return {
    inspectWorkspace: inspectWorkspaceActor(session),
    resolveSettings: resolveSettingsActor(session),
    commitLedger: commitLedgerActor(session),
    refresh: refreshActor(session),
    resolveImplModel: resolveImplModelActor(session),
    reserveDispatch: reserveDispatchActor(session),
    dispatchChild: dispatchChildActor(session),
    recoverDispatch: recoverDispatchActor(session),
    readBoundary: readBoundaryActor(session),
    checkProvenance: checkProvenanceActor(session),
    collectActionRecords: collectActionRecordsActor(session),
    cleanupJobs: cleanupJobsActor(session),
    resetCheckout: resetCheckoutActor(session),
    finishDispatch: finishDispatchActor(session),
    discardChanges: discardChangesActor(session),
    runGates: runGatesActor(session),
    runReview: runReviewActor(session),
    runFixRound: runFixRoundActor(session),
    finishBranch: finishBranchActor(session),
  };
}
