/**
 * The child tools on real repositories: a dispatch laid out on disk as the host lays it out (the
 * saved ledger committed, the reserved ledger and the task written), then `loopchart child …` run
 * against it. `child check` must name, before the commit, the same validation miss the loop
 * records for each of the scripted child's `miss` violations.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { childCommand } from '../../src/cli/child.js';
import { reportCommandFailure } from '../../src/cli/command-failure.js';
import { promptCommand } from '../../src/cli/prompt.js';
import { childTask, type DispatchPlan, planDispatch } from '../../src/gauntlet/dispatch.js';
import { serializeLedger } from '../../src/gauntlet/ledger.js';
import type { Ledger, Target } from '../../src/gauntlet/types.js';
import { recordsFromLines } from '../../src/host/carried-records.js';
import { type Behaviour, CONTRACT_VIOLATIONS, type ScriptedViolation } from '../../src/host/child-script.js';
import { scriptedCommit } from '../../src/host/scripted-return.js';
import { SPEND_RESERVATIONS_CONFIG } from '../../src/host/spend-reservations.js';
import { parseCliResult } from '../support/cli-result.js';
import {
  API_BASE,
  type CompanionCheckout,
  companionCheckout,
  coordinatedLedgerText,
  HOME_BASE,
  legSpecText,
  parsedLedger,
} from '../support/legs-fixtures.js';
import { GIT_TEST_ENV, specWith, useGitTestEnvironment } from '../support/loop-repo.js';
import { stringSinks } from '../support/string-sinks.js';

const BASE = 'b'.repeat(40);
const LEDGER = 'docs/plans/feature.md';
const SPEC = 'docs/specs/feature.md';
const cleanups: string[] = [];
beforeAll(() => useGitTestEnvironment());
afterEach(() => {
  for (const dir of cleanups.splice(0)) rmSync(dir, { recursive: true, force: true });
  delete process.env.LOOPCHART_TASK;
});

function ledger(rows: Ledger['rows'], decisions: string[] = []): Ledger {
  return {
    discriminant: '# Loop ledger',
    spec: SPEC,
    base: BASE,
    verification: 'true',
    checks: 'commands',
    iterations: 3,
    allowance: 4,
    pending: null,
    rows,
    decisions,
  };
}

const afterSeed = ledger(
  [
    { row: 1, status: 'failed', attempts: 1, evidence: 'check; 1 failing' },
    { row: 2, status: 'open', attempts: 0, evidence: 'check; not yet' },
    { row: 3, status: 'open', attempts: 0, evidence: 'check; not yet' },
  ],
  ['row 0 done | seeded 3 rows, closed 0 on baseline | row 1', 'row 1 failed | attempt 1 failed | retry'],
);
const beforeSeed = ledger([
  { row: 1, status: 'open', attempts: 0, evidence: '' },
  { row: 2, status: 'open', attempts: 0, evidence: '' },
  { row: 3, status: 'open', attempts: 0, evidence: '' },
]);

interface Dispatch {
  readonly dir: string;
  readonly plan: DispatchPlan;
  readonly task: ReturnType<typeof childTask>;
  git(...args: string[]): string;
  read(path: string): string;
}

/** A repository with `saved` committed and a dispatch of `target` reserved over it. */
function reserve(saved: Ledger, target: Target, carried: string[] = []): Dispatch {
  const dir = mkdtempSync(join(tmpdir(), 'loopchart-child-tools-'));
  const outside = mkdtempSync(join(tmpdir(), 'loopchart-child-task-'));
  cleanups.push(dir, outside);
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  };
  git('init', '-q', '-b', 'main');
  write(SPEC, specWith(['The first row', 'The second row', 'The third row']));
  write(LEDGER, serializeLedger(saved));
  git('add', '-A');
  git('commit', '-q', '-m', 'loop: seed ledger');
  const head = git('rev-parse', 'HEAD').trim();
  const plan = planDispatch({ ledger: saved, target, head });
  write(LEDGER, serializeLedger(plan.reserved));
  const task = childTask(
    plan,
    {
      worktree: dir,
      ledger: LEDGER,
      spec: SPEC,
      returnFile: join(outside, 'return.json'),
      jobsFile: join(outside, 'dispatch.jobs'),
    },
    { actionRecords: recordsFromLines(carried) },
  );
  const taskFile = join(outside, 'task.json');
  writeFileSync(taskFile, JSON.stringify(task));
  process.env.LOOPCHART_TASK = taskFile;
  return { dir, plan, task, git, read: (path) => readFileSync(join(dir, path), 'utf8') };
}

