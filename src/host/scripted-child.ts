/**
 * The scripted child: a child command that replays a script instead of thinking
 * (`loopchart scripted-child <script.json>`). The demo and the end-to-end tests run it as a real
 * child process under the child contract (docs/child-contract.md).
 *
 * Which behaviour a dispatch replays is derived from durable state, never from a counter of its
 * own: a row's attempts before the dispatch, the number of `loop: repair seed` commits for the
 * seed, of `loop: repair verification` commits for a verification repair. A run that crashed and
 * resumed therefore replays the same script.
 */
import { spawn } from 'node:child_process';
import { mkdir } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { InputError } from '../common/errors.js';
import { readFileIfExists, writeFileAtomic } from '../effects/files.js';
import { createGitPort, type GitPort } from '../effects/git.js';
import { recordActionLine, recordJob } from '../effects/jobs.js';
import { childTaskSchema } from '../gauntlet/child-contract.js';
import { parseSubject } from '../gauntlet/commits.js';
import { companionReturnLines } from '../gauntlet/companion.js';
import type { ChildTask } from '../gauntlet/dispatch.js';
import { parseLedger, serializeLedger } from '../gauntlet/ledger.js';
import type { Ledger } from '../gauntlet/types.js';
import { CHILD_ENV } from './child-environment.js';
import type { Behaviour, ChildScript } from './child-script.js';
import { REVIEW_ENV } from './review-actors.js';
import { type ScriptedCommit, scriptedCommit } from './scripted-return.js';

/** Where the scripted child writes its log lines (its stdout, which the host logs). */
export type ChildLog = (line: string) => void;

/** Which behaviour a dispatch replays, and why. */
export interface SelectedBehaviour {
  /** The script key: `seed`, `verify` or the row number. */
  readonly key: string;
  /** 0-based dispatch index of the target, from durable state. */
  readonly index: number;
  readonly behaviour: Behaviour;
}

async function countSubjects(
  git: GitPort,
  base: string,
  kind: 'repair-seed' | 'repair-verification',
): Promise<number> {
  const commits = await git.logSince(base);
  return commits.filter((commit) => parseSubject(commit.subject.trim()).kind === kind).length;
}

/**
 * Selects the behaviour of this dispatch.
 *
 * @param script the script
 * @param task the task
 * @param ledgerText the ledger on disk (the reserved ledger)
 * @param git the worktree's git port
 * @throws InputError (`script.target`) when the script has nothing for the target
 */
export async function selectBehaviour(
  script: ChildScript,
  task: ChildTask,
  ledgerText: string,
  git: GitPort,
): Promise<SelectedBehaviour> {
  const ledger = parseLedger(ledgerText).ledger;
  if (ledger === null) throw new InputError('script.ledger', `the ledger ${task.ledger} does not parse`);
  const legSeed = task.target === 'seed' && task.leg !== undefined ? `seed ${task.leg.member}` : null;
  const key = legSeed !== null && script.targets[legSeed] !== undefined ? legSeed : String(task.target);
  const list = script.targets[key];
  if (list === undefined)
    throw new InputError('script.target', `the script has no behaviours for target ${key}`);
  let index: number;
  if (typeof task.target === 'number') {
    const row = ledger.rows.find((r) => r.row === task.target);
    if (row === undefined) throw new InputError('script.ledger', `the ledger has no row ${task.target}`);
    index = row.attempts;
  } else {
    index = await countSubjects(
      git,
      ledger.base,
      task.target === 'seed' ? 'repair-seed' : 'repair-verification',
    );
  }
  return { key, index, behaviour: list[Math.min(index, list.length - 1)] as Behaviour };
}

async function writeInWorktree(worktree: string, path: string, content: string): Promise<void> {
  await mkdir(dirname(join(worktree, path)), { recursive: true });
  await writeFileAtomic(join(worktree, path), content);
}

function readTaskEnvironment(env: Readonly<Record<string, string | undefined>>) {
  const task = env[CHILD_ENV.task];
  const returnFile = env[CHILD_ENV.return];
  const jobsFile = env[CHILD_ENV.jobs];
  if (!task || !returnFile || !jobsFile)
    throw new InputError(
      'child.environment',
      `the scripted child runs under the loop: ${CHILD_ENV.task}, ${CHILD_ENV.return} and ${CHILD_ENV.jobs} must be set`,
    );
  return { task, returnFile, jobsFile };
}

