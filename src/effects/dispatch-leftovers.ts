import { setTimeout as delay } from 'node:timers/promises';
import { type EnvironmentState, environmentState } from './environment-marker.js';
import { terminateMarkedProcesses } from './marked-processes.js';
import {
  commandLineText,
  readBootId,
  readCommandLine,
  readProcessGroupId,
  readProcessStat,
} from './process-identity.js';

// Linux only, like marked-processes.ts. What a dispatched child leaves running when it ends:
// processes it started outside its own process group (`setsid`, a double fork) and did not record
// in its jobs file. Each carries the dispatch's marker (its `LOOPCHART_TASK` value, unique to one
// dispatch of one worktree) unless it cleared its environment, which proves it descends from the
// child: the loop owns it and ends it. What the loop cannot prove is named, never signalled.

/** How long after the sweep an unreadable process is looked at again. */
const SECOND_LOOK_MS = 100;

/** One process the sweep found. */
export interface LeftoverProcess {
  readonly pid: number;
  /** Its command line as read when it was found, or `null` when it could not be read. */
  readonly command: string | null;
}

/** What {@link endDispatchLeftovers} did and found. */
export interface DispatchLeftovers {
  /** Marked processes stopped (TERM, KILL after the grace), identity-checked before each signal. */
  readonly terminated: readonly LeftoverProcess[];
  /** Marked processes still running after TERM and KILL. */
  readonly survivors: readonly LeftoverProcess[];
  /**
   * Processes of this user started after the child and still running whose environment cannot be
   * read: they may be the child's, but nothing proves it, so they were left alone.
   */
  readonly unproven: readonly LeftoverProcess[];
  /** `/proc` could not be listed: nothing was found, and nothing is proven about leftovers. */
  readonly scanFailed: boolean;
}

/** Options of {@link endDispatchLeftovers}. */
export interface DispatchLeftoverOptions {
  /** The marker variable, e.g. `LOOPCHART_TASK`. */
  readonly name: string;
  /** Its exact value for this dispatch (the task file's path). */
  readonly value: string;
  /**
   * Process groups the jobs-file protocol owns (the pids of the jobs file's process lines): their
   * members are left to `cleanupJobs`, which ends them after the admission or repair is durable.
   */
  readonly recordedGroups?: readonly number[];
  /**
   * The child's start identity (`<boot id>:<start ticks>`): processes started after it whose
   * environment is unreadable are reported as unproven. Without it none are.
   */
  readonly childStartIdentity?: string | null;
  /** Wait after TERM before KILL, and after KILL (default 10 000 ms). */
  readonly graceMs?: number;
}

/**
 * Ends the processes a dispatch's child left running outside the jobs-file protocol: every live
 * process whose environment holds `name=value`, except members of the recorded job groups.
 * Called after every dispatch, admitted or not, once the child's own process group has exited.
 *
 * @param options the marker, the recorded groups, the child's start identity and the grace
 * @returns what was terminated, what survived and what could not be proven; never throws
 */
export async function endDispatchLeftovers(options: DispatchLeftoverOptions): Promise<DispatchLeftovers> {
  const recorded = new Set(options.recordedGroups ?? []);
  const result = await terminateMarkedProcesses(options.name, options.value, {
    graceMs: options.graceMs ?? 10_000,
    exclude: (pid) => recorded.has(readProcessGroupId(pid) ?? -1),
  });
  if (result === null) return { terminated: [], survivors: [], unproven: [], scanFailed: true };
  const withCommand = (pid: number): LeftoverProcess => ({ pid, command: result.commands.get(pid) ?? null });
  const after = startTicksAfter(options.childStartIdentity ?? null);
  // An unreadable process started after the child is looked at once more, a moment later: one
  // caught mid-exec or mid-exit (another program's, as often as not) is readable or gone by then.
  // Only one still alive and still unreadable, or now marked (it was not signalled), is named.
  const candidates = after === null ? [] : result.unreadable.filter((pid) => after(pid));
  if (candidates.length > 0) await delay(SECOND_LOOK_MS);
  const unproven = candidates
    .filter(
      (pid) => after?.(pid) === true && isStillUnproven(environmentState(pid, options.name, options.value)),
    )
    .map((pid) => {
      const args = readCommandLine(pid);
      return { pid, command: args === null ? null : commandLineText(args) };
    });
  return {
    terminated: result.terminated.map(withCommand),
    survivors: result.survivors.map(withCommand),
    unproven,
    scanFailed: false,
  };
}

/** A test "started after the process with this start identity" (same boot), or `null`. */
function startTicksAfter(identity: string | null): ((pid: number) => boolean) | null {
  if (identity === null) return null;
  const at = identity.lastIndexOf(':');
  const boot = identity.slice(0, at);
  const ticks = Number(identity.slice(at + 1));
  if (at <= 0 || !Number.isSafeInteger(ticks) || boot !== readBootId()) return null;
  return (pid) => {
    const stat = readProcessStat(pid);
    return stat !== null && stat.state !== 'Z' && Number(stat.startTicks) >= ticks;
  };
}

/**
 * The lines a run prints about a dispatch's leftovers (none when there were none).
 *
 * @param leftovers what {@link endDispatchLeftovers} returned
 * @returns notice lines, e.g. `terminated 1 unrecorded child processes: 4242 sleep 600`
 */
export function leftoverNotices(leftovers: DispatchLeftovers): string[] {
  const list = (processes: readonly LeftoverProcess[]) =>
    processes.map((p) => `${p.pid} ${p.command ?? '(command unreadable)'}`).join('; ');
  const lines: string[] = [];
  if (leftovers.scanFailed)
    lines.push('cannot list processes (/proc): unrecorded background work of the child cannot be ruled out');
  if (leftovers.terminated.length > 0)
    lines.push(
      `terminated ${leftovers.terminated.length} unrecorded child processes: ${list(leftovers.terminated)}`,
    );
  if (leftovers.survivors.length > 0)
    lines.push(
      `${leftovers.survivors.length} unrecorded child processes still running after TERM and KILL: ${list(leftovers.survivors)}`,
    );
  if (leftovers.unproven.length > 0)
    lines.push(
      `${leftovers.unproven.length} processes started during the dispatch whose environment cannot be read, not signalled: ${list(leftovers.unproven)}`,
    );
  return lines;
}

function isStillUnproven(state: EnvironmentState): boolean {
  return state === 'unreadable' || state === 'marked';
}
