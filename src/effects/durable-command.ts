/**
 * A user command whose end is recorded by its own process tree, so that the record survives the
 * runner that started it. RPI and crank run every Plan, implementer, validator, final CI and
 * acceptance command this way: when the runner is killed (SIGKILL, a lost machine session) while a
 * command runs, the command's process group keeps running, and its wrapper writes the exit status
 * to `exitPath` when it ends. A resumed run then waits for a command still running, reuses the
 * result of one that ended, and runs again only a command that never ended (see
 * docs/decisions/rpi.md, "Resume").
 *
 * The wrapper is a fixed shell script; the user's command and the paths are passed to it as
 * positional parameters, never pasted into a shell string.
 */
import { existsSync, readFileSync } from 'node:fs';
import { mkdir, rm } from 'node:fs/promises';
import { dirname } from 'node:path';
import { type ChildRunResult, runChildCommand, type SpawnedChild } from './child-process.js';
import { sleep } from './process-group.js';
import { readCommandLine, readStartIdentity } from './process-identity.js';

/**
 * `$1` the user's command, `$2` the exit record, `$3` a file for stdout (empty: stdout goes to the
 * log; stderr always does). The wrapper writes its own pid next to the exit
 * record first, so a resumed run can find it even when the launch was never recorded.
 */
const WRAPPER = [
  'printf "%s\\n" "$$" >"$2.pid"',
  'if [ -n "$3" ]; then /bin/sh -c "$1" >"$3"; else /bin/sh -c "$1"; fi',
  's=$?',
  'printf "%s\\n" "$s" >"$2.tmp" && mv -f "$2.tmp" "$2"',
  'exit "$s"',
].join('\n');

/** The name the wrapper runs under (`$0`), visible in `ps`. */
const WRAPPER_NAME = 'loopchart-step';

/** Options of {@link runDurableCommand}. */
export interface DurableCommandOptions {
  /** The user's shell command (runs as `/bin/sh -c <command>`). */
  readonly command: string;
  readonly cwd: string;
  readonly env?: Readonly<Record<string, string>>;
  /** The log: the command's output (stderr only, when `stdoutPath` is given). */
  readonly logPath: string;
  /** Where the wrapper writes the exit status when the command ends; unique per attempt. */
  readonly exitPath: string;
  /** Send stdout to this file instead of the log (a validator's verdict record). */
  readonly stdoutPath?: string;
  /** Kill the command's group after this many ms. */
  readonly timeoutMs?: number;
  /** Wait between TERM and KILL when the command is stopped (default 10 s). */
  readonly killGraceMs?: number;
  readonly signal?: AbortSignal;
  /** Called right after spawn: record the pid durably (see `runChildCommand`). */
  readonly onSpawned?: (child: SpawnedChild) => void | Promise<void>;
}

/**
 * Runs the command under the recording wrapper (in its own process group, see `runChildCommand`).
 * A stale exit record of the same path is removed first.
 *
 * @param options command, worktree, environment, log and record paths
 * @returns the child run; its exit code is the command's (a command ended by signal n exits 128+n)
 */
export async function runDurableCommand(options: DurableCommandOptions): Promise<ChildRunResult> {
  await mkdir(dirname(options.exitPath), { recursive: true });
  await rm(options.exitPath, { force: true });
  await rm(`${options.exitPath}.pid`, { force: true });
  if (options.stdoutPath !== undefined) await mkdir(dirname(options.stdoutPath), { recursive: true });
  return runChildCommand({
    command: [
      '/bin/sh',
      '-c',
      WRAPPER,
      WRAPPER_NAME,
      options.command,
      options.exitPath,
      options.stdoutPath ?? '',
    ],
    cwd: options.cwd,
    logPath: options.logPath,
    ...(options.env === undefined ? {} : { env: options.env }),
    ...(options.timeoutMs === undefined ? {} : { overallTimeoutMs: options.timeoutMs }),
    ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onSpawned === undefined ? {} : { onSpawned: options.onSpawned }),
  });
}

/** What a resumed run knows about a command its predecessor launched. */
export type SettledCommand =
  /** The command ended; its exit status was recorded by the wrapper. */
  | { readonly ended: true; readonly exitCode: number }
  /** The command never ended (it was killed with its runner, or never started). */
  | { readonly ended: false };

/** Where a launched command's wrapper can be found. */
export interface LaunchedCommand {
  readonly exitPath: string;
  /** The pid and start identity recorded at spawn, when the launch was recorded. */
  readonly pid?: number | null;
  readonly startIdentity?: string | null;
}

/**
 * Settles a command launched by a runner that is gone: waits while its wrapper still runs (found
 * by the recorded pid and start identity, or by the pid the wrapper wrote, checked against its
 * command line), then reads the exit record.
 *
 * @param launched the exit record path and the recorded pid
 * @param pollMs how often to look while the wrapper runs
 * @returns ended with the exit status, or not ended
 */
export async function settleLaunchedCommand(
  launched: LaunchedCommand,
  pollMs = 100,
): Promise<SettledCommand> {
  for (;;) {
    const status = readExitRecord(launched.exitPath);
    if (status !== null) return { ended: true, exitCode: status };
    if (!wrapperRunning(launched)) {
      // The wrapper may have written the record between the two reads.
      const last = readExitRecord(launched.exitPath);
      return last === null ? { ended: false } : { ended: true, exitCode: last };
    }
    await sleep(pollMs);
  }
}

function readExitRecord(path: string): number | null {
  try {
    const text = readFileSync(path, 'utf8').trim();
    return /^\d+$/.test(text) ? Number(text) : null;
  } catch {
    return null;
  }
}

function wrapperRunning(launched: LaunchedCommand): boolean {
  if (launched.pid && launched.startIdentity && readStartIdentity(launched.pid) === launched.startIdentity)
    return isOurWrapper(launched.pid, launched.exitPath);
  const pidFile = `${launched.exitPath}.pid`;
  if (!existsSync(pidFile)) return false;
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  return Number.isSafeInteger(pid) && pid > 1 && isOurWrapper(pid, launched.exitPath);
}

// The exit path is unique per attempt, so a process whose arguments name it is this attempt's wrapper.
function isOurWrapper(pid: number, exitPath: string): boolean {
  const args = readCommandLine(pid);
  return args?.includes(WRAPPER_NAME) === true && args.includes(exitPath);
}
