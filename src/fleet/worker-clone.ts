/**
 * A worker's own clone of a run's branch: fetched before each step, pushed after it.
 *
 * The clone lives under the worker's work directory, one folder per run id. It is the worker's, so
 * bringing it up to the remote is safe, but only by fast-forward: a clone holding commits the
 * remote lacks (a step this worker ran and could not push before it died) keeps them, and the
 * loop's own resume continues from them; a clone whose branch and the remote's have diverged is
 * refused (`fleet.diverged`), never reset. Pushes never force: a worker that lost its run to
 * another (a partition, not a death) has its late push refused by the remote.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import { execa } from 'execa';
import { InputError } from '../common/errors.js';

/**
 * The git notes ref where a fleet run records who answered each stop, one per branch (so runs on
 * other branches of the same remote never race for it), pushed with the branch.
 */
export function answerNotesRef(branch: string): string {
  return `refs/notes/loopchart-answers/${branch}`;
}

async function git(cwd: string, args: readonly string[], env?: Readonly<Record<string, string>>) {
  const result = await execa('git', args, { cwd, reject: false, env, stdin: 'ignore' });
  if (result.exitCode !== 0)
    throw new Error(
      `git ${args.join(' ')} failed (${result.exitCode}): ${String(result.stderr).slice(-400)}`,
    );
  return String(result.stdout).trim();
}

async function isAncestor(cwd: string, a: string, b: string): Promise<boolean> {
  const result = await execa('git', ['merge-base', '--is-ancestor', a, b], {
    cwd,
    reject: false,
    stdin: 'ignore',
  });
  return result.exitCode === 0;
}

/**
 * Brings `clone` to the remote's `branch` (cloning it when missing) and checks the branch out.
 *
 * @throws InputError `fleet.branch-missing` when the remote has no such branch,
 *   `fleet.diverged` when the clone's branch and the remote's have diverged
 */
export async function prepareClone(remote: string, branch: string, clone: string): Promise<void> {
  if (!existsSync(clone)) {
    mkdirSync(dirname(clone), { recursive: true });
    const listed = await execa('git', ['ls-remote', '--exit-code', '--heads', remote, branch], {
      reject: false,
      stdin: 'ignore',
    });
    if (listed.exitCode !== 0)
      throw new InputError(
        'fleet.branch-missing',
        `the remote has no branch ${branch}: create it, then submit`,
      );
    await git(dirname(clone), ['clone', '-q', '--branch', branch, remote, clone]);
    await fetchNotes(clone, branch);
    return;
  }
  await git(clone, ['fetch', '-q', 'origin', `+refs/heads/${branch}:refs/remotes/origin/${branch}`]);
  await fetchNotes(clone, branch);
  const current = await git(clone, ['rev-parse', '--abbrev-ref', 'HEAD']);
  if (current !== branch) await git(clone, ['checkout', '-q', branch]);
  const remoteRef = `refs/remotes/origin/${branch}`;
  if (await isAncestor(clone, remoteRef, 'HEAD')) return; // up to date, or ahead with our own steps
  if (await isAncestor(clone, 'HEAD', remoteRef)) {
    await git(clone, ['merge', '-q', '--ff-only', remoteRef]);
    return;
  }
  throw new InputError(
    'fleet.diverged',
    `the worker's clone of ${branch} and the remote's have diverged; the clone is left as it is`,
  );
}

async function fetchNotes(clone: string, branch: string): Promise<void> {
  // The remote's notes win: a note this clone made and could not push is made again by the retried
  // step (recordAnswerNote overwrites). The ref is absent until the first answer: not an error.
  const ref = answerNotesRef(branch);
  await execa('git', ['fetch', '-q', 'origin', `+${ref}:${ref}`], {
    cwd: clone,
    reject: false,
    stdin: 'ignore',
  });
}

/** The clone's HEAD commit. */
export function headOf(clone: string): Promise<string> {
  return git(clone, ['rev-parse', 'HEAD']);
}

/**
 * Records who answered a stop: a git note on the commit the stop was shown at, in
 * {@link answerNotesRef} (the branch's own history, and so the ledger and `loop:` subjects, stay
 * exactly what a local run writes). Overwrites, so a retried step writes the same note once.
 */
export async function recordAnswerNote(
  clone: string,
  branch: string,
  commit: string,
  text: string,
): Promise<void> {
  await git(clone, ['notes', `--ref=${answerNotesRef(branch)}`, 'add', '-f', '-m', text, commit]);
}

/** Pushes the branch (fast-forward only) and the answer notes, when there are any. */
export async function pushClone(clone: string, branch: string): Promise<void> {
  const ref = answerNotesRef(branch);
  const hasNotes = await execa('git', ['rev-parse', '-q', '--verify', ref], {
    cwd: clone,
    reject: false,
    stdin: 'ignore',
  });
  await git(clone, [
    'push',
    '-q',
    'origin',
    `HEAD:refs/heads/${branch}`,
    ...(hasNotes.exitCode === 0 ? [`${ref}:${ref}`] : []),
  ]);
}
