/**
 * The entry region driven through the real machine by the scripted in-memory host
 * (gauntlet-protocol §3.1 entry steps 1-5 and §3.2 authorized restore): which configuration error
 * an unusable spec or an unavailable settings tool ends in, what a dirty tree before the first
 * dispatch shows, what the seed commit and the workspace read are handed for a coordinated run,
 * the error of a coordinated restore started without its checkouts, and the configuration error
 * of a restore whose ledger does not parse. Every expected value is written here from those texts.
 */
import { describe, expect, it } from 'vitest';
import { API_BASE, coordinatedLedgerText, HOME_BASE, legSpecText } from '../support/legs-fixtures.js';
import { SINGLE_LEG_LEDGER, SINGLE_LEG_SPEC, sha, startVerifyRun } from '../support/verify-host.js';

/** A fresh start: no ledger on disk yet. */
const FRESH = null as unknown as string;

describe('an unusable spec (§3.1 step 2: the spec is read in full at seed and restore)', () => {
  it('that cannot be read ends invalid with "cannot read the spec <path>" and no findings', async () => {
    const run = startVerifyRun({ ledgerText: SINGLE_LEG_LEDGER, specText: null, head: sha('1') });
    const end = await run.settled();
    expect(end.output).toEqual({
      status: 'invalid',
      message: 'cannot read the spec docs/specs/csv-export.md',
      findings: [],
    });
  });

  it('that reads but does not check ends invalid with "is not valid" and its findings', async () => {
    const run = startVerifyRun({
      ledgerText: SINGLE_LEG_LEDGER,
      specText: '# CSV export\n\nNo criteria yet.\n',
      head: sha('1'),
    });
    const end = await run.settled();
    expect(end.output).toMatchObject({
      status: 'invalid',
      message: 'the spec docs/specs/csv-export.md is not valid',
      findings: [{ code: 'spec.ac.missing' }],
    });
    expect(run.calls.map((c) => c.actor)).toEqual(['inspectWorkspace', 'resolveSettings']);
  });
});

describe('an unavailable settings tool at a fresh seed (§3.1 step 3)', () => {
  it('stops before dispatch with the protocol sentence and the tool error as its finding', async () => {
    const run = startVerifyRun({
      ledgerText: FRESH,
      specText: SINGLE_LEG_SPEC,
      head: sha('1'),
      actors: {
        resolveSettings: () => {
          throw new Error('gauntlet_setting exited 127');
        },
      },
    });
    const end = await run.settled();
    expect(end.output).toEqual({
      status: 'invalid',
      message: 'cannot resolve escalation threshold: settings tool unavailable (loopEngine.escalateAfter)',
      findings: [{ code: 'settings.unavailable', line: 0, reason: 'gauntlet_setting exited 127' }],
    });
    expect(run.inputsOf('commitLedger')).toEqual([]);
  });
});

describe('a dirty tree before the first dispatch (fresh entry)', () => {
  const dirtyStart = (porcelain: string) =>
    startVerifyRun({
      ledgerText: FRESH,
      specText: SINGLE_LEG_SPEC,
      head: sha('1'),
      actors: {
        inspectWorkspace: () => ({
          head: sha('1'),
          porcelain,
          ledgerText: null,
          specText: SINGLE_LEG_SPEC,
          savedLedgerText: null,
        }),
      },
    });

  it('stops at the dirty-tree stop listing the dirt on one line, without seeding', async () => {
    const run = dirtyStart('?? notes.txt\n?? scratch/a.ts\n');
    const end = await run.settled();
    expect(end.value).toEqual({ humanStop: 'dirtyTree' });
    expect(end.context.stop).toEqual({ kind: 'dirty-start', detail: '?? notes.txt; ?? scratch/a.ts' });
    expect(run.inputsOf('commitLedger')).toEqual([]);
  });

  it('quotes each status line whole: an unstaged first change keeps its blank index column', async () => {
    // Porcelain v1 `XY PATH`: ` M` is changed in the worktree and not staged; `M ` would be staged.
    const run = dirtyStart(' M README.md\n?? notes.txt\n');
    const end = await run.settled();
    expect(end.context.stop).toEqual({ kind: 'dirty-start', detail: ' M README.md; ?? notes.txt' });
  });

  it('lists only the first ten lines of a longer status', async () => {
    const lines = Array.from({ length: 12 }, (_, i) => `?? f${i + 1}.txt`);
    const run = dirtyStart(`${lines.join('\n')}\n`);
    const end = await run.settled();
    expect(end.context.stop).toEqual({
      kind: 'dirty-start',
      detail:
        '?? f1.txt; ?? f2.txt; ?? f3.txt; ?? f4.txt; ?? f5.txt; ?? f6.txt; ?? f7.txt; ?? f8.txt; ?? f9.txt; ?? f10.txt',
    });
  });
});

