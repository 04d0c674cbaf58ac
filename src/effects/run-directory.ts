/**
 * Where an RPI or crank run keeps its own files (transcript, command logs, findings handed to the
 * implementer): a fresh directory under the repository's git directory. Git never lists its own
 * directory, so these files are never part of the subject the run measures.
 */
import { randomBytes } from 'node:crypto';
import { mkdir } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import { InputError } from '../common/errors.js';

/** The repository a run works in and the directory of its own files. */
export interface RunDirectory {
  /** Absolute path of the worktree's top level. */
  readonly worktree: string;
  /** Absolute path of the run's directory (created). */
  readonly path: string;
  /** The run's id: a UTC timestamp and a random suffix. */
  readonly runId: string;
}

/**
 * Resolves the worktree that contains `dir` and creates `<git dir>/loopchart/<kind>/<run id>/`.
 *
 * @param dir any directory inside the worktree
 * @param kind the command (`rpi`, `crank`)
 * @param now the clock, for the run id
 * @returns the worktree, the run directory and the run id
 * @throws InputError (`rpi.not-a-repository`) when `dir` is not inside a git worktree
 */
export async function createRunDirectory(
  dir: string,
  kind: string,
  now: () => Date = () => new Date(),
): Promise<RunDirectory> {
  const { worktree, kindDir } = await locateRunHome(dir, kind);
  const stamp = now()
    .toISOString()
    .replace(/[-:]/g, '')
    .replace(/\.\d+Z$/, 'Z');
  const runId = `${stamp}-${randomBytes(3).toString('hex')}`;
  const path = join(kindDir, runId);
  await mkdir(path, { recursive: true });
  return { worktree, path, runId };
}

/**
 * The worktree that contains `dir` and the folder of its runs of one kind,
 * `<git dir>/loopchart/<kind>` (not created).
 *
 * @param dir any directory inside the worktree
 * @param kind the command (`rpi`, `crank`)
 * @throws InputError (`rpi.not-a-repository`) when `dir` is not inside a git worktree
 */
export async function locateRunHome(
  dir: string,
  kind: string,
): Promise<{ worktree: string; kindDir: string }> {
  const result = await execa('git', ['rev-parse', '--show-toplevel', '--absolute-git-dir'], {
    cwd: dir,
    reject: false,
    stdin: 'ignore',
    encoding: 'utf8',
  });
  const [worktree, gitDir] = String(result.stdout ?? '')
    .split('\n')
    .map((line) => line.trim());
  if (result.exitCode !== 0 || !worktree || !gitDir) {
    throw new InputError(
      'rpi.not-a-repository',
      `${dir} is not inside a git worktree${result.stderr ? `: ${String(result.stderr).trim()}` : ''}`,
    );
  }
  return { worktree, kindDir: join(gitDir, 'loopchart', kind) };
}
