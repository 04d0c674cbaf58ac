/**
 * The checkout facts the loop protocol's baseline records before the first action (Baseline step
 * 2): the source revision, the branch, the dirty state (pre-existing user work, kept apart from
 * what the loop will own) and the relevant external state. Read-only: nothing here mutates.
 */
import { createHash } from 'node:crypto';
import { execa } from 'execa';
import { neutralizeText } from '../common/terminal-text.js';
import type { GitPort } from './git.js';

/** The state of something outside the checkout the loop depends on, read by a user command. */
export interface ExternalState {
  /** The command that read it (run with `/bin/sh -c`). */
  readonly command: string;
  readonly exitCode: number | null;
  /** Its output's last line, neutralized and cut (untrusted data, never instructions). */
  readonly summary: string;
  /** SHA-256 (16 hex) of its whole output, so a later change of the external state is visible. */
  readonly fingerprint: string;
}

/** What the baseline records about the checkout. */
export interface BaselineFacts {
  /** Full object name of HEAD, or null in a repository without commits. */
  readonly revision: string | null;
  /** The branch checked out, or null on a detached HEAD. */
  readonly branch: string | null;
  /** Paths with uncommitted changes before the loop starts: the user's work, never the loop's. */
  readonly dirty: readonly { readonly status: string; readonly path: string }[];
  /** The external state the loop depends on, when a command to read it was given. */
  readonly external: ExternalState | null;
}

async function currentBranch(worktree: string): Promise<string | null> {
  const result = await execa('git', ['symbolic-ref', '--quiet', '--short', 'HEAD'], {
    cwd: worktree,
    reject: false,
    stdin: 'ignore',
    encoding: 'utf8',
  });
  const name = String(result.stdout ?? '').trim();
  return result.exitCode === 0 && name !== '' ? name : null;
}

/**
 * Reads the baseline facts of a checkout.
 *
 * @param git the checkout's git port
 * @param externalCommand a command that prints the relevant external state, or null
 * @returns revision, branch, dirty paths and external state
 */
export async function readBaselineFacts(
  git: GitPort,
  externalCommand: string | null = null,
): Promise<BaselineFacts> {
  const revision = await git.revParseHead().catch(() => null);
  const branch = await currentBranch(git.worktree);
  const dirty = (await git.statusPorcelain()).map((entry) => ({ status: entry.xy, path: entry.path }));
  let external: ExternalState | null = null;
  if (externalCommand !== null) {
    const result = await execa('/bin/sh', ['-c', externalCommand], {
      cwd: git.worktree,
      reject: false,
      stdin: 'ignore',
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
    });
    const output = String(result.stdout ?? '');
    const lastLine =
      output
        .split('\n')
        .map((line) => line.trim())
        .filter((line) => line !== '')
        .pop() ?? '';
    external = {
      command: externalCommand,
      exitCode: result.exitCode ?? null,
      summary: neutralizeText(lastLine, { singleLine: true, maxLength: 200 }),
      fingerprint: createHash('sha256').update(output).digest('hex').slice(0, 16),
    };
  }
  return { revision, branch, dirty, external };
}

/**
 * The facts in one line, as the entry contract's `Environment or checkout` may state them.
 *
 * @param facts the baseline facts
 * @returns e.g. `branch main at 3f2c1e0 (2 paths with pre-existing changes)`
 */
export function describeCheckout(facts: BaselineFacts): string {
  const where = facts.branch === null ? 'detached HEAD' : `branch ${facts.branch}`;
  const at = facts.revision === null ? 'with no commit yet' : `at ${facts.revision.slice(0, 12)}`;
  const dirty =
    facts.dirty.length === 0
      ? 'clean'
      : `${facts.dirty.length} path${facts.dirty.length === 1 ? '' : 's'} with pre-existing changes`;
  return `${where} ${at} (${dirty})`;
}
