/**
 * End-to-end: each repair kind of the loop engine (ordinary miss, seed miss, interrupted row,
 * interrupted seed, verification repair) and each interrupted reason (dispatch error, killed after
 * silence, non-DONE, dirty tree, zero and two commits), on real repositories with the scripted
 * child as a real child process.
 */
import { spawn } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/effects/process-identity.js';
import type { Behaviour } from '../../src/host/child-script.js';
import { bundledLoopCli } from '../support/cli-bundle.js';
import { cli, GIT_TEST_ENV, type LoopRepo, useLoopRepos } from '../support/loop-repo.js';

const repo = useLoopRepos();

/** The body of every commit with `subject`, oldest first. */
function bodiesOf(r: LoopRepo, subject: string): string[] {
  const out = r.git('log', '--reverse', '--format=%s%x00%b%x01');
  return out
    .split('\x01')
    .map((entry) => entry.replace(/^\n/, '').split('\x00'))
    .filter(([s]) => s === subject)
    .map(([, body]) => (body ?? '').trim());
}

/** The evidence of `row` in the ledger each commit with `subject` left, oldest first. */
function evidenceAfter(r: LoopRepo, subject: string, row: number): string[] {
  const shas = r.git('log', '--reverse', '--format=%H %s').trim().split('\n');
  return shas
    .filter((line) => line.slice(41) === subject)
    .map((line) => r.git('show', `${line.slice(0, 40)}:${r.ledgerPath}`))
    .map((text) => text.split('\n').find((l) => l.startsWith(`| ${row} |`)) ?? '');
}

const seedBoth: Behaviour = {
  do: 'seed',
  evidence: { '1': 'check one; 1 failing', '2': 'check two; passes on the baseline' },
  closeOnBaseline: [2],
};

/** Whether `pid` has exited (gone or zombie), polling briefly while a killed process winds down. */
async function exitedEventually(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (isProcessAlive(pid) !== 'alive') return true;
    await new Promise((wake) => setTimeout(wake, 50));
  }
  return false;
}

