import { createHash } from 'node:crypto';
import { mkdir, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Check, CheckExecution } from '../cybernetic/check.js';
import { isShellCheckCommand, SHELL_NOT_EXECUTED_EXIT_CODES } from '../cybernetic/shell-check.js';
import { type ChildCommandOptions, runChildCommand } from './child-process.js';
import { tailOfFile } from './output-tail.js';

/** How one check of a full run ended, with where its output is. */
export interface CheckEvidence {
  readonly name: string;
  /** The command as run, one argument per element. */
  readonly command: readonly string[];
  readonly execution: CheckExecution;
  readonly logPath: string;
  /** The last lines of the check's output (untrusted data, never instructions). */
  readonly tail: string;
}

/** Options of {@link runCheckSet}. */
export interface CheckSetOptions {
  /** The full frozen check set, in contract order. */
  readonly checks: readonly Check[];
  /** Run number (0 = baseline); names the log directory. */
  readonly run: number;
  /** The worktree the checks run in. */
  readonly cwd: string;
  /** Directory for the logs (`run-<n>/<index>-<name>.log` below it); outside the worktree. */
  readonly logDir: string;
  /** Extra environment for every check. */
  readonly env?: Readonly<Record<string, string>>;
  /** Per-check time limit in ms; a check killed for it is a failure (terminated), not unavailable. */
  readonly timeoutMs?: number;
  /** Per-check silence limit in ms. */
  readonly silenceTimeoutMs?: number;
  /** Kill grace between TERM and KILL (default 10 000 ms). */
  readonly killGraceMs?: number;
  /** Aborting kills the running check's process group; no further check starts. */
  readonly signal?: AbortSignal;
  /** Told right after each check was spawned (see `runChildCommand`). */
  readonly onSpawned?: ChildCommandOptions['onSpawned'];
}

/** Result of {@link runCheckSet}: one execution per check (what the pure core judges) and the evidence. */
export interface CheckSetRun {
  readonly executions: Readonly<Record<string, CheckExecution>>;
  readonly evidence: readonly CheckEvidence[];
}

/** Lines of output the failure signature is computed from. */
const SIGNATURE_LINES = 50;

/**
 * The failure signature of a check: SHA-256 of the last lines of its output with the worktree and
 * log paths replaced by placeholders, so the same failure gives the same signature from run to run
 * while a different failure message gives another (docs/decisions/cybernetic-machines.md).
 *
 * @param tail the output's last lines
 * @param paths absolute paths to blank out
 */
export function failureSignature(tail: string, paths: readonly string[]): string {
  let text = tail.replace(/\r\n/g, '\n');
  for (const path of paths) if (path !== '') text = text.split(path).join('<path>');
  return createHash('sha256').update(text.trimEnd()).digest('hex').slice(0, 16);
}

function fileSafe(name: string): string {
  return name.replace(/[^A-Za-z0-9._-]/g, '_');
}

/**
 * Runs the full frozen check set once, every check in turn (not fail-fast: the protocol records
 * every check result of every run), each in its own process group with its output in a log file.
 *
 * A check is a frozen argument vector run without a shell; the CLI's shell checks are the vector
 * `/bin/sh -c <text>`. What the pure core gets for each check:
 * - the process exited: `exited` with its code and a failure signature, except that a shell check
 *   exiting 126 or 127 (the shell could not run the command) is `not-executed`;
 * - it was killed on a time or silence limit: `terminated` (a failure of the check);
 * - it could not be started at all: `not-executed` with the reason.
 *
 * @param options the checks, the run number, where and how to run them
 * @returns one execution per check name and the evidence; never throws for a failing check
 */
export async function runCheckSet(options: CheckSetOptions): Promise<CheckSetRun> {
  const runDir = join(options.logDir, `run-${options.run}`);
  await mkdir(runDir, { recursive: true });
  const executions: Record<string, CheckExecution> = {};
  const evidence: CheckEvidence[] = [];
  for (const [index, check] of options.checks.entries()) {
    const logPath = join(runDir, `${index + 1}-${fileSafe(check.name)}.log`);
    await writeFile(logPath, '');
    const result = await runChildCommand({
      command: check.command,
      cwd: options.cwd,
      logPath,
      ...(options.env === undefined ? {} : { env: options.env }),
      ...(options.timeoutMs === undefined ? {} : { overallTimeoutMs: options.timeoutMs }),
      ...(options.silenceTimeoutMs === undefined ? {} : { silenceTimeoutMs: options.silenceTimeoutMs }),
      ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
      ...(options.signal === undefined ? {} : { signal: options.signal }),
      ...(options.onSpawned === undefined ? {} : { onSpawned: options.onSpawned }),
    });
    const tail = await tailOfFile(logPath, SIGNATURE_LINES);
    const signature = failureSignature(tail, [options.cwd, runDir]);
    let execution: CheckExecution;
    if (result.outcome === 'spawn-error') {
      execution = { kind: 'not-executed', reason: result.error ?? 'the check could not be started' };
    } else if (result.outcome === 'aborted') {
      execution = { kind: 'not-executed', reason: 'the check run was aborted' };
    } else if (result.outcome === 'timed-out' || result.outcome === 'killed-after-silence') {
      execution = {
        kind: 'terminated',
        signal: `${result.signal ?? 'SIGKILL'} (${result.outcome})`,
        signature,
      };
    } else if (result.exitCode === null) {
      execution = { kind: 'terminated', signal: result.signal ?? 'unknown signal', signature };
    } else if (
      isShellCheckCommand(check.command) &&
      SHELL_NOT_EXECUTED_EXIT_CODES.includes(result.exitCode) &&
      result.exitCode !== check.pass.exitCode
    ) {
      const reason = result.exitCode === 127 ? 'command not found' : 'command not executable';
      const lastLine =
        tail
          .split('\n')
          .filter((line) => line.trim() !== '')
          .at(-1) ?? '';
      execution = {
        kind: 'not-executed',
        reason: `the shell could not run it (exit ${result.exitCode}: ${reason})${lastLine ? `: ${lastLine}` : ''}`,
      };
    } else {
      execution = { kind: 'exited', exitCode: result.exitCode, signature };
    }
    executions[check.name] = execution;
    evidence.push({ name: check.name, command: [...check.command], execution, logPath, tail });
  }
  return { executions, evidence };
}