/**
 * Runs one scripted dispatch.
 *
 * @param script the script
 * @param env the environment (LOOPCHART_TASK, LOOPCHART_RETURN, LOOPCHART_JOBS)
 * @param log where progress lines go
 * @returns the exit code for the process (a `silence` behaviour never returns)
 * @throws InputError for a missing environment, an unreadable task or a script without the target
 */
export async function runScriptedChild(
  script: ChildScript,
  env: Readonly<Record<string, string | undefined>> = process.env,
  log: ChildLog = (line) => process.stdout.write(`${line}\n`),
): Promise<number> {
  const role = env[REVIEW_ENV.role];
  if (role === 'whole-diff' || role === 'conformance') return runScriptedReviewer(script, env, log);
  if (role === 'fix') return runScriptedFixer(script, env, log);
  const files = readTaskEnvironment(env);
  log(`scripted child: reading ${files.task}`);
  const taskText = await readFileIfExists(files.task);
  if (taskText === null) throw new InputError('child.task', `the task file ${files.task} does not exist`);
  const parsedTask = childTaskSchema.safeParse(JSON.parse(taskText));
  if (!parsedTask.success)
    throw new InputError(
      'child.task',
      `the task file ${files.task} is not a task: ${parsedTask.error.message}`,
    );
  const task = parsedTask.data as ChildTask;
  const git = createGitPort(task.worktree);
  // A companion of a coordinated run reads the home ledger and returns its rows in its commit body.
  const companion = task.leg?.companion === true ? task.leg : null;
  const homeGit = companion === null ? git : createGitPort(companion.home);
  const ledgerPath = companion?.homeLedger ?? join(task.worktree, task.ledger);
  const ledgerText = await readFileIfExists(ledgerPath);
  if (ledgerText === null) throw new InputError('child.task', `the ledger ${task.ledger} does not exist`);
  const { key, index, behaviour } = await selectBehaviour(script, task, ledgerText, homeGit);
  log(
    `scripted child: target ${key}, dispatch ${index + 1} of the script, iteration ${task.iteration}: ${behaviour.do}`,
  );

  if (behaviour.do === 'silence') {
    // Print nothing and hold the process open until the loop's silence limit ends it.
    setInterval(() => undefined, 1 << 30);
    return new Promise<number>(() => undefined);
  }
  if (behaviour.do === 'crash') return behaviour.exitCode ?? 1;

  for (const record of behaviour.spend ?? []) await recordActionLine(files.jobsFile, record);
  if (behaviour.background === true) {
    const job = spawn('sleep', ['3600'], { detached: true, stdio: 'ignore', cwd: task.worktree });
    job.unref();
    if (job.pid === undefined) throw new Error('could not start the background job');
    const recorded = await recordJob(files.jobsFile, job.pid);
    log(`scripted child: background job ${recorded.pid} recorded`);
  }

  const reserved = parseLedger(ledgerText).ledger;
  if (reserved === null) throw new InputError('script.ledger', `the ledger ${task.ledger} does not parse`);
  // A child that drops its spend records from the ledger breaks the action-spend contract.
  const carried =
    behaviour.do === 'miss' && behaviour.violation === 'dropped-spend' ? [] : (behaviour.spend ?? []);
  const scripted = scriptedCommit(reserved, task, behaviour, carried);
  const commit = legReturn(scripted, reserved, task);
  const written = Object.entries(
    behaviour.files ??
      (companion === null
        ? {}
        : { [`legs/${companion.member}-iteration-${task.iteration}.txt`]: `${key}\n` }),
  );
  for (const [path, content] of written) await writeInWorktree(task.worktree, path, content);
  if (commit.ledger !== null && companion === null)
    await writeFileAtomic(ledgerPath, serializeLedger(commit.ledger));

  const mode = behaviour.commit ?? 'one';
  if (behaviour.do !== 'nothing' && mode !== 'none') {
    await git.commitFiles({
      paths: [...written.map(([path]) => path), ...(companion === null ? [task.ledger] : [])],
      subject: commit.subject,
      body: commit.body,
    });
    log(`scripted child: committed "${commit.subject}"`);
    if (mode === 'extra') {
      const extra = `scripted-extra-${task.iteration}.txt`;
      await writeInWorktree(task.worktree, extra, `extra work of iteration ${task.iteration}\n`);
      await git.commitFiles({ paths: [extra], subject: 'scripted child: extra commit', body: '' });
      log('scripted child: made an extra commit');
    }
  }
  if (behaviour.leaveUntracked !== undefined)
    await writeInWorktree(task.worktree, behaviour.leaveUntracked, 'left behind by the scripted child\n');
  if (behaviour.writeReturn !== false) {
    const status = behaviour.status ?? 'DONE';
    await writeFileAtomic(
      files.returnFile,
      `${JSON.stringify({ status, summary: `scripted ${behaviour.do}` })}\n`,
    );
    log(`scripted child: returned ${status}`);
  }
  return behaviour.exitCode ?? 0;
}

