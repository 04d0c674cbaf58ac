/**
 * Durable spend reservations: what makes a paid action at-most-once across a fleet
 * (docs/scale-out.md, decision F11 in docs/decisions/scale-out.md).
 *
 * A child reserves a paid action (`loopchart child spend reserve`) before it launches it; locally
 * the reservation is a line in the dispatch's jobs file, which a crash keeps (the repair commit
 * carries it). On a fleet worker a step that dies before its push loses the clone, and with it the
 * jobs file: the step re-runs on another worker from the last pushed branch and the child would
 * reserve, and run, the same spend again. So a fleet worker's clone names a ref prefix on the run's
 * remote (git config {@link SPEND_RESERVATIONS_CONFIG}); each reservation is then also created
 * there, as its own ref, before the child may launch the action. The k-th spend of an action on a
 * run is reserved once in the run's whole life (k only grows), so the ref's name is the record
 * itself (`ran <action> (<k> of <bound>)`): a re-dispatch that reserves the same record finds the
 * ref and is told the action was already reserved, and may have run.
 *
 * Refs are created, never moved: the push has no force, and each reservation commit carries a
 * fresh nonce, so a second writer's push of the same ref is refused. When the remote cannot be
 * reached the reservation fails and the action must not launch (at most once, not at least once).
 */
import { createHash, randomBytes } from 'node:crypto';
import { execa } from 'execa';
import { InputError } from '../common/errors.js';

/** The git config key (in a worktree's repository) naming the remote ref prefix for reservations. */
export const SPEND_RESERVATIONS_CONFIG = 'loopchart.spendReservations';

/** The ref prefix a fleet run's reservations live under on its remote. */
export function spendReservationPrefix(runId: string): string {
  return `refs/loopchart-spend/${runId}`;
}

/** The ref that holds one reservation (`ran <action> (<k> of <bound>)`) under `prefix`. */
export function spendReservationRef(prefix: string, record: string): string {
  return `${prefix}/${createHash('sha256').update(record).digest('hex').slice(0, 32)}`;
}

async function git(cwd: string, args: readonly string[], env?: Record<string, string>) {
  return execa('git', args, { cwd, reject: false, stdin: 'ignore', ...(env === undefined ? {} : { env }) });
}

/**
 * The reservation prefix configured for `worktree`'s repository, or null when none is (a local
 * run: reservations stay in the jobs file).
 */
export async function configuredReservationPrefix(worktree: string): Promise<string | null> {
  const result = await git(worktree, ['config', '--get', SPEND_RESERVATIONS_CONFIG]);
  const value = String(result.stdout).trim();
  return result.exitCode === 0 && value !== '' ? value : null;
}

/** Marks `worktree`'s repository so that reservations made in it are created on `origin` under `prefix`. */
export async function configureReservations(worktree: string, prefix: string): Promise<void> {
  const result = await git(worktree, ['config', SPEND_RESERVATIONS_CONFIG, prefix]);
  if (result.exitCode !== 0)
    throw new Error(`git config ${SPEND_RESERVATIONS_CONFIG} failed: ${String(result.stderr).slice(-300)}`);
}

async function remoteHas(worktree: string, ref: string): Promise<boolean> {
  const listed = await git(worktree, ['ls-remote', 'origin', ref]);
  if (listed.exitCode !== 0)
    throw new InputError(
      'child.spend-durable',
      `the reservation could not be checked on the run's remote (${String(listed.stderr).trim().slice(-200)}): do not launch the action`,
    );
  return String(listed.stdout).trim() !== '';
}

/**
 * Creates the reservation `record` on the remote `origin` of `worktree` under `prefix`.
 *
 * @returns `reserved` when this call created it, `already` when an earlier attempt had
 * @throws InputError `child.spend-durable` when the remote cannot be read or written
 */
export async function reserveDurably(
  worktree: string,
  prefix: string,
  record: string,
): Promise<'reserved' | 'already'> {
  const ref = spendReservationRef(prefix, record);
  if (await remoteHas(worktree, ref)) return 'already';
  const tree = await git(worktree, ['hash-object', '-t', 'tree', '-w', '--stdin']);
  const identity = {
    GIT_AUTHOR_NAME: 'loopchart',
    GIT_AUTHOR_EMAIL: 'loopchart@localhost',
    GIT_COMMITTER_NAME: 'loopchart',
    GIT_COMMITTER_EMAIL: 'loopchart@localhost',
  };
  const commit = await git(
    worktree,
    [
      'commit-tree',
      String(tree.stdout).trim(),
      '-m',
      record,
      '-m',
      `reservation ${randomBytes(8).toString('hex')}`,
    ],
    identity,
  );
  if (tree.exitCode !== 0 || commit.exitCode !== 0)
    throw new InputError(
      'child.spend-durable',
      `the reservation commit could not be made: ${String(commit.stderr || tree.stderr).slice(-200)}`,
    );
  // No force: a ref another attempt created in the meantime refuses this push.
  const pushed = await git(worktree, ['push', '-q', 'origin', `${String(commit.stdout).trim()}:${ref}`]);
  if (pushed.exitCode === 0) return 'reserved';
  if (await remoteHas(worktree, ref)) return 'already';
  throw new InputError(
    'child.spend-durable',
    `the reservation could not be pushed to the run's remote (${String(pushed.stderr).trim().slice(-200)}): do not launch the action`,
  );
}
