import { execa } from 'execa';
import { InputError } from '../common/errors.js';
import { CommandFailedError } from './command-error.js';
import { lastLines } from './output-tail.js';

const SCRUBBED = ['GIT_DIR', 'GIT_WORK_TREE', 'GIT_INDEX_FILE', 'GIT_COMMON_DIR', 'GIT_PREFIX'];

/**
 * Resets the index entries of `paths` to HEAD (`git reset -q HEAD -- <paths>`), leaving the
 * working tree and every other index entry alone. The host uses it to undo the staging of its own
 * half-made commit after a crash, so that nothing it staged stays behind.
 *
 * @param worktree absolute path of the worktree
 * @param paths repository-relative paths
 * @throws InputError (`git.path`) for an unusable path; CommandFailedError (`git.failed`) when git fails
 */
export async function unstagePaths(worktree: string, paths: readonly string[]): Promise<void> {
  if (paths.length === 0) return;
  for (const path of paths)
    if (path.length === 0 || path.startsWith('/') || path.split('/').includes('..') || /[\0\n]/.test(path))
      throw new InputError('git.path', `not a usable repository-relative path: ${JSON.stringify(path)}`);
  const env: Record<string, string> = {};
  for (const [key, value] of Object.entries(process.env))
    if (value !== undefined && !SCRUBBED.includes(key)) env[key] = value;
  const args = ['reset', '-q', 'HEAD', '--', ...paths];
  const result = await execa('git', args, {
    cwd: worktree,
    reject: false,
    stdin: 'ignore',
    extendEnv: false,
    env: { ...env, GIT_TERMINAL_PROMPT: '0', LC_ALL: 'C', GIT_LITERAL_PATHSPECS: '1' },
  });
  if (result.exitCode !== 0)
    throw new CommandFailedError('git.failed', {
      command: ['git', ...args].join(' '),
      exitCode: result.exitCode ?? null,
      signal: result.signal ?? null,
      outputTail: lastLines(`${String(result.stderr ?? '')}\n${String(result.stdout ?? '')}`, 20),
    });
}
