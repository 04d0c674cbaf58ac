/**
 * Derives the smallest scope of a cybernetic run before it starts (src/cybernetic/derive-scope.ts):
 * runs the invariant's check and the existing checks once, read-only, and reads which repository
 * files the failing ones name. The run refuses a declared scope wider than that unless the person
 * gives a reason; both are recorded in the run contract (`contract.json` of the run directory).
 */
import { execa } from 'execa';
import { InputError } from '../common/errors.js';
import { deriveScope, type ScopeDerivation } from '../cybernetic/derive-scope.js';

/** One check to run: its name in the contract and the user's shell command. */
export interface ScopeCheck {
  readonly name: string;
  readonly command: string;
}

/** A declared scope wider than the failing checks need, without a reason. `code` is `cybernetic.scope-wider-than-needed`. */
export class ScopeWiderThanNeededError extends InputError {
  constructor(readonly derivation: ScopeDerivation) {
    super(
      'cybernetic.scope-wider-than-needed',
      `the declared scope (${derivation.declared.join(', ')}) covers ${derivation.wider.length} file(s) the failing checks do not name (${derivation.wider.slice(0, 5).join(', ')}${derivation.wider.length > 5 ? ', ...' : ''}); the smallest scope they touch is ${derivation.derived.join(', ')}. Narrow --scope, or keep it with --scope-reason "<why>"`,
    );
  }
}

async function repositoryFiles(worktree: string): Promise<string[]> {
  const result = await execa('git', ['ls-files', '-z', '--cached', '--others', '--exclude-standard'], {
    cwd: worktree,
    reject: false,
    stdin: 'ignore',
    encoding: 'utf8',
    maxBuffer: 64 * 1024 * 1024,
  });
  return String(result.stdout ?? '')
    .split('\0')
    .filter((path) => path !== '');
}

/**
 * Runs the checks once and derives the smallest scope.
 *
 * @param worktree the worktree root
 * @param checks the invariant's check and the existing checks
 * @param declared the declared scope
 * @param reason the person's reason for a wider scope, or null
 * @param timeoutMs kill a check after this many ms
 * @returns the derivation
 * @throws ScopeWiderThanNeededError when the declared scope is wider than needed and no reason is given
 */
export async function deriveRunScope(
  worktree: string,
  checks: readonly ScopeCheck[],
  declared: readonly string[],
  reason: string | null,
  timeoutMs?: number,
): Promise<ScopeDerivation> {
  const failing: { name: string; output: string }[] = [];
  for (const check of checks) {
    const result = await execa('/bin/sh', ['-c', check.command], {
      cwd: worktree,
      reject: false,
      stdin: 'ignore',
      all: true,
      encoding: 'utf8',
      maxBuffer: 16 * 1024 * 1024,
      ...(timeoutMs === undefined ? {} : { timeout: timeoutMs }),
    });
    if (result.exitCode !== 0) failing.push({ name: check.name, output: String(result.all ?? '') });
  }
  const derivation = deriveScope(failing, await repositoryFiles(worktree), declared, reason);
  if (derivation.wider.length > 0 && (reason === null || reason.trim() === ''))
    throw new ScopeWiderThanNeededError(derivation);
  return derivation;
}
