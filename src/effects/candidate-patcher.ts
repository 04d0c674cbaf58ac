import { mkdir, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { readChildReturn } from '../gauntlet/child-contract.js';
import { type ChildCommandOptions, type ChildOutcome, runChildCommand } from './child-process.js';
import { readFileIfExists, writeFileAtomic } from './files.js';
import { terminateMarkedProcesses } from './marked-processes.js';
import { terminateGroup } from './process-group.js';

/** Options of {@link runCandidatePatcher}. */
export interface CandidatePatcherOptions {
  /** The user's patcher command, run as `/bin/sh -c <command>` in the worktree. */
  readonly command: string;
  readonly worktree: string;
  /** This candidate's own directory for the task, the return and the log; outside the worktree. */
  readonly dir: string;
  /** The task the patcher reads from `LOOPCHART_TASK` (plain JSON). */
  readonly task: unknown;
  /** Extra environment on top of this process's. */
  readonly env?: Readonly<Record<string, string>>;
  /** Kill the patcher's group after this many ms. */
  readonly timeoutMs?: number;
  /** Kill the patcher's group after this many ms without output. */
  readonly silenceTimeoutMs?: number;
  /** Wait between TERM and KILL (default 10 000 ms). */
  readonly killGraceMs?: number;
  /** Aborting kills the patcher's process group. */
  readonly signal?: AbortSignal;
  /** Told right after the patcher was spawned (see `runChildCommand`). */
  readonly onSpawned?: ChildCommandOptions['onSpawned'];
}

/** How one patcher run ended, as the host reports it (the working tree is observed separately). */
export interface CandidatePatcherRun {
  readonly outcome: ChildOutcome;
  readonly exitCode: number | null;
  readonly signal: string | null;
  /** The return's `status` (`DONE` or another), `malformed return`, or null when none was written. */
  readonly returned: string | null;
  /** Why the return could not be read, when it could not. */
  readonly problem: string | null;
  /** The return's `summary`, when it gave one. */
  readonly summary: string | null;
  readonly taskPath: string;
  readonly returnPath: string;
  readonly logPath: string;
  /** The last lines of the patcher's output (untrusted data). */
  readonly tail: string;
  /**
   * Processes the patcher left running, which were terminated before the tree was read: members
   * of its process group, and every process carrying its `LOOPCHART_TASK` marker (also those that
   * left the group with `setsid`).
   */
  readonly lingeringTerminated: readonly number[];
  /**
   * Processes carrying the patcher's marker that could not be stopped; non-empty means something
   * may still change the tree. `null` when /proc could not be read, so nothing was proven.
   */
  readonly survivors: readonly number[] | null;
}

function summaryOf(text: string | null): string | null {
  if (text === null) return null;
  try {
    const value = JSON.parse(text) as { summary?: unknown };
    return typeof value.summary === 'string' && value.summary.trim() !== '' ? value.summary.trim() : null;
  } catch {
    return null;
  }
}

/**
 * Runs the patcher for one candidate under the child conventions of the loop engine: the task is a
 * JSON file named by `LOOPCHART_TASK`, the patcher writes `{"status":"DONE"}` (optionally with a
 * `summary`) to the file named by `LOOPCHART_RETURN`, and it runs in the worktree in its own
 * process group. Processes it leaves behind, in its group or carrying its `LOOPCHART_TASK`
 * marker, are terminated before the caller reads the tree, so nothing keeps editing the scope while
 * the checks run or the scope is restored.
 *
 * @param options command, worktree, candidate directory, task, limits
 * @returns how the run ended and what the patcher returned; never throws for a failing patcher
 * @throws FileAccessError when the task file cannot be written (nothing ran then)
 */
export async function runCandidatePatcher(options: CandidatePatcherOptions): Promise<CandidatePatcherRun> {
  await mkdir(options.dir, { recursive: true });
  const taskPath = join(options.dir, 'task.json');
  const returnPath = join(options.dir, 'return.json');
  const logPath = join(options.dir, 'patcher.log');
  await rm(returnPath, { force: true });
  await writeFileAtomic(taskPath, `${JSON.stringify(options.task, null, 2)}\n`);
  const result = await runChildCommand({
    command: options.command,
    cwd: options.worktree,
    logPath,
    env: { ...options.env, LOOPCHART_TASK: taskPath, LOOPCHART_RETURN: returnPath },
    ...(options.timeoutMs === undefined ? {} : { overallTimeoutMs: options.timeoutMs }),
    ...(options.silenceTimeoutMs === undefined ? {} : { silenceTimeoutMs: options.silenceTimeoutMs }),
    ...(options.killGraceMs === undefined ? {} : { killGraceMs: options.killGraceMs }),
    ...(options.signal === undefined ? {} : { signal: options.signal }),
    ...(options.onSpawned === undefined ? {} : { onSpawned: options.onSpawned }),
  });
  const lingering = result.lingeringGroupMembers;
  const graceMs = options.killGraceMs ?? 10_000;
  if (lingering.length > 0 && result.pid !== null) await terminateGroup(result.pid, { graceMs });
  // Processes the patcher moved out of its group (setsid, a daemonizing tool) still carry the
  // task variable; stop them too, before anyone reads the tree.
  const marked = await terminateMarkedProcesses('LOOPCHART_TASK', taskPath, { graceMs });
  const text = await readFileIfExists(returnPath);
  const { returned, problem } = readChildReturn(text);
  return {
    outcome: result.outcome,
    exitCode: result.exitCode,
    signal: result.signal,
    returned,
    problem: problem ?? (result.outcome === 'spawn-error' ? (result.error ?? 'could not start') : null),
    summary: summaryOf(text),
    taskPath,
    returnPath,
    logPath,
    tail: result.outputTail,
    lingeringTerminated: [...new Set([...lingering, ...(marked?.terminated ?? [])])].sort((a, b) => a - b),
    survivors: marked === null ? null : marked.survivors,
  };
}

/**
 * One line describing a patcher run for the candidate's record: the return's summary, or what
 * went wrong.
 *
 * @param run the patcher run
 */
export function describePatcherRun(run: CandidatePatcherRun): string {
  const status =
    run.outcome !== 'exited'
      ? `patcher ${run.outcome}${run.problem ? ` (${run.problem})` : ''}`
      : run.returned === null
        ? `patcher exited ${run.exitCode} without a return`
        : run.returned === 'DONE'
          ? null
          : `patcher returned ${run.returned}${run.problem ? ` (${run.problem})` : ''}`;
  const summary = run.summary ?? 'no summary given';
  return status === null ? summary : `${status}: ${summary}`;
}
