import { closeSync, mkdirSync, openSync, statSync } from 'node:fs';
import { dirname } from 'node:path';
import { execa } from 'execa';
import { tailOfFile } from './output-tail.js';
import { hasGroupExited, terminateGroup } from './process-group.js';
import { listLiveGroupMembers, readStartIdentity } from './process-identity.js';

/** How a child run ended. */
export type ChildOutcome = 'exited' | 'killed-after-silence' | 'timed-out' | 'aborted' | 'spawn-error';

/** Told to the caller right after the child is spawned, before anything waits on it. */
export interface SpawnedChild {
  readonly pid: number;
  /** Start identity read from /proc (see process-identity.ts); `null` if the child was already gone. */
  readonly startIdentity: string | null;
  /** The child's process group: it leads its own, so this equals `pid`. */
  readonly processGroupId: number;
  readonly logPath: string;
}

/** Options of {@link runChildCommand}. */
export interface ChildCommandOptions {
  /**
   * What to run. A string is the user's shell command and runs as `/bin/sh -c <command>`; an
   * argument vector (`[file, ...args]`) runs the file directly, without a shell.
   */
  readonly command: string | readonly string[];
  /** Working directory (the worktree). */
  readonly cwd: string;
  /** Extra environment on top of this process's (e.g. LOOPCHART_TASK, LOOPCHART_RETURN, LOOPCHART_JOBS). */
  readonly env?: Readonly<Record<string, string>>;
  /** File that receives stdout and stderr (appended; its directory is created). */
  readonly logPath: string;
  /** Kill the group when the log has not grown for this many ms. Unset: no silence limit. */
  readonly silenceTimeoutMs?: number;
  /** Kill the group when the child runs longer than this many ms. Unset: no limit. */
  readonly overallTimeoutMs?: number;
  /** Wait between TERM and KILL (default 10 000 ms). */
  readonly killGraceMs?: number;
  /** Aborting stops the child (its group is killed); the outcome is `aborted`. */
  readonly signal?: AbortSignal;
  /**
   * Called once, right after spawn, before any waiting: the place to record the pid and start
   * identity durably. If it throws or rejects, the child's group is killed and the outcome is
   * `spawn-error`, because a child whose launch could not be recorded must not run on unrecorded.
   */
  readonly onSpawned?: (child: SpawnedChild) => void | Promise<void>;
  /** Lines of output kept in the result (default 20). */
  readonly tailLines?: number;
}

/** Result of {@link runChildCommand}; it never throws. */
export interface ChildRunResult {
  readonly outcome: ChildOutcome;
  /** Exit code when the shell exited normally, else `null`. */
  readonly exitCode: number | null;
  /** Signal that ended the shell, else `null`. */
  readonly signal: string | null;
  /** Why the run failed (spawn error text, the onSpawned error), when it did. */
  readonly error?: string;
  /** The last lines of the log. */
  readonly outputTail: string;
  readonly logPath: string;
  readonly pid: number | null;
  readonly startIdentity: string | null;
  /**
   * Processes of the child's own group still running when the result was made (work the child
   * left in the background without a group of its own). Always `[]` after a kill that succeeded.
   */
  readonly lingeringGroupMembers: readonly number[];
}

/**
 * Runs a child command in its own process group and waits for it, watching for silence.
 *
 * A string command was written by the user as a shell command, so it runs through `/bin/sh -c`;
 * nothing else in loopchart uses a shell. An argument vector runs without one. stdin is closed; stdout and stderr go straight to `logPath`
 * (a file, not a pipe, so background processes that keep the descriptor open cannot hold the run
 * open, and the log survives a crash of this process). Silence is measured on the log's size.
 * On silence, overall timeout or abort the whole group gets TERM, then KILL after
 * `killGraceMs`, and the run returns only once the group is seen to exit (or KILL was sent
 * and waited on).
 *
 * @param options what to run and the limits
 * @returns the outcome; never throws
 */
