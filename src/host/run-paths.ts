/**
 * The paths and commands a run needs before the machine starts: the worktree root, the spec and
 * ledger as repo-relative paths, and the verification command a fresh ledger records.
 */
import { existsSync, readFileSync, realpathSync, statSync } from 'node:fs';
import { isAbsolute, posix, relative, resolve, sep } from 'node:path';
import { InputError } from '../common/errors.js';
import { readFileIfExists } from '../effects/files.js';
import { createGitPort } from '../effects/git.js';
import { resolveGitDir, resolveWorktreeRoot } from '../effects/git-dir.js';
import { parseLedger } from '../gauntlet/ledger.js';
import { overridesVerification, VERIFICATION_SECTION } from '../gauntlet/overrides.js';

/**
 * The default ledger path for a spec (§6 A1, the plan path convention): `<specDir>/../plans/<spec
 * basename>`, or `plans/<spec basename>` when the spec sits at the repository root or one folder
 * below it (then `<specDir>/..` is the root or would leave the repository).
 *
 * @param specPath repo-relative spec path, e.g. `doc/specs/2026-11-02-csv-export.md`
 * @returns e.g. `doc/plans/2026-11-02-csv-export.md`
 */
export function defaultLedgerPath(specPath: string): string {
  const normalized = posix.normalize(specPath.split(sep).join('/'));
  const folder = posix.dirname(normalized);
  const parent = posix.dirname(folder);
  const plans = folder === '.' || parent === '.' ? 'plans' : posix.join(parent, 'plans');
  return posix.join(plans, posix.basename(normalized));
}

/**
 * A path given on the command line or in options, as a repo-relative POSIX path.
 *
 * @param worktree the worktree root
 * @param path absolute, or relative to the worktree
 * @param what what the path is, for the error
 * @throws InputError (`run.path`) when the path leaves the worktree
 */
export function repoRelative(worktree: string, path: string, what: string): string {
  const absolute = isAbsolute(path) ? path : resolve(worktree, path);
  let real = absolute;
  try {
    real = realpathSync(absolute);
  } catch {
    // not created yet (a fresh ledger): compare as given
  }
  const rel = relative(worktree, real);
  if (rel === '' || rel.startsWith('..') || isAbsolute(rel))
    throw new InputError('run.path', `the ${what} ${path} is not inside the worktree ${worktree}`);
  return rel.split(sep).join('/');
}

/**
 * The worktree root of a directory, with symlinks resolved.
 *
 * @throws InputError (`git.not-a-worktree`) when it is not inside a git worktree
 */
export async function worktreeRootOf(directory: string): Promise<string> {
  if (!existsSync(directory)) throw new InputError('run.path', `the worktree ${directory} does not exist`);
  return realpathSync(await resolveWorktreeRoot(directory));
}

/**
 * The spec path named by a ledger's `**Spec:**` header, for a resume given only `--ledger`.
 *
 * @returns the repo-relative spec path, or `null` when the ledger is absent or unreadable
 */
export async function specOfLedger(worktree: string, ledgerPath: string): Promise<string | null> {
  const text = await readFileIfExists(resolve(worktree, ledgerPath));
  if (text === null) return null;
  return parseLedger(text).ledger?.spec ?? null;
}

/**
 * The project's verification command when none is given (§3.1 step 1: discover the test
 * entrypoint from the manifest): `npm test` for a package.json with a `test` script, `make test`
 * for a Makefile with a `test:` target. More than one, or none, is `null` (the run then needs
 * `--verification`).
 *
 * @param worktree the worktree root
 */
export function discoverVerification(worktree: string): string | null {
  const found: string[] = [];
  try {
    const manifest = JSON.parse(readFileSync(resolve(worktree, 'package.json'), 'utf8')) as {
      scripts?: Record<string, unknown>;
    };
    if (typeof manifest.scripts?.test === 'string') found.push('npm test');
  } catch {
    // no usable package.json
  }
  try {
    if (/^test\s*:/m.test(readFileSync(resolve(worktree, 'Makefile'), 'utf8'))) found.push('make test');
  } catch {
    // no Makefile
  }
  return found.length === 1 ? (found[0] as string) : null;
}

/** The overrides file read when `--overrides` is not given (only when it exists). */
export const DEFAULT_OVERRIDES_PATH = '.loopchart/overrides.md';

