/**
 * One mutating writer per checkout for every loop: RPI, crank (whose lanes run under the wave's
 * lock), the cybernetic loop and `loopchart loop` take the same worktree lock as the loop engine
 * (worktree-lock.ts, at `<git dir>/loopchart/lock`), so no two loopchart runners of any kind
 * mutate one checkout at a time.
 */
import { resolveGitDir } from '../effects/git-dir.js';
import { resolveWorktreeRoot } from '../effects/worktree-root.js';
import { stateFilesOf } from './state-files.js';
import { acquireWorktreeLock } from './worktree-lock.js';

/**
 * Runs `work` holding the worktree's writer lock, and releases it afterwards (also on failure).
 *
 * @param worktree any directory inside the worktree
 * @param work the mutating run
 * @returns what `work` returns
 * @throws WorktreeLockedError (`host.worktree-locked`, exit 2) when another live runner holds the
 *   checkout; InputError (`git.not-a-worktree`) outside a git worktree
 */
export async function withWriterLock<T>(worktree: string, work: () => Promise<T>): Promise<T> {
  const root = await resolveWorktreeRoot(worktree);
  const lock = await acquireWorktreeLock(stateFilesOf(await resolveGitDir(root)).lock);
  try {
    return await work();
  } finally {
    await lock.release();
  }
}
