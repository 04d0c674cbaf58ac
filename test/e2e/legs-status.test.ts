/**
 * `loopchart status` on a coordinated run (issue 13): per-leg state read from the home ledger,
 * the companion checkout given with `--leg`, and the verified HEADs the host kept. Two real git
 * repositories; the ledger is written by hand from gauntlet-protocol §1.2/§1.7 (the coordinated
 * variant of §1.8) and docs/decisions/legs.md L4; expected lines are written from the same text.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createTempRepo, type TempRepo } from '../effects/temp-repo.js';
import { parseCliResult } from '../support/cli-result.js';
import { coordinatedLedgerText } from '../support/legs-fixtures.js';
import { cli, useGitTestEnvironment } from '../support/loop-repo.js';

const repos: TempRepo[] = [];
beforeAll(() => useGitTestEnvironment());
afterAll(() => {
  for (const repo of repos) repo.remove();
});

const SPEC = `# Feature

## Acceptance criteria

- [ ] The page lists items.
- [ ] The API serves items.
- [ ] The API pages items.

## Legs

- web (home): 1, 2
- api: 2-3
`;

function ledger(homeBase: string, apiBase: string): string {
  return coordinatedLedgerText({
    spec: 'docs/specs/feature.md',
    base: homeBase,
    members: [
      { name: 'web', base: homeBase, seeded: true },
      { name: 'api', base: apiBase, seeded: false },
    ],
    verification: 'true',
    iterations: 3,
    rows: [
      '| 1 | done | 0 | seed: list renders |',
      '| 2 | failed | 1 | unit: red |',
      '| 3 | open | 0 |  |',
      '| 4 | open | 0 |  |',
    ],
    decisions: ['row 2 failed | unit: red | fix the list'],
  });
}

describe('loopchart status on two legs', () => {
  it('shows each member, its checkout and HEAD, base, seeded, rows by status and the verified HEAD', async () => {
    const api = createTempRepo('loopchart-legs-api-');
    repos.push(api);
    api.commit('api', { 'server.js': 'ok\n' });
    const apiHead = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: api.dir, encoding: 'utf8' }).trim();
    const home = createTempRepo('loopchart-legs-web-');
    repos.push(home);
    home.commit('spec', { 'docs/specs/feature.md': SPEC });
    const homeBase = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: home.dir, encoding: 'utf8' }).trim();
    home.commit('ledger', { 'docs/plans/feature.md': ledger(homeBase, apiHead) });
    const homeHead = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: home.dir, encoding: 'utf8' }).trim();
    // The host's record of verified heads (written by runGates on a coordinated run).
    const stateDir = join(home.dir, '.git', 'loopchart');
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(
      join(stateDir, 'verified-heads.json'),
      JSON.stringify({ base: homeBase, heads: { api: apiHead } }),
    );

    const args = ['--worktree', home.dir, '--spec', 'docs/specs/feature.md', '--leg', `api=${api.dir}`];
    const text = await cli('status', args);
    expect(text.code).toBe(0);
    expect(text.stdout).toContain(
      [
        `leg web (home): ${home.dir}`,
        `  base ${homeBase}, HEAD ${homeHead}, seeded yes`,
        '  rows 1, 2: open 0, done 1, failed 1, cut 0',
        '  verified HEAD: not yet',
        `leg api: ${api.dir}`,
        `  base ${apiHead}, HEAD ${apiHead}, seeded no`,
        '  rows 3, 4: open 2, done 0, failed 0, cut 0',
        `  verified HEAD: ${apiHead}`,
      ].join('\n'),
    );

    // The next step names its leg: api is the member whose seed is due (L7), so the seed goes there.
    expect(text.stdout).toMatch(/^next: .+ \(leg api\)$/m);
    const json = parseCliResult((await cli('status', [...args, '--json'])).stdout) as unknown as {
      legs: unknown;
      next: { kind: string; target: unknown; leg: string };
    };
    expect(json.next).toMatchObject({ kind: 'dispatch', target: 'seed', leg: 'api' });
    expect(json.legs).toEqual([
      {
        member: 'web',
        home: true,
        checkout: home.dir,
        base: homeBase,
        seeded: true,
        head: homeHead,
        rowNumbers: [1, 2],
        rows: { open: 0, done: 1, failed: 1, cut: 0 },
        pending: false,
        verifiedHead: null,
      },
      {
        member: 'api',
        home: false,
        checkout: api.dir,
        base: apiHead,
        seeded: false,
        head: apiHead,
        rowNumbers: [3, 4],
        rows: { open: 2, done: 0, failed: 0, cut: 0 },
        pending: false,
        verifiedHead: apiHead,
      },
    ]);
  });

  it("names the pending tuple's member; a companion without --leg has no checkout; a record for another base is ignored", async () => {
    const api = createTempRepo('loopchart-legs-api-');
    repos.push(api);
    api.commit('api', { 'server.js': 'ok\n' });
    const apiHead = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: api.dir, encoding: 'utf8' }).trim();
    const home = createTempRepo('loopchart-legs-web-');
    repos.push(home);
    home.commit('spec', { 'docs/specs/feature.md': SPEC });
    const homeBase = execFileSync('git', ['rev-parse', 'HEAD'], { cwd: home.dir, encoding: 'utf8' }).trim();
    home.commit('ledger', { 'docs/plans/feature.md': ledger(homeBase, apiHead) });
    // A dispatch in flight in api: the bump and the tuple on disk, uncommitted.
    const reserved = ledger(homeBase, apiHead)
      .replace('iterations: 3', 'iterations: 4')
      .replace('allowance: 4', `allowance: 4\npending: 3 | api | ${apiHead}`);
    writeFileSync(join(home.dir, 'docs/plans/feature.md'), reserved);
    const stateDir = join(home.dir, '.git', 'loopchart');
    mkdirSync(stateDir, { recursive: true });
    writeFileSync(
      join(stateDir, 'verified-heads.json'),
      JSON.stringify({ base: 'f'.repeat(40), heads: { web: homeBase } }),
    );
    const out = await cli('status', ['--worktree', home.dir, '--spec', 'docs/specs/feature.md']);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain(`pending: pending: 3 | api | ${apiHead}`);
    expect(out.stdout).toContain(
      `next: a dispatch is in flight (pending: 3 | api | ${apiHead}): the next run recovers it first (leg api)`,
    );
    expect(out.stdout).toContain(
      [
        'leg api: checkout not given (--leg)',
        `  base ${apiHead}, seeded no`,
        '  rows 3, 4: open 2, done 0, failed 0, cut 0; the pending tuple targets this leg',
        '  verified HEAD: not yet',
      ].join('\n'),
    );
    expect(out.stdout).toMatch(
      /leg web \(home\)[^\n]*\n[^\n]*\n[^\n]*failed 1, cut 0\n {2}verified HEAD: not yet/,
    );
  });
});
