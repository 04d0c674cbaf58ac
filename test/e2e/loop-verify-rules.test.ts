/**
 * End-to-end: the resolution rules of verify and restore on real repositories with the scripted
 * child as a real child process (gauntlet-protocol §3.1, §3.2, §3.18): gate-produced changes are
 * committed after a failing gate set too, so the verification repair plans on the HEAD that
 * includes them; the verification repair task carries the blocking-call contract; the overrides
 * file's `## verification-before-completion` command is used, and zero or several is a
 * configuration error.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { cli, type createLoopRepo, type LoopRepo, useLoopRepos } from '../support/loop-repo.js';

const repo = useLoopRepos(['LOOPCHART_IMPL_MODEL', 'LOOPCHART_MAIN_MODEL']);

const seedClosesAll = {
  do: 'seed' as const,
  evidence: { '1': 'one; passes', '2': 'two; passes' },
  closeOnBaseline: [1, 2],
};

describe('the verification repair', () => {
  it('plans on the HEAD that includes the failing gate set’s committed changes, and carries the blocking-call contract', async () => {
    const r = repo({
      files: { 'stamp.txt': 'runs:\n' },
      script: {
        version: 1,
        targets: {
          seed: [seedClosesAll],
          verify: [{ do: 'verify-fix', files: { 'fixed.txt': 'fixed\n' } }],
        },
      },
    });
    // The gate appends to a tracked file on every run, and fails until fixed.txt exists.
    const verifyTaskFile = join(r.scriptPath, '..', 'verify-task.json');
    const child = await r.childCommand();
    const recording = `if grep -q '"kind": "verify"' "$LOOPCHART_TASK"; then cp "$LOOPCHART_TASK" '${verifyTaskFile}'; fi; ${child}`;
    const args = await r.runArgs(
      '--allowance',
      '2',
      '--impl-model',
      'test/model',
      '--gate',
      'echo ran >> stamp.txt; test -f fixed.txt',
    );
    args[args.indexOf('--child') + 1] = recording;
    const out = await cli('run', args);
    expect(out.code).toBe(0);
    // §3.18 step 1: "Commit verification-produced tracked changes, including gate-produced changes".
    expect(r.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: verification changes',
      'loop: verification fix',
      'loop: repair verification',
      'loop: verification changes',
    ]);
    const changes = r.git('log', '--reverse', '--format=%H', '--grep', '^loop: verification changes$');
    const firstChanges = changes.trim().split('\n')[0];
    const [marker] = r
      .git('log', '--format=%b%x00', '--grep', '^loop: repair verification$')
      .split('\x00')
      .map((b) => b.trim());
    // HEAD_BEFORE of the repair is the commit of the failing run's gate-produced change.
    expect(marker?.split('\n')[0]).toBe(`pending: verify | home | ${firstChanges}`);
    expect(r.status()).toBe('');
    const verifyTask = JSON.parse(readFileSync(verifyTaskFile, 'utf8')) as {
      kind: string;
      verification: { blockingCalls: string } | null;
    };
    expect(verifyTask.kind).toBe('verify');
    // The protocol's words (§3.18 step 1), written here by hand.
    expect(verifyTask?.verification?.blockingCalls).toBe(
      'bound every blocking command with `timeout -k 30 <n>`, n <= 600; background and poll longer work',
    );
  }, 60_000);
});

/** The `run` arguments without the helper's `--verification true`. */
async function argsWithoutVerification(r: LoopRepo, ...extra: string[]): Promise<string[]> {
  const args = await r.runArgs(...extra);
  const at = args.indexOf('--verification');
  args.splice(at, 2);
  return args;
}

describe('the overrides file', () => {
  it('supplies the fresh ledger’s verification command from its ## verification-before-completion section', async () => {
    const r = repo({
      files: {
        '.loopchart/overrides.md':
          '# Overrides\n\n## verification-before-completion\n\nRun `test -f README.md` before done.\n\n## Happy path\n\n`false`\n',
        // discovery would find `npm test`, which would fail: the overrides file comes first
        'package.json': '{"scripts":{"test":"exit 1"}}\n',
      },
      script: { version: 1, targets: { seed: [seedClosesAll] } },
    });
    const out = await cli('run', await argsWithoutVerification(r));
    expect(out.code).toBe(0);
    expect(r.ledger()).toContain('\nverification: test -f README.md\n');
    expect(out.stderr).toContain(
      'verification: test -f README.md (source: .loopchart/overrides.md ## verification-before-completion)',
    );
  }, 60_000);

  it('a named overrides file with zero or several commands is a configuration error (exit 2) and writes nothing', async () => {
    for (const [section, named] of [
      ['Run the tests.', 'no backticked command'],
      ['`npm test` or `make test`', '2 backticked commands (`npm test` on line 3, `make test` on line 3)'],
    ] as const) {
      const r = repo({
        files: { 'ops/overrides.md': `## verification-before-completion\n\n${section}\n` },
        script: { version: 1, targets: { seed: [seedClosesAll] } },
      });
      const out = await cli('run', await argsWithoutVerification(r, '--overrides', 'ops/overrides.md'));
      expect(out.code).toBe(2);
      expect(out.stderr).toContain('configuration error in the overrides file ops/overrides.md');
      expect(out.stderr).toContain(named);
      expect(r.subjects()).toEqual([]);
      expect(r.status()).toBe('');
    }
  }, 60_000);
});