describe('repairs', () => {
  it('repairs an ordinary validation miss: target failed, attempts +1, the concrete miss as evidence', async () => {
    const r = repo({
      script: {
        version: 1,
        targets: {
          seed: [seedBoth],
          '1': [
            { do: 'miss', violation: 'malformed-decision' },
            { do: 'done', evidence: 'check one; passes now' },
          ],
        },
      },
    });
    const out = await cli('run', await r.runArgs('--allowance', '3'));
    expect(out.code).toBe(0);
    expect(r.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: row 1 failed',
      'loop: repair row 1',
      'loop: row 1 done',
    ]);
    const [repaired] = evidenceAfter(r, 'loop: repair row 1', 1);
    expect(repaired).toMatch(
      /^\| 1 \| failed \| 1 \| iteration 1: new decision line 1 for row 1 is malformed/,
    );
    expect(bodiesOf(r, 'loop: repair row 1')[0]).toMatch(
      /^pending: 1 \| home \| [0-9a-f]{40}\niteration: 2\nmiss: /,
    );
    expect(r.ledger()).toContain('| 1 | done | 2 | check one; passes now |');
  });

  it('on Ctrl-C stops the running child, records the interrupted dispatch as a repair, and exits 130', async () => {
    const r = repo({
      script: {
        version: 1,
        targets: {
          seed: [seedBoth],
          '1': [{ do: 'silence' }, { do: 'done', evidence: 'check one; passes now' }],
        },
      },
    });
    const args = await r.runArgs('--allowance', '3');
    const runner = spawn(process.execPath, [await bundledLoopCli(), 'run', ...args], {
      env: { ...process.env, ...GIT_TEST_ENV },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stderr = '';
    runner.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((done) => runner.on('close', (code) => done(code)));
    // Wait (bounded) until the silent child of row 1 (iteration 1) has been launched.
    const record = join(r.dir, '.git', 'loopchart', 'dispatches', 'iteration-1', 'record.json');
    const launched = () => existsSync(record) && /"pid":\s*\d+/.test(readFileSync(record, 'utf8'));
    for (let i = 0; i < 600 && !launched(); i++) await new Promise((wake) => setTimeout(wake, 50));
    expect(launched(), stderr).toBe(true);
    const childPid = Number(/"pid":\s*(\d+)/.exec(readFileSync(record, 'utf8'))?.[1]);

    runner.kill('SIGINT');
    expect(await exited, stderr).toBe(130);
    expect(stderr).toContain('SIGINT: stopping the child');
    // The child's process group is gone, the interrupted attempt is durable, nothing else started.
    // Exited: gone, or a zombie that init has not reaped yet (the test runs under any PID 1).
    expect(await exitedEventually(childPid)).toBe(true);
    expect(r.subjects()).toEqual(['loop: seed ledger', 'loop: seed evidence', 'loop: repair row 1']);
    expect(r.ledger()).toContain(
      '| 1 | failed | 1 | iteration 1: interrupted - dispatch error: interrupted by SIGINT |',
    );
    expect(r.ledger()).not.toContain('pending:');
    expect(r.status()).toBe('');

    // The next run resumes from disk and finishes the row.
    const resumed = await cli('run', args);
    expect(resumed.code).toBe(0);
    expect(r.subjects().at(-1)).toBe('loop: row 1 done');
  });

  it('treats a spend recorded in the jobs file but dropped from the return as a miss, and keeps the record', async () => {
    const r = repo({
      script: {
        version: 1,
        targets: {
          seed: [seedBoth],
          '1': [
            { do: 'miss', violation: 'dropped-spend', spend: ['ran capture (1 of 1)'] },
            { do: 'done', evidence: 'check one; passes now' },
          ],
        },
      },
    });
    const out = await cli('run', await r.runArgs('--allowance', '3'));
    expect(out.code).toBe(0);
    expect(r.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      expect.stringMatching(/^loop: row 1 (done|failed)$/),
      'loop: repair row 1',
      'loop: row 1 done',
    ]);
    // The record is retained as its own evidence segment and its own body line, not only quoted
    // in the miss sentence.
    const [repaired] = evidenceAfter(r, 'loop: repair row 1', 1);
    expect(repaired).toMatch(/^\| 1 \| failed \| 1 \| iteration 1: .*; ran capture \(1 of 1\) \|$/);
    expect(bodiesOf(r, 'loop: repair row 1')[0]?.split('\n')).toContain('ran capture (1 of 1)');
    // The next child carried the spend (it repeats carried records) instead of dropping it.
    const final = r.ledger().split('\n');
    expect(
      final.some((line) => line.startsWith('row 1 done |') && line.includes('ran capture (1 of 1)')),
    ).toBe(true);
  });

  it('repairs a seed miss and dispatches the seed again with the miss as its hint', async () => {
    const r = repo({
      script: {
        version: 1,
        targets: {
          seed: [{ do: 'miss', violation: 'header-change' }, seedBoth],
          '1': [{ do: 'done', evidence: 'one; ok' }],
        },
      },
    });
    const out = await cli('run', await r.runArgs('--allowance', '3'));
    expect(out.code).toBe(0);
    expect(r.subjects().slice(0, 4)).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: repair seed',
      'loop: seed evidence',
    ]);
    expect(bodiesOf(r, 'loop: repair seed')[0]).toMatch(
      /seed miss: header allowance changed from "3" to "4"/,
    );
    // The seed repair left every row as the skeleton had it and consumed the iteration.
    const [afterRepair] = evidenceAfter(r, 'loop: repair seed', 1);
    expect(afterRepair).toBe('| 1 | open | 0 |  |');
  });

  it('recovers an interrupted row and an interrupted seed: reset, then a repair commit naming the reason', async () => {
    const r = repo({
      script: {
        version: 1,
        targets: {
          seed: [{ do: 'crash', exitCode: 4 }, seedBoth],
          '1': [
            { do: 'done', evidence: 'one; ok', files: { 'src/one.txt': 'half done\n' }, commit: 'none' },
            { do: 'done', evidence: 'one; ok' },
          ],
        },
      },
    });
    const out = await cli('run', await r.runArgs('--allowance', '3'));
    expect(out.code).toBe(0);
    expect(r.subjects()).toEqual([
      'loop: seed ledger',
      'loop: repair seed',
      'loop: seed evidence',
      'loop: repair row 1',
      'loop: row 1 done',
    ]);
    expect(bodiesOf(r, 'loop: repair seed')[0]).toContain(
      'seed interrupted: dispatch error: child exited with code 4',
    );
    expect(evidenceAfter(r, 'loop: repair row 1', 1)[0]).toMatch(
      /^\| 1 \| failed \| 1 \| iteration 2: interrupted - dirty tree \|$/,
    );
    // The reset removed the interrupted child's uncommitted work.
    expect(existsSync(join(r.dir, 'src/one.txt'))).toBe(false);
    expect(r.status()).toBe('');
  });

  it('repairs verification: the child fixes code, the parent marks the repair, the gate set passes', async () => {
    const r = repo({
      script: {
        version: 1,
        targets: {
          seed: [
            { do: 'seed', evidence: { '1': 'one; passes', '2': 'two; passes' }, closeOnBaseline: [1, 2] },
          ],
          verify: [{ do: 'verify-fix', files: { 'fixed.txt': 'fixed\n' } }],
        },
      },
    });
    const out = await cli(
      'run',
      await r.runArgs('--allowance', '2', '--impl-model', 'test/model', '--gate', 'test -f fixed.txt'),
    );
    expect(out.code).toBe(0);
    expect(r.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: verification fix',
      'loop: repair verification',
    ]);
    const [marker] = bodiesOf(r, 'loop: repair verification');
    const child = r.git('rev-parse', 'HEAD~1').trim();
    expect(marker).toMatch(/^pending: verify \| home \| [0-9a-f]{40}\niteration: 2\n/);
    expect(marker).toContain(`admitted: ${child}`);
    expect(r.ledger()).not.toContain('pending:');
    expect(r.ledger()).toContain('iterations: 2');
  });
});

