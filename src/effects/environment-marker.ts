import { readdirSync, readFileSync } from 'node:fs';
import { readProcessStat } from './process-identity.js';

// Linux only, like process-identity.ts: reads /proc/<pid>/environ. Every process a dispatched
// child starts inherits its environment unless it clears it, so a variable that names one dispatch
// (its task file) marks the dispatch's processes, including background work started in a group of
// its own.

/** What {@link findProcessesWithEnvironment} saw. */
export interface MarkedProcesses {
  /** Live (non-zombie) processes whose environment holds the marker, ascending. */
  readonly pids: readonly number[];
  /**
   * Processes of this user whose environment could not be read although they are alive. They may
   * or may not carry the marker; a caller that needs proof of absence must treat them as unknown.
   */
  readonly unreadable: readonly number[];
}

/**
 * Finds the live processes whose environment contains exactly `name=value`.
 *
 * Processes of other users cannot be read and are skipped (a dispatched child runs as this user);
 * this process is never reported.
 *
 * @param name the variable name, e.g. `LOOPCHART_TASK`
 * @param value its exact value
 * @returns the marked processes, or `null` when /proc cannot be listed
 */
export function findProcessesWithEnvironment(name: string, value: string): MarkedProcesses | null {
  let names: string[];
  try {
    names = readdirSync('/proc');
  } catch {
    return null;
  }
  const uid = process.getuid?.();
  const pids: number[] = [];
  const unreadable: number[] = [];
  for (const entry of names) {
    if (!/^\d+$/.test(entry)) continue;
    const pid = Number(entry);
    if (pid === process.pid) continue;
    const state = environmentState(pid, name, value);
    if (state === 'marked') pids.push(pid);
    // Another user's process is unreadable too: only this user's are reported.
    else if (state === 'unreadable' && isOwnProcess(pid, uid)) unreadable.push(pid);
  }
  return { pids: pids.sort((a, b) => a - b), unreadable: unreadable.sort((a, b) => a - b) };
}

function isOwnProcess(pid: number, uid: number | undefined): boolean {
  if (uid === undefined) return false;
  try {
    const status = readFileSync(`/proc/${pid}/status`, 'utf8');
    const line = status.split('\n').find((l) => l.startsWith('Uid:'));
    return line !== undefined && Number(line.split(/\s+/)[1]) === uid;
  } catch {
    return false;
  }
}

/** What {@link environmentState} found for one process. */
export type EnvironmentState = 'marked' | 'unmarked' | 'unreadable' | 'gone';

/**
 * Reads one process's environment again: whether it holds exactly `name=value`, cannot be read
 * although the process is alive, or the process is gone (or a zombie). A process caught while it
 * execs or exits can be unreadable for a moment; a second look tells those from a process that
 * keeps its environment closed.
 *
 * @param pid the process
 * @param name the variable name
 * @param value its exact value
 */
export function environmentState(pid: number, name: string, value: string): EnvironmentState {
  let environ: string;
  try {
    environ = readFileSync(`/proc/${pid}/environ`, 'utf8');
  } catch {
    const stat = readProcessStat(pid);
    return stat === null || stat.state === 'Z' ? 'gone' : 'unreadable';
  }
  if (!environ.split('\0').includes(`${name}=${value}`)) return 'unmarked';
  const stat = readProcessStat(pid);
  return stat === null || stat.state === 'Z' ? 'gone' : 'marked';
}