/** A legacy ledger (before the allowance header): `cap: <n>`; seeded, row 1 open, row 2 closed on the baseline. */
function legacyLedger(base: string, cap: number, seeded: boolean): string {
  return [
    '# Loop ledger',
    '**Spec:** docs/specs/feature.md',
    `base: ${base}`,
    'verification: true',
    'checks: commands',
    `iterations: ${seeded ? 1 : 0}`,
    `cap: ${cap}`,
    '',
    '| row | status | attempts | evidence |',
    '|---|---|---|---|',
    seeded ? '| 1 | open | 0 | check one; 1 failing |' : '| 1 | open | 0 |  |',
    seeded ? '| 2 | done | 0 | check two; passes on the baseline |' : '| 2 | open | 0 |  |',
    '',
    '## Decisions',
    '',
    ...(seeded ? ['row 0 done | seeded 2 rows, closed 1 on baseline | row 1', ''] : []),
  ].join('\n');
}

/** A repository whose ledger history was written before the allowance header. */
function legacyRepo(cap: number, script: Parameters<typeof createLoopRepo>[0]['script']): LoopRepo {
  const r = repo({ script });
  const base = r.git('rev-parse', 'HEAD').trim();
  r.write(r.ledgerPath, legacyLedger(base, cap, false));
  r.git('add', '-A');
  r.git('commit', '-q', '-m', 'loop: seed ledger');
  r.write(r.ledgerPath, legacyLedger(base, cap, true));
  r.git('add', '-A');
  r.git('commit', '-q', '-m', 'loop: seed evidence');
  return r;
}

describe('a legacy cap: ledger', () => {
  it('RS3: migrates (loop: migrate allowance) before the dirty-tree stop, then continues to the end', async () => {
    const r = legacyRepo(3, {
      version: 1,
      targets: { '1': [{ do: 'done', evidence: 'check one; passes now' }] },
    });
    r.write('notes.txt', 'unrelated work in progress\n');
    r.git('add', 'notes.txt');

    const first = await cli('run', await r.runArgs());
    // The migration is applied before the dirty-tree stop (§3.2).
    expect(r.subjects()).toEqual(['loop: seed ledger', 'loop: seed evidence', 'loop: migrate allowance']);
    expect(first.code).toBe(3);
    expect(first.stdout).toContain('dirty');
    const migrated = r.git('show', `HEAD:${r.ledgerPath}`);
    expect(migrated).toContain('\niterations: 1\nallowance: 3\n');
    expect(migrated).not.toContain('cap:');
    // Rows, attempts and decisions are unchanged.
    expect(migrated).toContain('| 1 | open | 0 | check one; 1 failing |');
    expect(migrated).toContain('row 0 done | seeded 2 rows, closed 1 on baseline | row 1');
    expect(r.git('show', '-s', '--format=%b', 'HEAD').trim()).toBe('cap: 3\nallowance: 3');
    // The unrelated work is untouched and not committed.
    expect(r.status()).toBe('A  notes.txt\n');

    r.git('rm', '-q', '--cached', 'notes.txt');
    r.git('clean', '-qf');
    const second = await cli('run', await r.runArgs());
    expect(second.code, second.stdout + second.stderr).toBe(0);
    expect(r.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: migrate allowance',
      'loop: row 1 done',
    ]);
    expect(r.ledger()).toContain('| 1 | done | 1 | check one; passes now |');
    expect(r.ledger()).toContain('allowance: 3');
  }, 60_000);

  it('a migrated row already at its allowance is exhausted: a migrated 0 makes rule 2 stop at once', async () => {
    const r = legacyRepo(0, { version: 1, targets: {} });
    const out = await cli('run', await r.runArgs());
    expect(out.code, out.stdout + out.stderr).toBe(3);
    expect(r.subjects()).toEqual(['loop: seed ledger', 'loop: seed evidence', 'loop: migrate allowance']);
    expect(out.stdout).toContain('Stopped on row 1');
    expect(out.stdout).toContain('row 1: 0 of 0');
  }, 60_000);
});
