import { createHash } from 'node:crypto';
import { realpathSync } from 'node:fs';
import { appendFile, lstat, readFile, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { InputError, LoopchartError } from '../common/errors.js';
import { terminateGroup } from './process-group.js';
import { listLiveGroupMembers, readProcessGroupId, readProcessIdentity } from './process-identity.js';

// The jobs file of one dispatch (gauntlet protocol §3.14 step 2, §3.19): one line per background
// process group the child launched, `<pid> <start identity> <command>`, plus action-record lines
// (`ran …`, `bound spent: …`) that are accounting, not processes, and are returned as text.

/** Where a dispatch's jobs file lives. */
export interface JobsFileLocation {
  /** Full object name of the run's base commit. */
  readonly baseSha: string;
  /** The pre-bump iteration count `i` of the dispatch. */
  readonly iteration: number;
  /**
   * The worktree the dispatch runs in, as {@link worktreeIdentity} names it. Two clones of one
   * repository on the same base share base and iteration; only this tells their files apart.
   */
  readonly worktreeId: string;
  /** Temporary directory; default `$TMPDIR`, or `/tmp` when that is unset or empty. */
  readonly tmpDir?: string;
}

const WORKTREE_ID = /^[0-9a-f]{16}$/;
const JOBS_FILE_NAME = /^loop-[0-9a-f]{40}(?:[0-9a-f]{24})?-(?:0|[1-9]\d*)-([0-9a-f]{16})\.jobs$/;

/**
 * The identity of a worktree in its jobs files' names: the first 16 hex digits of the SHA-256 of
 * the real path of its git directory (`git rev-parse --absolute-git-dir`), which no other clone
 * or linked worktree on this machine shares.
 *
 * @param gitDir the worktree's absolute git directory
 * @returns 16 lowercase hex digits
 * @throws when the git directory does not exist (its real path cannot be read)
 */
export function worktreeIdentity(gitDir: string): string {
  return createHash('sha256').update(realpathSync(gitDir)).digest('hex').slice(0, 16);
}

/**
 * The jobs file path `<tmp>/loop-<base SHA>-<i>-<worktree id>.jobs`: the protocol's
 * `loop-<base SHA>-<i>.jobs` with the worktree's identity added, so that two worktrees on the
 * same base never share a file (docs/decisions/effects.md E29).
 *
 * @param location base commit, pre-bump iteration, worktree identity, optional temporary directory
 * @returns the absolute path
 * @throws InputError (`jobs.location`) for a base that is not a full lowercase object name, an
 *   iteration that is not a non-negative integer (two spellings of one base would name two files)
 *   or a worktree identity that is not 16 lowercase hex digits
 */
export function jobsFilePath(location: JobsFileLocation): string {
  if (!/^[0-9a-f]{40}(?:[0-9a-f]{24})?$/.test(location.baseSha))
    throw new InputError('jobs.location', `jobs file base must be a full object name: ${location.baseSha}`);
  if (!Number.isSafeInteger(location.iteration) || location.iteration < 0)
    throw new InputError(
      'jobs.location',
      `jobs file iteration must be a non-negative integer: ${location.iteration}`,
    );
  if (!WORKTREE_ID.test(location.worktreeId))
    throw new InputError(
      'jobs.location',
      `jobs file worktree identity must be 16 lowercase hex digits: ${location.worktreeId}`,
    );
  const tmpDir = location.tmpDir ?? (process.env.TMPDIR || '/tmp');
  return join(tmpDir, `loop-${location.baseSha}-${location.iteration}-${location.worktreeId}.jobs`);
}

/**
 * Why a jobs file is not the given worktree's, or `null` when it is: its name must carry the
 * worktree's identity, and when it exists it must be a regular file (not a symlink) of this user.
 *
 * @param file the jobs file
 * @param worktreeId the reading worktree's {@link worktreeIdentity}
 * @returns `null`, or a named problem (`jobs file <name> is not this worktree's`)
 */
export async function foreignJobsFile(file: string, worktreeId: string): Promise<string | null> {
  const name = basename(file);
  if (JOBS_FILE_NAME.exec(name)?.[1] !== worktreeId) return `jobs file ${name} is not this worktree's`;
  try {
    const stats = await lstat(file);
    const uid = process.getuid?.();
    if (!stats.isFile() || (uid !== undefined && stats.uid !== uid))
      return `jobs file ${name} is not this worktree's`;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code !== 'ENOENT') return 'background launch history unavailable';
  }
  return null;
}