/** Runs `loopchart child …` in this process, reporting a failure as runCli does. */
async function child(
  ...args: string[]
): Promise<{ code: number; stdout: string; stderr: string; error: string | null }> {
  const { io, out } = stringSinks();
  let code: number;
  try {
    code = await childCommand.run(args, io);
  } catch (error) {
    code = reportCommandFailure(io, 'child', true, error);
  }
  let error: string | null = null;
  if (args.includes('--json')) {
    const result = parseCliResult(out.stdout);
    if (code !== 0) error = result.error.code;
  } else if (code !== 0) error = (JSON.parse(out.stdout) as { error: { code: string } }).error.code;
  return { code, ...out, error };
}

/** Writes what the scripted child would commit for `behaviour`, without committing it. */
function applyScripted(d: Dispatch, behaviour: Behaviour, spent: string[] = []) {
  const commit = scriptedCommit(
    d.plan.reserved,
    d.task,
    behaviour as Parameters<typeof scriptedCommit>[2],
    behaviour.do === 'miss' && behaviour.violation === 'dropped-spend' ? [] : spent,
  );
  if (commit.ledger !== null) writeFileSync(join(d.dir, LEDGER), serializeLedger(commit.ledger));
  for (const line of spent) writeFileSync(d.task.jobsFile, `${line}\n`, { flag: 'a' });
  return commit;
}

// The miss each violation is, as the loop's validation names it (docs/child-contract.md, §3.10).
const EXPECTED_MISS: Record<ScriptedViolation, string> = {
  'header-change': 'miss.header',
  'malformed-decision': 'miss.decision-malformed',
  'four-result-lines': 'miss.evidence',
  'keep-pending': 'miss.tuple-retained',
  'no-attempt': 'miss.target',
  'failed-extra': 'miss.extra',
  'missing-decision': 'miss.decision-missing',
  'wrong-subject': 'miss.subject',
  'removed-decision': 'miss.decisions',
  'seed-miscount': 'miss.seed-decision',
  'dropped-spend': 'miss.action-record-dropped',
};

