/**
 * The public entry points of the history replay: the shape checks of historyFromCommits and
 * historyFromLog (each bad input named, never a crash), the ledger reads historyFromLog asks for
 * (at most once per commit, none for commits that settle nothing), and repairActionRecords
 * (§3.19 rule 4: the records of `loop: repair …` bodies only).
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import {
  type HistoryOptions,
  historyFromCommits,
  historyFromLog,
  repairActionRecords,
  rowHistoryOf,
} from '../../src/gauntlet/history.js';
import type { CommitFact, Ledger } from '../../src/gauntlet/types.js';
import { LEDGER_PATH, ledgerOf, seededRun } from './rules-fixtures.js';

const LEDGER = ledgerOf({ rows: [['open', 0]] });
const GOOD: CommitFact = {
  sha: 'a'.repeat(40),
  subject: 'loop: seed ledger',
  body: '',
  paths: [LEDGER_PATH],
  ledger: LEDGER,
};

function errorOf(run: () => unknown): InputError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).code).toBe('history.input');
    return error as InputError;
  }
  throw new Error('expected an InputError, nothing was thrown');
}

const OPTIONS_MESSAGE = 'options.ledger must be the ledger as it is on disk now';
const PATH_MESSAGE = 'options.ledgerPath must be the repo-relative ledger path';

describe('historyFromCommits names bad options', () => {
  it.each<[string, unknown, string]>([
    ['no options', undefined, OPTIONS_MESSAGE],
    ['null options', null, OPTIONS_MESSAGE],
    ['a ledger that is text', { ledger: '# Loop ledger', ledgerPath: LEDGER_PATH }, OPTIONS_MESSAGE],
    ['a ledger path that is a number', { ledger: LEDGER, ledgerPath: 7 }, PATH_MESSAGE],
    ['a blank ledger path', { ledger: LEDGER, ledgerPath: '   ' }, PATH_MESSAGE],
  ])('%s', (_name, options, message) => {
    expect(errorOf(() => historyFromCommits([], options as HistoryOptions)).message).toBe(message);
  });

  it('commits that are not an array', () => {
    expect(
      errorOf(() => historyFromCommits({} as never, { ledger: LEDGER, ledgerPath: LEDGER_PATH })).message,
    ).toBe('commits must be an array of commit facts, oldest first');
  });
});

/** Commit 2 of each list is malformed in one way; commit 1 is fine. */
const BAD_SECOND: [string, unknown][] = [
  ['null', null],
  ['undefined', undefined],
  ['a subject string', 'loop: amend'],
  ['no sha', { subject: 'loop: amend', body: '', paths: [] }],
  ['no subject', { sha: 'b'.repeat(40), body: '', paths: [] }],
  ['no body', { sha: 'b'.repeat(40), subject: 'loop: amend', paths: [] }],
  ['no paths', { sha: 'b'.repeat(40), subject: 'loop: amend', body: '' }],
];

describe('commit shape checks name the bad commit by its 1-based position', () => {
  it.each(BAD_SECOND)('historyFromCommits: %s', (_name, bad) => {
    const error = errorOf(() =>
      historyFromCommits([GOOD, bad] as CommitFact[], { ledger: LEDGER, ledgerPath: LEDGER_PATH }),
    );
    expect(error.message).toBe('commit 2 is not a commit fact (sha, subject, body, paths, ledger)');
  });

  it.each(BAD_SECOND)('historyFromLog: %s', async (_name, bad) => {
    const pending = historyFromLog(
      [GOOD, bad] as CommitFact[],
      { ledger: LEDGER, ledgerPath: LEDGER_PATH },
      () => Promise.resolve(LEDGER),
    );
    await expect(pending).rejects.toBeInstanceOf(InputError);
    await expect(pending).rejects.toThrow(/^commit 2 is not a commit \(sha, subject, body, paths\)$/);
  });
});

describe('historyFromLog asks for ledgers lazily', () => {
  /**
   * seed ledger (0), seed evidence (1), a miss on row 1 (rejected child 2, repair 3), a raise (4),
   * an admitted return of row 1 (5), another miss on row 1 (rejected child 6, repair 7).
   */
  function run() {
    return seededRun(1).miss(1, 'old miss').raise(1, 'one more').child(1, 'failed').miss(1, 'new miss');
  }

  async function replayLogged(): Promise<{
    asked: number[];
    history: Awaited<ReturnType<typeof historyFromLog>>;
  }> {
    const r = run();
    const asked: number[] = [];
    const history = await historyFromLog(
      r.commits,
      { ledger: r.ledger, ledgerPath: LEDGER_PATH },
      (index) => {
        asked.push(index);
        return Promise.resolve((r.commits[index] as CommitFact).ledger as Ledger | null);
      },
    );
    return { asked, history };
  }

  it('asks for each commit’s ledger at most once', async () => {
    const { asked, history } = await replayLogged();
    expect(asked.length).toBe(new Set(asked).size);
    expect(rowHistoryOf(history, 1)).toMatchObject({ validationMissStreak: 1, lastConcreteMiss: 'new miss' });
  });

  it('never reads the ledger of a miss that an admitted return of the row already settled', async () => {
    const { asked, history } = await replayLogged();
    // The old repair (3) lies before the admitted return (5): it can change no counter.
    expect(asked).not.toContain(3);
    expect(history.latestAdmission?.row).toBe(1);
  });
});

describe('repairActionRecords (§3.19 rule 4)', () => {
  it('returns the records of repair bodies only, oldest first, duplicates included', () => {
    const records = repairActionRecords([
      { subject: 'loop: row 1 done', body: 'pending: 1 | home | x\niteration: 1\nran capture (1 of 2)' },
      { subject: 'loop: repair row 1', body: 'interrupted: dirty tree\nran capture (1 of 2)' },
      { subject: 'loop: repair seed', body: 'seed interrupted: killed after silence\nran deploy (1 of 1)' },
      { subject: 'loop: amend', body: 'ran deploy (2 of 2)' },
      {
        subject: 'loop: repair verification',
        body: 'verification interrupted: non-DONE\nran capture (2 of 2)',
      },
      { subject: 'loop: repair row 1', body: 'miss: evidence dropped a record\nran capture (1 of 2)' },
    ]);
    const ran = (action: string, k: number, bound: number) => ({
      kind: 'ran',
      action,
      k,
      bound,
      text: `ran ${action} (${k} of ${bound})`,
    });
    expect(records).toEqual([
      ran('capture', 1, 2),
      ran('deploy', 1, 1),
      ran('capture', 2, 2),
      ran('capture', 1, 2),
    ]);
  });
});
