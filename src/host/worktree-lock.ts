/**
 * The worktree lock: at most one loopchart runner mutates a checkout at a time.
 *
 * The lock is a JSON file under the git directory naming its holder by pid and OS start identity.
 * A lock whose holder is gone (or whose pid now belongs to another process) is stale: the next
 * runner takes it over and inherits the stale holder's token, so a dispatch reserved by a runner
 * that crashed is still "held under the lock" for the runner that resumes it. A lock released
 * normally ends the chain: whatever happened in the checkout between two runs was not under any
 * runner's lock, and interrupted recovery then cannot prove ownership (§3.14 step 1).
 */
import { randomBytes } from 'node:crypto';
import { link, mkdir, readFile, rename, rm, writeFile } from 'node:fs/promises';
import { dirname } from 'node:path';
import { z } from 'zod';
import { InputError } from '../common/errors.js';
import { readStartIdentity } from '../effects/process-identity.js';

const lockSchema = z.object({
  version: z.literal(1),
  token: z.string().min(1),
  pid: z.number().int().positive(),
  startIdentity: z.string().nullable(),
  acquiredAt: z.string(),
  /** Tokens of crashed holders this lock took over, oldest first. */
  inherited: z.array(z.string()),
});

/** What the lock file says about its holder. */
export type LockInfo = z.infer<typeof lockSchema>;

/** Another live runner holds the worktree. `code` is `host.worktree-locked`. */
export class WorktreeLockedError extends InputError {
  /**
   * @param path the lock file
   * @param holder the live holder
   */
  constructor(path: string, holder: LockInfo) {
    super(
      'host.worktree-locked',
      `another loopchart runner (pid ${holder.pid}, since ${holder.acquiredAt}) holds this worktree; wait for it to end (lock ${path})`,
    );
  }
}

/** A held worktree lock. */
export interface HeldLock {
  readonly path: string;
  readonly info: LockInfo;
  /**
   * True when `token` is this lock's or one it inherited from a crashed holder: work reserved
   * under that token has been under a runner's lock ever since.
   */
  covers(token: string): boolean;
  /** Removes the lock file if it is still this lock's. */
  release(): Promise<void>;
}

async function readLock(path: string): Promise<LockInfo | 'absent' | 'unreadable'> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'ENOENT' ? 'absent' : 'unreadable';
  }
  try {
    const parsed = lockSchema.safeParse(JSON.parse(text));
    return parsed.success ? parsed.data : 'unreadable';
  } catch {
    return 'unreadable';
  }
}

/** A holder is live when its pid runs with the recorded start identity. */
function isLive(holder: LockInfo): boolean {
  const identity = readStartIdentity(holder.pid);
  if (identity === null) return false;
  return holder.startIdentity === null || identity === holder.startIdentity;
}

/**
 * Acquires the worktree lock at `path`.
 *
 * @param path the lock file (its folder is created)
 * @returns the held lock
 * @throws WorktreeLockedError when a live runner holds it; InputError (`host.lock-unreadable`)
 *   when the lock file exists but cannot be read (nothing is taken over then)
 */
export async function acquireWorktreeLock(path: string): Promise<HeldLock> {
  await mkdir(dirname(path), { recursive: true });
  const token = randomBytes(12).toString('hex');
  let inherited: string[] = [];
  for (let attempt = 0; attempt < 20; attempt += 1) {
    const info: LockInfo = {
      version: 1,
      token,
      pid: process.pid,
      startIdentity: readStartIdentity(process.pid),
      acquiredAt: new Date().toISOString(),
      inherited,
    };
    // link() creates the lock only if no lock exists, atomically.
    const temporary = `${path}.${token}.tmp`;
    await writeFile(temporary, `${JSON.stringify(info)}\n`);
    try {
      await link(temporary, path);
      return held(path, info);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error;
    } finally {
      await rm(temporary, { force: true });
    }
    const holder = await readLock(path);
    if (holder === 'absent') continue;
    if (holder === 'unreadable')
      throw new InputError(
        'host.lock-unreadable',
        `the worktree lock ${path} exists but cannot be read; remove it only if no loopchart runner is active`,
      );
    if (isLive(holder)) throw new WorktreeLockedError(path, holder);
    // Stale: move it aside (only one runner's rename of it can succeed), then take over its chain.
    const aside = `${path}.stale-${token}`;
    try {
      await rename(path, aside);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code === 'ENOENT') continue;
      throw error;
    }
    const moved = await readLock(aside);
    if (moved !== 'absent' && moved !== 'unreadable' && moved.token !== holder.token) {
      // Another runner replaced the stale lock between our read and our rename: give it back.
      await link(aside, path).catch(() => undefined);
      await rm(aside, { force: true });
      continue;
    }
    await rm(aside, { force: true });
    if (moved !== 'absent' && moved !== 'unreadable') inherited = [...moved.inherited, moved.token];
  }
  throw new InputError('host.lock-contended', `could not acquire the worktree lock ${path}`);
}

function held(path: string, info: LockInfo): HeldLock {
  const chain = new Set([...info.inherited, info.token]);
  return {
    path,
    info,
    covers: (token) => chain.has(token),
    async release() {
      const current = await readLock(path);
      if (current !== 'absent' && current !== 'unreadable' && current.token === info.token)
        await rm(path, { force: true });
    },
  };
}
