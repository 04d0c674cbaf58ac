/**
 * End-to-end: coordinated verify on two real repositories (issue 13), with the bundled scripted
 * child as a real child process. Expected values are written by hand from gauntlet-protocol
 * §3.18 (verification repair, admission, rerun scope, `Stopped: verification failed with every
 * row closed`, `repairs: <k> of <allowance>`), §3.20 ("route each pair through its mapped
 * checkout", "home `loop: repair verification` markers count against the shared allowance across
 * failing legs", "success only after every leg passes; retain each verified HEAD") and
 * docs/decisions/legs.md L13-L18.
 *
 * web (home) implements AC 1, api (a companion checkout) AC 2. web's gate is the ledger's
 * `verification:` command, api's comes from `--leg-gate`. Each gate also appends a line to a
 * counter file outside both repositories, so the tests can tell which pairs ran how often.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { ChildScript } from '../../src/host/child-script.js';
import { bundledScriptedChild } from '../support/cli-bundle.js';
import { cli, cliProcess, GIT_TEST_ENV, useGitTestEnvironment } from '../support/loop-repo.js';

const SPEC = `# Items

**Amend-grant:** none

## Acceptance criteria

- [ ] The page lists items.
- [ ] The API serves items.

## Legs

- web (home): 1
- api: 2
`;

const scratch: string[] = [];
beforeAll(() => useGitTestEnvironment());
afterAll(() => {
  for (const dir of scratch) rmSync(dir, { recursive: true, force: true });
});

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
}

interface World {
  readonly web: string;
  readonly api: string;
  readonly outside: string;
  readonly args: string[];
  runs(leg: 'web' | 'api'): number;
  subjects(dir: string): string[];
}

async function world(script: ChildScript, allowance: number): Promise<World> {
  const outside = mkdtempSync(join(tmpdir(), 'loopchart-legs-verify-'));
  scratch.push(outside);
  const web = join(outside, 'web');
  const api = join(outside, 'api');
  for (const [dir, files] of [
    [web, { 'docs/specs/items.md': SPEC, 'README.md': 'web\n' }],
    [api, { 'README.md': 'api\n' }],
  ] as const) {
    execFileSync('mkdir', ['-p', dir]);
    git(dir, 'init', '-q', '-b', 'main');
    for (const [path, content] of Object.entries(files)) {
      execFileSync('mkdir', ['-p', join(dir, path, '..')]);
      writeFileSync(join(dir, path), content);
    }
    git(dir, 'add', '-A');
    git(dir, 'commit', '-q', '-m', 'initial');
  }
  const scriptPath = join(outside, 'script.json');
  writeFileSync(scriptPath, JSON.stringify(script, null, 2));
  const child = `${process.execPath} ${await bundledScriptedChild()} ${scriptPath}`;
  const counter = (leg: string) => join(outside, `${leg}-gate-runs.txt`);
  return {
    web,
    api,
    outside,
    args: [
      '--worktree',
      web,
      '--spec',
      'docs/specs/items.md',
      '--child',
      child,
      '--leg',
      `api=${api}`,
      '--verification',
      `echo run >> ${counter('web')} && test -f web-fixed.txt`,
      '--leg-gate',
      `api=echo run >> ${counter('api')} && test -f api-fixed.txt`,
      '--allowance',
      String(allowance),
      '--impl-model',
      'scripted/strong',
      '--transcript',
      join(outside, 'transcript.jsonl'),
      '--no-conformance-review',
    ],
    runs: (leg) =>
      existsSync(counter(leg))
        ? readFileSync(counter(leg), 'utf8')
            .split('\n')
            .filter((l) => l !== '').length
        : 0,
    subjects: (dir) => git(dir, 'log', '--reverse', '--format=%s').trim().split('\n').slice(1),
  };
}

/** Rows: web's row 1 and api's row 2, each seeded and closed in one attempt. */
const ROWS: ChildScript['targets'] = {
  'seed web': [{ do: 'seed', evidence: { '1': 'unit list; 1 failing: no list yet' } }],
  'seed api': [{ do: 'seed', evidence: { '2': 'unit serve; 1 failing: no route yet' } }],
  '1': [
    {
      do: 'done',
      evidence: 'unit list; 1 passed',
      files: { 'page.txt': 'items\n', 'web-fixed.txt': 'web ok\n' },
    },
  ],
  '2': [{ do: 'done', evidence: 'unit serve; 1 passed', files: { 'serve.txt': 'items\n' } }],
};

