/**
 * End-to-end: amendments and unreachable routing on a coordinated run (issue 13, docs/decisions/
 * legs.md L12), on two real repositories with the scripted child as a real child process.
 * Expected ledgers, spec lines and commits are written by hand from gauntlet-protocol §1.7
 * ("copy each cut disposition to every expanded entry"), §3.13 (unreachable routing, "Companions:
 * held mapping + coordinated amendment rules; the home spec/ledger own the cut") and §3.17.
 *
 * web (home) implements AC 1 and AC 2, api AC 2 (shared): rows 1 = AC 1 web, 2 = AC 2 web,
 * 3 = AC 2 api. api's row 3 fails on its last allowed attempt (allowance 1).
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildScript } from '../../src/host/child-script.js';
import { type CompanionCheckout, companionCheckout, legSpecText } from '../support/legs-fixtures.js';
import { cli, createLoopRepo, type LoopRepo, useGitTestEnvironment } from '../support/loop-repo.js';

const cleanup: (() => void)[] = [];
beforeAll(() => useGitTestEnvironment());
afterAll(() => {
  for (const done of cleanup.splice(0)) done();
});

const CRITERIA = ['The page lists reports', 'Reports stream from the staging bucket'];
const LEGS = ['- web (home): 1, 2', '- api: 2'];
const GRANT = 'auto-apply amends, stop only for redraws';

function world(grant: string | undefined, row3: string): { r: LoopRepo; api: CompanionCheckout } {
  const api = companionCheckout('api');
  const script: ChildScript = {
    version: 1,
    targets: {
      'seed web': [
        { do: 'seed', evidence: { '1': 'list check; 1 failing', '2': 'stream check; 1 failing' } },
      ],
      'seed api': [{ do: 'seed', evidence: { '3': 'stream check; 1 failing' } }],
      '1': [{ do: 'done', evidence: 'list check; passes' }],
      '2': [{ do: 'done', evidence: 'stream check; passes in web' }],
      '3': [{ do: 'failed', evidence: row3 }],
    },
  };
  const r = createLoopRepo({
    spec: legSpecText({ criteria: CRITERIA, legs: LEGS, ...(grant === undefined ? {} : { grant }) }),
    script,
  });
  cleanup.push(
    () => r.remove(),
    () => api.remove(),
  );
  return { r, api };
}

function rowLine(ledger: string, row: number): string {
  return ledger.split('\n').find((line) => line.startsWith(`| ${row} |`)) ?? '';
}

describe('amendments on two legs', () => {
  it('an unreachable companion row on its last attempt is cut under the grant: AC 2 in every leg', async () => {
    const { r, api } = world(GRANT, 'stream check; unreachable: staging bucket - docs/ops.md');
    const out = await cli(
      'run',
      await r.runArgs('--leg', `api=${api.dir}`, '--allowance', '1', '--impl-model', 'scripted/strong'),
    );
    expect(out.code, out.stderr + out.stdout).toBe(0);
    expect(out.stderr).toContain('amended the spec: row 3 - unreachable in this checkout - staging bucket');
    expect(r.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: record api row 0',
      // Allowance 1: every row's only attempt is its escalated round (§3.7 threshold min(2, 1 - 1)).
      'loop: escalate row 1',
      'loop: row 1 done',
      'loop: escalate row 2',
      'loop: row 2 done',
      'loop: escalate row 3',
      'loop: record api row 3',
      'loop: cut row 3',
    ]);
    const disposition = 'deviates: unreachable in this checkout - staging bucket; proof at docs/ops.md';
    const ledger = r.ledger();
    // Both entries of AC 2 are cut with the disposition; attempts stay (row 2 done once, row 3
    // failed once); row 1 (AC 1) is untouched.
    expect(rowLine(ledger, 1)).toBe('| 1 | done | 1 | list check; passes |');
    expect(rowLine(ledger, 2)).toBe(`| 2 | cut | 1 | ${disposition} |`);
    expect(rowLine(ledger, 3)).toBe(`| 3 | cut | 1 | ${disposition} |`);
    // The home spec owns the cut: the disposition is AC 2's, the Out of scope entry quotes AC 2.
    const spec = r.read(r.specPath);
    expect(spec).toContain(`- [ ] Reports stream from the staging bucket\n  ${disposition}\n`);
    expect(spec).toContain(
      '## Out of scope\n\n- Reports stream from the staging bucket - unreachable in this checkout - staging bucket\n',
    );
    expect(r.git('show', '-s', '--format=%b', 'HEAD').trim().split('\n')).toEqual([
      `cut row 2: ${disposition}`,
      `cut row 3: ${disposition}`,
      'criterion 2: row 2 web, row 3 api',
      'granted',
      `"${GRANT}"`,
    ]);
    // api's own history holds only its commits; the cut is a home commit.
    expect(api.subjects()).toEqual(['loop: seed evidence', 'loop: row 3 failed']);
  }, 240_000);

  it('without a grant the unreachable companion row stops; amend cut 3 disposes AC 2 and cuts rows 2 and 3', async () => {
    const { r, api } = world(undefined, 'stream check; unreachable: staging bucket - docs/ops.md');
    const args = await r.runArgs('--leg', `api=${api.dir}`);
    const stop = await cli('run', args);
    expect(stop.code).toBe(3);
    expect(stop.stdout.split('\n').slice(0, 2)).toEqual(['gauntlet: question', 'Stopped on row 3']);
    expect(r.subjects().at(-1)).toBe('loop: record api row 3');
    // status names the stopped row's leg on its next-step line (L19).
    const status = await cli('status', [
      '--worktree',
      r.dir,
      '--spec',
      r.specPath,
      '--leg',
      `api=${api.dir}`,
    ]);
    expect(status.stdout).toMatch(
      /^next: row 3 reported "unreachable: staging bucket - docs\/ops\.md".* \(leg api\)$/m,
    );

    const answered = await cli('run', [...args, '--answer', 'amend cut 3 deferred: API-12']);
    expect(answered.code, answered.stderr + answered.stdout).toBe(0);
    expect(r.subjects().slice(-2)).toEqual(['loop: record api row 3', 'loop: cut row 3']);
    const ledger = r.ledger();
    expect(rowLine(ledger, 2)).toBe('| 2 | cut | 1 | deferred: API-12 |');
    expect(rowLine(ledger, 3)).toBe('| 3 | cut | 1 | deferred: API-12 |');
    expect(r.read(r.specPath)).toContain(
      '- [ ] The page lists reports\n- [ ] Reports stream from the staging bucket\n  deferred: API-12\n',
    );
    expect(r.git('show', '--name-only', '--format=', 'HEAD').trim().split('\n').sort()).toEqual(
      [r.ledgerPath, r.specPath].sort(),
    );
  }, 240_000);
});
