/**
 * How the history replay reads single commits (gauntlet-protocol §2, §3.8, §3.11, §3.12, §3.14,
 * §3.18, §3.19): the evidence of a repair, the paths a child changed, the decision lines a commit
 * added, which subjects reject, answer or open windows. Every expectation is written from the
 * protocol text; commit lists are built by hand where the run builder cannot express the case
 * (a commit right after the ledger base, an unreadable ledger, a non-append ledger edit).
 */
import { describe, expect, it } from 'vitest';
import { type CommitLedgerFacts, historyFromCommits, rowHistoryOf } from '../../src/gauntlet/history.js';
import type { CommitFact, Ledger, LedgerRow } from '../../src/gauntlet/types.js';
import {
  LEDGER_PATH,
  ledgerOf,
  nextSha,
  type RunBuilder,
  SOURCE_PATH,
  seededRun,
  withRow,
} from './rules-fixtures.js';

/** A commit built by hand: subject, the ledger it left (or `null`: unreadable), body and paths. */
function commit(
  subject: string,
  ledger: Ledger | null,
  options: { readonly body?: string; readonly paths?: readonly string[] } = {},
): CommitFact {
  return {
    sha: nextSha(),
    subject,
    body: options.body ?? '',
    paths: [...(options.paths ?? [LEDGER_PATH])],
    ledger,
  };
}

function rows(count: number, decisions: readonly string[] = []): Ledger {
  return ledgerOf({ rows: Array.from({ length: count }, () => ['open', 0] as const), decisions });
}

function historyOf(commits: readonly CommitFact[], ledger: Ledger, facts?: Map<string, CommitLedgerFacts>) {
  return historyFromCommits(commits, { ledger, ledgerPath: LEDGER_PATH, ...(facts ? { facts } : {}) });
}

/**
 * A parent `loop: repair row <n>` (§3.12, §3.14) whose evidence cell and body reason line are given
 * verbatim; with `child`, the rejected child commit of the dispatch comes first.
 */
function repairRow(run: RunBuilder, row: number, evidence: string, reason: string, child = true): string {
  const i = run.ledger.iterations;
  const body = `pending: ${row} | home | ${run.head()}\niteration: ${i + 1}`;
  if (child)
    run.commit(`loop: row ${row} done`, body, [LEDGER_PATH, SOURCE_PATH], {
      ...run.ledger,
      iterations: i + 1,
    });
  const cells = run.ledger.rows.find((r) => r.row === row) as LedgerRow;
  run.ledger = withRow({ ...run.ledger, iterations: i + 1 }, row, {
    status: 'failed',
    attempts: cells.attempts + 1,
    evidence,
  });
  return run.commit(`loop: repair row ${row}`, `${body}\n${reason}`, [LEDGER_PATH]);
}

const SEED_LINE = 'row 0 done | seeded 2 rows, closed 0 on baseline | row 1';

describe('a repair row commit: its evidence decides, the body is the fallback (§3.12, §3.14)', () => {
  it('reads the concrete miss from the evidence even when the body names another one', () => {
    const run = seededRun(2);
    // Iteration 12: a two-digit count.
    run.ledger = { ...run.ledger, iterations: 12 };
    repairRow(run, 2, 'iteration 12: decision cell has 201 characters', 'miss: the body says something else');
    expect(rowHistoryOf(run.history(), 2)).toMatchObject({
      validationMissStreak: 1,
      lastConcreteMiss: 'decision cell has 201 characters',
    });
  });

  it('the concrete miss is the text after `iteration <i>: `, without the spaces before it', () => {
    const run = seededRun(2);
    repairRow(run, 1, 'iteration 1:    evidence has 4 result lines', 'miss: evidence has 4 result lines');
    expect(rowHistoryOf(run.history(), 1).lastConcreteMiss).toBe('evidence has 4 result lines');
  });

  it('a miss whose text merely contains `interrupted - ` is still a miss', () => {
    const run = seededRun(2);
    repairRow(
      run,
      2,
      'iteration 1: decision says interrupted - retry later',
      'miss: decision says interrupted - retry later',
    );
    expect(rowHistoryOf(run.history(), 2)).toMatchObject({
      validationMissStreak: 1,
      lastConcreteMiss: 'decision says interrupted - retry later',
    });
  });

  it('evidence not of the form `iteration <i>: …` at its start leaves the decision to the body', () => {
    const run = seededRun(2);
    repairRow(run, 2, 'smoke for iteration 3: passes', 'interrupted: killed after silence', false);
    expect(rowHistoryOf(run.history(), 2)).toMatchObject({ validationMissStreak: 0, lastConcreteMiss: null });
  });

  it('without a readable ledger an `interrupted:` body line makes it an interrupted repair', () => {
    const run = seededRun(2);
    const i = run.ledger.iterations;
    const sha = run.commit(
      'loop: repair row 2',
      `pending: 2 | home | ${run.head()}\niteration: ${i + 1}\ninterrupted: dirty tree`,
      [LEDGER_PATH],
      null,
    );
    const facts = new Map<string, CommitLedgerFacts>();
    const history = historyOf(run.commits, run.ledger, facts);
    expect(rowHistoryOf(history, 2).validationMissStreak).toBe(0);
    expect(facts.get(sha)?.repair).toEqual({ kind: 'interrupted' });
  });
});

