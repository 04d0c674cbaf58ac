import { createHash } from 'node:crypto';
import { lstat, readFile, readlink } from 'node:fs/promises';
import { join } from 'node:path';
import type { GitPort, StatusEntry } from './git.js';

/** One changed path of the worktree with a digest of what is on disk. */
export interface ChangedPath {
  /** The `git status --porcelain` code, e.g. ` M`, `??`. */
  readonly xy: string;
  readonly path: string;
  /** `sha256:<hex>` of the file's bytes or the link's target, `absent`, or `other` (a directory, a socket, ...). */
  readonly digest: string;
}

/** The worktree's changes at one moment: HEAD and every changed path with its content digest. */
export interface ChangeSnapshot {
  readonly head: string;
  readonly changes: readonly ChangedPath[];
}

async function digestOf(path: string): Promise<string> {
  try {
    const info = await lstat(path);
    if (info.isSymbolicLink())
      return `sha256:${createHash('sha256')
        .update(`link:${await readlink(path)}`)
        .digest('hex')}`;
    if (!info.isFile()) return 'other';
    return `sha256:${createHash('sha256')
      .update(await readFile(path))
      .digest('hex')}`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'absent';
    return 'other';
  }
}

/**
 * Takes a snapshot of the worktree's changes: HEAD, the `status --porcelain` entries (ignored files
 * left out) and a digest of each changed path's content. Two snapshots are equal exactly when no
 * path changed in between, so a snapshot taken when a child ended proves later that the changes
 * on disk are still the child's and nobody else's.
 *
 * @param git the worktree's git port
 * @param state HEAD and status when the caller read them already (the digests are always read
 *   from disk now); default: one `git status` reads both
 */
export async function snapshotChanges(
  git: GitPort,
  state?: { readonly head: string; readonly entries: readonly StatusEntry[] },
): Promise<ChangeSnapshot> {
  const { head, entries } = state ?? (await headAndStatus(git));
  const changes = await Promise.all(
    entries.map(async (entry) => ({ ...entry, digest: await digestOf(join(git.worktree, entry.path)) })),
  );
  return { head, changes: changes.sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0)) };
}

async function headAndStatus(git: GitPort): Promise<{ head: string; entries: readonly StatusEntry[] }> {
  const state = await git.worktreeState();
  // A branch without commits: the error `rev-parse HEAD` gives.
  return { head: state.head ?? (await git.revParseHead()), entries: state.entries };
}

/**
 * Whether two snapshots describe the same worktree changes.
 *
 * @param a one snapshot
 * @param b the other
 */
export function sameChanges(a: ChangeSnapshot, b: ChangeSnapshot): boolean {
  return (
    a.head === b.head &&
    a.changes.length === b.changes.length &&
    a.changes.every((change, i) => {
      const other = b.changes[i];
      return (
        other !== undefined &&
        other.path === change.path &&
        other.xy === change.xy &&
        other.digest === change.digest
      );
    })
  );
}
