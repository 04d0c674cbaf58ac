/**
 * End-to-end: coordinated legs (issue 13, gauntlet-protocol §1.7 and §3.20) on two and three real
 * repositories, the scripted child as a real child process working in each leg's checkout. The
 * expected ledgers, subjects and bodies are written by hand from the protocol text (the
 * coordinated variant of §1.8, the companion rules of §3.20) and docs/decisions/legs.md.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import type { ChildScript } from '../../src/host/child-script.js';
import { createRunner } from '../../src/host/runner.js';
import { type CompanionCheckout, companionCheckout, legSpecText } from '../support/legs-fixtures.js';
import {
  cli,
  cliProcess,
  createLoopRepo,
  type LoopRepo,
  useGitTestEnvironment,
} from '../support/loop-repo.js';

const cleanup: (() => void)[] = [];
beforeAll(() => useGitTestEnvironment());
afterEach(() => {
  for (const done of cleanup.splice(0)) done();
});

/** A companion checkout (a real repository with one commit), removed after the test. */
function companion(name: string): CompanionCheckout {
  const checkout = companionCheckout(name);
  cleanup.push(() => checkout.remove());
  return checkout;
}

function home(spec: string, script: ChildScript): LoopRepo {
  const repo = createLoopRepo({ spec, script, files: { '.gitignore': '*.log\n' } });
  cleanup.push(() => repo.remove());
  return repo;
}

/** The spec: criteria in order, then `## Legs` (docs/decisions/legs.md L1). */
function legSpec(criteria: readonly string[], legs: readonly string[]): string {
  return legSpecText({ criteria, legs });
}

function head(dir: string): string {
  return execFileSync('git', ['rev-parse', 'HEAD'], { cwd: dir, encoding: 'utf8' }).trim();
}

/** The body of every commit with `subject`, oldest first. */
function bodiesOf(git: (...args: string[]) => string, subject: string): string[] {
  return git('log', '--reverse', '--format=%s%x00%b%x01')
    .split('\x01')
    .map((entry) => entry.replace(/^\n/, '').split('\x00'))
    .filter(([s]) => s === subject)
    .map(([, body]) => (body ?? '').trim());
}

/** The SHA of the (only) commit with `subject`. */
function shaOf(git: (...args: string[]) => string, subject: string): string {
  const line = git('log', '--format=%H %s')
    .trim()
    .split('\n')
    .find((l) => l.slice(41) === subject);
  if (line === undefined) throw new Error(`no commit "${subject}"`);
  return line.slice(0, 40);
}

function rowLine(ledger: string, row: number): string {
  return ledger.split('\n').find((line) => line.startsWith(`| ${row} |`)) ?? '';
}

// Two repositories: web (home) holds AC 1 and AC 2, api holds AC 2 (shared) and AC 3.
const TWO_LEGS = legSpec(
  ['The page lists items', 'The API serves items', 'The API pages items'],
  ['- web (home): 1, 2', '- api: 2-3'],
);