describe('which paths are the ledger (§3.8 "changed no file outside the ledger")', () => {
  function twoLedgerOnlyReturns(paths: readonly string[]): number {
    const run = seededRun(3).child(2, 'failed');
    run.child(2, 'failed', { paths }).child(2, 'failed', { paths });
    return rowHistoryOf(run.history(), 2).emptyChildStreak;
  }

  it('a ledger path written with backslashes is the ledger', () => {
    expect(twoLedgerOnlyReturns([LEDGER_PATH.replaceAll('/', '\\')])).toBe(2);
  });

  it('a ledger path with leading `./` segments is the ledger', () => {
    expect(twoLedgerOnlyReturns([`././${LEDGER_PATH}`])).toBe(2);
  });

  it('a path that only differs from the ledger by a `./` inside it is another file', () => {
    // `doc/plan./s/…` is a file under a directory `plan.`, not the ledger under `plans`.
    const other = LEDGER_PATH.replace('doc/plans/', 'doc/plan./s/');
    expect(twoLedgerOnlyReturns([LEDGER_PATH, other])).toBe(0);
  });

  it('a ledger that lost a row changed a row status: progress', () => {
    const run = seededRun(3)
      .child(2, 'failed')
      .child(2, 'failed', { paths: [LEDGER_PATH] });
    const fewer = { ...run.ledger, rows: run.ledger.rows.filter((r) => r.row !== 3) };
    run.commit('loop: row 2 failed', '', [LEDGER_PATH], fewer);
    expect(rowHistoryOf(run.history(), 2).emptyChildStreak).toBe(0);
  });
});

describe('the decision lines a commit added (counted as a multiset)', () => {
  const OLD = 'row 2 failed | first attempt | next step';
  const NEW = 'row 2 failed | second attempt | next step';
  const STRAY = 'row 9 done | stray line | nothing';

  function previousDecision(before: readonly string[], after: readonly string[]): string | null {
    const base = rows(2);
    const commits = [
      commit('loop: seed ledger', base),
      commit('loop: row 2 failed', { ...base, decisions: [...before] }),
      commit('loop: row 2 failed', { ...base, decisions: [...after] }),
    ];
    return historyOf(commits, { ...base, decisions: [...after] }).previousDecision;
  }

  it('finds the new line when the earlier ledger is not a prefix (a line was dropped)', () => {
    expect(previousDecision([OLD, STRAY], [OLD, NEW])).toBe(NEW);
  });

  it('finds the new line when the first lines differ', () => {
    expect(previousDecision([STRAY], [NEW])).toBe(NEW);
  });

  it('a line written once more than before counts as added once', () => {
    expect(previousDecision([STRAY, OLD], [OLD, OLD])).toBe(OLD);
  });

  it('reads past an unreadable ledger: the new line is the target’s, not an older row’s', () => {
    const base = rows(3, [SEED_LINE]);
    const row3 = 'row 3 done | closed on its own | nothing';
    const row2 = 'row 2 failed | still red | next step';
    const commits = [
      commit('loop: seed ledger', base),
      commit('loop: row 3 done', null),
      commit('loop: row 2 failed', { ...base, decisions: [SEED_LINE, row3, row2] }),
    ];
    expect(historyOf(commits, { ...base, decisions: [SEED_LINE, row3, row2] }).previousDecision).toBe(row2);
  });

  it('a seed commit’s decision is its seed line, not another line it appears to add', () => {
    const raise = 'rows +2 | two more seed tries';
    const base = rows(2);
    const now = { ...base, decisions: [raise, SEED_LINE] };
    const commits = [
      commit('loop: seed ledger', base),
      // The raise's ledger could not be read: the seed commit seems to add both lines.
      commit('loop: raise allowance', null),
      commit('loop: seed evidence', now),
    ];
    const history = historyOf(commits, now);
    expect(history.previousDecision).toBe(SEED_LINE);
    expect(history.seedSurvival).toEqual({ sha: commits[2]?.sha, decision: SEED_LINE });
  });
});

