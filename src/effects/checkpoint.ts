import { createHash } from 'node:crypto';
import { constants } from 'node:fs';
import {
  chmod,
  copyFile,
  lstat,
  mkdir,
  open,
  readdir,
  readFile,
  readlink,
  rename,
  rm,
  symlink,
} from 'node:fs/promises';
import { join, posix } from 'node:path';
import { execa } from 'execa';
import { InputError, LoopchartError } from '../common/errors.js';
import { compareCodePoints } from './canonical-json.js';
import { makeTempDir, writeFileAtomic } from './files.js';

// A byte-for-byte checkpoint of a bounded scope of the working tree (the cybernetic loop's
// "checkpoint that can restore every byte in the bounded scope, including pre-existing edits").
// It copies bytes outside the repository and restores with plain file operations: never git
// reset, clean or checkout, which would touch work outside the scope.

/** The state of one path in a scope. */
export type ScopeEntry =
  | { readonly path: string; readonly kind: 'directory'; readonly mode: number }
  | { readonly path: string; readonly kind: 'file'; readonly mode: number; readonly digest: string }
  | { readonly path: string; readonly kind: 'symlink'; readonly target: string }
  /**
   * A FIFO, socket or device. A FIFO has no bytes: its type and mode are all of it, so a
   * checkpoint records it and restoring recreates it (`mkfifo`). A socket or device cannot be
   * recreated, so {@link createCheckpoint} refuses one; seen in the working tree afterwards, it
   * is removed by restoring.
   */
  | { readonly path: string; readonly kind: 'special'; readonly mode: number; readonly type: SpecialType };

/** The file types a checkpoint cannot hold. */
export type SpecialType = 'fifo' | 'socket' | 'device';

/** How a path differs between the checkpoint and the working tree now. */
export interface ScopeDifference {
  readonly path: string;
  /**
   * `added`: exists now, not at the checkpoint. `removed`: the reverse. `kind`: file/dir/symlink
   * (or FIFO, socket, device) changed. `content`, `mode`, `target`: same kind, different bytes,
   * permission bits or link target. `unknown`: the path cannot be read now (a directory above it
   * cannot be listed, or the walk failed), so it is not proven equal.
   */
  readonly change: 'added' | 'removed' | 'kind' | 'content' | 'mode' | 'target' | 'unknown';
}

/** Outcome of {@link Checkpoint.restore}; it never throws for file-system failures. */
export interface RestoreReport {
  /** Whether the scope now equals the checkpoint (verified after restoring). */
  readonly restored: boolean;
  /** Paths that were rewritten, recreated, deleted or re-moded. */
  readonly changed: readonly string[];
  /** Differences that remain (empty when restored). */
  readonly remaining: readonly ScopeDifference[];
  /** The operation that failed, when one did. */
  readonly error?: string;
}

/** A stored checkpoint of a scope. */
export interface Checkpoint {
  /** Absolute worktree path. */
  readonly worktree: string;
  /** Normalized repository-relative scope paths. */
  readonly scope: readonly string[];
  /** Where the copies live (outside the repository). */
  readonly storeDir: string;
  /** Every path in the scope at checkpoint time, sorted. */
  readonly entries: readonly ScopeEntry[];
  /**
   * Makes the scope equal to the checkpoint byte for byte, modes included; touches nothing outside
   * it. `onChanged` hears each path right after it was rewritten, recreated, deleted or re-moded
   * (a resumable host counts these as side effects; it must not throw).
   */
  restore(options?: RestoreOptions): Promise<RestoreReport>;
  /** Whether the scope equals the checkpoint now. */
  verify(): Promise<boolean>;
  /** Paths whose state differs from the checkpoint now, sorted. */
  diff(): Promise<ScopeDifference[]>;
  /** Deletes the stored copies. */
  dispose(): Promise<void>;
}

/** Options of {@link Checkpoint.restore}. */
export interface RestoreOptions {
  /** Called after each path the restoration changed. */
  readonly onChanged?: (path: string) => void;
}