describe('coordinated legs on two repositories', () => {
  it('seeds each leg from its own checkout, maps the entries, and records companion rows in home', async () => {
    const api = companion('api');
    const apiBase = head(api.dir);
    const r = home(TWO_LEGS, {
      version: 1,
      targets: {
        'seed web': [
          { do: 'seed', evidence: { '1': 'page check; 1 failing', '2': 'serve check; 1 failing' } },
        ],
        'seed api': [
          { do: 'seed', evidence: { '3': 'serve check; 2 failing', '4': 'paging check; 1 failing' } },
        ],
        '1': [{ do: 'done', evidence: 'page check; passes' }],
        '2': [{ do: 'done', evidence: 'serve check; passes in web' }],
        '3': [{ do: 'done', evidence: 'serve check; passes in api' }],
        '4': [{ do: 'done', evidence: 'paging check; passes' }],
      },
    });
    const homeBase = head(r.dir);
    const out = await cli('run', await r.runArgs('--leg', `api=${api.dir}`));
    expect(out.stderr).toBe('');
    expect(out.code).toBe(0);

    // §3.20: a companion's returns are recorded in home by ONE parent commit each.
    expect(r.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: record api row 0',
      'loop: row 1 done',
      'loop: row 2 done',
      'loop: record api row 3',
      'loop: record api row 4',
    ]);
    // The companion's own commits stay in the companion checkout.
    expect(api.subjects()).toEqual(['loop: seed evidence', 'loop: row 3 done', 'loop: row 4 done']);

    const ledger = r.ledger();
    // §1.2/§1.7: base: stays home's; one base/seeded pair per member, each base from its own
    // checkout; every leg seeded once its complete row set validated; the mapping in entry order.
    expect(ledger).toContain(
      [
        `base: ${homeBase}`,
        `base web: ${homeBase}`,
        'seeded web: yes',
        `base api: ${apiBase}`,
        'seeded api: yes',
      ].join('\n'),
    );
    expect(ledger).toContain(
      [
        '| row | ac | leg |',
        '|---|---|---|',
        '| 1 | 1 | web |',
        '| 2 | 2 | web |',
        '| 3 | 2 | api |',
        '| 4 | 3 | api |',
      ].join('\n'),
    );
    expect(ledger).not.toContain('pending:');
    expect(ledger).toContain('iterations: 6');

    // The record commit: companion SHA in evidence (after the check name) and in the body.
    const row3 = shaOf(api.git, 'loop: row 3 done');
    expect(rowLine(ledger, 3)).toBe(
      `| 3 | done | 1 | serve check @ api ${row3.slice(0, 12)}; passes in api |`,
    );
    expect(rowLine(ledger, 1)).toBe('| 1 | done | 1 | page check; passes |');
    const apiAfterSeed = shaOf(api.git, 'loop: seed evidence');
    expect(bodiesOf(r.git, 'loop: record api row 3')).toEqual([
      [`pending: 3 | api | ${apiAfterSeed}`, 'iteration: 5', `companion: api ${row3}`].join('\n'),
    ]);
    // The api seed: tuple with the api base as HEAD_BEFORE, every api row listed.
    expect(bodiesOf(r.git, 'loop: record api row 0')[0]).toMatch(
      new RegExp(`^pending: seed \\| api \\| ${apiBase}\\niteration: 2\\ncompanion: api ${apiAfterSeed}`),
    );
    expect(ledger).toMatch(/^row 0 done \| seeded 2 rows, closed 0 on baseline \| .+$/m);
    expect(r.status()).toBe('');
    expect(api.git('status', '--porcelain')).toBe('');
  });

  it('rejects a foreign-leg extra and repairs the miss in home; a companion seed miss is a home seed repair', async () => {
    const api = companion('api');
    // AC 1 is api's, AC 2 web's: after the seeds the api row 1 is the first target.
    const spec = legSpec(['The API serves items', 'The page lists items'], ['- web (home): 2', '- api: 1']);
    const r = home(spec, {
      version: 1,
      targets: {
        'seed web': [{ do: 'seed', evidence: { '2': 'page check; 1 failing' } }],
        'seed api': [
          { do: 'miss', violation: 'seed-miscount' },
          { do: 'seed', evidence: { '1': 'serve check; 1 failing' } },
        ],
        '1': [
          {
            do: 'done',
            evidence: 'serve check; passes',
            extras: [{ row: 2, evidence: 'page check; passes too' }],
          },
          { do: 'done', evidence: 'serve check; passes' },
        ],
        '2': [{ do: 'done', evidence: 'page check; passes' }],
      },
    });
    const out = await cli('run', await r.runArgs('--leg', `api=${api.dir}`));
    expect(out.code).toBe(0);
    expect(r.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: repair seed',
      'loop: record api row 0',
      'loop: repair row 1',
      'loop: record api row 1',
      'loop: row 2 done',
    ]);
    // The companion seed miss: home marker, the miss in its body, api still unseeded after it.
    const seedRepair = bodiesOf(r.git, 'loop: repair seed')[0] ?? '';
    expect(seedRepair).toMatch(/^pending: seed \| api \| [0-9a-f]{40}\niteration: 2\nseed miss: /);
    const repairSha = shaOf(r.git, 'loop: repair seed');
    expect(r.git('show', `${repairSha}:${r.ledgerPath}`)).toContain('seeded api: no');
    // The foreign-leg extra: row 2 is web's, so the api return is an ordinary miss of row 1
    // (evidence `iteration <i>: <miss>` with the pre-bump i: web seed 0, api seeds 1 and 2, row 1 3).
    const rowRepair = shaOf(r.git, 'loop: repair row 1');
    expect(rowLine(r.git('show', `${rowRepair}:${r.ledgerPath}`), 1)).toBe(
      '| 1 | failed | 1 | iteration 3: row 2 belongs to leg web, not api |',
    );
    expect(rowLine(r.git('show', `${rowRepair}:${r.ledgerPath}`), 2)).toBe(
      '| 2 | open | 0 | page check; 1 failing |',
    );
    expect(api.subjects()).toEqual([
      'loop: seed evidence',
      'loop: seed evidence',
      'loop: row 1 done',
      'loop: row 1 done',
    ]);
    expect(rowLine(r.ledger(), 1)).toMatch(
      /^\| 1 \| done \| 2 \| serve check @ api [0-9a-f]{12}; passes \|$/,
    );
  });

  it('recovers an interrupted companion return: only the companion is reset, home work untouched', async () => {
    const api = companion('api');
    const spec = legSpec(['The API serves items', 'The page lists items'], ['- web (home): 2', '- api: 1']);
    const r = home(spec, {
      version: 1,
      targets: {
        'seed web': [{ do: 'seed', evidence: { '2': 'page check; 1 failing' } }],
        'seed api': [{ do: 'seed', evidence: { '1': 'serve check; 1 failing' } }],
        '1': [
          {
            do: 'done',
            evidence: 'serve check; passes',
            commit: 'none',
            files: { 'src/serve.ts': 'half\n' },
          },
          { do: 'done', evidence: 'serve check; passes', files: { 'src/serve.ts': 'whole\n' } },
        ],
        '2': [{ do: 'done', evidence: 'page check; passes' }],
      },
    });
    r.write('notes.log', 'home work the loop does not own\n');
    writeFileSync(join(api.dir, 'api-notes.log'), 'ignored api file\n');
    const out = await cli('run', await r.runArgs('--leg', `api=${api.dir}`));
    expect(out.code).toBe(0);
    expect(r.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: record api row 0',
      'loop: repair row 1',
      'loop: record api row 1',
      'loop: row 2 done',
    ]);
    const repair = shaOf(r.git, 'loop: repair row 1');
    const repaired = r.git('show', `${repair}:${r.ledgerPath}`);
    // Pre-bump i of the row 1 dispatch: web seed 0, api seed 1, row 1 2; the header has i + 1.
    expect(rowLine(repaired, 1)).toBe('| 1 | failed | 1 | iteration 2: interrupted - dirty tree |');
    expect(repaired).toContain('seeded web: yes');
    expect(repaired).toContain('seeded api: yes');
    expect(repaired).toContain('iterations: 3');
    expect(repaired).not.toContain('pending:');
    // The companion was reset (its half write gone), its ignored file kept; home's file untouched.
    expect(api.subjects()).toEqual(['loop: seed evidence', 'loop: row 1 done']);
    expect(api.git('show', 'HEAD:src/serve.ts')).toBe('whole\n');
    expect(existsSync(join(api.dir, 'api-notes.log'))).toBe(true);
    expect(r.read('notes.log')).toBe('home work the loop does not own\n');
    expect(rowLine(r.ledger(), 1)).toMatch(
      /^\| 1 \| done \| 2 \| serve check @ api [0-9a-f]{12}; passes \|$/,
    );
  });

  it('resumes a crash right after the companion committed without a duplicate record', async () => {
    const spec = legSpec(['The API serves items', 'The page lists items'], ['- web (home): 2', '- api: 1']);
    const script: ChildScript = {
      version: 1,
      targets: {
        'seed web': [{ do: 'seed', evidence: { '2': 'page check; 1 failing' } }],
        'seed api': [{ do: 'seed', evidence: { '1': 'serve check; 1 failing' } }],
        '1': [{ do: 'done', evidence: 'serve check; passes' }],
        '2': [{ do: 'done', evidence: 'page check; passes' }],
      },
    };
    // Where the api row's child ends in an uninterrupted run: that is where the runner dies.
    const probeApi = companion('api');
    const probe = home(spec, script);
    const effects: string[] = [];
    const args = await probe.runArgs('--leg', `api=${probeApi.dir}`);
    await createRunner({
      worktree: probe.dir,
      spec: probe.specPath,
      child: args[args.indexOf('--child') + 1] as string,
      verification: 'true',
      transcript: false,
      waiveConformanceReview: true,
      legs: { api: probeApi.dir },
      onSideEffect: (name) => effects.push(name),
    }).run();
    const childEnds = effects.flatMap((name, i) => (name === 'dispatchChild' ? [i + 1] : []));
    const crashAfter = childEnds[2]; // web seed, api seed, then row 1 (api)
    expect(crashAfter).toBeDefined();

    const api = companion('api');
    const r = home(spec, script);
    const crashed = await cliProcess(['run', ...(await r.runArgs('--leg', `api=${api.dir}`))], {
      LOOPCHART_CRASH_AFTER: String(crashAfter),
    });
    expect(crashed.signal).toBe('SIGKILL');
    // The companion committed; home still carries the tuple, no record yet.
    expect(api.subjects()).toEqual(['loop: seed evidence', 'loop: row 1 done']);
    expect(r.subjects()).not.toContain('loop: record api row 1');
    expect(r.ledger()).toMatch(/^pending: 1 \| api \| [0-9a-f]{40}$/m);

    const resumed = await cli('run', await r.runArgs('--leg', `api=${api.dir}`));
    expect(resumed.code).toBe(0);
    expect(r.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: record api row 0',
      'loop: record api row 1',
      'loop: row 2 done',
    ]);
    expect(api.subjects()).toEqual(['loop: seed evidence', 'loop: row 1 done']);
    expect(r.ledger()).toContain('iterations: 4');
    // A second resume finds nothing to do twice.
    const again = await cli('run', await r.runArgs('--leg', `api=${api.dir}`));
    expect(again.code).toBe(0);
    expect(r.subjects().filter((s) => s === 'loop: record api row 1')).toHaveLength(1);
  });
});