describe('commits right after the ledger base', () => {
  it('a child commit first on the branch is rejected by the miss repair after it', () => {
    const base = rows(2);
    const child = commit('loop: row 2 done', { ...base, decisions: ['row 2 done | looks done | nothing'] });
    const repair = commit(
      'loop: repair row 2',
      withRow(base, 2, { status: 'failed', attempts: 1, evidence: 'iteration 0: no evidence' }),
      {
        body: `pending: 2 | home | ${'b'.repeat(40)}\niteration: 1\nmiss: no evidence`,
      },
    );
    const history = historyOf([child, repair], repair.ledger as Ledger);
    expect(history.latestAdmission).toBeNull();
    expect(history.previousDecision).toBeNull();
  });

  it('the first commit’s decision is the previous decision', () => {
    const line = 'row 1 failed | one failing test | next step';
    const ledger = {
      ...withRow(rows(1), 1, { status: 'failed', attempts: 1, evidence: 'npm test; 1 failing' }),
      decisions: [line],
    };
    expect(historyOf([commit('loop: row 1 failed', ledger)], ledger).previousDecision).toBe(line);
  });

  it('a seed commit first on the branch survives', () => {
    const ledger = { ...rows(2), decisions: [SEED_LINE] };
    const seed = commit('loop: seed evidence', ledger);
    expect(historyOf([seed], ledger).seedSurvival).toEqual({ sha: seed.sha, decision: SEED_LINE });
  });

  it('a retry first on the branch opens its row’s window', () => {
    const retry = 'row 1 retry | use the fixture | allowed attempts 6';
    const ledger = { ...rows(2), decisions: [retry] };
    const first = commit('loop: retry row 1', ledger);
    const history = historyOf(
      [first, commit('loop: row 2 failed', ledger, { paths: [LEDGER_PATH, SOURCE_PATH] })],
      ledger,
    );
    expect(rowHistoryOf(history, 1).windowStart).toEqual({ sha: first.sha, subject: 'loop: retry row 1' });
    expect(rowHistoryOf(history, 2).windowStart).toBeNull();
  });
});

describe('only a validation-miss repair rejects, only a seed commit seeds', () => {
  it('an amendment whose body quotes a seed miss neither rejects the return before it nor counts as a seed repair', () => {
    const base = rows(2);
    const failed = {
      ...withRow(base, 2, { status: 'failed', attempts: 1, evidence: 'npm test; 1 failing' }),
      decisions: ['row 2 failed | one failing | next'],
    };
    const child = commit('loop: row 2 failed', failed, { paths: [LEDGER_PATH, SOURCE_PATH] });
    const amend = commit('loop: amend', failed, {
      body: 'answers the stop\nseed miss: fabricated counts\nclarified row 2',
      paths: [LEDGER_PATH, 'doc/specs/2026-11-02-csv-export.md'],
    });
    const history = historyOf([child, amend], failed);
    expect(history.latestAdmission).toMatchObject({
      row: 2,
      sha: child.sha,
      status: 'failed',
      answeredBy: { sha: amend.sha, subject: 'loop: amend' },
    });
    expect(history.seedRepairCount).toBe(0);
    expect(history.lastSeedRepairReason).toBeNull();
  });

  it('a miss repair whose tuple was dispatched on top of a return does not reject that return', () => {
    const run = seededRun(2).child(2, 'failed', { summary: 'csv header missing' });
    const admitted = run.head();
    // The next dispatch's child committed under a wrong subject; the parent repairs that dispatch.
    run.commit('wip: csv header', `pending: 2 | home | ${admitted}\niteration: 3`, [
      LEDGER_PATH,
      SOURCE_PATH,
    ]);
    const cells = run.ledger.rows.find((r) => r.row === 2) as LedgerRow;
    run.ledger = withRow({ ...run.ledger, iterations: 3 }, 2, {
      status: 'failed',
      attempts: cells.attempts + 1,
      evidence: 'iteration 2: subject is not loop: row 2 <status>',
    });
    run.commit(
      'loop: repair row 2',
      `pending: 2 | home | ${admitted}\niteration: 3\nmiss: subject is not loop: row 2 <status>`,
      [LEDGER_PATH],
    );
    const history = run.history();
    expect(history.latestAdmission).toMatchObject({ row: 2, sha: admitted, status: 'failed' });
    expect(rowHistoryOf(history, 2).validationMissStreak).toBe(1);
  });

  it('a seed line another commit wrote does not make the seed survive', () => {
    const base = rows(2);
    const now = { ...base, decisions: [SEED_LINE] };
    const history = historyOf([commit('loop: seed ledger', base), commit('loop: amend', now)], now);
    expect(history.seedSurvival).toBeNull();
  });
});