/** The verification command of a fresh ledger and where it came from (printed as its source). */
export interface VerificationChoice {
  readonly command: string;
  /** e.g. `--verification`, `.loopchart/overrides.md ## verification-before-completion`, `discovered: package.json test script`. */
  readonly source: string;
}

/**
 * The verification command of a fresh ledger, in the protocol's resolution order (§3.1 step 1,
 * docs/decisions/rules.md): the caller's `--verification` (standing for the table's unreachable
 * first row), else the overrides file's `## verification-before-completion` section (exactly one
 * backticked command), else discovery from the project manifest.
 *
 * @param worktree the worktree root
 * @param options the explicit command and the overrides path (repo-relative or absolute; default
 *   {@link DEFAULT_OVERRIDES_PATH}, read only when it exists)
 * @throws InputError `run.overrides` when the section has zero or several commands, or a named
 *   overrides file is missing; `run.verification` when nothing resolves a command
 */
export function resolveVerification(
  worktree: string,
  options: { readonly explicit?: string; readonly overrides?: string },
): VerificationChoice {
  if (options.explicit !== undefined) return { command: options.explicit, source: '--verification' };
  const overridesPath = options.overrides ?? DEFAULT_OVERRIDES_PATH;
  const absolute = resolve(worktree, overridesPath);
  if (existsSync(absolute)) {
    const found = overridesVerification(readFileSync(absolute, 'utf8'));
    if (found.kind === 'error')
      throw new InputError(
        'run.overrides',
        `configuration error in the overrides file ${overridesPath} line ${found.line}: ${found.reason}`,
      );
    if (found.kind === 'command')
      return { command: found.command, source: `${overridesPath} ${VERIFICATION_SECTION}` };
  } else if (options.overrides !== undefined)
    throw new InputError('run.overrides', `the overrides file ${options.overrides} does not exist`);
  const discovered = discoverVerification(worktree);
  if (discovered === null)
    throw new InputError(
      'run.verification',
      'cannot resolve the verification command from the project manifest: give it with --verification "<command>" or in the overrides file\'s ## verification-before-completion section',
    );
  return {
    command: discovered,
    source:
      discovered === 'npm test' ? 'discovered: package.json test script' : 'discovered: Makefile test target',
  };
}

/**
 * Refuses run inputs that would otherwise fail deep inside the run (issue 10 item 7): a spec or
 * ledger path that is a directory or lies inside the git directory (nothing is ever written
 * there as a ledger or spec), and a repository without a commit.
 *
 * @param worktree the worktree root
 * @param paths the repo-relative spec and ledger paths
 * @throws InputError (`run.path`, `run.no-commits`) naming the problem
 */
export async function checkRunPaths(
  worktree: string,
  paths: { readonly specPath: string; readonly ledgerPath: string },
): Promise<void> {
  const gitDir = realpathSync(await resolveGitDir(worktree));
  for (const [what, path] of [
    ['spec', paths.specPath],
    ['ledger', paths.ledgerPath],
  ] as const) {
    const absolute = resolve(worktree, path);
    const inGitDir = relative(gitDir, absolute);
    if (path.split('/').includes('.git') || !(inGitDir.startsWith('..') || isAbsolute(inGitDir)))
      throw new InputError(
        'run.path',
        `the ${what} ${path} is inside the git directory; a ${what} is never read or written there`,
      );
    if (existsSync(absolute) && statSync(absolute).isDirectory())
      throw new InputError('run.path', `the ${what} ${path} is a directory, not a file`);
  }
  if ((await revParseIn(worktree, 'HEAD')) === null)
    throw new InputError(
      'run.no-commits',
      'the repository has no commits: commit the spec (or anything) before the first run',
    );
}

/**
 * Refuses a ledger whose base commit is not in the repository (a shallow clone that lacks it):
 * its attempts could not be counted from history.
 *
 * @throws InputError (`run.base-missing`) naming the base and the fix
 */
export async function checkLedgerBase(worktree: string, ledgerPath: string, base: string): Promise<void> {
  if ((await revParseIn(worktree, base)) === null)
    throw new InputError(
      'run.base-missing',
      `the ledger ${ledgerPath} is based on ${base}, which this repository does not have (a shallow clone?): fetch the history (git fetch --unshallow) and run again`,
    );
}

/** The commit `rev` names in the worktree's repository, or `null` when there is none. */
async function revParseIn(worktree: string, rev: string): Promise<string | null> {
  try {
    const sha = await createGitPort(worktree).revParse(rev);
    return sha === '' ? null : sha;
  } catch {
    return null;
  }
}