describe('loopchart child check', () => {
  it('names each scripted miss before the commit, and the same miss once it is committed', async () => {
    const before: Record<string, string | null> = {};
    const after: Record<string, string | null> = {};
    for (const violation of CONTRACT_VIOLATIONS) {
      const seed = violation === 'seed-miscount';
      const d = reserve(seed ? beforeSeed : afterSeed, seed ? 'seed' : 1);
      const spent = violation === 'dropped-spend' ? ['ran capture (1 of 1)'] : [];
      const commit = applyScripted(d, { do: 'miss', violation, spend: spent }, spent);
      const checked = await child('check', '--json', '--subject', commit.subject, '--body', commit.body);
      before[violation] = checked.error;
      // Nothing was committed by the check.
      expect(d.git('rev-parse', 'HEAD').trim()).toBe(d.plan.pending.head);
      d.git('add', '-A');
      d.git('commit', '-q', '-m', commit.subject, '-m', commit.body);
      after[violation] = (await child('check', '--json')).error;
    }
    expect(before).toEqual(EXPECTED_MISS);
    expect(after).toEqual(EXPECTED_MISS);
  });

  it('says admitted for a conforming scripted return, and refuses to commit a miss', async () => {
    const d = reserve(afterSeed, 1);
    applyScripted(d, { do: 'done', evidence: 'check; 3 passed' });
    const ok = await child('check');
    expect(ok.code).toBe(0);
    expect(ok.stdout).toContain('admitted');
    writeFileSync(join(d.dir, LEDGER), serializeLedger(d.plan.reserved));
    applyScripted(d, { do: 'miss', violation: 'header-change' });
    const refused = await child('commit', '--json');
    expect(refused.error).toBe('miss.header');
    expect(d.git('rev-parse', 'HEAD').trim()).toBe(d.plan.pending.head);
  });

  it('names a commit that takes the ledger out of the tree as the loop does: a deleted ledger file', async () => {
    // The child untracks the ledger and ignores it: the file stays on disk, the tree is clean and
    // the one commit is attributed, but HEAD has no ledger. The loop reads that as
    // `the commit deletes the ledger file` (docs/decisions.md, issue 10 item 1).
    const d = reserve(afterSeed, 1);
    d.git('rm', '-q', '--cached', LEDGER);
    writeFileSync(join(d.dir, '.git', 'info', 'exclude'), `${LEDGER}\n`, { flag: 'a' });
    d.git('commit', '-q', '-m', 'loop: row 1 done', '-m', d.task.commitBody.join('\n'));
    expect(d.git('status', '--porcelain')).toBe('');
    const checked = await child('check', '--json');
    expect(checked.error).toBe('miss.ledger-unreadable');
    expect(parseCliResult(checked.stdout).error.message).toBe(
      'the loop would record a validation miss (miss.ledger-unreadable): the commit deletes the ledger file',
    );
  });
});

describe('the child tools', () => {
  it('record, spend, check, commit and return make a return the loop admits', async () => {
    const d = reserve(afterSeed, 1, ['ran capture (1 of 2)']);
    writeFileSync(join(d.dir, 'src.txt'), 'fixed\n');
    expect((await child('spend', 'reserve', 'capture', '--bound', '2')).stdout).toContain(
      'ran capture (2 of 2)',
    );
    expect((await child('spend', 'ran', 'capture', '--bound', '2')).code).toBe(0);
    expect((await child('spend', 'reserve', 'capture', '--bound', '2', '--json')).error).toBe('child.spend');
    expect((await child('return', 'DONE', '--json')).error).toBe('child.return');
    const recorded = await child(
      'record',
      '--status',
      'done',
      '--evidence',
      'npm test; 3 passed | 0 failed',
      '--summary',
      'fixed the parser',
      '--next',
      'take row 2',
      '--extra',
      '3=npm test; row 3 passes',
    );
    expect(recorded.code).toBe(0);
    const ledgerText = d.read(LEDGER);
    expect(ledgerText).not.toContain('pending:');
    expect(ledgerText).toContain('| 1 | done | 2 | npm test; 3 passed \\| 0 failed |');
    expect(ledgerText).toContain('| 3 | done | 0 | npm test; row 3 passes |');
    expect(ledgerText).toContain(
      'row 1 done | ran capture (1 of 2). ran capture (2 of 2). fixed the parser | take row 2',
    );
    expect(
      (
        await child(
          'record',
          '--status',
          'done',
          '--evidence',
          'a; b',
          '--summary',
          's',
          '--next',
          'n',
          '--json',
        )
      ).error,
    ).toBe('child.pending');
    expect((await child('check')).code).toBe(0);
    expect((await child('commit')).code).toBe(0);
    expect(d.git('log', '-1', '--format=%s%n%b').trim()).toBe(
      [
        'loop: row 1 done',
        `pending: 1 | home | ${d.plan.pending.head}`,
        'iteration: 4',
        'ran capture (1 of 2)',
        'ran capture (2 of 2)',
      ].join('\n'),
    );
    expect(d.git('status', '--porcelain')).toBe('');
    expect((await child('commit', '--json')).error).toBe('child.committed');
    expect((await child('check')).code).toBe(0);
    expect((await child('return', 'DONE')).code).toBe(0);
    expect(JSON.parse(readFileSync(d.task.returnFile, 'utf8'))).toEqual({ status: 'DONE' });
  });

  it('seeds, and refuses row tools on a seed and anything outside a dispatch', async () => {
    const d = reserve(beforeSeed, 'seed');
    expect(
      (
        await child(
          'record',
          '--status',
          'done',
          '--evidence',
          'a; b',
          '--summary',
          's',
          '--next',
          'n',
          '--json',
        )
      ).error,
    ).toBe('child.kind');
    const shown = await child('show');
    expect(shown.stdout).toContain('row 2: The second row [open, 0 attempts]');
    // Paths print as absolute, as the worktree does (docs/decisions/legs.md L23).
    expect((await child('show', '--field', 'ledger')).stdout).toBe(`${join(d.dir, LEDGER)}\n`);
    expect((await child('show', '--field', 'spec')).stdout).toBe(`${join(d.dir, SPEC)}\n`);
    const seeded = await child(
      'seed',
      '--evidence',
      '1=make test; 1 failing',
      '--evidence',
      '2=make test; passes',
      '--close',
      '2',
    );
    expect(seeded.stdout).toContain('row 0 done | seeded 2 rows, closed 1 on baseline | row 1');
    expect((await child('commit')).code).toBe(0);
    expect(d.git('log', '-1', '--format=%s').trim()).toBe('loop: seed evidence');
    delete process.env.LOOPCHART_TASK;
    expect((await child('show', '--json')).error).toBe('child.environment');
  });
});