describe('coordinated legs on three repositories', () => {
  it('seeds and maps three members and records each companion in home', async () => {
    const api = companion('api');
    const db = companion('db');
    const spec = legSpec(
      ['The page lists items', 'Items are stored', 'The API serves items'],
      ['- web (home): 1', '- api: 3', '- db: 2-3'],
    );
    const r = home(spec, {
      version: 1,
      targets: {
        'seed web': [{ do: 'seed', evidence: { '1': 'page check; 1 failing' } }],
        'seed api': [{ do: 'seed', evidence: { '3': 'serve check; 1 failing' } }],
        'seed db': [
          { do: 'seed', evidence: { '2': 'store check; 1 failing', '4': 'query check; 1 failing' } },
        ],
        '1': [{ do: 'done', evidence: 'page check; passes' }],
        '2': [{ do: 'done', evidence: 'store check; passes' }],
        '3': [{ do: 'done', evidence: 'serve check; passes' }],
        '4': [{ do: 'done', evidence: 'query check; passes' }],
      },
    });
    const out = await cli('run', await r.runArgs('--leg', `api=${api.dir}`, '--leg', `db=${db.dir}`));
    expect(out.code).toBe(0);
    // Entries (L3): AC 1 web; AC 2 db; AC 3 shared by api and db, in membership order.
    expect(r.ledger()).toContain(
      ['| 1 | 1 | web |', '| 2 | 2 | db |', '| 3 | 3 | api |', '| 4 | 3 | db |'].join('\n'),
    );
    expect(r.ledger()).toContain(`base api: ${api.git('rev-list', '--max-parents=0', 'HEAD').trim()}`);
    expect(r.ledger()).toContain(`base db: ${db.git('rev-list', '--max-parents=0', 'HEAD').trim()}`);
    expect(r.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: record api row 0',
      'loop: record db row 0',
      'loop: row 1 done',
      'loop: record db row 2',
      'loop: record api row 3',
      'loop: record db row 4',
    ]);
    expect(db.subjects()).toEqual(['loop: seed evidence', 'loop: row 2 done', 'loop: row 4 done']);
    expect(api.subjects()).toEqual(['loop: seed evidence', 'loop: row 3 done']);
    expect(r.ledger()).toMatch(/seeded web: yes\n.*\nseeded api: yes\n.*\nseeded db: yes/);
  });
});