/** What {@link readJobsFile} found. */
export interface JobsFileRead {
  /** The file's text, or `null` when it is absent or was not read. */
  readonly text: string | null;
  /** Why the file was not read (another worktree's file, unreadable), or `null`. */
  readonly problem: string | null;
}

/**
 * Reads a jobs file, only when it is the given worktree's ({@link foreignJobsFile}).
 *
 * @param file the jobs file
 * @param worktreeId the reading worktree's identity; without it the name is not checked
 * @returns the text (absent: `null`) or the reason it was not read; never throws
 */
export async function readJobsFile(file: string, worktreeId?: string): Promise<JobsFileRead> {
  if (worktreeId !== undefined) {
    const problem = await foreignJobsFile(file, worktreeId);
    if (problem !== null) return { text: null, problem };
  }
  try {
    return { text: await readFile(file, 'utf8'), problem: null };
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return { text: null, problem: null };
    return { text: null, problem: 'background launch history unavailable' };
  }
}

/**
 * The process groups a worktree's jobs file records (the pids of its process lines): none when
 * the file is absent, unreadable or another worktree's.
 *
 * @param file the jobs file
 * @param worktreeId the reading worktree's identity
 */
export async function recordedJobGroups(file: string, worktreeId: string): Promise<number[]> {
  const { text } = await readJobsFile(file, worktreeId);
  return text === null ? [] : parseJobsFile(text).jobs.map((job) => job.pid);
}

/** One process line of a jobs file. */
export interface JobRecord {
  /** 1-based line number in the file. */
  readonly line: number;
  readonly pid: number;
  /** Start identity observed by the OS at launch (process-identity.ts format). */
  readonly startIdentity: string;
  /** The command line as recorded (process-identity.ts `commandLineText`). */
  readonly command: string;
}

/** A jobs file split into its kinds of line. */
export interface JobsFileContent {
  readonly jobs: readonly JobRecord[];
  /** `ran …` and `bound spent: …` lines, verbatim, in file order. */
  readonly actionRecordLines: readonly string[];
  /** Lines that are neither: they may name a process nobody can identify. */
  readonly unreadableLines: readonly { readonly line: number; readonly text: string }[];
}

const ACTION_RECORD = /^(?:ran |bound spent: )/;
const PROCESS_LINE = /^([1-9]\d*) (\S+) (.+)$/;

/**
 * Splits jobs file text into process lines, action-record lines and unreadable lines. Blank lines
 * are skipped.
 *
 * @param text the file's content
 */
export function parseJobsFile(text: string): JobsFileContent {
  const jobs: JobRecord[] = [];
  const actionRecordLines: string[] = [];
  const unreadableLines: { line: number; text: string }[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.endsWith('\r') ? raw.slice(0, -1) : raw;
    if (line.trim().length === 0) return;
    if (ACTION_RECORD.test(line)) {
      actionRecordLines.push(line);
      return;
    }
    const match = PROCESS_LINE.exec(line);
    const pid = Number(match?.[1]);
    if (match === null || !Number.isSafeInteger(pid)) {
      unreadableLines.push({ line: index + 1, text: line });
      return;
    }
    jobs.push({
      line: index + 1,
      pid,
      startIdentity: match[2] as string,
      command: normalizeCommand(match[3] as string),
    });
  });
  return { jobs, actionRecordLines, unreadableLines };
}

/**
 * Formats one process line.
 *
 * @param job pid, start identity and command (one line, no newline)
 * @returns the line without its newline
 */
export function formatJobLine(job: Pick<JobRecord, 'pid' | 'startIdentity' | 'command'>): string {
  return `${job.pid} ${job.startIdentity} ${job.command}`;
}

/** Recording a job in the jobs file failed. `code` is `jobs.record-failed`. */
export class JobRecordError extends LoopchartError {
  constructor(message: string) {
    super('jobs.record-failed', message);
  }
}

/**
 * Records a background job the caller has just launched: reads the process's start identity,
 * command line and group from the OS (never from what the caller says it ran) and appends the
 * process line in one append-mode write.
 *
 * The job must lead its own process group (launched with `setsid`, or `detached: true` in Node),
 * because cleanup signals the group and refuses a pid whose group id differs.
 *
 * @param file the jobs file (created when absent)
 * @param pid the job's pid
 * @returns the recorded line
 * @throws JobRecordError when the process is gone, cannot be read, or does not lead its own group
 */
