import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { acquireWorktreeLock, WorktreeLockedError } from '../../src/host/worktree-lock.js';

let dir: string;
let path: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopchart-lock-'));
  path = join(dir, 'loopchart', 'lock');
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

/** The pid of a process that has exited (spawnSync waits for it). */
function deadPid(): number {
  const result = spawnSync('/bin/sh', ['-c', 'exit 0']);
  return result.pid as number;
}

describe('the worktree lock', () => {
  it('lets one runner hold a worktree and refuses a second one while the first is alive', async () => {
    const held = await acquireWorktreeLock(path);
    await expect(acquireWorktreeLock(path)).rejects.toBeInstanceOf(WorktreeLockedError);
    await held.release();
    expect(existsSync(path)).toBe(false);
    const again = await acquireWorktreeLock(path);
    expect(again.covers(held.info.token)).toBe(false);
    await again.release();
  });

  it("takes over a crashed holder's lock and inherits its token", async () => {
    const crashed = {
      version: 1,
      token: 'crashed-run',
      pid: deadPid(),
      startIdentity: 'boot:1',
      acquiredAt: 'then',
      inherited: ['older-run'],
    };
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'loopchart'), { recursive: true });
    writeFileSync(path, JSON.stringify(crashed));
    const held = await acquireWorktreeLock(path);
    expect(held.covers('crashed-run')).toBe(true);
    expect(held.covers('older-run')).toBe(true);
    expect(held.covers('someone-else')).toBe(false);
    expect(JSON.parse(readFileSync(path, 'utf8')).inherited).toEqual(['older-run', 'crashed-run']);
    await held.release();
  });

  it('refuses to take over a lock it cannot read', async () => {
    const { mkdirSync } = await import('node:fs');
    mkdirSync(join(dir, 'loopchart'), { recursive: true });
    writeFileSync(path, 'not json');
    await expect(acquireWorktreeLock(path)).rejects.toMatchObject({ code: 'host.lock-unreadable' });
    expect(readFileSync(path, 'utf8')).toBe('not json');
  });
});