describe('companion records (§3.20, legs L10/L12)', () => {
  /**
   * A home return of row 2 (admitted), the home record of the api companion's seed
   * (`loop: record api row 0`, L10), then a miss on api row 3 whose child committed in the api
   * checkout: home holds only the parent's repair, with the api tuple.
   */
  function companionSeedAfterHomeReturn() {
    const line = 'row 2 failed | csv header missing | next step';
    const apiSeed = 'row 0 done | seeded 1 rows, closed 0 on baseline | row 3';
    const base = rows(3, [SEED_LINE]);
    const admitted = {
      ...withRow(base, 2, { status: 'failed', attempts: 1, evidence: 'npm test; 1 failing' }),
      decisions: [SEED_LINE, line],
    };
    const recorded = {
      ...withRow(admitted, 3, { evidence: 'npm test @ api c0ffee012345; 2 failing' }),
      decisions: [SEED_LINE, line, apiSeed],
    };
    const child = commit('loop: row 2 failed', admitted, { paths: [LEDGER_PATH, SOURCE_PATH] });
    const record = commit('loop: record api row 0', recorded);
    const repaired = withRow(recorded, 3, {
      status: 'failed',
      attempts: 1,
      evidence: 'iteration 3: no decision for row 3',
    });
    const repair = commit('loop: repair row 3', repaired, {
      body: `pending: 3 | api | ${'d'.repeat(40)}\niteration: 4\nmiss: no decision for row 3`,
    });
    return {
      commits: [commit('loop: seed ledger', base), child, record],
      child,
      record,
      repair,
      recorded,
      repaired,
      line,
      apiSeed,
    };
  }

  it('a companion seed record is a parent commit: the miss after it does not reject the home return before it', () => {
    const { commits, child, repair, repaired, line } = companionSeedAfterHomeReturn();
    const history = historyOf([...commits, repair], repaired);
    expect(history.latestAdmission).toMatchObject({
      row: 2,
      sha: child.sha,
      status: 'failed',
      decision: line,
    });
  });

  it('a companion seed record gives its seed line as the previous decision and is no row admission', () => {
    const { commits, child, recorded, apiSeed } = companionSeedAfterHomeReturn();
    const history = historyOf(commits, recorded);
    expect(history.previousDecision).toBe(apiSeed);
    expect(history.latestAdmission).toMatchObject({ row: 2, sha: child.sha });
  });

  it('a companion’s row return recorded at home is the latest admission and gives the previous decision', () => {
    const base = rows(2, [SEED_LINE]);
    const line = 'row 2 failed | api still red | next step';
    const recorded = {
      ...withRow(base, 2, {
        status: 'failed',
        attempts: 1,
        evidence: 'npm test @ api c0ffee012345; 1 failing',
      }),
      decisions: [SEED_LINE, line],
    };
    const record = commit('loop: record api row 2', recorded);
    const history = historyOf([commit('loop: seed ledger', base), record], recorded);
    expect(history.previousDecision).toBe(line);
    expect(history.latestAdmission).toMatchObject({
      row: 2,
      sha: record.sha,
      status: 'failed',
      decision: line,
    });
  });
});

describe('verification repairs and action spend from bodies (§3.18, §3.19)', () => {
  it('two markers of two dispatches from the same HEAD (iterations 5 and 6) count twice', () => {
    const run = seededRun(1).child(1, 'done');
    const head = run.head();
    for (const iteration of [5, 6])
      run.commit(
        'loop: repair verification',
        `pending: verify | home | ${head}\niteration: ${iteration}\nverification interrupted: killed after silence`,
        [LEDGER_PATH],
      );
    expect(run.history().verificationRepairs).toBe(2);
  });

  it('markers naming a row tuple are not matched to a verify dispatch: each counts', () => {
    const run = seededRun(2).child(1, 'done');
    const head = run.head();
    for (let n = 0; n < 2; n++)
      run.commit(
        'loop: repair verification',
        `pending: 2 | home | ${head}\niteration: 3\nverification interrupted: dirty tree`,
        [LEDGER_PATH],
      );
    expect(run.history().verificationRepairs).toBe(2);
  });

  it('spend comes from repair bodies, verification markers included, never from other commits’ bodies', () => {
    const run = seededRun(1).child(1, 'done');
    const head = run.head();
    run.commit(
      'loop: repair verification',
      `pending: verify | home | ${head}\niteration: 3\nverification interrupted: killed after silence\nran deploy (1 of 2)`,
      [LEDGER_PATH],
    );
    run.commit('chore: notes', 'ran capture (3 of 3)', [SOURCE_PATH]);
    expect(run.history().actionSpend.map((s) => [s.action, s.k, s.bound])).toEqual([['deploy', 1, 2]]);
  });
});