/** Options of {@link createCheckpoint}. */
export interface CheckpointOptions {
  /** Absolute worktree path. */
  readonly worktree: string;
  /** Repository-relative files or directories (`.` is the whole worktree); missing paths are fine. */
  readonly scope: readonly string[];
  /** Where to store the copies; default a fresh temporary directory outside the worktree. */
  readonly storeDir?: string;
}

/**
 * An exact checkpoint cannot be made or used. `code` is `checkpoint.unavailable` (e.g. a socket
 * or device in the scope, a scope reached through a symlink, an unreadable file, a damaged store).
 */
export class CheckpointUnavailableError extends LoopchartError {
  constructor(message: string) {
    super('checkpoint.unavailable', message);
  }
}

const RECORD_FILE = 'checkpoint.json';

interface CheckpointRecord {
  readonly version: 1;
  readonly worktree: string;
  readonly scope: readonly string[];
  readonly entries: readonly ScopeEntry[];
}

/**
 * Checkpoints a scope: records every directory, file (bytes and mode) and symlink under the scope
 * paths, including uncommitted edits, untracked and ignored files, and which scope paths did not
 * exist. File bytes are copied into the store, named by their SHA-256. The worktree's own `.git`
 * is never part of a scope. The record is written last, so a store with a record is complete;
 * {@link loadCheckpoint} reopens it after a crash.
 *
 * @param options worktree, scope, optional store directory
 * @returns the checkpoint
 * @throws InputError (`checkpoint.scope`) for a scope path that is absolute, contains `..` or
 *   names `.git`; CheckpointUnavailableError when some path cannot be captured exactly
 */
export async function createCheckpoint(options: CheckpointOptions): Promise<Checkpoint> {
  const scope = normalizeScope(options.scope);
  const { worktree } = options;
  await requireRealParents(worktree, scope);
  const storeDir = options.storeDir ?? (await makeTempDir('loopchart-checkpoint-', { outside: worktree }));
  try {
    await mkdir(join(storeDir, 'blobs'), { recursive: true });
    const { entries } = await snapshotScope(worktree, scope, {
      strict: true,
      onFile: async (absolute) => storeBlob(storeDir, absolute),
    });
    const record: CheckpointRecord = { version: 1, worktree, scope, entries };
    await writeFileAtomic(join(storeDir, RECORD_FILE), JSON.stringify(record));
    return checkpointFrom(record, storeDir);
  } catch (error) {
    // A partial store is useless; remove it unless the caller supplied the directory.
    if (options.storeDir === undefined) await rm(storeDir, { recursive: true, force: true });
    throw error;
  }
}

/**
 * Reopens a checkpoint from its store directory.
 *
 * @param storeDir the directory {@link createCheckpoint} wrote
 * @returns the checkpoint
 * @throws CheckpointUnavailableError when the record is missing or damaged
 */
export async function loadCheckpoint(storeDir: string): Promise<Checkpoint> {
  let record: CheckpointRecord;
  try {
    record = JSON.parse(await readFile(join(storeDir, RECORD_FILE), 'utf8')) as CheckpointRecord;
  } catch (error) {
    throw new CheckpointUnavailableError(`no readable checkpoint in ${storeDir}: ${messageOf(error)}`);
  }
  if (record.version !== 1 || !Array.isArray(record.entries) || !Array.isArray(record.scope))
    throw new CheckpointUnavailableError(`checkpoint record in ${storeDir} has an unknown shape`);
  return checkpointFrom(record, storeDir);
}

function checkpointFrom(record: CheckpointRecord, storeDir: string): Checkpoint {
  const { worktree, scope, entries } = record;
  const diff = async () => differencesNow(worktree, scope, entries);
  return {
    worktree,
    scope,
    storeDir,
    entries,
    diff,
    verify: async () => (await diff()).length === 0,
    restore: (options) => restoreScope(record, storeDir, diff, options?.onChanged),
    dispose: () => rm(storeDir, { recursive: true, force: true }),
  };
}

