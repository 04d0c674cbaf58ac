/**
 * How a child's end becomes the machine's `ChildReport` (gauntlet-protocol §3.10 step 1, §3.14):
 * the return file says what the child claims; how the process ended says whether the dispatch
 * itself failed. See docs/decisions/host.md for the mapping.
 */
import type { ChildReport } from '../../machines/loop-implementation/index.js';
import type { ChildRunResult } from '../effects/child-process.js';
import { readChildReturn } from '../gauntlet/child-contract.js';

/**
 * Reads a return file's content; an absent or blank file is no return.
 *
 * @param text the file's content or `null`
 */
export function returnedStatus(text: string | null): string | null {
  return readChildReturn(text === null || text.trim() === '' ? null : text).returned;
}

/**
 * The report of a child the host ran itself (it saw the exit).
 *
 * @param run how the child process ended
 * @param returnText the return file's content, or `null`
 * @param timeoutMs the overall limit, for the message
 */
export function reportOfRun(run: ChildRunResult, returnText: string | null, timeoutMs: number): ChildReport {
  const returned = returnedStatus(returnText);
  switch (run.outcome) {
    case 'killed-after-silence':
      return { returned, killedAfterSilence: true };
    case 'timed-out':
      return {
        returned,
        dispatchError: `child killed after the overall timeout of ${Math.round(timeoutMs / 1000)} s`,
      };
    case 'spawn-error':
      return { returned: null, dispatchError: run.error ?? 'the child could not be started' };
    case 'aborted':
      return { returned, dispatchError: 'dispatch aborted' };
    case 'exited':
      if (run.exitCode === 0) return { returned };
      return {
        returned,
        dispatchError:
          run.exitCode !== null
            ? `child exited with code ${run.exitCode}`
            : `child ended by signal ${run.signal ?? 'unknown'}`,
      };
  }
}