describe('one home per ledger (L20)', () => {
  it('refuses a companion at the home commit and a ledger with two members at base:, exit 2, nothing written', async () => {
    const spec = legSpec(['The API serves items', 'The page lists items'], ['- web (home): 2', '- api: 1']);
    const r = home(spec, { version: 1, targets: {} });
    const homeHead = head(r.dir);
    // A companion that is another worktree of the home repository, at the home commit.
    const shared = realpathSync(mkdtempSync(join(tmpdir(), 'loopchart-leg-shared-')));
    rmSync(shared, { recursive: true, force: true });
    r.git('worktree', 'add', '-q', '--detach', shared, 'HEAD');
    cleanup.push(() => rmSync(shared, { recursive: true, force: true }));

    const seed = await cli('run', await r.runArgs('--leg', `api=${shared}`, '--json'));
    expect(seed.code).toBe(2);
    expect(seed.stdout).toContain('seed.member-base-shared');
    expect(existsSync(join(r.dir, r.ledgerPath))).toBe(false);
    expect(head(r.dir)).toBe(homeHead);
    expect(r.status()).toBe('');

    // A hand-written ledger whose api base is the home base: checkLedger refuses it at restore.
    const api = companion('api');
    const ledger = [
      '# Loop ledger',
      `**Spec:** ${r.specPath}`,
      `base: ${homeHead}`,
      `base web: ${homeHead}`,
      'seeded web: no',
      `base api: ${homeHead}`,
      'seeded api: no',
      'verification: true',
      'checks: commands',
      'iterations: 0',
      'allowance: 4',
      '',
      '| row | status | attempts | evidence |',
      '|---|---|---|---|',
      '| 1 | open | 0 |  |',
      '| 2 | open | 0 |  |',
      '',
      '## Leg mapping',
      '',
      '| row | ac | leg |',
      '|---|---|---|',
      '| 1 | 1 | api |',
      '| 2 | 2 | web |',
      '',
      '## Decisions',
      '',
    ].join('\n');
    r.write(r.ledgerPath, ledger);
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'loop: seed ledger');
    const seeded = head(r.dir);
    const restore = await cli('run', await r.runArgs('--leg', `api=${api.dir}`, '--json'));
    expect(restore.code, restore.stdout).toBe(2);
    expect(restore.stdout).toContain('ledger.check.home-base');
    expect(head(r.dir)).toBe(seeded);
    expect(r.ledger()).toBe(ledger);
    expect(r.status()).toBe('');
    expect(api.subjects()).toEqual([]);
  });
});