async function restoreScope(
  record: CheckpointRecord,
  storeDir: string,
  diff: () => Promise<ScopeDifference[]>,
  onChanged: ((path: string) => void) | undefined,
): Promise<RestoreReport> {
  const { worktree, scope, entries } = record;
  const changedPaths = new Set<string>();
  const changed = {
    add(path: string) {
      changedPaths.add(path);
      onChanged?.(path);
    },
  };
  try {
    await requireRealParents(worktree, scope);
    const wanted = new Map(entries.map((entry) => [entry.path, entry]));
    const ordered = [...entries].sort(
      (a, b) => depth(a.path) - depth(b.path) || compareCodePoints(a.path, b.path),
    );

    // 0. Directories of the checkpoint that are still directories become listable and writable
    //    (the candidate may have taken the bits away), so that what lies in them can be compared
    //    and removed; step 3 gives every directory its recorded mode back.
    for (const entry of ordered) {
      if (entry.kind !== 'directory') continue;
      const absolute = join(worktree, entry.path);
      const stats = await lstat(absolute).catch(() => null);
      if (stats?.isDirectory() && (stats.mode & 0o700) !== 0o700) {
        await chmod(absolute, (stats.mode & 0o7777) | 0o700);
        changed.add(entry.path);
      }
    }
    const current = (await snapshotScope(worktree, scope, { strict: false, onFile: readableDigest })).entries;

    // 1. Remove what did not exist at the checkpoint, or exists as another kind (FIFOs, sockets and
    //    devices always: a checkpoint never holds one); deepest first.
    for (const entry of [...current].sort((a, b) => depth(b.path) - depth(a.path))) {
      const target = wanted.get(entry.path);
      if (target !== undefined && target.kind === entry.kind && sameSpecialType(target, entry)) continue;
      await removeEntirely(join(worktree, entry.path));
      changed.add(entry.path);
    }

    // 2. Recreate directories, files and symlinks, shallowest first. Directories stay writable
    //    until step 3, so read-only directories can still be filled.
    const now = new Map(
      (await snapshotScope(worktree, scope, { strict: false, onFile: readableDigest })).entries.map(
        (entry) => [entry.path, entry],
      ),
    );
    for (const entry of ordered) {
      const absolute = join(worktree, entry.path);
      const present = now.get(entry.path);
      // A missing parent of a scope path (outside the scope) is recreated empty; nothing else outside is touched.
      await mkdir(join(absolute, '..'), { recursive: true });
      if (entry.kind === 'directory') {
        if (present === undefined) {
          await mkdir(absolute, { mode: 0o700 });
          changed.add(entry.path);
        }
        await chmod(absolute, entry.mode | 0o700);
      } else if (entry.kind === 'file') {
        if (present?.kind === 'file' && present.digest === entry.digest) {
          if (present.mode !== entry.mode) {
            await chmod(absolute, entry.mode);
            changed.add(entry.path);
          }
          continue;
        }
        await restoreFile(storeDir, entry.digest, absolute, entry.mode);
        changed.add(entry.path);
      } else if (entry.kind === 'special') {
        if (present?.kind === 'special' && present.type === entry.type) {
          if (present.mode !== entry.mode) {
            await chmod(absolute, entry.mode);
            changed.add(entry.path);
          }
          continue;
        }
        await restoreFifo(absolute, entry);
        changed.add(entry.path);
      } else if (
        entry.kind === 'symlink' &&
        (present?.kind !== 'symlink' || present.target !== entry.target)
      ) {
        const temporary = `${absolute}.loopchart-${process.pid}-${Date.now()}.tmp`;
        await symlink(entry.target, temporary);
        await rename(temporary, absolute);
        changed.add(entry.path);
      }
    }

    // 3. Directory modes last, deepest first.
    for (const entry of [...ordered].reverse()) {
      if (entry.kind !== 'directory') continue;
      await chmod(join(worktree, entry.path), entry.mode);
      const before = now.get(entry.path);
      if (before?.kind === 'directory' && before.mode !== entry.mode) changed.add(entry.path);
    }
  } catch (error) {
    return {
      restored: false,
      changed: sortPaths(changedPaths),
      remaining: await remainingAfterFailure(diff, scope),
      error: messageOf(error),
    };
  }
  const remaining = await remainingAfterFailure(diff, scope);
  return { restored: remaining.length === 0, changed: sortPaths(changedPaths), remaining };
}

