/**
 * End-to-end: amendment items beyond the unreachable cut and the redraw (docs/decisions/amendments.md),
 * by `loopchart run` on real temporary repositories with the scripted child as a real child process.
 *
 * - `amend: <what> - <evidence>` under an active `**Amend-grant:**` (option 5) is applied without a
 *   stop (`loop: amend`, one `## Amendments` entry, attempts/iterations/allowance kept) and the run
 *   goes on; without a grant (option 4) it stops and the answer applies it;
 * - the same evidence after an amendment answered it stops (repeated evidence), grant or not;
 * - `redraw: <why>` stops even under a grant; `redraw` deletes the ledger in one `loop: redraw`
 *   commit that touches nothing else, and the next run seeds a fresh ledger from the spec.
 */
import { writeFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Behaviour, ChildScript } from '../../src/host/child-script.js';
import { cli, specWith, useLoopRepos } from '../support/loop-repo.js';

const repo = useLoopRepos(['LOOPCHART_IMPL_MODEL']);

const GRANT = 'auto-apply amends, stop only for redraws';
const ROWS = ['The export writes a header row', 'The second row'];
const seedBoth: Behaviour = {
  do: 'seed',
  evidence: { '1': 'check one; 1 failing', '2': 'check two; passes on the baseline' },
  closeOnBaseline: [2],
};
const AMEND_EVIDENCE = 'e2e; amend: the header row is named Title - fixtures/header.csv line 1';
const ENTRY = '- row 1: the header row is named Title; evidence: fixtures/header.csv line 1';

function amendScript(second: Behaviour): ChildScript {
  return {
    version: 1,
    targets: {
      seed: [seedBoth],
      '1': [{ do: 'failed', evidence: AMEND_EVIDENCE }, second],
    },
  };
}

/** `row <n> | <status> | <attempts>` of the ledger table. */
function rowCells(ledger: string, row: number): string[] {
  const line = ledger.split('\n').find((l) => l.startsWith(`| ${row} |`)) ?? '';
  return line
    .split('|')
    .map((cell) => cell.trim())
    .slice(2, 4);
}

describe('amend items (option 5 applies, option 4 stops)', () => {
  it('under the amend grant: applied without a stop, committed as loop: amend, and the run goes on', async () => {
    const r = repo({
      spec: specWith(ROWS, GRANT),
      script: amendScript({ do: 'done', evidence: 'check one; header row is Title' }),
    });
    const out = await cli('run', await r.runArgs('--allowance', '3'));
    expect(out.code).toBe(0);
    expect(out.stderr).toContain('amended the spec: row 1 - the header row is named Title');
    expect(r.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: row 1 failed',
      'loop: amend',
      'loop: row 1 done',
    ]);
    // One commit; the rows stay as they are, so only the spec's bytes change (nothing else).
    const amend = r.git('log', '--format=%H', '--grep=^loop: amend$').trim();
    expect(r.git('show', '--name-only', '--format=', amend).trim().split('\n')).toEqual([r.specPath]);
    expect(r.git('show', '-s', '--format=%b', amend).trim().split('\n')).toEqual([
      'amended the spec: row 1 - the header row is named Title',
      'evidence: fixtures/header.csv line 1',
      'granted',
      `"${GRANT}"`,
    ]);
    // The ledger of the amend commit equals the one before it (rows, attempts, iterations, allowance).
    expect(r.git('show', `${amend}:${r.ledgerPath}`)).toBe(r.git('show', `${amend}^:${r.ledgerPath}`));
    expect(r.read(r.specPath)).toContain(`## Amendments\n\n${ENTRY}\n`);
    expect(rowCells(r.ledger(), 1)).toEqual(['done', '2']);
    expect(r.ledger()).toContain('allowance: 3');
  });

  it('without a grant: stops with the item, and the bare Amend number applies it and goes on', async () => {
    const r = repo({ script: amendScript({ do: 'done', evidence: 'check one; header row is Title' }) });
    const args = await r.runArgs('--allowance', '3');
    const stop = await cli('run', args);
    expect(stop.code).toBe(3);
    const lines = stop.stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual(['gauntlet: question', 'Stopped on row 1']);
    expect(lines).toContain(
      'Recommendation: amend spec row 1: the header row is named Title; evidence: fixtures/header.csv line 1',
    );
    expect(lines).toContain('5 - Stop and keep the branch as it is: stop');
    expect(r.subjects().at(-1)).toBe('loop: row 1 failed');
    expect(r.read(r.specPath)).not.toContain('## Amendments');

    const applied = await cli('run', [...args, '--answer', '3']);
    expect(applied.code).toBe(0);
    expect(r.subjects().slice(-2)).toEqual(['loop: amend', 'loop: row 1 done']);
    expect(r.read(r.specPath)).toContain(`## Amendments\n\n${ENTRY}\n`);
  });

  it('the same evidence again after the amendment stops as repeated evidence, under the grant too', async () => {
    const r = repo({
      spec: specWith(ROWS, GRANT),
      script: amendScript({ do: 'failed', evidence: AMEND_EVIDENCE }),
    });
    const out = await cli('run', await r.runArgs('--allowance', '4'));
    expect(out.code).toBe(3);
    expect(r.subjects().slice(-3)).toEqual(['loop: row 1 failed', 'loop: amend', 'loop: row 1 failed']);
    const lines = out.stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual(['gauntlet: question', 'Stopped on row 1']);
    expect(lines).toContain(
      'Recommendation: none - the spec already answers this evidence (row 1: the header row is named Title; evidence: fixtures/header.csv line 1); amend differently, redraw or stop',
    );
    // Applied once only.
    expect(r.read(r.specPath).split(ENTRY)).toHaveLength(2);
  });
});

