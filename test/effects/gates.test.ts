import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { createLogDir, runGateSet } from '../../src/effects/gates.js';

let worktree: string;
let logDir: string;
beforeEach(async () => {
  worktree = mkdtempSync(join(tmpdir(), 'loopchart-gates-'));
  logDir = await createLogDir();
});
afterEach(() => {
  rmSync(worktree, { recursive: true, force: true });
  rmSync(logDir, { recursive: true, force: true });
});

describe('runGateSet', () => {
  it('runs every gate in order in the worktree and passes when all exit 0', async () => {
    const result = await runGateSet({
      cwd: worktree,
      logDir,
      gates: [
        { index: 1, name: 'build', command: 'echo build > order.txt; echo built' },
        { index: 2, name: 'test', command: 'echo test >> order.txt; echo tested >&2' },
      ],
    });
    expect(result).toEqual({
      passed: true,
      logPaths: [join(logDir, 'gate-1.log'), join(logDir, 'gate-2.log')],
    });
    expect(readFileSync(join(worktree, 'order.txt'), 'utf8')).toBe('build\ntest\n');
    expect(readFileSync(join(logDir, 'gate-1.log'), 'utf8')).toBe('built\n');
    expect(readFileSync(join(logDir, 'gate-2.log'), 'utf8')).toBe('tested\n');
  });

  it('stops at the first failing gate with its exit code, log path, 20-line tail and summary', async () => {
    const result = await runGateSet({
      cwd: worktree,
      logDir,
      gates: [
        { index: 1, name: 'lint', command: 'true' },
        {
          index: 2,
          name: 'test',
          command: 'i=1; while [ $i -le 30 ]; do echo "line $i"; i=$((i+1)); done; exit 3',
        },
        { index: 3, name: 'never', command: 'touch ran-3' },
      ],
    });
    const logPath = join(logDir, 'gate-2.log');
    const expectedTail = Array.from({ length: 20 }, (_, k) => `line ${k + 11}`).join('\n');
    expect(result).toEqual({
      passed: false,
      index: 2,
      name: 'test',
      exitCode: 3,
      outcome: 'exited',
      logPath,
      tail: expectedTail,
      summary: `gate 2 exit 3 ${logPath}`,
    });
    expect(existsSync(join(worktree, 'ran-3'))).toBe(false);
    expect(existsSync(join(logDir, 'gate-3.log'))).toBe(false);
  });

  it('reports a gate killed at its time limit with the shell exit code of the signal', async () => {
    const result = await runGateSet({
      cwd: worktree,
      logDir,
      timeoutMs: 200,
      gates: [{ index: 1, name: 'hang', command: 'echo waiting; sleep 30' }],
    });
    expect(result).toMatchObject({
      passed: false,
      index: 1,
      exitCode: 143,
      outcome: 'timed-out',
      tail: 'waiting',
    });
  });

  it('starts each run of a gate with an empty log', async () => {
    const gates = [{ index: 1, name: 'count', command: 'echo run' }];
    await runGateSet({ cwd: worktree, logDir, gates });
    await runGateSet({ cwd: worktree, logDir, gates });
    expect(readFileSync(join(logDir, 'gate-1.log'), 'utf8')).toBe('run\n');
  });

  it('refuses a repeated index or an empty command before running anything', async () => {
    await expect(
      runGateSet({
        cwd: worktree,
        logDir,
        gates: [
          { index: 1, name: 'a', command: 'touch ran' },
          { index: 1, name: 'b', command: 'true' },
        ],
      }),
    ).rejects.toBeInstanceOf(InputError);
    await expect(
      runGateSet({ cwd: worktree, logDir, gates: [{ index: 1, name: 'a', command: '  ' }] }),
    ).rejects.toBeInstanceOf(InputError);
    expect(existsSync(join(worktree, 'ran'))).toBe(false);
  });

  it('reports a gate that cannot start as a failure, not a crash', async () => {
    const result = await runGateSet({
      cwd: join(worktree, 'missing'),
      logDir,
      gates: [{ index: 4, name: 'x', command: 'true' }],
    });
    expect(result).toMatchObject({ passed: false, index: 4, exitCode: 127, outcome: 'spawn-error' });
  });
});

describe('createLogDir', () => {
  it('makes a fresh empty directory per call', async () => {
    const other = await createLogDir();
    try {
      expect(other).not.toBe(logDir);
      expect(statSync(other).isDirectory()).toBe(true);
    } finally {
      rmSync(other, { recursive: true, force: true });
    }
  });
});