/**
 * What still differs. When even the comparison fails, every scope path is reported as `unknown`:
 * a report never says nothing remains unless the scope was read and found equal.
 */
async function remainingAfterFailure(
  diff: () => Promise<ScopeDifference[]>,
  scope: readonly string[],
): Promise<ScopeDifference[]> {
  try {
    return await diff();
  } catch {
    return scope.map((path) => ({ path, change: 'unknown' as const }));
  }
}

/** Removes a path of any kind, first making directories under it listable and writable. */
async function removeEntirely(absolute: string): Promise<void> {
  const stats = await lstat(absolute).catch(() => null);
  if (stats === null) return;
  if (stats.isDirectory()) {
    if ((stats.mode & 0o700) !== 0o700) await chmod(absolute, (stats.mode & 0o7777) | 0o700);
    for (const name of await readdir(absolute)) await removeEntirely(join(absolute, name));
  }
  await rm(absolute, { recursive: true, force: true });
}

/** Whether two entries of the same kind are also of the same special file type (always, for other kinds). */
function sameSpecialType(a: ScopeEntry, b: ScopeEntry): boolean {
  return a.kind !== 'special' || b.kind !== 'special' || a.type === b.type;
}

/** Recreates a FIFO with its mode (through a temporary name and a rename, like files). */
async function restoreFifo(absolute: string, entry: ScopeEntry & { kind: 'special' }): Promise<void> {
  if (entry.type !== 'fifo')
    throw new CheckpointUnavailableError(`cannot recreate the ${entry.type} ${entry.path}`);
  const temporary = `${absolute}.loopchart-${process.pid}-${Date.now()}.tmp`;
  try {
    await execa('mkfifo', ['-m', (entry.mode & 0o7777).toString(8), '--', temporary], { stdin: 'ignore' });
    await chmod(temporary, entry.mode);
    await rename(temporary, absolute);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error instanceof CheckpointUnavailableError
      ? error
      : new CheckpointUnavailableError(`cannot recreate the FIFO ${entry.path}: ${messageOf(error)}`);
  }
}

async function restoreFile(storeDir: string, digest: string, absolute: string, mode: number): Promise<void> {
  const blob = join(storeDir, 'blobs', digest);
  const temporary = `${absolute}.loopchart-${process.pid}-${Date.now()}.tmp`;
  try {
    await copyFile(blob, temporary);
    await chmod(temporary, mode);
    if ((await fileDigest(temporary)) !== digest)
      throw new CheckpointUnavailableError(`stored copy ${blob} does not match its digest`);
    await rename(temporary, absolute);
  } catch (error) {
    await rm(temporary, { force: true });
    throw error;
  }
}

/** Options of {@link snapshotScope}. */
interface SnapshotOptions {
  /**
   * Checkpoint creation: refuse what cannot be captured exactly (a FIFO, socket or device, an
   * unreadable directory or file). Otherwise such paths are recorded as they are seen (special
   * entries, unreadable directories), so the working tree can always be compared and restored.
   */
  readonly strict: boolean;
  /** Gives each regular file's digest. */
  readonly onFile: (absolute: string) => Promise<string>;
}

/** A scope walk: its entries, and the directories that could not be listed. */
interface ScopeSnapshot {
  readonly entries: ScopeEntry[];
  readonly unlisted: string[];
}

