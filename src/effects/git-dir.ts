import { execa } from 'execa';
import { InputError } from '../common/errors.js';

// Variables that would point git at another repository (set when loopchart runs inside a hook).
const SCRUBBED = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_PREFIX'];

function revParse(cwd: string, flag: string) {
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && !SCRUBBED.includes(key)) env[key] = value;
  return execa('git', ['rev-parse', flag], {
    cwd,
    reject: false,
    stdin: 'ignore',
    extendEnv: false,
    env: { ...env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C' },
  });
}

/**
 * The absolute git directory of a worktree (`git rev-parse --absolute-git-dir`): `.git` for a main
 * worktree, `.git/worktrees/<name>` for a linked one. The host keeps its own durable files there
 * (the worktree lock, dispatch records, the transcript) because git never reports them as changes
 * and they belong to this worktree alone.
 *
 * @param worktree absolute path of the worktree
 * @returns the absolute git directory
 * @throws InputError (`git.not-a-worktree`) when `worktree` is not inside a git worktree
 */
export async function resolveGitDir(worktree: string): Promise<string> {
  const result = await revParse(worktree, '--absolute-git-dir');
  const text = typeof result.stdout === 'string' ? result.stdout.trim() : '';
  if (result.exitCode !== 0 || text === '')
    throw new InputError(
      'git.not-a-worktree',
      `${worktree} is not a git worktree${result.stderr ? `: ${String(result.stderr).trim()}` : ''}`,
    );
  return text;
}

/**
 * The top level of the worktree that contains `path` (`git rev-parse --show-toplevel`).
 *
 * @param path a directory inside a worktree
 * @returns the absolute top-level directory
 * @throws InputError (`git.not-a-worktree`) when `path` is not inside a git worktree
 */
export async function resolveWorktreeRoot(path: string): Promise<string> {
  const result = await revParse(path, '--show-toplevel');
  const text = typeof result.stdout === 'string' ? result.stdout.trim() : '';
  if (result.exitCode !== 0 || text === '')
    throw new InputError('git.not-a-worktree', `${path} is not inside a git worktree`);
  return text;
}
