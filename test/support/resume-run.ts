/**
 * Helpers of the rpi and crank resume tests: run the bundled `loopchart rpi` / `crank` as a real
 * process (optionally killed by the crash hook after its n-th side effect, or by the test), and
 * rerun it until it finishes.
 */
import { spawn } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import { readStepJournal } from '../../src/host/step-journal.js';
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
 * Runs the command once killed by the crash hook (after its n-th side effect, or after the side
 * effect of that name), then reruns the same command (no hook) until a process ends on its own.
 *
 * @returns whether the first process was killed, the last outcome and the number of processes
 */
export async function crashThenResume(
  args: readonly string[],
  crash: number | string,
): Promise<{ killed: boolean; last: ProcessOutcome; processes: number }> {
  // A process killed before it printed anything is rerun; one that printed its result is done.
  const first = await runRpiCli(
    args,
    typeof crash === 'number' ? { LOOPCHART_CRASH_AFTER: String(crash) } : { LOOPCHART_CRASH_AT: crash },
  );
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

/**
 * One run interrupted after each of its side effects in turn, as the loop engine's crash test does:
 * every process is killed right after its first side effect that changed the durable state (the
 * step journal, read by `durableState`); when a kill left that state as it was (a step whose
 * launch was recorded again), the next process is killed one side effect later. Ends when a
 * process ends on its own.
 *
 * @returns the last outcome and how many processes were killed
 */
export async function chainOfCrashes(
  args: readonly string[],
  durableState: () => Promise<string>,
): Promise<{ last: ProcessOutcome; kills: number }> {
  let depth = 1;
  let kills = 0;
  let before = await durableState();
  for (let run = 0; run < 300; run += 1) {
    const outcome = await runRpiCli(args, { LOOPCHART_CRASH_AFTER: String(depth) });
    if (outcome.signal !== 'SIGKILL') return { last: outcome, kills };
    kills += 1;
    if (outcome.stdout.trim() !== '')
      return {
        last: { ...outcome, code: (JSON.parse(outcome.stdout) as { exitCode: number }).exitCode },
        kills,
      };
    const after = await durableState();
    depth = after === before ? depth + 1 : 1;
    before = after;
  }
  throw new Error('the chain of crashes did not end within 300 processes');
}

/**
 * The durable state of the runs of one kind in a repository, for `chainOfCrashes`: each journal's
 * steps (key and state), its outcome and its reported flag.
 *
 * @param repo the repository (its `.git/loopchart/<kind>/` holds the runs)
 * @param kind `rpi` or `crank`
 */
export async function journalState(repo: { readonly dir: string }, kind: 'rpi' | 'crank'): Promise<string> {
  const home = join(repo.dir, '.git', 'loopchart', kind);
  let ids: string[];
  try {
    ids = readdirSync(home).sort();
  } catch {
    return '';
  }
  const states = [];
  for (const id of ids) {
    const journal = await readStepJournal(join(home, id));
    states.push(
      journal === null
        ? null
        : {
            steps: journal.steps.map((step) => [step.key, step.state]),
            finished: journal.finished !== null,
            reported: journal.reported,
          },
    );
  }
  return JSON.stringify(states);
}
