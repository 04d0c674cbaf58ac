import { isProcessAlive, listLiveGroupMembers } from './process-identity.js';

/** Resolves after `ms` milliseconds. */
export function sleep(ms: number): Promise<void> {
  return new Promise((resolve) => setTimeout(resolve, ms));
}

/**
 * Whether a process group has exited: its leader is gone (or a zombie) and no other member is live.
 *
 * @param processGroupId the group (its leader's pid)
 * @returns `true` when exited, `false` when something still runs, `null` when /proc cannot be read
 */
export function hasGroupExited(processGroupId: number): boolean | null {
  const leader = isProcessAlive(processGroupId);
  if (leader === 'unavailable') return null;
  if (leader === 'alive') return false;
  const members = listLiveGroupMembers(processGroupId);
  return members === null ? null : members.length === 0;
}

/**
 * Polls until a process group has exited or `timeoutMs` has passed.
 *
 * @param processGroupId the group
 * @param timeoutMs the longest wait
 * @param pollMs the polling interval (default 50 ms)
 * @returns whether the group was seen to exit
 */
export async function waitForGroupExit(
  processGroupId: number,
  timeoutMs: number,
  pollMs = 50,
): Promise<boolean> {
  const deadline = performance.now() + timeoutMs;
  for (;;) {
    if (hasGroupExited(processGroupId) === true) return true;
    const left = deadline - performance.now();
    if (left <= 0) return false;
    await sleep(Math.min(pollMs, left));
  }
}

/**
 * Sends a signal to every process of a group (`kill -<signal> -- -<pgid>`).
 *
 * @param processGroupId the group; must be greater than 1 (0 and 1 would address the caller's group or every process)
 * @param signal the signal name
 * @returns `true` when sent, `false` when the group no longer exists (ESRCH)
 * @throws Error for a pgid that is not greater than 1, or a refused signal (EPERM)
 */
export function signalGroup(processGroupId: number, signal: NodeJS.Signals): boolean {
  if (!Number.isSafeInteger(processGroupId) || processGroupId <= 1)
    throw new Error(`refusing to signal process group ${processGroupId}`);
  try {
    process.kill(-processGroupId, signal);
    return true;
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ESRCH') return false;
    throw error;
  }
}

/** How {@link terminateGroup} ended. */
export interface GroupTermination {
  /** Signals actually sent, in order. */
  readonly signalsSent: readonly ('SIGTERM' | 'SIGKILL')[];
  /** Whether the group was seen to exit. */
  readonly exited: boolean;
  /** Set when the KILL step was skipped because `mayKill` said no. */
  readonly killRefused?: boolean;
}

/** Options of {@link terminateGroup}. */
export interface TerminateGroupOptions {
  /** How long to wait after TERM before KILL, and after KILL for the exit (default 10 000 ms). */
  readonly graceMs?: number;
  /** Polling interval (default 50 ms). */
  readonly pollMs?: number;
  /** Asked immediately before KILL; answering `false` leaves the group alone (ownership recheck). */
  readonly mayKill?: () => boolean;
}

/**
 * Terminates a process group the caller owns: TERM to the group, wait at most `graceMs`, then
 * (if `mayKill` allows) KILL to a surviving group and wait again for the exit.
 *
 * The caller proves ownership before calling; this function only sequences the signals.
 *
 * @param processGroupId the group
 * @param options grace period, polling, KILL recheck
 */
export async function terminateGroup(
  processGroupId: number,
  options: TerminateGroupOptions = {},
): Promise<GroupTermination> {
  const graceMs = options.graceMs ?? 10_000;
  const pollMs = options.pollMs ?? 50;
  const signalsSent: ('SIGTERM' | 'SIGKILL')[] = [];
  if (signalGroup(processGroupId, 'SIGTERM')) signalsSent.push('SIGTERM');
  if (await waitForGroupExit(processGroupId, graceMs, pollMs)) return { signalsSent, exited: true };
  if (options.mayKill !== undefined && !options.mayKill())
    return { signalsSent, exited: false, killRefused: true };
  if (signalGroup(processGroupId, 'SIGKILL')) signalsSent.push('SIGKILL');
  // KILL cannot be caught; the wait only covers the kernel tearing the processes down.
  const exited = await waitForGroupExit(processGroupId, Math.max(graceMs, 1_000), pollMs);
  return { signalsSent, exited };
}