describe('child spend reserve on a fleet clone (durable reservations, F11)', () => {
  /** A bare remote, and a dispatch whose repository reserves on it under `prefix`. */
  function fleetDispatch(remote: string, prefix: string): Dispatch {
    const d = reserve(afterSeed, 1);
    d.git('remote', 'add', 'origin', remote);
    d.git('config', SPEND_RESERVATIONS_CONFIG, prefix);
    return d;
  }
  function bareRemote(): string {
    const remote = mkdtempSync(join(tmpdir(), 'loopchart-spend-remote-'));
    cleanups.push(remote);
    execFileSync('git', ['init', '-q', '--bare', remote]);
    return remote;
  }
  const refsOf = (remote: string) =>
    execFileSync('git', ['for-each-ref', '--format=%(refname) %(contents:subject)'], {
      cwd: remote,
      encoding: 'utf8',
    }).trim();

  it('creates the reservation on the remote before the child may launch; a retried dispatch elsewhere is refused it and keeps the record', async () => {
    const remote = bareRemote();
    const first = fleetDispatch(remote, 'refs/loopchart-spend/run-a');
    const ok = await child('spend', 'reserve', 'capture', '--bound', '1', '--json');
    expect(ok.code).toBe(0);
    const refs = refsOf(remote).split('\n');
    expect(refs).toHaveLength(1);
    expect(refs[0]).toMatch(/^refs\/loopchart-spend\/run-a\/[0-9a-f]{32} ran capture \(1 of 1\)$/);
    expect(readFileSync(first.task.jobsFile, 'utf8')).toContain('ran capture (1 of 1)');

    // The same dispatch again on another worker: a fresh clone and jobs file, the same run.
    const retried = fleetDispatch(remote, 'refs/loopchart-spend/run-a');
    const refused = await child('spend', 'reserve', 'capture', '--bound', '1', '--json');
    expect(refused).toMatchObject({ code: 2, error: 'child.spend-reserved' });
    expect(readFileSync(retried.task.jobsFile, 'utf8')).toContain('ran capture (1 of 1)');
    // The record is carried as for any spend: `ran` after it is accepted.
    expect((await child('spend', 'ran', 'capture', '--bound', '1')).code).toBe(0);
    expect(refsOf(remote).split('\n')).toHaveLength(1);

    // Another run (another prefix) reserves its own spend.
    fleetDispatch(remote, 'refs/loopchart-spend/run-b');
    expect((await child('spend', 'reserve', 'capture', '--bound', '1')).code).toBe(0);
    expect(refsOf(remote).split('\n')).toHaveLength(2);
  });

  it('refuses the reservation, and records nothing, when the remote cannot be reached', async () => {
    const missing = join(mkdtempSync(join(tmpdir(), 'loopchart-spend-gone-')), 'no-such-remote.git');
    cleanups.push(dirname(missing));
    const d = fleetDispatch(missing, 'refs/loopchart-spend/run-c');
    const refused = await child('spend', 'reserve', 'capture', '--bound', '1', '--json');
    expect(refused).toMatchObject({ code: 2, error: 'child.spend-durable' });
    expect(existsSync(d.task.jobsFile) ? readFileSync(d.task.jobsFile, 'utf8') : '').not.toContain('capture');
  });
});

