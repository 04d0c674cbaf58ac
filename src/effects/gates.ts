import { mkdir, writeFile } from 'node:fs/promises';
import { constants } from 'node:os';
import { join } from 'node:path';
import { InputError } from '../common/errors.js';
import { type ChildOutcome, runChildCommand } from './child-process.js';
import { makeTempDir } from './files.js';

/** One gate of the gate set: a shell command that must exit 0. */
export interface Gate {
  /** Position shown to people (`gate <index>`), unique in the set. */
  readonly index: number;
  readonly name: string;
  /** The user's shell command, run as `/bin/sh -c <command>` in the worktree. */
  readonly command: string;
}

/** Options of {@link runGateSet}. */
export interface GateSetOptions {
  /** Gates in run order. */
  readonly gates: readonly Gate[];
  /** The worktree. */
  readonly cwd: string;
  /** Directory for `gate-<index>.log` (see {@link createLogDir}). */
  readonly logDir: string;
  /** Extra environment for every gate. */
  readonly env?: Readonly<Record<string, string>>;
  /** Per-gate time limit in ms; unset means none. */
  readonly timeoutMs?: number;
  /** Per-gate silence limit in ms; unset means none. */
  readonly silenceTimeoutMs?: number;
  /** Stops the running gate. */
  readonly signal?: AbortSignal;
}

/** The gate set passed: every gate exited 0. */
export interface GateSetPassed {
  readonly passed: true;
  /** Log path of every gate, in run order. */
  readonly logPaths: readonly string[];
}

/** The gate set failed at its first failing gate; later gates did not run. */
export interface GateSetFailed {
  readonly passed: false;
  readonly index: number;
  readonly name: string;
  /**
   * The exit code as a shell reports it: the code itself, 128 + signal number when the gate was
   * ended by a signal (including a timeout kill), 127 when it could not be started.
   */
  readonly exitCode: number;
  /** How the gate ended (`exited` unless it was killed or never started). */
  readonly outcome: ChildOutcome;
  readonly logPath: string;
  /** At most the last 20 lines of the log. */
  readonly tail: string;
  /** `gate <index> exit <code> <log path>`. */
  readonly summary: string;
}

/** Result of {@link runGateSet}. */
export type GateSetResult = GateSetPassed | GateSetFailed;

/**
 * Creates the verify session's log directory, like `LOG_DIR=$(mktemp -d)`: a fresh directory
 * under the system temporary directory, once per verify session.
 *
 * @param outside optional repository root the directory must not be inside
 * @returns the absolute path
 */
export function createLogDir(outside?: string): Promise<string> {
  return makeTempDir('loopchart-verify-', outside === undefined ? {} : { outside });
}

/**
 * Runs the gate set in order, each gate through `/bin/sh -c` (the gate is the user's shell
 * command) in the worktree as its own process group, stdout and stderr to
 * `<logDir>/gate-<index>.log` (truncated first, so a log holds one run). Stops at the first gate
 * that does not exit 0.
 *
 * @param options gates, worktree, log directory, limits
 * @returns passed, or the first failure with its exit code, log path, tail and summary
 * @throws InputError (`gates.invalid`) for an empty command or a repeated index; nothing runs then
 */
export async function runGateSet(options: GateSetOptions): Promise<GateSetResult> {
  const seen = new Set<number>();
  for (const gate of options.gates) {
    if (!Number.isSafeInteger(gate.index) || seen.has(gate.index))
      throw new InputError('gates.invalid', `gate index ${gate.index} is not a unique integer`);
    if (gate.command.trim().length === 0)
      throw new InputError('gates.invalid', `gate ${gate.index} (${gate.name}) has an empty command`);
    seen.add(gate.index);
  }
  const logPaths: string[] = [];
  // An unwritable log directory is not thrown here: the gate run reports it as a spawn error.
  await mkdir(options.logDir, { recursive: true }).catch(() => undefined);
  for (const gate of options.gates) {
    const logPath = join(options.logDir, `gate-${gate.index}.log`);
    logPaths.push(logPath);
    await writeFile(logPath, '').catch(() => undefined);
    const run = await runChildCommand({
      command: gate.command,
      cwd: options.cwd,
      logPath,
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.timeoutMs === undefined ? {} : { overallTimeoutMs: options.timeoutMs }),
      ...(options.silenceTimeoutMs === undefined ? {} : { silenceTimeoutMs: options.silenceTimeoutMs }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
    });
    if (run.outcome === 'exited' && run.exitCode === 0) continue;
    const exitCode = shellExitCode(run.exitCode, run.signal);
    const tail = run.outcome === 'spawn-error' && run.outputTail === '' ? (run.error ?? '') : run.outputTail;
    return {
      passed: false,
      index: gate.index,
      name: gate.name,
      exitCode,
      outcome: run.outcome,
      logPath,
      tail,
      summary: `gate ${gate.index} exit ${exitCode} ${logPath}`,
    };
  }
  return { passed: true, logPaths };
}

function shellExitCode(exitCode: number | null, signal: string | null): number {
  if (exitCode !== null) return exitCode;
  const number = signal === null ? undefined : constants.signals[signal as NodeJS.Signals];
  return number === undefined ? 127 : 128 + number;
}