describe('a coordinated fresh entry (§3.20, coordinated-legs Entry)', () => {
  it('reads the checkouts it was given and seeds each member on its checkout HEAD', async () => {
    const spec = legSpecText({
      criteria: ['Export writes a header row', 'The API serves the CSV'],
      legs: ['- web (home): 1', '- api: 2'],
    });
    const run = startVerifyRun({
      ledgerText: FRESH,
      specText: spec,
      head: sha('1'),
      legCheckouts: { web: '/checkouts/web', api: '/checkouts/api' },
      legHeads: { web: sha('1'), api: sha('a') },
      commitHeads: [sha('2')],
      actors: {
        refresh: () => {
          throw new Error('stop after the seed');
        },
      },
    });
    await run.settled();
    expect(run.inputsOf('inspectWorkspace')[0].legCheckouts).toEqual({
      web: '/checkouts/web',
      api: '/checkouts/api',
    });
    const [seed] = run.inputsOf('commitLedger');
    expect(seed.subject).toBe('loop: seed ledger');
    // docs/ledger-format.md 6.3: the seed commit has no body.
    expect(seed.body).toBe('');
    expect(seed.ledger.base).toBe(sha('1'));
    expect(seed.ledger.rows.map((r: { status: string }) => r.status)).toEqual(['open', 'open']);
    expect(seed.ledger.legs.members).toEqual([
      { name: 'web', base: sha('1'), seeded: false },
      { name: 'api', base: sha('a'), seeded: false },
    ]);
  });
});

describe('a coordinated restore started without the checkouts (§3.20: each leg has its checkout)', () => {
  it('ends in an error naming the companion and the missing `--leg` before any dispatch', async () => {
    // §1.8's mapping: web = home (rows 1-2, done), api (rows 3-4, open): the table dispatches row 3 in api.
    const ledger = coordinatedLedgerText({
      members: [
        { name: 'web', base: HOME_BASE, seeded: true },
        { name: 'api', base: API_BASE, seeded: true },
      ],
      rows: [
        '| 1 | done | 1 | npm test; header row written |',
        '| 2 | done | 1 | npm test; commas and quotes escaped |',
        '| 3 | open | 0 |  |',
        '| 4 | open | 0 |  |',
      ],
      decisions: [
        'row 1 done | header row written | take row 2',
        'row 2 done | web escapes quotes | take row 3',
      ],
    });
    const spec = legSpecText({
      criteria: ['Export writes a header row', 'Commas and quotes are escaped', 'The API serves the CSV'],
      legs: ['- web (home): 1, 2', '- api: 2, 3'],
    });
    const run = startVerifyRun({ ledgerText: ledger, specText: spec, head: sha('1') });
    await expect(run.settled()).rejects.toThrow(
      'the checkout of leg api was not read (no --leg api=<path>?)',
    );
    expect(run.inputsOf('reserveDispatch')).toEqual([]);
    expect(run.inputsOf('commitLedger')).toEqual([]);
  });
});

describe('a restore with a pending tuple whose before-image does not parse (§3.2, pending recovery)', () => {
  it('ends invalid: the dispatch cannot be recovered automatically, nothing is reset or committed', async () => {
    // The reserved ledger on disk (bumped iterations, the tuple); the copy saved at HEAD_BEFORE is unreadable.
    const reserved = SINGLE_LEG_LEDGER.replace(
      'allowance: 4\n',
      `allowance: 4\npending: 2 | home | ${sha('1')}\n`,
    ).replace('iterations: 2', 'iterations: 3');
    const run = startVerifyRun({
      ledgerText: reserved,
      specText: SINGLE_LEG_SPEC,
      head: sha('1'),
      actors: {
        inspectWorkspace: () => ({
          head: sha('1'),
          porcelain: '',
          ledgerText: reserved,
          specText: SINGLE_LEG_SPEC,
          savedLedgerText: '# Loop ledger\nnot a ledger\n',
        }),
      },
    });
    const end = await run.settled();
    expect(end.output).toEqual({
      status: 'invalid',
      message:
        'the ledger carries a pending tuple but the ledger at its HEAD cannot be read; the dispatch cannot be recovered automatically (docs/plans/csv-export.md)',
      findings: [],
    });
    expect(run.calls.map((c) => c.actor)).toEqual(['inspectWorkspace', 'resolveSettings']);
  });
});