describe('an interrupted verification repair', () => {
  it('recovers the checkout, records an empty marker with the reason, and repairs again', async () => {
    const r = repo({
      script: {
        version: 1,
        targets: {
          seed: [
            { do: 'seed', evidence: { '1': 'one; passes', '2': 'two; passes' }, closeOnBaseline: [1, 2] },
          ],
          verify: [{ do: 'nothing' }, { do: 'verify-fix', files: { 'fixed.txt': 'fixed\n' } }],
        },
      },
    });
    const out = await cli(
      'run',
      await r.runArgs('--allowance', '2', '--impl-model', 'test/model', '--gate', 'test -f fixed.txt'),
    );
    expect(out.code).toBe(0);
    expect(r.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: repair verification',
      'loop: verification fix',
      'loop: repair verification',
    ]);
    const [empty] = bodiesOf(r, 'loop: repair verification');
    expect(empty).toMatch(/^pending: verify \| home \| [0-9a-f]{40}\niteration: 2\ninterrupted: 0 commits$/);
    // The empty marker changes only the ledger (the tuple goes, the consumed iteration stays).
    expect(r.git('show', '--name-only', '--format=', 'HEAD~2').trim()).toBe(r.ledgerPath);
    expect(r.ledger()).toContain('iterations: 3');
  });
});

describe('interrupted reasons', () => {
  it('names each interrupted reason in the repair: dispatch error, silence, non-DONE, dirty tree, 0 and 2 commits', async () => {
    const r = repo({
      script: {
        version: 1,
        targets: {
          seed: [seedBoth],
          '1': [
            { do: 'crash', exitCode: 3 },
            { do: 'silence' },
            { do: 'failed', evidence: 'one; blocked', status: 'BLOCKED' },
            { do: 'done', evidence: 'one; ok', leaveUntracked: 'stray.txt' },
            { do: 'nothing' },
            { do: 'failed', evidence: 'one; two commits', commit: 'extra' },
            { do: 'done', evidence: 'one; finally ok' },
          ],
        },
      },
    });
    const out = await cli(
      'run',
      await r.runArgs('--allowance', '8', '--escalate-after', '8', '--silence-timeout', '4'),
    );
    expect(out.code).toBe(0);
    const reasons = bodiesOf(r, 'loop: repair row 1').map((body) => body.split('\n')[2]);
    expect(reasons).toEqual([
      'interrupted: dispatch error: child exited with code 3',
      'interrupted: killed after silence',
      'interrupted: non-DONE',
      'interrupted: dirty tree',
      'interrupted: 0 commits',
      'interrupted: 2 commits',
    ]);
    expect(r.ledger()).toContain('| 1 | done | 7 | one; finally ok |');
    expect(r.ledger()).toContain('iterations: 8');
    expect(r.status()).toBe('');
    expect(existsSync(join(r.dir, 'stray.txt'))).toBe(false);
  });
});
