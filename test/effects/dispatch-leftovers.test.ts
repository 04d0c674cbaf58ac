import { spawn } from 'node:child_process';
import { afterEach, describe, expect, it } from 'vitest';
import { endDispatchLeftovers, leftoverNotices } from '../../src/effects/dispatch-leftovers.js';
import { environmentState } from '../../src/effects/environment-marker.js';
import { isProcessAlive, readStartIdentity } from '../../src/effects/process-identity.js';
import { eventually, killStartedGroups, trackGroup } from './processes.js';

const MARKER = 'LOOPCHART_TASK';
let counter = 0;
function markerValue(): string {
  counter += 1;
  return `/leftovers-test/${process.pid}/${counter}/task.json`;
}

/** Starts `sleep 600` as the leader of its own group with the given extra environment. */
async function sleeper(env: Record<string, string>, clear = false): Promise<number> {
  const child = spawn('sleep', ['600'], {
    detached: true,
    stdio: 'ignore',
    env: clear ? env : { ...process.env, ...env },
  });
  child.unref();
  if (child.pid === undefined) throw new Error('could not start sleep');
  trackGroup(child.pid);
  const pid = child.pid;
  await eventually(() => readStartIdentity(pid) !== null);
  return pid;
}

afterEach(() => killStartedGroups());

describe('endDispatchLeftovers', () => {
  it('terminates the marked processes outside the recorded groups and names each with its command', async () => {
    const value = markerValue();
    const leftover = await sleeper({ [MARKER]: value });
    const recorded = await sleeper({ [MARKER]: value });
    const otherDispatch = await sleeper({ [MARKER]: `${value}.other` });
    const unmarked = await sleeper({ PATH: process.env.PATH ?? '/usr/bin:/bin' }, true);

    const outcome = await endDispatchLeftovers({
      name: MARKER,
      value,
      recordedGroups: [recorded],
      childStartIdentity: null,
      graceMs: 2_000,
    });

    expect(outcome).toEqual({
      terminated: [{ pid: leftover, command: 'sleep 600' }],
      survivors: [],
      unproven: [],
      scanFailed: false,
    });
    expect(isProcessAlive(leftover)).not.toBe('alive');
    // The jobs-file protocol's group, another dispatch's process and an unmarked one are left alone.
    expect(isProcessAlive(recorded)).toBe('alive');
    expect(isProcessAlive(otherDispatch)).toBe('alive');
    expect(isProcessAlive(unmarked)).toBe('alive');
    expect(leftoverNotices(outcome)).toEqual([
      `terminated 1 unrecorded child processes: ${leftover} sleep 600`,
    ]);
  });

  it('KILLs a marked process that ignores TERM', async () => {
    const value = markerValue();
    const child = spawn('/bin/sh', ['-c', "trap '' TERM; echo ready; while :; do sleep 1; done"], {
      detached: true,
      stdio: ['ignore', 'pipe', 'ignore'],
      env: { ...process.env, [MARKER]: value },
    });
    if (child.pid === undefined) throw new Error('could not start sh');
    trackGroup(child.pid);
    await new Promise((resolve) => child.stdout?.once('data', resolve));
    const outcome = await endDispatchLeftovers({ name: MARKER, value, graceMs: 300 });
    expect(outcome.survivors).toEqual([]);
    expect(outcome.terminated.map((p) => p.pid)).toContain(child.pid);
    expect(isProcessAlive(child.pid)).not.toBe('alive');
  });

  it('finds nothing to do when nothing carries the marker', async () => {
    const outcome = await endDispatchLeftovers({ name: MARKER, value: markerValue(), graceMs: 300 });
    expect(outcome).toEqual({ terminated: [], survivors: [], unproven: [], scanFailed: false });
    expect(leftoverNotices(outcome)).toEqual([]);
  });
});

describe('leftoverNotices', () => {
  it('names survivors, unproven processes and a failed scan, each on its own line', () => {
    expect(
      leftoverNotices({
        terminated: [
          { pid: 10, command: 'node server.js' },
          { pid: 11, command: null },
        ],
        survivors: [{ pid: 12, command: 'stuck' }],
        unproven: [{ pid: 13, command: 'agent' }],
        scanFailed: false,
      }),
    ).toEqual([
      'terminated 2 unrecorded child processes: 10 node server.js; 11 (command unreadable)',
      '1 unrecorded child processes still running after TERM and KILL: 12 stuck',
      '1 processes started during the dispatch whose environment cannot be read, not signalled: 13 agent',
    ]);
    expect(leftoverNotices({ terminated: [], survivors: [], unproven: [], scanFailed: true })).toEqual([
      'cannot list processes (/proc): unrecorded background work of the child cannot be ruled out',
    ]);
  });
});

describe('environmentState (the second look at a process that was unreadable)', () => {
  it('tells a marked process, an unmarked one and one that has exited apart', async () => {
    const value = markerValue();
    const marked = await sleeper({ [MARKER]: value });
    const unmarked = await sleeper({ PATH: process.env.PATH ?? '/usr/bin:/bin' }, true);
    expect(environmentState(marked, MARKER, value)).toBe('marked');
    expect(environmentState(marked, MARKER, `${value}.other`)).toBe('unmarked');
    expect(environmentState(unmarked, MARKER, value)).toBe('unmarked');

    const exited = spawn('true', [], { stdio: 'ignore' });
    const pid = exited.pid;
    if (pid === undefined) throw new Error('could not start true');
    await new Promise((resolve) => exited.once('close', resolve));
    expect(environmentState(pid, MARKER, value)).toBe('gone');
  });
});