export async function runChildCommand(options: ChildCommandOptions): Promise<ChildRunResult> {
  const { command, cwd, logPath } = options;
  const tailLines = options.tailLines ?? 20;
  const graceMs = options.killGraceMs ?? 10_000;
  const base = { logPath, pid: null, startIdentity: null, lingeringGroupMembers: [] as number[] };

  let logFd: number;
  try {
    mkdirSync(dirname(logPath), { recursive: true });
    logFd = openSync(logPath, 'a');
  } catch (error) {
    return {
      ...base,
      outcome: 'spawn-error',
      exitCode: null,
      signal: null,
      error: message(error),
      outputTail: '',
    };
  }

  if (options.signal?.aborted) {
    closeSync(logFd);
    return { ...base, outcome: 'aborted', exitCode: null, signal: null, outputTail: '' };
  }

  // execa's types accept a file descriptor only as a numeric literal type; any open fd works at run time.
  const logDescriptor = logFd as 3;
  const [file, ...args] = typeof command === 'string' ? ['/bin/sh', '-c', command] : command;
  if (file === undefined || file.length === 0) {
    closeSync(logFd);
    return {
      ...base,
      outcome: 'spawn-error',
      exitCode: null,
      signal: null,
      error: 'empty command',
      outputTail: '',
    };
  }
  const subprocess = execa(file, args, {
    cwd,
    env: { ...options.env },
    extendEnv: true,
    detached: true,
    cleanup: false,
    reject: false,
    stdin: 'ignore',
    stdout: logDescriptor,
    stderr: logDescriptor,
    forceKillAfterDelay: false,
  });
  const pid = subprocess.pid;
  if (pid === undefined) {
    const result = await subprocess;
    closeSync(logFd);
    return {
      ...base,
      outcome: 'spawn-error',
      exitCode: null,
      signal: null,
      error: result.message ?? 'the child could not be started',
      outputTail: await tailOfFile(logPath, tailLines),
    };
  }
  const startIdentity = readStartIdentity(pid);

  type StopReason = Exclude<ChildOutcome, 'exited' | 'spawn-error'> | 'record-failed';
  const run: { stopReason: StopReason | null; exited: boolean; killing: Promise<unknown> | null } = {
    stopReason: null,
    exited: false,
    killing: null,
  };
  let recordError: string | undefined;
  // Set synchronously on exit, so a timer that fires while execa settles cannot signal leftovers.
  subprocess.once('exit', () => {
    run.exited = true;
  });
  const stop = (reason: StopReason) => {
    if (run.stopReason !== null || run.exited) return;
    run.stopReason = reason;
    run.killing = terminateGroup(pid, { graceMs }).catch(() => undefined);
  };

  const timers: NodeJS.Timeout[] = [];
  if (options.overallTimeoutMs !== undefined)
    timers.push(setTimeout(() => stop('timed-out'), options.overallTimeoutMs));
  if (options.silenceTimeoutMs !== undefined)
    timers.push(watchSilence(logPath, options.silenceTimeoutMs, stop));
  const onAbort = () => stop('aborted');
  options.signal?.addEventListener('abort', onAbort, { once: true });

  if (options.onSpawned !== undefined) {
    try {
      await options.onSpawned({ pid, startIdentity, processGroupId: pid, logPath });
    } catch (error) {
      recordError = `spawned callback failed: ${message(error)}`;
      stop('record-failed');
    }
  }

  const result = await subprocess;
  closeSync(logFd);
  for (const timer of timers) clearInterval(timer);
  options.signal?.removeEventListener('abort', onAbort);
  if (run.killing !== null) await run.killing;

  const exitCode = result.exitCode ?? null;
  const signal = result.signal ?? null;
  const outputTail = await tailOfFile(logPath, tailLines);
  const lingering = hasGroupExited(pid) === false ? (listLiveGroupMembers(pid) ?? []) : [];
  const common = {
    logPath,
    pid,
    startIdentity,
    exitCode,
    signal,
    outputTail,
    lingeringGroupMembers: lingering,
  };
  const reason = run.stopReason;
  if (reason === 'record-failed') return { ...common, outcome: 'spawn-error', error: recordError };
  if (reason !== null) return { ...common, outcome: reason };
  return { ...common, outcome: 'exited' };
}

/** Polls the log's size; calls `stop` once it has not grown for `silenceMs`. */
function watchSilence(
  logPath: string,
  silenceMs: number,
  stop: (reason: 'killed-after-silence') => void,
): NodeJS.Timeout {
  let lastSize = sizeOf(logPath);
  let lastGrowth = performance.now();
  const interval = Math.min(Math.max(Math.floor(silenceMs / 5), 10), 1_000);
  const timer = setInterval(() => {
    const size = sizeOf(logPath);
    const now = performance.now();
    if (size !== lastSize) {
      lastSize = size;
      lastGrowth = now;
    } else if (now - lastGrowth >= silenceMs) {
      clearInterval(timer);
      stop('killed-after-silence');
    }
  }, interval);
  return timer;
}

function sizeOf(path: string): number {
  try {
    return statSync(path).size;
  } catch {
    return -1;
  }
}

function message(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
