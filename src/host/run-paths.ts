/**
 * The paths and commands a run needs before the machine starts: the worktree root, the spec and
 * ledger as repo-relative paths, and the verification command a fresh ledger records.
 */
import { existsSync, readFileSync, realpathSync } from 'node:fs';
import { isAbsolute, posix, relative, resolve, sep } from 'node:path';
import { InputError } from '../common/errors.js';
import { readFileIfExists } from '../effects/files.js';
import { resolveWorktreeRoot } from '../effects/git-dir.js';
import { parseLedger } from '../gauntlet/ledger.js';

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