describe('coordinated verify on two repositories', () => {
  it('api fails its gate, is repaired in its own checkout, and verify passes in every leg', async () => {
    const w = await world(
      {
        version: 1,
        targets: { ...ROWS, verify: [{ do: 'verify-fix', files: { 'api-fixed.txt': 'ok\n' } }] },
      },
      4,
    );
    const result = await cli('run', w.args);
    expect(result.code, result.stderr + result.stdout).toBe(0);

    // The repair child committed in api only; home has the marker and no child commit.
    const apiSubjects = w.subjects(w.api);
    expect(apiSubjects.filter((s) => s === 'loop: verification fix')).toHaveLength(1);
    const webSubjects = w.subjects(w.web);
    expect(webSubjects.filter((s) => s === 'loop: repair verification')).toHaveLength(1);
    expect(webSubjects).not.toContain('loop: verification fix');

    // §1.6: the tuple names the failing leg and that checkout's HEAD before the dispatch; the
    // child's body starts with it and the consumed iteration; the marker carries both and the SHA.
    const fix = git(w.api, 'log', '--format=%H', '--grep=^loop: verification fix$', '-n', '1').trim();
    const fixBody = git(w.api, 'log', '-1', '--format=%b', fix).split('\n');
    const before = git(w.api, 'rev-parse', `${fix}~1`).trim();
    expect(fixBody[0]).toBe(`pending: verify | api | ${before}`);
    expect(fixBody[1]).toMatch(/^iteration: \d+$/);
    const marker = git(w.web, 'log', '-1', '--format=%b', '--grep=^loop: repair verification$');
    expect(marker).toContain(`pending: verify | api | ${before}`);
    expect(marker).toContain(fixBody[1] as string);
    expect(marker).toContain(fix);

    // The marker commit clears the tuple; the consumed iteration stays in the header.
    const ledger = readFileSync(join(w.web, 'docs/plans/items.md'), 'utf8');
    expect(ledger).not.toMatch(/^pending:/m);
    expect(ledger).toContain(`iterations: ${(fixBody[1] as string).slice('iteration: '.length)}`);

    // Rerun scope: web's pair passed in the first run and is not run again; api ran, failed, was
    // repaired and ran again.
    expect([w.runs('web'), w.runs('api')]).toEqual([1, 2]);

    // Success after every leg passed: each verified HEAD is in the closure, both checkouts clean.
    // web's pairs passed before api's repair; the home marker that followed changes only the
    // ledger, so web's verified HEAD is the marker's parent (L15: a passed leg keeps its result).
    expect(w.subjects(w.web).at(-1)).toBe('loop: repair verification');
    expect(git(w.web, 'diff', '--name-only', 'HEAD~1', 'HEAD').trim()).toBe('docs/plans/items.md');
    const webVerified = git(w.web, 'rev-parse', 'HEAD~1').trim();
    const apiHead = git(w.api, 'rev-parse', 'HEAD').trim();
    expect(apiHead).toBe(fix);
    expect(result.stdout).toContain(`verified-head web: ${webVerified}`);
    expect(result.stdout).toContain(`verified-head api: ${apiHead}`);
    expect(git(w.web, 'status', '--porcelain')).toBe('');
    expect(git(w.api, 'status', '--porcelain')).toBe('');

    // status shows both legs verified on their HEADs.
    const status = await cli('status', [
      '--worktree',
      w.web,
      '--spec',
      'docs/specs/items.md',
      '--leg',
      `api=${w.api}`,
    ]);
    expect(status.stdout).toContain(`leg api: ${w.api}`);
    expect(status.stdout).toContain(`  verified HEAD: ${apiHead}`);
  }, 240_000);

  it('repairs in web and then in api spend the one shared allowance and stop with every row closed', async () => {
    // web's gate fails until web-fixed.txt exists; row 1 here does not write it.
    const rows = {
      ...ROWS,
      '1': [{ do: 'done' as const, evidence: 'unit list; 1 passed', files: { 'page.txt': 'items\n' } }],
    };
    const w = await world(
      {
        version: 1,
        targets: {
          ...rows,
          verify: [
            { do: 'verify-fix', files: { 'web-fixed.txt': 'ok\n' } },
            { do: 'verify-fix', files: { 'not-the-fix.txt': 'still broken\n' } },
          ],
        },
      },
      2,
    );
    const result = await cli('run', w.args);
    expect(result.code, result.stderr + result.stdout).toBe(3);
    expect(result.stdout).toContain('Stopped: verification failed with every row closed');
    expect(result.stdout).toContain('repairs: 2 of 2');
    // The failing pair is api's, gate 2 (web's verification is gate 1).
    expect(result.stdout).toMatch(/Problem: gate 2 exit 1 \S+/);

    // Two home markers, one per leg, each naming its leg's tuple.
    const markers = git(w.web, 'log', '--reverse', '--format=%b%x00', '--grep=^loop: repair verification$')
      .split('\0')
      .map((body) => body.trim())
      .filter((body) => body !== '');
    expect(markers).toHaveLength(2);
    expect(markers[0]).toMatch(/^pending: verify \| web \| [0-9a-f]{40}$/m);
    expect(markers[1]).toMatch(/^pending: verify \| api \| [0-9a-f]{40}$/m);
    // web's repair commit is in web, api's in api.
    expect(w.subjects(w.web).filter((s) => s === 'loop: verification fix')).toHaveLength(1);
    expect(w.subjects(w.api).filter((s) => s === 'loop: verification fix')).toHaveLength(1);
    // web ran twice (fail, pass after its repair), api twice (fail, fail after its repair).
    expect([w.runs('web'), w.runs('api')]).toEqual([2, 2]);
  }, 240_000);

  it('a crash after an api verification repair left dirt: the resume resets only api and never marks twice', async () => {
    // The first repair child writes api's fix but commits nothing (an interrupted return); the
    // runner is killed right after that child ends, with `pending: verify | api | <HEAD>` on disk.
    const script: ChildScript = {
      version: 1,
      targets: {
        ...ROWS,
        verify: [
          { do: 'verify-fix', commit: 'none', files: { 'api-fixed.txt': 'half\n', 'src/half.ts': 'x\n' } },
          { do: 'verify-fix', files: { 'api-fixed.txt': 'ok\n' } },
        ],
      },
    };
    const w = await world(script, 4);
    // Killed right after the fifth child ends: web seed, api seed, row 1, row 2, api's repair.
    const crashed = await cliProcess(['run', ...w.args], { LOOPCHART_CRASH_AT: 'dispatchChild#5' });
    expect(crashed.signal).toBe('SIGKILL');
    const webAtCrash = git(w.web, 'rev-parse', 'HEAD').trim();
    // The interrupted child committed nothing: api's HEAD is the tuple's HEAD_BEFORE.
    const apiBefore = git(w.api, 'rev-parse', 'HEAD').trim();
    const ledgerPath = join(w.web, 'docs/plans/items.md');
    expect(readFileSync(ledgerPath, 'utf8')).toContain(`pending: verify | api | ${apiBefore}`);
    expect(git(w.api, 'status', '--porcelain')).not.toBe('');

    const resumed = await cli('run', w.args);
    expect(resumed.code, resumed.stderr + resumed.stdout).toBe(0);
    // Only api was reset: its half write is gone, its one fix commit is the second child's. web was
    // not reset: its HEAD at the crash is kept and only the two home markers follow it.
    expect(w.subjects(w.api).filter((s) => s === 'loop: verification fix')).toHaveLength(1);
    expect(git(w.api, 'show', 'HEAD:api-fixed.txt')).toBe('ok\n');
    expect(existsSync(join(w.api, 'src/half.ts'))).toBe(false);
    expect(git(w.web, 'log', '--format=%s', `${webAtCrash}..HEAD`).trim().split('\n')).toEqual([
      'loop: repair verification',
      'loop: repair verification',
    ]);
    // One home marker per tuple: the recovered one (api at its HEAD before the crashed child) and
    // the admitted one (api at the same HEAD, the next iteration); no marker names a tuple twice.
    const markers = git(w.web, 'log', '--reverse', '--format=%b%x00', '--grep=^loop: repair verification$')
      .split('\0')
      .map((body) => body.trim())
      .filter((body) => body !== '');
    expect(markers).toHaveLength(2);
    const tuples = markers.map((body) => body.split('\n').slice(0, 2).join(' '));
    expect(new Set(tuples).size).toBe(2);
    expect(markers.every((body) => body.startsWith(`pending: verify | api | ${apiBefore}\n`))).toBe(true);
    expect(readFileSync(ledgerPath, 'utf8')).not.toMatch(/^pending:/m);
  }, 240_000);

  it('loopchart demo --legs reaches the finish on two real repositories, with one companion row', async () => {
    const root = mkdtempSync(join(tmpdir(), 'loopchart-legs-demo-'));
    scratch.push(root);
    const dir = join(root, 'demo');
    const child = `${process.execPath} ${await bundledScriptedChild()} ${join(dir, 'web', '.loopchart', 'demo-script.json')}`;
    const result = await cli('demo', ['--legs', '--dir', dir, '--child', child]);
    expect(result.code, result.stderr + result.stdout).toBe(0);
    expect(result.stdout).toContain('finished: both legs verified');
    const web = join(dir, 'web');
    const api = join(dir, 'api');
    // api's row ran in the api checkout and was recorded in home (§3.20).
    expect(git(api, 'log', '--format=%s')).toContain('loop: row 2 done');
    expect(git(web, 'log', '--format=%s')).toContain('loop: record api row 2');
    // api's gate failed and was repaired there; the marker is in home.
    expect(git(api, 'log', '-1', '--format=%s')).toBe('loop: verification fix\n');
    expect(git(web, 'log', '--format=%s')).toContain('loop: repair verification');
    const apiHead = git(api, 'rev-parse', 'HEAD').trim();
    expect(result.stdout).toContain(`verified-head api: ${apiHead}`);
    expect(result.stdout).toMatch(/^verified-head web: [0-9a-f]{40}$/m);
    expect(result.stdout).toContain('status: CONFORMS (0 open)');
  }, 240_000);
});