// A companion dispatch (docs/decisions/legs.md L21): §1.8's coordinated ledger, web (home) holds
// AC 1 and AC 2, api holds AC 2 (shared, ledger row 3) and AC 3 (ledger row 4).
const LEG_CRITERIA = ['The page lists items', 'The API serves items', 'The API pages items'];

interface CompanionDispatch {
  readonly home: string;
  readonly api: CompanionCheckout;
  readonly plan: DispatchPlan;
  readonly task: ReturnType<typeof childTask>;
  homeGit(...args: string[]): string;
  homeLedger(): string;
}

/**
 * Home with `savedText` committed and the reserved ledger on disk, api at its one commit, and the
 * task of a dispatch of `target` to `member` written (api: the companion; web: the home leg).
 */
function reserveCompanion(
  savedText: string,
  target: Target,
  member: 'api' | 'web' = 'api',
): CompanionDispatch {
  const home = mkdtempSync(join(tmpdir(), 'loopchart-child-home-'));
  const outside = mkdtempSync(join(tmpdir(), 'loopchart-child-task-'));
  const api = companionCheckout('api');
  cleanups.push(home, outside, api.dir);
  const homeGit = (...args: string[]) =>
    execFileSync('git', args, { cwd: home, env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
  const write = (path: string, text: string) => {
    mkdirSync(dirname(join(home, path)), { recursive: true });
    writeFileSync(join(home, path), text);
  };
  homeGit('init', '-q', '-b', 'main');
  write(SPEC, legSpecText({ criteria: LEG_CRITERIA, legs: ['- web (home): 1, 2', '- api: 2-3'] }));
  write(LEDGER, savedText);
  homeGit('add', '-A');
  homeGit('commit', '-q', '-m', 'loop: seed ledger');
  const companion = member === 'api';
  const homeHead = homeGit('rev-parse', 'HEAD').trim();
  const head = companion ? api.head() : homeHead;
  const plan = planDispatch({ ledger: parsedLedger(savedText), target, head, repo: member });
  write(LEDGER, serializeLedger(plan.reserved));
  const task = childTask(
    plan,
    {
      worktree: companion ? api.dir : home,
      ledger: LEDGER,
      spec: SPEC,
      returnFile: join(outside, 'return.json'),
      jobsFile: join(outside, 'dispatch.jobs'),
    },
    {
      leg: {
        member,
        companion,
        home,
        homeLedger: join(home, LEDGER),
        homeSpec: join(home, SPEC),
        ...(companion ? { homeHead } : {}),
      },
    },
  );
  const taskFile = join(outside, 'task.json');
  writeFileSync(taskFile, JSON.stringify(task));
  process.env.LOOPCHART_TASK = taskFile;
  return { home, api, plan, task, homeGit, homeLedger: () => readFileSync(join(home, LEDGER), 'utf8') };
}

const seededLegs = coordinatedLedgerText({
  spec: SPEC,
  members: [
    { name: 'web', base: HOME_BASE, seeded: true },
    { name: 'api', base: API_BASE, seeded: true },
  ],
  rows: [
    '| 1 | open | 0 | page check; 1 failing |',
    '| 2 | open | 0 | serve check; 1 failing |',
    '| 3 | open | 0 | serve check; 2 failing |',
    '| 4 | open | 0 | paging check; 1 failing |',
  ],
  decisions: ['row 0 done | seeded 2 rows, closed 0 on baseline | row 1'],
});

describe('the child tools on a companion dispatch (L21)', () => {
  it('show the leg rows with their criterion text; record, check, commit write the body lines, never the home ledger, and see a moved home HEAD', async () => {
    const d = reserveCompanion(seededLegs, 3);
    const reserved = d.homeLedger();
    const homeHead = d.homeGit('rev-parse', 'HEAD').trim();

    // Row 3 is AC 2 (shared with web's row 2), row 4 is AC 3; web's rows are not this leg's.
    const shown = await child('show');
    expect(shown.code).toBe(0);
    expect(shown.stdout).toContain(
      'row 3 (criterion 2): The API serves items [open, 0 attempts, evidence: serve check; 2 failing]',
    );
    expect(shown.stdout).toContain('row 4 (criterion 3): The API pages items [open, 0 attempts');
    expect(shown.stdout).not.toContain('row 1 ');
    expect(shown.stdout).not.toContain('row 2 ');
    expect((await child('show', '--field', 'open-rows')).stdout).toBe('3 4\n');
    // The child runs in api: the home ledger and spec are printed as absolute paths, as the
    // worktree is (docs/decisions/legs.md L23), never relative to a checkout it does not run in.
    expect((await child('show', '--field', 'ledger')).stdout).toBe(`${join(d.home, LEDGER)}\n`);
    expect((await child('show', '--field', 'spec')).stdout).toBe(`${join(d.home, SPEC)}\n`);
    expect((await child('show', '--field', 'worktree')).stdout).toBe(`${d.api.dir}\n`);
    expect(shown.stdout).toContain(`Ledger: ${join(d.home, LEDGER)} (edit it only through the tools)`);
    expect(shown.stdout).toContain(`Spec: ${join(d.home, SPEC)}\n`);

    writeFileSync(join(d.api.dir, 'serve.txt'), 'items\n');
    // Closing web's row 1 beside the target is a foreign-leg extra: check names the loop's miss.
    const foreign = await child(
      'record',
      '--status',
      'done',
      '--evidence',
      'serve check; passes in api',
      '--summary',
      'the endpoint serves items',
      '--next',
      'take row 4',
      '--extra',
      '1=page check; passes',
    );
    expect(foreign.code).toBe(0);
    expect(d.homeLedger()).toBe(reserved);
    const missed = await child('check', '--json');
    expect(missed.error).toBe('miss.extra');
    expect(missed.stdout).toContain('row 1 belongs to leg web, not api');

    // Recording again replaces the companion's recorded outcome.
    const recorded = await child(
      'record',
      '--status',
      'done',
      '--evidence',
      'serve check; passes in api',
      '--summary',
      'the endpoint serves items',
      '--next',
      'take row 4',
    );
    expect(recorded.code).toBe(0);
    expect(recorded.stdout).toContain('row 3 done | the endpoint serves items | take row 4');
    expect((await child('check')).stdout).toContain('admitted');

    // Someone commits in home during the api dispatch (the reserved ledger stays home's only
    // change): check gives the loop's verdict on a moved home HEAD (L11, L22), and commit refuses.
    const moveHome = () => {
      d.homeGit('commit', '-q', '--allow-empty', '-m', 'unrelated home work');
      return d.homeGit('rev-parse', 'HEAD').trim();
    };
    let moved = moveHome();
    const beforeCommit = await child('commit', '--json');
    expect(beforeCommit.error).toBe('return.unattributed');
    expect(beforeCommit.stdout).toContain(
      `home HEAD moved from ${homeHead} to ${moved} during the api dispatch`,
    );
    expect(d.api.head()).toBe(d.plan.pending.head);
    // Home back where the dispatch found it: the same return is committed.
    d.homeGit('reset', '-q', '--soft', homeHead);
    expect((await child('commit')).code).toBe(0);

    // docs/child-contract.md: one companion commit, rows then decisions after the two attribution lines.
    expect(d.api.git('log', '-1', '--format=%s%n%b').trim()).toBe(
      [
        'loop: row 3 done',
        `pending: 3 | api | ${d.plan.pending.head}`,
        'iteration: 3',
        '| 3 | done | 1 | serve check; passes in api |',
        'row 3 done | the endpoint serves items | take row 4',
      ].join('\n'),
    );
    expect(d.api.git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('serve.txt');
    expect(d.api.git('status', '--porcelain')).toBe('');
    // Home: HEAD unmoved, the reserved ledger untouched and its only change.
    expect(d.homeGit('rev-parse', 'HEAD').trim()).toBe(homeHead);
    expect(d.homeLedger()).toBe(reserved);
    expect(d.homeGit('status', '--porcelain')).toBe(` M ${LEDGER}\n`);
    expect((await child('check')).stdout).toContain('admitted');
    expect((await child('return', 'DONE')).code).toBe(0);
    // After the commit as well.
    moved = moveHome();
    const afterCommit = await child('check', '--json');
    expect(afterCommit.error).toBe('return.unattributed');
    expect(afterCommit.stdout).toContain(
      `home HEAD moved from ${homeHead} to ${moved} during the api dispatch`,
    );
  });

  it('seeds the leg in an empty companion commit, and checks home for changes', async () => {
    const d = reserveCompanion(
      coordinatedLedgerText({
        spec: SPEC,
        rows: [
          '| 1 | open | 0 | page check; 1 failing |',
          '| 2 | open | 0 | serve check; 1 failing |',
          '| 3 | open | 0 |  |',
          '| 4 | open | 0 |  |',
        ],
        decisions: ['row 0 done | seeded 2 rows, closed 0 on baseline | row 1'],
      }),
      'seed',
    );
    const reserved = d.homeLedger();
    expect((await child('show', '--field', 'open-rows')).stdout).toBe('3 4\n');
    const seeded = await child(
      'seed',
      '--evidence',
      '3=serve check; 2 failing',
      '--evidence',
      '4=paging check; passes',
      '--close',
      '4',
    );
    expect(seeded.code).toBe(0);
    expect(d.homeLedger()).toBe(reserved);
    // A change in home besides the reserved ledger: the loop could not attribute the return.
    writeFileSync(join(d.home, 'stray.txt'), 'not the child of api\n');
    expect((await child('check', '--json')).error).toBe('return.unattributed');
    rmSync(join(d.home, 'stray.txt'));
    expect((await child('commit')).code).toBe(0);
    expect(d.api.git('log', '-1', '--format=%s%n%b').trim()).toBe(
      [
        'loop: seed evidence',
        `pending: seed | api | ${d.plan.pending.head}`,
        'iteration: 3',
        '| 3 | open | 0 | serve check; 2 failing |',
        '| 4 | done | 0 | paging check; passes |',
        // The leg's own first open row (row 3; row 4 closed on the baseline), not the ledger's row 1.
        'row 0 done | seeded 2 rows, closed 1 on baseline | row 3',
      ].join('\n'),
    );
    expect(d.api.git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('');
    expect(d.homeLedger()).toBe(reserved);
    expect((await child('check')).stdout).toContain('admitted');
  });

  it("names the home leg's own first open row in its seed decision (L24)", async () => {
    const d = reserveCompanion(
      coordinatedLedgerText({
        spec: SPEC,
        members: [
          { name: 'web', base: HOME_BASE, seeded: false },
          { name: 'api', base: API_BASE, seeded: false },
        ],
        rows: ['| 1 | open | 0 |  |', '| 2 | open | 0 |  |', '| 3 | open | 0 |  |', '| 4 | open | 0 |  |'],
      }),
      'seed',
      'web',
    );
    // web holds rows 1 and 2 and closes both: no web row is left open (rows 3 and 4 are api's).
    const seeded = await child(
      'seed',
      '--evidence',
      '1=page check; passes',
      '--evidence',
      '2=serve check; passes',
      '--close',
      '1',
      '--close',
      '2',
    );
    expect(seeded.stdout).toContain('row 0 done | seeded 2 rows, closed 2 on baseline | none');
    expect(d.homeLedger()).toContain('seeded web: yes');
    expect((await child('check')).stdout).toContain('admitted');
  });

  it('commits a verification repair in the companion checkout only (L17)', async () => {
    const d = reserveCompanion(seededLegs, 'verify');
    const reserved = d.homeLedger();
    writeFileSync(join(d.api.dir, 'fix.txt'), 'fixed\n');
    expect((await child('check')).stdout).toContain('admitted');
    // A moved home HEAD stops a companion verification repair as it stops a row (L17).
    const homeHead = d.homeGit('rev-parse', 'HEAD').trim();
    d.homeGit('commit', '-q', '--allow-empty', '-m', 'unrelated home work');
    const moved = await child('check', '--json');
    expect(moved.error).toBe('return.unattributed');
    expect(moved.stdout).toContain('home HEAD moved during the api verification repair');
    d.homeGit('reset', '-q', '--soft', homeHead);
    expect((await child('commit')).code).toBe(0);
    expect(d.api.git('log', '-1', '--format=%s%n%b').trim()).toBe(
      ['loop: verification fix', `pending: verify | api | ${d.plan.pending.head}`, 'iteration: 3'].join('\n'),
    );
    expect(d.api.git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('fix.txt');
    expect(d.homeLedger()).toBe(reserved);
    expect(d.homeGit('status', '--porcelain')).toBe(` M ${LEDGER}\n`);
    expect((await child('return', 'DONE')).code).toBe(0);
  });

  it('prompt names the criterion text of a shared criterion in the companion and in the home leg', async () => {
    reserveCompanion(seededLegs, 3);
    const companionPrompt = await prompt();
    expect(companionPrompt).toContain(
      'Make row 3 (criterion 2 of the spec, leg api) hold ("The API serves items")',
    );
    expect(companionPrompt).toContain('row 4 (criterion 3): The API pages items');
    expect(companionPrompt).not.toContain('The page lists items');
    expect(companionPrompt).toContain('--summary "<what happened>" --next "<next step>"');
    expect(companionPrompt).toContain('the home ledger stays as it is');

    reserveCompanion(seededLegs, 2, 'web');
    const homePrompt = await prompt();
    expect(homePrompt).toContain(
      'Make row 2 (criterion 2 of the spec, leg web) hold ("The API serves items")',
    );
    expect(homePrompt).toContain('row 1 (criterion 1): The page lists items');
    expect(homePrompt).not.toContain('The API pages items');
    expect(homePrompt).toContain('Commit the code and the ledger together');
  });
});

/** Runs `loopchart prompt` for the task in LOOPCHART_TASK, in this process. */
async function prompt(): Promise<string> {
  const { io, out } = stringSinks();
  const code = await promptCommand.run(['--tool', 'loopchart'], io);
  expect(out.stderr).toBe('');
  expect(code).toBe(0);
  return out.stdout;
}
