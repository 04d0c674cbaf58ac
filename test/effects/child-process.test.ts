import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { runChildCommand, type SpawnedChild } from '../../src/effects/child-process.js';
import { isProcessAlive, readProcessGroupId, readStartIdentity } from '../../src/effects/process-identity.js';
import { eventually, killStartedGroups, readLineWhenWritten, trackGroup } from './processes.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopchart-child-'));
});
afterEach(() => {
  killStartedGroups();
  rmSync(dir, { recursive: true, force: true });
});

// Scripts block on a file the test creates, so nothing depends on how fast the machine is.
const waitForGo = 'while [ ! -f go ]; do sleep 0.02; done';

describe('runChildCommand', () => {
  it('runs the shell command in cwd with the extra env, logs both streams and reports the exit code', async () => {
    const logPath = join(dir, 'logs', 'child.log');
    const result = await runChildCommand({
      command: 'echo "task=$LOOPCHART_TASK"; pwd; echo oops >&2; exit 3',
      cwd: dir,
      env: { LOOPCHART_TASK: '/tmp/task.json' },
      logPath,
    });
    expect(result.outcome).toBe('exited');
    expect(result.exitCode).toBe(3);
    expect(result.signal).toBeNull();
    const log = readFileSync(logPath, 'utf8');
    expect(log).toContain('task=/tmp/task.json');
    expect(log).toContain(dir);
    expect(log).toContain('oops');
    expect(result.outputTail.split('\n')).toEqual(['task=/tmp/task.json', dir, 'oops']);
    expect(result.lingeringGroupMembers).toEqual([]);
  });

  it('runs an argument vector without a shell', async () => {
    const result = await runChildCommand({
      command: ['node', '-e', 'console.log(process.argv.slice(1).join("|"))', '$HOME', 'a b', '; exit 9'],
      cwd: dir,
      logPath: join(dir, 'argv.log'),
    });
    expect(result).toMatchObject({ outcome: 'exited', exitCode: 0, outputTail: '$HOME|a b|; exit 9' });
    const empty = await runChildCommand({ command: [], cwd: dir, logPath: join(dir, 'empty.log') });
    expect(empty).toMatchObject({ outcome: 'spawn-error', error: 'empty command' });
  });

  it('reports pid and start identity right after spawn, while the child is still running', async () => {
    let seen: SpawnedChild | undefined;
    let identityAtCallback: string | null = null;
    let groupAtCallback: number | null = null;
    const result = await runChildCommand({
      command: `${waitForGo}; echo done`,
      cwd: dir,
      logPath: join(dir, 'child.log'),
      onSpawned: (child) => {
        seen = child;
        identityAtCallback = readStartIdentity(child.pid);
        groupAtCallback = readProcessGroupId(child.pid);
        writeFileSync(join(dir, 'go'), '');
      },
    });
    expect(result.outcome).toBe('exited');
    expect(result.exitCode).toBe(0);
    expect(seen?.startIdentity).not.toBeNull();
    expect(seen?.startIdentity).toBe(identityAtCallback);
    expect(seen?.processGroupId).toBe(seen?.pid);
    expect(groupAtCallback).toBe(seen?.pid);
    expect(result.pid).toBe(seen?.pid);
    expect(result.startIdentity).toBe(seen?.startIdentity);
  });

  it('kills the whole group after silence', async () => {
    const result = await runChildCommand({
      command: 'sleep 30 & echo $! > bg.pid; echo started; wait',
      cwd: dir,
      logPath: join(dir, 'child.log'),
      silenceTimeoutMs: 300,
      killGraceMs: 2_000,
      onSpawned: (child) => trackGroup(child.pid),
    });
    expect(result.outcome).toBe('killed-after-silence');
    expect(result.exitCode).toBeNull();
    expect(result.signal).toBe('SIGTERM');
    expect(result.outputTail).toBe('started');
    const background = Number(await readLineWhenWritten(join(dir, 'bg.pid')));
    expect(['gone', 'zombie']).toContain(isProcessAlive(background));
    expect(result.lingeringGroupMembers).toEqual([]);
  });

  it('KILLs a group that ignores TERM', async () => {
    const result = await runChildCommand({
      command: "trap '' TERM; sleep 30 & echo $! > bg.pid; echo started; wait; wait",
      cwd: dir,
      logPath: join(dir, 'child.log'),
      silenceTimeoutMs: 200,
      killGraceMs: 300,
      onSpawned: (child) => trackGroup(child.pid),
    });
    expect(result.outcome).toBe('killed-after-silence');
    expect(result.signal).toBe('SIGKILL');
    const background = Number(await readLineWhenWritten(join(dir, 'bg.pid')));
    expect(['gone', 'zombie']).toContain(isProcessAlive(background));
  });

  it('does not call steady output silence', async () => {
    const result = await runChildCommand({
      command: 'i=0; while [ $i -lt 10 ]; do echo tick $i; i=$((i+1)); sleep 0.05; done',
      cwd: dir,
      logPath: join(dir, 'child.log'),
      silenceTimeoutMs: 5_000,
    });
    expect(result.outcome).toBe('exited');
    expect(result.exitCode).toBe(0);
    expect(result.outputTail.split('\n')).toHaveLength(10);
  });

  it('stops a chatty child at the overall timeout', async () => {
    const result = await runChildCommand({
      command: 'while true; do echo x; sleep 0.02; done',
      cwd: dir,
      logPath: join(dir, 'child.log'),
      silenceTimeoutMs: 60_000,
      overallTimeoutMs: 300,
      killGraceMs: 2_000,
      onSpawned: (child) => trackGroup(child.pid),
    });
    expect(result.outcome).toBe('timed-out');
    expect(result.outputTail).toMatch(/^x(\nx)*$/);
  });

  it('stops on abort', async () => {
    const controller = new AbortController();
    const result = await runChildCommand({
      command: 'sleep 30',
      cwd: dir,
      logPath: join(dir, 'child.log'),
      signal: controller.signal,
      killGraceMs: 2_000,
      onSpawned: (child) => {
        trackGroup(child.pid);
        controller.abort();
      },
    });
    expect(result.outcome).toBe('aborted');
    expect(result.pid).not.toBeNull();
    expect(['gone', 'zombie']).toContain(isProcessAlive(result.pid as number));
  });

  it('kills the child and reports spawn-error when its launch cannot be recorded', async () => {
    const result = await runChildCommand({
      command: 'sleep 30',
      cwd: dir,
      logPath: join(dir, 'child.log'),
      killGraceMs: 2_000,
      onSpawned: (child) => {
        trackGroup(child.pid);
        throw new Error('disk full');
      },
    });
    expect(result.outcome).toBe('spawn-error');
    expect(result.error).toContain('disk full');
    expect(['gone', 'zombie']).toContain(isProcessAlive(result.pid as number));
  });

  it('reports a missing working directory as spawn-error instead of throwing', async () => {
    const result = await runChildCommand({
      command: 'echo hi',
      cwd: join(dir, 'missing'),
      logPath: join(dir, 'child.log'),
    });
    expect(result.outcome).toBe('spawn-error');
    expect(result.exitCode).toBeNull();
    expect(result.error).toBeTruthy();
  });

  it('names processes the child left running in its own group, and leaves them alone', async () => {
    const result = await runChildCommand({
      command: 'sleep 30 & echo $! > bg.pid; echo started',
      cwd: dir,
      logPath: join(dir, 'child.log'),
      onSpawned: (child) => trackGroup(child.pid),
    });
    expect(result.outcome).toBe('exited');
    const background = Number(await readLineWhenWritten(join(dir, 'bg.pid')));
    expect(result.lingeringGroupMembers).toEqual([background]);
    expect(isProcessAlive(background)).toBe('alive');
    process.kill(-(result.pid as number), 'SIGKILL');
    await eventually(() => isProcessAlive(background) !== 'alive');
  });
});