/**
 * A coordinated run's return (docs/child-contract.md): a home-leg seed also sets its own
 * `seeded <member>: yes`; a companion leaves the home ledger alone and writes its rows and
 * decisions after the two attribution lines of its commit body.
 */
function legReturn(commit: ScriptedCommit, reserved: Ledger, task: ChildTask): ScriptedCommit {
  const leg = task.leg;
  const edited = commit.ledger;
  if (leg === undefined || edited === null) return commit;
  const seed = task.target === 'seed';
  if (!leg.companion) {
    if (!seed || edited.legs === undefined) return commit;
    const members = edited.legs.members.map((m) => (m.name === leg.member ? { ...m, seeded: true } : m));
    return { ...commit, ledger: { ...edited, legs: { ...edited.legs, members } } };
  }
  const [line1 = '', line2 = '', ...rest] = commit.body.split('\n');
  const lines = companionReturnLines(reserved, edited, leg.member, seed);
  return { ...commit, body: [line1, line2, ...lines, ...rest].join('\n') };
}

/**
 * The scripted child in a reviewer role (`LOOPCHART_ROLE` `whole-diff` or `conformance`): writes
 * the script's review return for the number of fix rounds the task reports, changing nothing.
 *
 * @throws InputError when the script has no reviews for the role or the task is unreadable
 */
export async function runScriptedReviewer(
  script: ChildScript,
  env: Readonly<Record<string, string | undefined>>,
  log: ChildLog,
): Promise<number> {
  const taskPath = env[REVIEW_ENV.task];
  const returnFile = env[REVIEW_ENV.return];
  const role = env[REVIEW_ENV.role];
  if (!taskPath || !returnFile || (role !== 'whole-diff' && role !== 'conformance'))
    throw new InputError(
      'child.environment',
      'a scripted reviewer needs LOOPCHART_REVIEW_TASK, _RETURN and _ROLE',
    );
  const text = await readFileIfExists(taskPath);
  if (text === null) throw new InputError('child.task', `the review task ${taskPath} does not exist`);
  const task = JSON.parse(text) as { fixRoundsUsed?: number };
  const list = script.reviews?.[role];
  if (list === undefined) throw new InputError('script.review', `the script has no reviews for role ${role}`);
  const used = task.fixRoundsUsed ?? 0;
  const entry = list[Math.min(used, list.length - 1)] as (typeof list)[number];
  const body = 'raw' in entry ? entry.raw : `${JSON.stringify({ role, ...entry })}\n`;
  await writeFileAtomic(returnFile, body);
  log(
    `scripted reviewer: ${role} review after ${used} fix round(s): ${'raw' in entry ? 'raw text' : entry.verdict}`,
  );
  return 0;
}

/**
 * The scripted child in the fixer role (`LOOPCHART_ROLE=fix`): writes the round's files (or one
 * note file) and commits them, leaving the ledger alone.
 */
export async function runScriptedFixer(
  script: ChildScript,
  env: Readonly<Record<string, string | undefined>>,
  log: ChildLog,
): Promise<number> {
  const taskPath = env[REVIEW_ENV.fixTask];
  if (!taskPath) throw new InputError('child.environment', 'a scripted fixer needs LOOPCHART_FIX_TASK');
  const text = await readFileIfExists(taskPath);
  if (text === null) throw new InputError('child.task', `the fix task ${taskPath} does not exist`);
  const task = JSON.parse(text) as { review: 'whole-diff' | 'conformance'; round: number; worktree: string };
  const list = script.fixes?.[task.review];
  const entry = list?.[Math.min(task.round - 1, list.length - 1)];
  const files = entry?.files ?? {
    [`fixes/${task.review}-round-${task.round}.txt`]: `fix round ${task.round}\n`,
  };
  for (const [path, content] of Object.entries(files)) await writeInWorktree(task.worktree, path, content);
  const git = createGitPort(task.worktree);
  await git.commitFiles({
    paths: Object.keys(files),
    subject: `fix: ${task.review} review, round ${task.round}`,
    body: '',
  });
  log(`scripted fixer: ${task.review} round ${task.round} committed`);
  return 0;
}