describe('a single-leg ledger from before coordinated legs', () => {
  it('round-trips byte for byte and runs unchanged: repo home, no leg lines, no leg task', async () => {
    const r = home(
      [
        '# Test feature',
        '',
        '## Acceptance criteria',
        '',
        '- [ ] The first row',
        '- [ ] The second row',
        '',
      ].join('\n'),
      {
        version: 1,
        targets: {
          '2': [{ do: 'done', evidence: 'check two; passes' }],
        },
      },
    );
    const base = head(r.dir);
    // Written by hand in the format of before issue 13 (docs/ledger-format.md §1.1): the seed is
    // admitted, row 1 closed on the baseline, row 2 open.
    const skeleton = [
      '# Loop ledger',
      '',
      `**Spec:** ${r.specPath}`,
      `base: ${base}`,
      'verification: true',
      'checks: commands',
      'iterations: 0',
      'allowance: 4',
      '',
      '| row | status | attempts | evidence |',
      '|---|---|---|---|',
      '| 1 | open | 0 |  |',
      '| 2 | open | 0 |  |',
      '',
      '## Decisions',
      '',
    ].join('\n');
    r.write(r.ledgerPath, skeleton);
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'loop: seed ledger');
    const seededAt = head(r.dir);
    const seeded = skeleton
      .replace('iterations: 0', 'iterations: 1')
      .replace('| 1 | open | 0 |  |', '| 1 | done | 0 | check one; passes on the baseline |')
      .replace('| 2 | open | 0 |  |', '| 2 | open | 0 | check two; 1 failing |')
      .concat('row 0 done | seeded 2 rows, closed 1 on baseline | row 2\n');
    r.write(r.ledgerPath, seeded);
    r.git('add', '-A');
    r.git(
      'commit',
      '-q',
      '-m',
      'loop: seed evidence',
      '-m',
      `pending: seed | home | ${seededAt}\niteration: 1`,
    );
    const seedEvidence = head(r.dir);

    // Round trip: the parser and serializer keep every byte of the old ledger.
    const { parseLedger, serializeLedger } = await import('../../src/gauntlet/ledger.js');
    const parsed = parseLedger(seeded);
    expect(parsed.findings).toEqual([]);
    expect(serializeLedger(parsed.ledger as NonNullable<typeof parsed.ledger>)).toBe(seeded);

    const out = await cli('run', await r.runArgs());
    expect(out.code).toBe(0);
    expect(r.subjects()).toEqual(['loop: seed ledger', 'loop: seed evidence', 'loop: row 2 done']);
    const ledger = r.ledger();
    expect(ledger).not.toMatch(/^base \S+:/m);
    expect(ledger).not.toMatch(/^seeded /m);
    expect(ledger).not.toContain('## Leg mapping');
    expect(bodiesOf(r.git, 'loop: row 2 done')[0]).toMatch(
      new RegExp(`^pending: 2 \\| home \\| ${seedEvidence}\\niteration: 2`),
    );
    // Everything but the row the run closed is the old ledger's bytes.
    expect(ledger).toBe(
      seeded
        .replace('iterations: 1', 'iterations: 2')
        .replace('| 2 | open | 0 | check two; 1 failing |', '| 2 | done | 1 | check two; passes |')
        .concat(
          ledger
            .split('\n')
            .filter((l) => l.startsWith('row 2 done'))
            .join('\n'),
          '\n',
        ),
    );
  });
});
