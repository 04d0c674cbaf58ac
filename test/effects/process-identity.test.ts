import { readFileSync } from 'node:fs';
import { afterEach, describe, expect, it } from 'vitest';
import {
  commandLineText,
  isProcessAlive,
  listLiveGroupMembers,
  parseProcStat,
  readBootId,
  readCommandLine,
  readProcessGroupId,
  readProcessIdentity,
  readStartIdentity,
} from '../../src/effects/process-identity.js';
import { eventually, killStartedGroups, startGroup } from './processes.js';

afterEach(killStartedGroups);

describe('parseProcStat', () => {
  it('counts fields from the last parenthesis, so odd command names do not shift them', () => {
    const fields = Array.from({ length: 50 }, (_, i) => String(i + 3));
    fields[0] = 'S';
    const stat = parseProcStat(`4242 (a) b (c ) ${fields.join(' ')}\n`);
    expect(stat).toEqual({ pid: 4242, state: 'S', parentPid: 4, processGroupId: 5, startTicks: '22' });
    expect(parseProcStat('garbage')).toBeNull();
  });
});

describe('process identity from /proc', () => {
  it('gives this process a stable identity made of the boot id and field 22', () => {
    const identity = readStartIdentity(process.pid);
    const bootId = readFileSync('/proc/sys/kernel/random/boot_id', 'utf8').trim();
    const field22 = readFileSync(`/proc/${process.pid}/stat`, 'utf8').split(') ')[1]?.split(' ')[19];
    expect(identity).toBe(`${bootId}:${field22}`);
    expect(readBootId()).toBe(bootId);
    expect(readStartIdentity(process.pid)).toBe(identity);
  });

  it('reads command line, group and liveness of a real group leader and its members', async () => {
    const pid = startGroup('sleep 30 & sleep 31 & wait');
    await eventually(() => (listLiveGroupMembers(pid)?.length ?? 0) === 3);
    expect(readCommandLine(pid)).toEqual(['/bin/sh', '-c', 'sleep 30 & sleep 31 & wait']);
    expect(readProcessGroupId(pid)).toBe(pid);
    expect(isProcessAlive(pid)).toBe('alive');
    const identity = readProcessIdentity(pid);
    expect(identity).toMatchObject({
      pid,
      command: '/bin/sh -c sleep 30 & sleep 31 & wait',
      processGroupId: pid,
      liveness: 'alive',
    });
    expect(identity.startIdentity).toBe(readStartIdentity(pid));
    expect(identity.startIdentity).not.toBe(readStartIdentity(process.pid));
    const members = listLiveGroupMembers(pid) ?? [];
    for (const member of members) expect(readProcessGroupId(member)).toBe(pid);
  });

  it('answers null and gone, never throws, once a process has exited', async () => {
    const pid = startGroup('sleep 30');
    await eventually(() => readCommandLine(pid) !== null);
    process.kill(-pid, 'SIGKILL');
    await eventually(() => isProcessAlive(pid) === 'gone');
    expect(readStartIdentity(pid)).toBeNull();
    expect(readCommandLine(pid)).toBeNull();
    expect(readProcessGroupId(pid)).toBeNull();
    expect(readProcessIdentity(pid)).toEqual({
      pid,
      startIdentity: null,
      command: null,
      processGroupId: null,
      liveness: 'gone',
    });
    expect(listLiveGroupMembers(pid)).toEqual([]);
  });

  it('treats impossible pids as unavailable', () => {
    expect(isProcessAlive(0)).toBe('unavailable');
    expect(isProcessAlive(-5)).toBe('unavailable');
    expect(readStartIdentity(Number.NaN)).toBeNull();
  });

  it('keeps a command on one line the way tr would', () => {
    expect(commandLineText(['printf', 'a\nb\r', 'c\\d', ''])).toBe('printf a b  c\\d');
  });
});
