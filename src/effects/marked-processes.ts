import { findProcessesWithEnvironment } from './environment-marker.js';
import { sleep } from './process-group.js';
import { commandLineText, isProcessAlive, readCommandLine, readStartIdentity } from './process-identity.js';

// Linux only, like environment-marker.ts. A child started with a variable naming its own run (its
// task file) passes it to every process it starts, also to one that leaves the child's process
// group with `setsid`; killing the group alone misses those. This finds them by the marker and
// stops them, each signal checked against the start identity seen when it was found, so a reused
// pid is never signalled.

/** Options of {@link terminateMarkedProcesses}. */
export interface TerminateMarkedOptions {
  /** Wait after TERM before KILL, and after KILL for the exit (default 10 000 ms). */
  readonly graceMs?: number;
  /** Polling interval (default 50 ms). */
  readonly pollMs?: number;
  /**
   * How many find-and-stop rounds at most (default 5): a process may start another one while it is
   * being stopped, and the next round finds that one.
   */
  readonly rounds?: number;
  /**
   * Marked processes to leave alone (neither signalled nor reported as survivors), e.g. members of
   * a group another protocol step owns. Asked once per process found.
   */
  readonly exclude?: (pid: number) => boolean;
}

/** What {@link terminateMarkedProcesses} did. */
export interface MarkedTermination {
  /** Processes that carried the marker and were stopped, ascending. */
  readonly terminated: readonly number[];
  /** Processes that carry the marker and still run after every round (not stopped), ascending. */
  readonly survivors: readonly number[];
  /**
   * Live processes of this user whose environment could not be read: they may carry the marker,
   * but nothing proves they do, so they were left alone.
   */
  readonly unreadable: readonly number[];
  /** The command line of each stopped or surviving process, as read when it was found (or `null`). */
  readonly commands: ReadonlyMap<number, string | null>;
}

function stillSame(pid: number, identity: string | null): boolean {
  return identity !== null && isProcessAlive(pid) === 'alive' && readStartIdentity(pid) === identity;
}

function signal(pid: number, identity: string | null, name: NodeJS.Signals): void {
  if (!stillSame(pid, identity)) return;
  try {
    process.kill(pid, name);
  } catch {
    // Gone meanwhile (ESRCH); EPERM cannot happen for a process of this user whose environment we read.
  }
}

async function waitUntilGone(
  found: ReadonlyMap<number, string | null>,
  timeoutMs: number,
  pollMs: number,
): Promise<number[]> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    const alive = [...found].filter(([pid, identity]) => stillSame(pid, identity)).map(([pid]) => pid);
    const left = deadline - performance.now();
    if (alive.length === 0 || left <= 0) return alive;
    await sleep(Math.min(pollMs, left));
  }
}

/**
 * Stops every live process whose environment holds exactly `name=value`: TERM, then KILL after the
 * grace for those still running, repeated while new marked processes appear (bounded by `rounds`).
 *
 * @param name the variable, e.g. `LOOPCHART_TASK`
 * @param value its exact value (unique to one run, so nothing else carries it)
 * @param options grace, polling, rounds
 * @returns what was stopped and what was not; `null` when /proc cannot be listed (nothing proven)
 */
export async function terminateMarkedProcesses(
  name: string,
  value: string,
  options: TerminateMarkedOptions = {},
): Promise<MarkedTermination | null> {
  const graceMs = options.graceMs ?? 10_000;
  const pollMs = options.pollMs ?? 50;
  const rounds = options.rounds ?? 5;
  const terminated = new Set<number>();
  const excluded = new Set<number>();
  const commands = new Map<number, string | null>();
  const find = (): { pids: number[]; unreadable: readonly number[] } | null => {
    const marked = findProcessesWithEnvironment(name, value);
    if (marked === null) return null;
    const pids = marked.pids.filter((pid) => {
      if (excluded.has(pid)) return false;
      if (!commands.has(pid) && options.exclude?.(pid) === true) {
        excluded.add(pid);
        return false;
      }
      if (!commands.has(pid)) {
        const args = readCommandLine(pid);
        commands.set(pid, args === null ? null : commandLineText(args));
      }
      return true;
    });
    return { pids, unreadable: marked.unreadable };
  };
  let last: { pids: number[]; unreadable: readonly number[] } | null = null;
  for (let round = 0; round < rounds; round += 1) {
    const marked = find();
    if (marked === null) return null;
    if (marked.pids.length === 0) {
      // Nothing (left) to stop: this scan is the last look.
      last = marked;
      break;
    }
    const found = new Map(marked.pids.map((pid) => [pid, readStartIdentity(pid)]));
    for (const [pid, identity] of found) signal(pid, identity, 'SIGTERM');
    const stubborn = await waitUntilGone(found, graceMs, pollMs);
    for (const pid of stubborn) signal(pid, found.get(pid) ?? null, 'SIGKILL');
    await waitUntilGone(found, graceMs, pollMs);
    for (const pid of found.keys()) terminated.add(pid);
  }
  last ??= find();
  if (last === null) return null;
  const survivors = new Set(last.pids);
  return {
    terminated: [...terminated].filter((pid) => !survivors.has(pid)).sort((a, b) => a - b),
    survivors: [...survivors].sort((a, b) => a - b),
    unreadable: last.unreadable,
    commands,
  };
}
