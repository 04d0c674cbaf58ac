/**
 * Helpers of the rpi and crank resume tests: run the bundled `loopchart rpi` / `crank` as a real
 * process (optionally killed by the crash hook after its n-th side effect, or by the test), and
 * rerun it until it finishes.
 */
import { spawn } from 'node:child_process';
import { bundledRpiCli } from './cli-bundle.js';

/** How a CLI process ended. */
export interface ProcessOutcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

/** A started CLI process: its pid and its end. */
export interface RunningCli {
  readonly pid: number;
  readonly done: Promise<ProcessOutcome>;
}

/**
 * Starts the bundled rpi/crank CLI.
 *
 * @param args the command and its options
 * @param env extra environment (e.g. LOOPCHART_CRASH_AFTER)
 */
export async function startRpiCli(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<RunningCli> {
  const cliPath = await bundledRpiCli();
  const child = spawn(process.execPath, [cliPath, ...args], {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const done = new Promise<ProcessOutcome>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code, signal, stdout, stderr }));
  });
  return { pid: child.pid ?? -1, done };
}

/** Runs the bundled CLI to its end. */
export async function runRpiCli(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<ProcessOutcome> {
  return (await startRpiCli(args, env)).done;
}

/**
 * Runs the command once killed by the crash hook after its `crashAfter`-th side effect, then reruns
 * the same command (no hook) until a process ends on its own.
 *
 * @returns whether the first process was killed, the last outcome and the number of processes
 */
export async function crashThenResume(
  args: readonly string[],
  crashAfter: number,
): Promise<{ killed: boolean; last: ProcessOutcome; processes: number }> {
  // A process killed before it printed anything is rerun; one that printed its result is done.
  const first = await runRpiCli(args, { LOOPCHART_CRASH_AFTER: String(crashAfter) });
  if (first.signal !== 'SIGKILL') return { killed: false, last: first, processes: 1 };
  // Killed after it printed its result: the outcome reached the caller (a rerun starts a new run).
  if (first.stdout.trim() !== '')
    return {
      killed: true,
      last: { ...first, code: (JSON.parse(first.stdout) as { exitCode: number }).exitCode },
      processes: 1,
    };
  let processes = 1;
  for (;;) {
    const next = await runRpiCli(args);
    processes += 1;
    if (next.signal !== 'SIGKILL' || processes > 5) return { killed: true, last: next, processes };
  }
}

/** The `--json` object of a finished run without the fields that name this run's own files. */
export function comparableResult(stdout: string): Record<string, unknown> {
  const json = JSON.parse(stdout.trim().split('\n').at(-1) ?? '{}') as Record<string, unknown>;
  const { transcript: _t, resumed: _r, ...rest } = json;
  return rest;
}
