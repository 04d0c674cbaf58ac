/**
 * Where the host keeps its durable files: a `loopchart/` folder inside the worktree's git directory
 * (`git rev-parse --absolute-git-dir`). Git never lists these files as changes, so they can be
 * written before a dispatch without dirtying the tree, and they stay with the worktree they
 * describe.
 */
import { join } from 'node:path';

/** Paths of the host's durable files for one worktree. */
export interface StateFiles {
  /** `<git dir>/loopchart`. */
  readonly root: string;
  /** The worktree lock. */
  readonly lock: string;
  /** The commit journal: a parent commit being written. */
  readonly journal: string;
  /** The default run transcript (JSON lines). */
  readonly transcript: string;
  /** Folder holding one folder per dispatch. */
  readonly dispatches: string;
  /** The HEAD each leg's gate pairs last passed on (verify step 1; shown by `loopchart status`). */
  readonly verifiedHeads: string;
}

/**
 * The host's file paths for a worktree.
 *
 * @param gitDir the worktree's absolute git directory
 */
export function stateFilesOf(gitDir: string): StateFiles {
  const root = join(gitDir, 'loopchart');
  return {
    root,
    lock: join(root, 'lock'),
    journal: join(root, 'commit-journal.json'),
    transcript: join(root, 'transcript.jsonl'),
    dispatches: join(root, 'dispatches'),
    verifiedHeads: join(root, 'verified-heads.json'),
  };
}

/**
 * The folder of one dispatch: its record, task file and child log. Named by the pre-bump
 * iteration `i`, which no two reserved dispatches of a ledger share.
 *
 * @param files the state files
 * @param iteration the dispatch's pre-bump iteration
 */
export function dispatchFolder(files: StateFiles, iteration: number): string {
  return join(files.dispatches, `iteration-${iteration}`);
}