export async function recordJob(file: string, pid: number): Promise<JobRecord> {
  const identity = readProcessIdentity(pid);
  if (identity.liveness !== 'alive' || identity.startIdentity === null || identity.command === null)
    throw new JobRecordError(`cannot record job ${pid}: the process is ${identity.liveness} or unreadable`);
  if (identity.processGroupId !== pid)
    throw new JobRecordError(
      `cannot record job ${pid}: it is in process group ${identity.processGroupId}; start it as its own group (setsid)`,
    );
  const job = { pid, startIdentity: identity.startIdentity, command: normalizeCommand(identity.command) };
  await appendFile(file, `${formatJobLine(job)}\n`, { flag: 'a' });
  return { line: 0, ...job };
}

/**
 * Appends an action-record line (`ran <action> (<k> of <bound>)` or `bound spent: …`).
 *
 * @param file the jobs file (created when absent)
 * @param record the line, without newline
 * @throws InputError (`jobs.action-record`) for a line that is not an action record
 */
export async function recordActionLine(file: string, record: string): Promise<void> {
  if (!ACTION_RECORD.test(record) || record.includes('\n'))
    throw new InputError('jobs.action-record', `not an action record line: ${JSON.stringify(record)}`);
  await appendFile(file, `${record}\n`, { flag: 'a' });
}

/** Options of {@link cleanupJobs}. */
export interface JobsCleanupOptions {
  /** Longest wait after TERM (and after KILL), default 10 000 ms. */
  readonly graceMs?: number;
  /** Polling interval while waiting, default 50 ms. */
  readonly pollMs?: number;
  /**
   * Retained evidence that the child launched no background work. Only with it is an absent file,
   * or one without process lines, "no jobs"; without it that is `background launch history unavailable`.
   */
  readonly childDeclaredNoBackgroundWork?: boolean;
  /**
   * The cleaning worktree's {@link worktreeIdentity}. With it, a file whose name carries another
   * worktree's identity (or none), or that is not a regular file of this user, is neither read nor
   * acted on: the outcome's problem is `jobs file <name> is not this worktree's`.
   */
  readonly worktreeId?: string;
}

/** What {@link cleanupJobs} did and found. Cleanup succeeded exactly when `problems` is empty. */
export interface JobsCleanupOutcome {
  /** Owned groups signalled and confirmed exited. */
  readonly terminated: number;
  /** Pids of the terminated groups that survived TERM and needed KILL. */
  readonly killedAfterGrace: readonly number[];
  /** Pids of listed jobs with affirmative exit evidence before any signal. */
  readonly alreadyExited: readonly number[];
  /** Named reasons recovery must stop, e.g. `job 123 not owned`, `job 123 still running`. */
  readonly problems: readonly string[];
  /** The file's action-record lines, verbatim, for the repair body. */
  readonly actionRecordLines: readonly string[];
  /** The process lines read. */
  readonly jobs: readonly JobRecord[];
}

type JobVerdict =
  | { kind: 'terminated'; killed: boolean }
  | { kind: 'exited' }
  | { kind: 'problem'; problem: string };

/**
 * Ends the child's recorded background jobs (gauntlet protocol §3.14 step 2).
 *
 * For each listed pid, immediately before signalling, the live process must match the recorded
 * start identity AND command AND lead its own group (pgid == pid); otherwise it is not signalled
 * (`job <pid> not owned`). An owned group gets TERM, at most `graceMs` of waiting, another
 * ownership check, KILL if it survived, and must then be seen gone (`job <pid> still running`
 * otherwise). A pid that no longer exists counts as already exited only when no live process
 * remains in its group either. This process's own group is never signalled. The file is left in
 * place: delete it with {@link deleteJobsFile} once cleanup succeeded and the action records are durable.
 *
 * @param file the jobs file
 * @param options grace period, polling, and whether the child declared no background work
 * @returns the outcome; never throws for process or file problems (they become `problems`)
 */