/** Walks the scope without following symlinks. */
async function snapshotScope(
  worktree: string,
  scope: readonly string[],
  options: SnapshotOptions,
): Promise<ScopeSnapshot> {
  const entries: ScopeEntry[] = [];
  const unlisted: string[] = [];
  const visit = async (path: string): Promise<void> => {
    const absolute = path === '.' ? worktree : join(worktree, path);
    let stats: Awaited<ReturnType<typeof lstat>>;
    try {
      stats = await lstat(absolute);
    } catch (error) {
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'ENOENT' || code === 'ENOTDIR') return;
      throw new CheckpointUnavailableError(`cannot read ${path}: ${messageOf(error)}`);
    }
    const mode = stats.mode & 0o7777;
    if (stats.isSymbolicLink()) {
      entries.push({ path, kind: 'symlink', target: await readlink(absolute) });
    } else if (stats.isFile()) {
      entries.push({ path, kind: 'file', mode, digest: await options.onFile(absolute) });
    } else if (stats.isDirectory()) {
      entries.push({ path, kind: 'directory', mode });
      let names: string[];
      try {
        names = await readdir(absolute);
      } catch (error) {
        if (options.strict) throw new CheckpointUnavailableError(`cannot list ${path}: ${messageOf(error)}`);
        unlisted.push(path);
        return;
      }
      for (const name of names.sort(compareCodePoints)) {
        if (path === '.' && name === '.git') continue; // the repository's own metadata is never scope
        await visit(path === '.' ? name : posix.join(path, name));
      }
    } else {
      const type: SpecialType = stats.isFIFO() ? 'fifo' : stats.isSocket() ? 'socket' : 'device';
      if (options.strict && type !== 'fifo')
        throw new CheckpointUnavailableError(
          `cannot checkpoint ${path}: a ${type}, not a file, directory, symlink or FIFO`,
        );
      entries.push({ path, kind: 'special', mode, type });
    }
  };
  for (const root of scope) await visit(root);
  return { entries: entries.sort((a, b) => compareCodePoints(a.path, b.path)), unlisted };
}

/** How the scope differs from the checkpoint's entries now (never throws for special files). */
async function differencesNow(
  worktree: string,
  scope: readonly string[],
  expected: readonly ScopeEntry[],
): Promise<ScopeDifference[]> {
  const { entries, unlisted } = await snapshotScope(worktree, scope, {
    strict: false,
    onFile: readableDigest,
  });
  const hidden = (path: string) => unlisted.some((dir) => path.startsWith(dir === '.' ? '' : `${dir}/`));
  return compareStates(expected, entries).map((difference) =>
    difference.change === 'removed' && hidden(difference.path)
      ? { path: difference.path, change: 'unknown' as const }
      : difference,
  );
}

/**
 * The state of every path in a scope now, as a checkpoint would record it (without copying any
 * bytes): what a resumable host records after each step to prove later that the scope is still
 * where its journal left it. Unreadable files get a digest that never equals a real one.
 *
 * @param worktree absolute worktree path
 * @param scope repository-relative scope paths
 * @returns the entries, sorted by path
 */
export async function observeScope(worktree: string, scope: readonly string[]): Promise<ScopeEntry[]> {
  return (await snapshotScope(worktree, normalizeScope(scope), { strict: false, onFile: readableDigest }))
    .entries;
}

/**
 * How `actual` differs from `expected`, path by path (the comparison {@link Checkpoint.diff} uses).
 *
 * @param expected the recorded state
 * @param actual the state now
 * @returns the differences, sorted by path
 */
export function compareScopeEntries(
  expected: readonly ScopeEntry[],
  actual: readonly ScopeEntry[],
): ScopeDifference[] {
  return compareStates(expected, actual);
}

function compareStates(expected: readonly ScopeEntry[], actual: readonly ScopeEntry[]): ScopeDifference[] {
  const now = new Map(actual.map((entry) => [entry.path, entry]));
  const differences: ScopeDifference[] = [];
  for (const entry of expected) {
    const present = now.get(entry.path);
    now.delete(entry.path);
    if (present === undefined) differences.push({ path: entry.path, change: 'removed' });
    else if (present.kind !== entry.kind || !sameSpecialType(present, entry))
      differences.push({ path: entry.path, change: 'kind' });
    else if (entry.kind === 'symlink' && present.kind === 'symlink') {
      if (entry.target !== present.target) differences.push({ path: entry.path, change: 'target' });
    } else if (entry.kind === 'file' && present.kind === 'file' && entry.digest !== present.digest)
      differences.push({ path: entry.path, change: 'content' });
    else if ('mode' in entry && 'mode' in present && entry.mode !== present.mode)
      differences.push({ path: entry.path, change: 'mode' });
  }
  for (const path of now.keys()) differences.push({ path, change: 'added' });
  return differences.sort((a, b) => compareCodePoints(a.path, b.path));
}