describe('a restore of a ledger that does not parse (§3.2 authorized restore, §4 configuration errors)', () => {
  it('ends invalid naming the ledger and every parser finding, before any refresh, reset or commit', async () => {
    // Row 2's status is `finished`, not one of open, done, failed or cut: the file is no loop ledger.
    const unreadable = SINGLE_LEG_LEDGER.replace(
      '| 2 | done | 1 | npm test; commas and quotes escaped |',
      '| 2 | finished | 1 | npm test; commas and quotes escaped |',
    );
    const run = startVerifyRun({ ledgerText: unreadable, specText: SINGLE_LEG_SPEC, head: sha('1') });
    const end = await run.settled();
    expect(end.output).toEqual({
      status: 'invalid',
      message: 'the ledger docs/plans/csv-export.md does not parse',
      findings: [
        // The four row statuses of the ledger format (gauntlet-protocol §1), on row 2's line (12).
        {
          code: 'ledger.table.status',
          line: 12,
          reason: 'status "finished" is not one of open, done, failed, cut',
        },
      ],
    });
    // Only the two reads of entry ran: no refresh, no reset, no discard, no commit.
    expect(run.calls.map((c) => c.actor)).toEqual(['inspectWorkspace', 'resolveSettings']);
  });

  it('ends invalid even with a dirty tree: the dirt is left as it is, nothing is discarded', async () => {
    const unreadable = SINGLE_LEG_LEDGER.replace('| 1 | done | 1 |', '| 1 | finished | 1 |');
    const run = startVerifyRun({
      ledgerText: unreadable,
      specText: SINGLE_LEG_SPEC,
      head: sha('1'),
      actors: {
        inspectWorkspace: () => ({
          head: sha('1'),
          porcelain: ' M src/export.ts\n',
          ledgerText: unreadable,
          specText: SINGLE_LEG_SPEC,
          savedLedgerText: null,
        }),
      },
    });
    const end = await run.settled();
    expect(end.output).toMatchObject({
      status: 'invalid',
      message: 'the ledger docs/plans/csv-export.md does not parse',
    });
    expect(run.calls.map((c) => c.actor)).toEqual(['inspectWorkspace', 'resolveSettings']);
  });
  // §3.4's preconditions hold "including for seed and completed ledgers": the restore says what the
  // ordered table would (docs/decisions/rules.md 21, docs/human-stops.md), not only "does not parse".
  it('without its checks: line ends invalid with the checks: precondition sentence', async () => {
    const run = startVerifyRun({
      ledgerText: SINGLE_LEG_LEDGER.replace('checks: commands\n', ''),
      specText: SINGLE_LEG_SPEC,
      head: sha('1'),
    });
    const end = await run.settled();
    expect(end.output).toMatchObject({
      status: 'invalid',
      message: 'ledger has no checks: line - add `checks: commands` after the verification: header',
    });
    expect(run.calls.map((c) => c.actor)).toEqual(['inspectWorkspace', 'resolveSettings']);
  });

  it('with neither allowance: nor cap: ends invalid with the allowance: precondition sentence', async () => {
    const run = startVerifyRun({
      ledgerText: SINGLE_LEG_LEDGER.replace('allowance: 4\n', ''),
      specText: SINGLE_LEG_SPEC,
      head: sha('1'),
    });
    const end = await run.settled();
    expect(end.output).toMatchObject({
      status: 'invalid',
      message: 'ledger has no allowance: line - resume through /skill:gauntlet-resume',
    });
    expect(run.calls.map((c) => c.actor)).toEqual(['inspectWorkspace', 'resolveSettings']);
  });
});