describe('redraw', () => {
  it('stops even under the grant, deletes only the ledger in one loop: redraw commit, and the next run reseeds', async () => {
    const r = repo({
      spec: specWith(ROWS, GRANT),
      files: { 'src/own.ts': 'export const mine = 1;\n' },
      script: {
        version: 1,
        targets: {
          seed: [seedBoth],
          '1': [{ do: 'failed', evidence: 'e2e; redraw: uploads move to the ingest service' }],
        },
      },
    });
    const args = await r.runArgs('--allowance', '3');
    const stop = await cli('run', args);
    expect(stop.code).toBe(3);
    const lines = stop.stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual(['gauntlet: question', 'Stopped on row 1']);
    expect(lines).toContain(
      'Recommendation: redraw uploads move to the ingest service - a redraw stops under every approval option',
    );
    expect(lines).toContain(
      '4 - Redraw the spec (delete the ledger; the next run seeds afresh): redraw [<reason>]',
    );
    expect(r.subjects().at(-1)).toBe('loop: row 1 failed');

    const redrawn = await cli('run', [...args, '--answer', '4']);
    expect(redrawn.code).toBe(3);
    expect(redrawn.stdout).toBe(
      `Redrawn: ${r.ledgerPath} is deleted (loop: redraw - uploads move to the ingest service). Redraw the spec, then run again: the next run seeds a fresh ledger from the spec.\n`,
    );
    expect(r.subjects().at(-1)).toBe('loop: redraw');
    expect(r.git('show', '-s', '--format=%b', 'HEAD').trim()).toBe(
      'redraw: uploads move to the ingest service',
    );
    expect(r.git('show', '--name-status', '--format=', 'HEAD').trim()).toBe(`D\t${r.ledgerPath}`);
    expect(r.git('ls-files', r.ledgerPath).trim()).toBe('');
    expect(r.read('src/own.ts')).toBe('export const mine = 1;\n');
    expect(r.status()).toBe('');

    // The person redraws the spec and commits it; the next run seeds a fresh ledger from it, with
    // the allowance from the settings of that run.
    r.write(r.specPath, specWith(['The ingest service receives the export', 'The second row'], GRANT));
    r.git('commit', '-q', '-am', 'redraw the spec');
    writeFileSync(
      r.scriptPath,
      JSON.stringify({
        version: 1,
        targets: { seed: [seedBoth], '1': [{ do: 'done', evidence: 'check one; ingest receives it' }] },
      }),
    );
    const next = await cli('run', await r.runArgs('--allowance', '5'));
    expect(next.code).toBe(0);
    expect(r.subjects().slice(-5)).toEqual([
      'loop: redraw',
      'redraw the spec',
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: row 1 done',
    ]);
    const ledger = r.ledger();
    expect(ledger).toContain('allowance: 5');
    expect(ledger).toContain(`base: ${r.git('rev-parse', 'HEAD~3').trim()}`);
    expect(rowCells(ledger, 1)).toEqual(['done', '1']);
  });
});

describe('amend reopen <n> <new criterion text> at the verification stop', () => {
  it('rewrites the criterion in the spec in the same loop: amend commit and stops for the return', async () => {
    const r = repo({
      script: {
        version: 1,
        targets: {
          seed: [
            { do: 'seed', evidence: { '1': 'one; passes', '2': 'two; passes' }, closeOnBaseline: [1, 2] },
          ],
        },
      },
    });
    // No model for a verification repair: the verification stop offers amend or stop.
    const args = await r.runArgs('--allowance', '2', '--gate', 'exit 1');
    const stop = await cli('run', args);
    expect(stop.code).toBe(3);
    expect(stop.stdout.split('\n').slice(0, 2)).toEqual([
      'gauntlet: question',
      'Stopped: verification failed with every row closed',
    ]);
    const reopened = await cli('run', [
      ...args,
      '--answer',
      'amend reopen 1 The export writes a quoted header row',
    ]);
    expect(reopened.code).toBe(3);
    expect(reopened.stdout.split('\n').slice(0, 2)).toEqual([
      'gauntlet: question',
      'Stopped: row 1 reopened by amendment during verify',
    ]);
    expect(r.subjects().at(-1)).toBe('loop: amend');
    expect(r.git('show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()).toEqual(
      [r.ledgerPath, r.specPath].sort(),
    );
    expect(r.git('show', '-s', '--format=%b', 'HEAD').trim().split('\n')).toEqual([
      'reopened row 1 by amendment',
      'reopened by a human amendment - criterion 1 is now: The export writes a quoted header row',
    ]);
    const spec = r.read(r.specPath);
    expect(spec).toContain('- [ ] The export writes a quoted header row\n- [ ] The second row\n');
    expect(spec).not.toContain('The first row');
    expect(rowCells(r.ledger(), 1)).toEqual(['open', '0']);
  });
});