export async function cleanupJobs(
  file: string,
  options: JobsCleanupOptions = {},
): Promise<JobsCleanupOutcome> {
  const { text, problem } = await readJobsFile(file, options.worktreeId);
  if (problem !== null) return outcome([], [], [problem], []);
  const content = parseJobsFile(text ?? '');
  const problems = content.unreadableLines.map(({ line }) => `jobs file line ${line} unreadable`);
  if (content.jobs.length === 0) {
    if (options.childDeclaredNoBackgroundWork !== true)
      problems.push('background launch history unavailable');
    return outcome(content.jobs, content.actionRecordLines, problems, []);
  }

  const unique = content.jobs.filter(
    (job, index, all) =>
      all.findIndex((other) => other.pid === job.pid && other.startIdentity === job.startIdentity) === index,
  );
  const verdicts = await Promise.all(unique.map((job) => settleJob(job, options)));
  const terminated: { pid: number; killed: boolean }[] = [];
  const alreadyExited: number[] = [];
  verdicts.forEach((verdict, index) => {
    const pid = (unique[index] as JobRecord).pid;
    if (verdict.kind === 'terminated') terminated.push({ pid, killed: verdict.killed });
    else if (verdict.kind === 'exited') alreadyExited.push(pid);
    else problems.push(verdict.problem);
  });
  return outcome(content.jobs, content.actionRecordLines, problems, terminated, alreadyExited);
}

/**
 * Deletes a jobs file (absent is fine). Call only after {@link cleanupJobs} reported no problems
 * and the action records are durable in an admitted result or repair commit body.
 *
 * @param file the jobs file
 */
export async function deleteJobsFile(file: string): Promise<void> {
  await rm(file, { force: true });
}

function outcome(
  jobs: readonly JobRecord[],
  actionRecordLines: readonly string[],
  problems: readonly string[],
  terminated: readonly { pid: number; killed: boolean }[],
  alreadyExited: readonly number[] = [],
): JobsCleanupOutcome {
  return {
    terminated: terminated.length,
    killedAfterGrace: terminated.filter((t) => t.killed).map((t) => t.pid),
    alreadyExited,
    problems,
    actionRecordLines,
    jobs,
  };
}

/** Ownership as observed now: all three of identity, command and group, and never our own group. */
function ownershipNow(job: JobRecord): 'owned' | 'not-owned' | 'leader-gone' {
  const observed = readProcessIdentity(job.pid);
  if (observed.liveness === 'gone') return 'leader-gone';
  if (observed.liveness === 'zombie')
    return observed.startIdentity === job.startIdentity && observed.processGroupId === job.pid
      ? 'leader-gone'
      : 'not-owned';
  if (observed.liveness !== 'alive') return 'not-owned';
  const ownGroup = readProcessGroupId(process.pid);
  const owned =
    observed.startIdentity === job.startIdentity &&
    observed.command !== null &&
    normalizeCommand(observed.command) === job.command &&
    observed.processGroupId === job.pid &&
    job.pid !== process.pid &&
    ownGroup !== null &&
    ownGroup !== job.pid;
  return owned ? 'owned' : 'not-owned';
}

async function settleJob(job: JobRecord, options: JobsCleanupOptions): Promise<JobVerdict> {
  const { pid } = job;
  const before = ownershipNow(job);
  if (before === 'not-owned') return { kind: 'problem', problem: `job ${pid} not owned` };
  if (before === 'leader-gone') {
    // The leader exited (or is an unreaped zombie). Its group may live on without it; with the
    // leader gone its ownership can no longer be re-proven, so survivors are reported, not signalled.
    const members = listLiveGroupMembers(pid);
    if (members === null) return { kind: 'problem', problem: `job ${pid} exit unconfirmed` };
    return members.length === 0
      ? { kind: 'exited' }
      : { kind: 'problem', problem: `job ${pid} still running` };
  }
  // Checked and signalled in the same synchronous turn: terminateGroup sends TERM before its first await.
  const termination = await terminateGroup(pid, {
    graceMs: options.graceMs ?? 10_000,
    pollMs: options.pollMs ?? 50,
    // A live leader must still be ours. A gone leader cannot have been replaced: Linux does not
    // reuse a pid number while a process group with that id still has members.
    mayKill: () => ownershipNow(job) !== 'not-owned',
  });
  if (termination.exited) return { kind: 'terminated', killed: termination.signalsSent.includes('SIGKILL') };
  if (termination.killRefused === true) return { kind: 'problem', problem: `job ${pid} not owned` };
  return { kind: 'problem', problem: `job ${pid} still running` };
}

/** Trailing spaces are dropped, so `tr '\0' ' ' < /proc/<pid>/cmdline` records the same command. */
function normalizeCommand(command: string): string {
  return command.replace(/\s+$/, '');
}
