/**
 * End-to-end: every human stop kind of the loop engine, reached by `loopchart run` on a real
 * temporary repository with the scripted child as a real child process, and what each stop's
 * answer does.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Behaviour } from '../../src/host/child-script.js';
import { cli, specWith, useLoopRepos } from '../support/loop-repo.js';

const repo = useLoopRepos(['LOOPCHART_IMPL_MODEL']);

const seedBoth: Behaviour = {
  do: 'seed',
  evidence: { '1': 'check one; 1 failing', '2': 'check two; passes on the baseline' },
  closeOnBaseline: [2],
};

describe('stops for a human', () => {
  it('stops at the row allowance, refuses an offer the stop does not make, and raises the allowance on rows +N', async () => {
    const r = repo({
      script: {
        version: 1,
        targets: { seed: [seedBoth], '1': [{ do: 'failed', evidence: 'check one; still failing' }] },
      },
    });
    const args = await r.runArgs('--allowance', '2', '--impl-model', 'test/model');
    const first = await cli('run', args);
    expect(first.code).toBe(3);
    const lines = first.stdout.split('\n');
    expect(lines[0]).toBe('gauntlet: question');
    expect(lines[1]).toBe('Stopped on row 1');
    expect(lines).toContain('row 1: 2 of 2');
    expect(lines).toContain("Preserve every row's attempts.");
    expect(lines).toContain('escalated round spent');
    expect(r.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: row 1 failed',
      'loop: escalate row 1',
      'loop: row 1 failed',
    ]);

    const head = r.git('rev-parse', 'HEAD');
    const ledger = r.ledger();
    const refused = await cli('run', [...args, '--answer', 'discard']);
    expect(refused.code).toBe(2);
    expect(refused.stderr).toMatch(/not offered/);
    expect(r.git('rev-parse', 'HEAD')).toBe(head);
    expect(r.ledger()).toBe(ledger);
    expect(r.status()).toBe('');

    const raised = await cli('run', [...args, '--answer', 'rows +1 one more try']);
    expect(raised.code).toBe(3);
    expect(raised.stdout).toContain('row 1: 3 of 3');
    expect(r.subjects().slice(5)).toEqual(['loop: raise allowance', 'loop: row 1 failed']);
    expect(r.ledger()).toContain('rows +1 | one more try');
  });

  it('stops with the missing-model problem when the escalated round has no impl model', async () => {
    const r = repo({
      script: {
        version: 1,
        targets: { seed: [seedBoth], '1': [{ do: 'failed', evidence: 'check one; still failing' }] },
      },
    });
    const out = await cli('run', await r.runArgs('--allowance', '2'));
    expect(out.code).toBe(3);
    expect(out.stdout.split('\n').slice(0, 2)).toEqual(['gauntlet: question', 'Stopped on row 1']);
    expect(out.stdout).toContain('Problem: escalationLoop.implModel unavailable');
    expect(r.ledger()).not.toContain('escalated');
    expect(r.ledger()).not.toContain('pending:');
    expect(r.ledger()).toContain('| 1 | failed | 1 |');
  });

  it('stops on the seed when every seed dispatch was repaired up to the allowance', async () => {
    const r = repo({
      script: { version: 1, targets: { seed: [{ do: 'miss', violation: 'seed-miscount' }] } },
    });
    const out = await cli('run', await r.runArgs('--allowance', '2'));
    expect(out.code).toBe(3);
    expect(out.stdout.split('\n').slice(0, 3)).toEqual([
      'gauntlet: question',
      'Stopped on seed',
      'seed: 2 of 2',
    ]);
    expect(r.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: repair seed',
      'loop: seed evidence',
      'loop: repair seed',
    ]);
    expect(r.git('log', '-1', '--format=%b')).toMatch(/^seed miss: /m);
  });

  it('stops on a bound-spent marker with the named recommendation', async () => {
    const r = repo({
      script: {
        version: 1,
        targets: {
          seed: [seedBoth],
          '1': [{ do: 'failed', evidence: 'capture; bound spent: capture (1 of 1)' }],
        },
      },
    });
    const out = await cli('run', await r.runArgs('--allowance', '3'));
    expect(out.code).toBe(3);
    expect(out.stdout.split('\n').slice(0, 2)).toEqual(['gauntlet: question', 'Stopped on row 1']);
    expect(out.stdout).toContain('Recommendation: none - named action bound spent');
    expect(out.stdout).toContain('row 1: 1 of 3');
  });

  it('takes the amend batch for an unreachable row and cuts it when the human answers amend cut', async () => {
    const r = repo({
      script: {
        version: 1,
        targets: {
          seed: [seedBoth],
          '1': [{ do: 'failed', evidence: 'e2e; unreachable: prod DNS - runbook section 4' }],
        },
      },
    });
    const args = await r.runArgs('--allowance', '3');
    const stop = await cli('run', args);
    expect(stop.code).toBe(3);
    expect(stop.stdout).toContain(
      'Recommendation: amend cut 1 deviates: unreachable in this checkout - prod DNS; proof at runbook section 4',
    );
    const cut = await cli('run', [...args, '--answer', 'amend cut 1']);
    expect(cut.code).toBe(0);
    expect(r.subjects()).toContain('loop: cut row 1');
    expect(r.ledger()).toContain(
      '| 1 | cut | 1 | deviates: unreachable in this checkout - prod DNS; proof at runbook section 4 |',
    );
    expect(r.read(r.specPath)).toContain('unreachable in this checkout - prod DNS');
  });

  it('cuts an unreachable row by itself under an amend grant and says so', async () => {
    const r = repo({
      spec: specWith(
        ['The first row', 'The second row'],
        'cut rows that cannot be reached from this checkout',
      ),
      script: {
        version: 1,
        targets: {
          seed: [seedBoth],
          '1': [{ do: 'failed', evidence: 'e2e; unreachable: prod DNS - runbook section 4' }],
        },
      },
    });
    const out = await cli('run', await r.runArgs('--allowance', '3'));
    expect(out.code).toBe(0);
    expect(out.stderr).toContain('amended the spec: row 1 - unreachable in this checkout - prod DNS');
    expect(r.subjects()).toContain('loop: cut row 1');
  });

  it('stops at the dirty tree before any dispatch when the checkout held a change from before the run, and keeps it', async () => {
    const r = repo({ script: { version: 1, targets: { seed: [{ do: 'crash', exitCode: 3 }] } } });
    r.write('notes.txt', 'my own notes\n');
    const args = await r.runArgs('--allowance', '2');
    const out = await cli('run', args);
    expect(out.code).toBe(3);
    expect(out.stdout.split('\n').slice(0, 2)).toEqual([
      'gauntlet: question',
      'Stopped: dirty tree - ?? notes.txt',
    ]);
    expect(r.read('notes.txt')).toBe('my own notes\n');
    // No ledger was seeded and no child ran (issue 10 item 2).
    expect(r.subjects()).toEqual([]);
    const budget = await cli('run', [...args, '--answer', 'rows +3']);
    expect(budget.code).toBe(2);
    expect(r.read('notes.txt')).toBe('my own notes\n');
    expect(r.subjects()).toEqual([]);
  });

  it('stops at recovery incomplete for a commit it cannot attribute, and repairs the attempt once discard is authorized', async () => {
    const r = repo({
      script: {
        version: 1,
        targets: {
          seed: [seedBoth],
          '1': [
            {
              do: 'done',
              evidence: 'check one; passes',
              attribution: 'wrong-iteration',
              files: { 'src/one.txt': 'x\n' },
            },
            { do: 'done', evidence: 'check one; passes' },
          ],
        },
      },
    });
    const args = await r.runArgs('--allowance', '3');
    const stop = await cli('run', args);
    expect(stop.code).toBe(3);
    expect(stop.stdout.split('\n')[1]).toBe(
      'Stopped: iteration 1 recovery incomplete - ambiguous attribution',
    );
    expect(stop.stdout).toContain('1 - Discard');
    expect(r.subjects().at(-1)).toBe('loop: row 1 done');
    const discarded = await cli('run', [...args, '--answer', 'discard']);
    expect(discarded.code).toBe(0);
    expect(r.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: repair row 1',
      'loop: row 1 done',
    ]);
    expect(r.git('log', '--format=%b', '-1', 'HEAD~1')).toContain('interrupted: ambiguous attribution');
  });

  it('stops at a dirty tree found on resume and keeps the edit when the human stops', async () => {
    const r = repo({
      script: {
        version: 1,
        targets: { seed: [seedBoth], '1': [{ do: 'failed', evidence: 'check one; still failing' }] },
      },
    });
    const args = await r.runArgs('--allowance', '1', '--impl-model', 'test/model');
    expect((await cli('run', args)).code).toBe(3);
    r.write('README.md', 'edited while the loop was stopped\n');
    const out = await cli('run', args);
    expect(out.code).toBe(3);
    const [question, header] = out.stdout.split('\n');
    expect(question).toBe('gauntlet: question');
    // Porcelain v1 `XY PATH`: the edit is not staged, so the index column X is blank.
    expect(header).toBe('Stopped: dirty tree -  M README.md');
    const stopped = await cli('run', [...args, '--answer', 'stop']);
    expect(stopped.code).toBe(3);
    expect(r.read('README.md')).toBe('edited while the loop was stopped\n');
  });

  it('stops when verification keeps failing after the repairs the allowance funds', async () => {
    const r = repo({
      script: {
        version: 1,
        targets: {
          seed: [
            { do: 'seed', evidence: { '1': 'one; passes', '2': 'two; passes' }, closeOnBaseline: [1, 2] },
          ],
          verify: [{ do: 'verify-fix', files: { 'fix.txt': 'a fix that does not help\n' } }],
        },
      },
    });
    const out = await cli(
      'run',
      await r.runArgs('--allowance', '1', '--impl-model', 'test/model', '--gate', 'exit 1'),
    );
    expect(out.code).toBe(3);
    const lines = out.stdout.split('\n');
    expect(lines.slice(0, 3)).toEqual([
      'gauntlet: question',
      'Stopped: verification failed with every row closed',
      'repairs: 1 of 1',
    ]);
    const problem = lines.find((line) => line.startsWith('Problem: '));
    expect(problem).toMatch(/^Problem: gate 2 exit 1 \/.+gate-2\.log$/);
    const logPath = (problem as string).split(' ').at(-1) as string;
    expect(existsSync(logPath)).toBe(true);
    expect(r.subjects().slice(-2)).toEqual(['loop: verification fix', 'loop: repair verification']);
    expect(readFileSync(join(r.dir, 'fix.txt'), 'utf8')).toBe('a fix that does not help\n');
  });
});
