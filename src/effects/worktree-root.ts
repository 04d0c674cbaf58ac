import { resolve } from 'node:path';
import { execa } from 'execa';
import { InputError } from '../common/errors.js';

/**
 * The top directory of the git worktree that contains `cwd` (`git rev-parse --show-toplevel`).
 * Repository-relative paths (a cybernetic run's scope) are relative to it, wherever the command
 * was started.
 *
 * @param cwd any directory inside the worktree
 * @returns the absolute worktree root
 * @throws InputError (`git.not-a-worktree`) when `cwd` is not inside a git worktree
 */
export async function resolveWorktreeRoot(cwd: string): Promise<string> {
  const result = await execa('git', ['rev-parse', '--show-toplevel'], {
    cwd: resolve(cwd),
    reject: false,
    stdin: 'ignore',
    env: { GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
  });
  const text = typeof result.stdout === 'string' ? result.stdout.trim() : '';
  if (result.exitCode !== 0 || text === '') {
    const detail = typeof result.stderr === 'string' ? result.stderr.trim() : '';
    throw new InputError(
      'git.not-a-worktree',
      `${resolve(cwd)} is not inside a git worktree${detail ? `: ${detail}` : result.message ? `: ${result.message}` : ''}`,
    );
  }
  return text;
}