async function storeBlob(storeDir: string, absolute: string): Promise<string> {
  // Copy first and hash the copy, so the stored bytes and their name always agree.
  const temporary = join(storeDir, 'blobs', `incoming-${process.pid}-${Math.random().toString(16).slice(2)}`);
  try {
    await copyFile(absolute, temporary);
    const digest = await fileDigest(temporary);
    await rename(temporary, join(storeDir, 'blobs', digest));
    return digest;
  } catch (error) {
    await rm(temporary, { force: true });
    throw new CheckpointUnavailableError(`cannot copy ${absolute}: ${messageOf(error)}`);
  }
}

/**
 * SHA-256 of a regular file. Opened without following a symlink and without blocking, and checked
 * to be a regular file once open: a path swapped for a FIFO after it was listed must not hang
 * the walk.
 */
async function fileDigest(absolute: string): Promise<string> {
  const handle = await open(absolute, constants.O_RDONLY | constants.O_NOFOLLOW | constants.O_NONBLOCK);
  try {
    if (!(await handle.stat()).isFile())
      throw new CheckpointUnavailableError(`${absolute} is not a regular file`);
    const hash = createHash('sha256');
    for await (const chunk of handle.createReadStream({ autoClose: false })) hash.update(chunk as Buffer);
    return hash.digest('hex');
  } finally {
    await handle.close();
  }
}

/** A file's digest, or a marker that never equals one when the file cannot be read now. */
async function readableDigest(absolute: string): Promise<string> {
  try {
    return await fileDigest(absolute);
  } catch (error) {
    return `unreadable: ${messageOf(error)}`;
  }
}

/** Refuses scope paths whose parent chain inside the worktree is a symlink or a file. */
async function requireRealParents(worktree: string, scope: readonly string[]): Promise<void> {
  for (const path of scope) {
    const parts = path === '.' ? [] : path.split('/').slice(0, -1);
    for (let i = 1; i <= parts.length; i += 1) {
      const parent = parts.slice(0, i).join('/');
      try {
        const stats = await lstat(join(worktree, parent));
        if (!stats.isDirectory())
          throw new CheckpointUnavailableError(
            `scope path ${path} lies under ${parent}, which is not a directory`,
          );
      } catch (error) {
        if (error instanceof CheckpointUnavailableError) throw error;
        if ((error as NodeJS.ErrnoException).code === 'ENOENT') break;
        throw new CheckpointUnavailableError(`cannot read ${parent}: ${messageOf(error)}`);
      }
    }
  }
}

function normalizeScope(scope: readonly string[]): string[] {
  if (scope.length === 0)
    throw new InputError('checkpoint.scope', 'a checkpoint needs at least one scope path');
  const normalized = scope.map((raw) => {
    const path = posix.normalize(raw.replace(/\/+$/, '') || '.');
    const parts = path.split('/');
    if (path.startsWith('/') || parts.includes('..') || raw.includes('\0') || raw.length === 0)
      throw new InputError(
        'checkpoint.scope',
        `scope path must be relative and inside the worktree: ${JSON.stringify(raw)}`,
      );
    if (parts[0] === '.git')
      throw new InputError(
        'checkpoint.scope',
        `scope path must not be the repository's .git: ${JSON.stringify(raw)}`,
      );
    return path;
  });
  // Drop paths covered by another scope path.
  const unique = [...new Set(normalized)].sort(compareCodePoints);
  return unique.filter(
    (path) => !unique.some((other) => other !== path && (other === '.' || path.startsWith(`${other}/`))),
  );
}

function depth(path: string): number {
  return path === '.' ? 0 : path.split('/').length;
}

function sortPaths(paths: Iterable<string>): string[] {
  return [...paths].sort(compareCodePoints);
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
