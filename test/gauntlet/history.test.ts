import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { emptyLoopHistory, historyFromCommits, rowHistoryOf } from '../../src/gauntlet/history.js';
import type { CommitFact } from '../../src/gauntlet/types.js';
import { LEDGER_PATH, ledgerOf, RunBuilder, SOURCE_PATH, seededRun } from './rules-fixtures.js';

function openRows(count: number) {
  return ledgerOf({ rows: Array.from({ length: count }, () => ['open', 0] as const) });
}

describe('seed count and seed survival (§3.11, §3.6)', () => {
  it('counts every loop: repair seed since base and keeps the latest reason line', () => {
    const run = new RunBuilder(openRows(2))
      .seedMiss('decision counts 9 rows, 1 got evidence')
      .seedInterrupted('killed after silence');
    const history = run.history();
    expect(history.seedRepairCount).toBe(2);
    expect(history.lastSeedRepairReason).toBe('seed interrupted: killed after silence');
    expect(history.seedSurvival).toBeNull();
  });

  it('keeps the seed miss reason when the latest repair was a miss', () => {
    const history = new RunBuilder(openRows(1))
      .seedInterrupted('dirty tree')
      .seedMiss('row 1 marked failed')
      .history();
    expect(history.lastSeedRepairReason).toBe('seed miss: row 1 marked failed');
  });

  it('a validated seed whose row 0 decision is in the ledger now survives, independently of iterations', () => {
    const run = new RunBuilder(openRows(3)).seedInterrupted('non-DONE').seedInterrupted('non-DONE');
    run.seedEvidence({ 1: 'npm test; header row already exported', 2: 'npm test; 1 failing' }, [1], 'row 2');
    const history = run.history();
    expect(history.seedSurvival?.sha).toBe(run.commits.at(-1)?.sha);
    expect(history.seedSurvival?.decision).toBe('row 0 done | seeded 2 rows, closed 1 on baseline | row 2');
  });

  it('a rejected seed commit never survives, even though its child commit stays on the branch', () => {
    const history = new RunBuilder(openRows(2)).seedMiss('fabricated counts').history();
    expect(history.seedSurvival).toBeNull();
  });

  it('a seed whose decision is gone from the ledger on disk does not survive', () => {
    const run = seededRun(2);
    const ledger = { ...run.ledger, decisions: [] };
    const history = historyFromCommits(run.commits, { ledger, ledgerPath: LEDGER_PATH });
    expect(history.seedSurvival).toBeNull();
  });
});

describe('verification repairs (§3.18)', () => {
  it('counts each marker once and adds one for a pending verify tuple no marker names', () => {
    const run = seededRun(1).child(1, 'done').verificationRepair().verificationRepair();
    expect(run.history().verificationRepairs).toBe(2);
    run.pending('verify');
    expect(run.history().verificationRepairs).toBe(3);
  });

  it('does not count a pending verify tuple twice when a marker already names it (resume)', () => {
    const run = seededRun(1).child(1, 'done');
    const tuple = run.pending('verify');
    const body = `pending: verify | home | ${tuple.head}\niteration: ${run.ledger.iterations}\nverification interrupted: killed after silence`;
    run.commit('loop: repair verification', body, [LEDGER_PATH]);
    expect(run.history().verificationRepairs).toBe(1);
  });

  it('a marker repeated for the same dispatch counts once', () => {
    const run = seededRun(1).child(1, 'done').verificationRepair();
    const marker = run.commits.at(-1) as CommitFact;
    run.commit(marker.subject, marker.body, marker.paths);
    expect(run.history().verificationRepairs).toBe(1);
  });
});

describe('windows (§3.4 step 5, §3.8)', () => {
  it('a row’s window starts at the latest of its retry, any amend and any cut; raising the allowance never starts one', () => {
    const run = seededRun(5).child(3, 'failed').retry(3, 'try again');
    const retrySha = run.head();
    run.child(2, 'failed').retry(2, 'other row');
    expect(rowHistoryOf(run.history(), 3).windowStart?.sha).toBe(retrySha);
    run.raise(2);
    expect(rowHistoryOf(run.history(), 3).windowStart?.sha).toBe(retrySha);
    run.cut(5, 'deferred: ACME-412');
    const cutSha = run.head();
    expect(rowHistoryOf(run.history(), 3).windowStart?.sha).toBe(cutSha);
    expect(rowHistoryOf(run.history(), 1).windowStart?.sha).toBe(cutSha);
    run.amend();
    expect(rowHistoryOf(run.history(), 4).windowStart?.subject).toBe('loop: amend');
  });

  it('S1: two child commits for row 3 that changed only the ledger and no status make an empty streak of 2', () => {
    const run = seededRun(3).child(3, 'failed');
    run.child(3, 'failed', { paths: [LEDGER_PATH] }).child(3, 'failed', { paths: [LEDGER_PATH] });
    expect(rowHistoryOf(run.history(), 3).emptyChildStreak).toBe(2);
  });

  it('S11: parent repairs and other rows’ commits between them neither pair nor break (A10)', () => {
    const run = seededRun(3).child(3, 'failed');
    run.child(3, 'failed', { paths: [LEDGER_PATH] });
    run.interrupted(3, 'killed after silence');
    run.child(1, 'failed', { paths: [LEDGER_PATH] });
    run.child(3, 'failed', { paths: [LEDGER_PATH] });
    const history = run.history();
    expect(rowHistoryOf(history, 3).emptyChildStreak).toBe(2);
    expect(rowHistoryOf(history, 1).emptyChildStreak).toBe(0);
  });

  it('a commit that touches a file outside the ledger or changes a row status is progress', () => {
    const touched = seededRun(3).child(3, 'failed', { paths: [LEDGER_PATH] });
    touched.child(3, 'failed', { paths: [LEDGER_PATH, SOURCE_PATH] });
    expect(rowHistoryOf(touched.history(), 3).emptyChildStreak).toBe(0);

    // open -> failed is a status change.
    const status = seededRun(3).child(3, 'failed', { paths: [LEDGER_PATH] });
    expect(rowHistoryOf(status.history(), 3).emptyChildStreak).toBe(0);

    // An extra closed beside the target changed a row status: not empty.
    const extra = seededRun(3)
      .child(3, 'failed')
      .child(3, 'failed', { paths: [LEDGER_PATH] });
    extra.child(3, 'failed', { paths: [LEDGER_PATH], extras: [{ row: 2, evidence: 'npm test; passes' }] });
    expect(rowHistoryOf(extra.history(), 3).emptyChildStreak).toBe(0);
  });

  it('a decision alone is not progress', () => {
    const run = seededRun(2).child(2, 'failed');
    run.child(2, 'failed', { paths: [LEDGER_PATH], summary: 'promising new idea' });
    run.child(2, 'failed', { paths: [LEDGER_PATH], summary: 'another idea' });
    expect(rowHistoryOf(run.history(), 2).emptyChildStreak).toBe(2);
  });

  it('counts empty commits only inside the window', () => {
    const run = seededRun(3).child(3, 'failed');
    run
      .child(3, 'failed', { paths: [LEDGER_PATH] })
      .child(3, 'failed', { paths: [LEDGER_PATH] })
      .retry(3, 'again');
    run.child(3, 'failed', { paths: [LEDGER_PATH] });
    expect(rowHistoryOf(run.history(), 3).emptyChildStreak).toBe(1);
  });

  it('two consecutive validation misses on a row count 2 and keep the last concrete miss', () => {
    const run = seededRun(4)
      .miss(4, 'evidence has 4 result lines')
      .miss(4, 'decision middle cell has 201 characters');
    const row = rowHistoryOf(run.history(), 4);
    expect(row.validationMissStreak).toBe(2);
    expect(row.lastConcreteMiss).toBe('decision middle cell has 201 characters');
  });

  it('S7: miss, conforming return, miss leaves a count of 1', () => {
    const run = seededRun(4).miss(4, 'first miss').child(4, 'failed').miss(4, 'second miss');
    expect(rowHistoryOf(run.history(), 4).validationMissStreak).toBe(1);
  });

  it('A11: an interrupted repair neither counts nor resets the miss count', () => {
    const run = seededRun(2).miss(2, 'first miss').interrupted(2, 'dirty tree').miss(2, 'second miss');
    const row = rowHistoryOf(run.history(), 2);
    expect(row.validationMissStreak).toBe(2);
    expect(row.lastConcreteMiss).toBe('second miss');
  });

  it('misses on other rows do not count for this row, and a retry of the row restarts its count', () => {
    const run = seededRun(3).miss(1, 'row one miss').miss(2, 'row two miss').miss(1, 'row one again');
    expect(rowHistoryOf(run.history(), 1).validationMissStreak).toBe(2);
    expect(rowHistoryOf(run.history(), 2).validationMissStreak).toBe(1);
    run.retry(1, 'fix the decision format');
    expect(rowHistoryOf(run.history(), 1).validationMissStreak).toBe(0);
  });

  it('a validated seed resets the validation-miss count (§3.11)', () => {
    const run = new RunBuilder(openRows(2));
    // A miss on row 1 before the seed survived (an admitted amendment reopened the seed's work).
    run.miss(1, 'early miss');
    run.seedEvidence({ 2: 'npm test; 1 failing' });
    expect(rowHistoryOf(run.history(), 1).validationMissStreak).toBe(0);
  });
});

describe('previous decision (§1.5, §3.12)', () => {
  it('T5: is the target’s line of the latest admitted return, never an extra’s', () => {
    const run = seededRun(5).child(2, 'failed', {
      summary: 'csv header still missing',
      extras: [{ row: 5, evidence: 'npm test; passes' }],
    });
    expect(run.history().previousDecision).toBe('row 2 failed | csv header still missing | next step');
  });

  it('is none before any admission and after an ordinary validation-miss repair', () => {
    expect(seededRun(2).history().previousDecision).toBe(
      'row 0 done | seeded 2 rows, closed 0 on baseline | row 1',
    );
    expect(new RunBuilder(openRows(1)).history().previousDecision).toBeNull();
    const run = seededRun(2).child(1, 'failed').miss(2, 'missing decision');
    expect(run.history().previousDecision).toBeNull();
  });

  it('an interrupted repair leaves the previous admitted decision in place', () => {
    const run = seededRun(2).child(1, 'failed', { summary: 'one failing test' }).interrupted(2, 'non-DONE');
    expect(run.history().previousDecision).toBe('row 1 failed | one failing test | next step');
  });

  it('ignores retry, escalation and raise decisions', () => {
    const run = seededRun(2).child(1, 'failed', { summary: 'still red' }).escalate(1).retry(2, 'x').raise(1);
    expect(run.history().previousDecision).toBe('row 1 failed | still red | next step');
  });
});

describe('pending human retries (§6 A14)', () => {
  it('a retry is pending until its row is dispatched', () => {
    const run = seededRun(3).child(3, 'failed').retry(3, 'use the MinIO fixture', 5);
    expect(run.history().pendingRetries).toEqual([
      {
        row: 3,
        hint: 'use the MinIO fixture',
        decision: 'row 3 retry | use the MinIO fixture | allowed attempts 5',
        sha: run.head(),
      },
    ]);
    run.child(3, 'failed');
    expect(run.history().pendingRetries).toEqual([]);
  });

  it('an in-flight tuple for the row or a repair of the row consumes the retry; other rows do not', () => {
    const inFlight = seededRun(3).retry(3, 'hint');
    inFlight.pending(3);
    expect(inFlight.history().pendingRetries).toEqual([]);

    const repaired = seededRun(3).retry(3, 'hint').interrupted(3, 'dirty tree');
    expect(repaired.history().pendingRetries).toEqual([]);

    const other = seededRun(3).retry(3, 'hint').child(1, 'failed');
    expect(other.history().pendingRetries.map((r) => r.row)).toEqual([3]);
  });

  it('keeps one pending retry per row, oldest first, with the latest hint of each', () => {
    const run = seededRun(3).retry(2, 'first').retry(3, 'third row').retry(2, 'second thought');
    expect(run.history().pendingRetries.map((r) => [r.row, r.hint])).toEqual([
      [3, 'third row'],
      [2, 'second thought'],
    ]);
  });
});

describe('escalations, action spend and admissions', () => {
  it('lists rows whose escalated round is spent, from the ledger’s decisions', () => {
    const history = seededRun(3).escalate(3).escalate(1).history();
    expect(history.escalationsSpent).toEqual([1, 3]);
  });

  it('counts the highest k per action across decisions, evidence and repair bodies; copies once', () => {
    const run = new RunBuilder(openRows(2));
    run.seedInterrupted('killed after silence', ['ran capture (1 of 2)']);
    run.seedEvidence({ 1: 'capture; ran capture (1 of 2); 1 failing' });
    run.interrupted(2, 'dirty tree', ['ran capture (2 of 2)']);
    run.child(1, 'failed', { evidence: 'capture; bound spent: capture 2 of 2' });
    const spend = run.history().actionSpend;
    expect(spend).toHaveLength(1);
    expect(spend[0]?.action).toBe('capture');
    expect(spend[0]?.k).toBe(2);
    expect(spend[0]?.bound).toBe(2);
  });

  it('AS1: a spend recorded only in a seed repair body survives the reset', () => {
    const history = new RunBuilder(openRows(1))
      .seedInterrupted('killed after silence', ['ran capture (1 of 1)'])
      .history();
    expect(history.actionSpend.map((s) => [s.action, s.k, s.bound])).toEqual([['capture', 1, 1]]);
  });

  it('the latest admitted return carries the target’s admitted evidence and its first human answer', () => {
    const run = seededRun(3).child(3, 'failed', { evidence: 'staging-smoke; bound spent: deploy (1 of 1)' });
    const admitted = run.head();
    let latest = run.history().latestAdmission;
    expect(latest).toMatchObject({ row: 3, sha: admitted, status: 'failed', answeredBy: null });
    expect(latest?.evidence).toBe('staging-smoke; bound spent: deploy (1 of 1)');
    run.raise(2, 'one more go');
    latest = run.history().latestAdmission;
    expect(latest?.answeredBy?.subject).toBe('loop: raise allowance');
  });

  it('an escalation commit is not an answer; a rejected return is not an admission', () => {
    const run = seededRun(3).child(3, 'failed').escalate(3).miss(2, 'bad decision');
    const latest = run.history().latestAdmission;
    expect(latest?.row).toBe(3);
    expect(latest?.answeredBy).toBeNull();
  });
});

describe('bad input', () => {
  it('names the problem instead of crashing', () => {
    const ledger = openRows(1);
    const cases: [unknown, unknown][] = [
      [null, { ledger, ledgerPath: LEDGER_PATH }],
      [[{ sha: 'x' }], { ledger, ledgerPath: LEDGER_PATH }],
      [[], { ledger: null, ledgerPath: LEDGER_PATH }],
      [[], { ledger, ledgerPath: '' }],
    ];
    for (const [commits, options] of cases) {
      let thrown: unknown;
      try {
        historyFromCommits(commits as CommitFact[], options as never);
      } catch (error) {
        thrown = error;
      }
      expect(thrown).toBeInstanceOf(InputError);
      expect((thrown as InputError).code).toBe('history.input');
    }
  });

  it('commits whose ledger did not parse count by subject and never prove emptiness', () => {
    const run = seededRun(2).child(2, 'failed');
    run.commit('loop: row 2 failed', '', [LEDGER_PATH], null);
    run.commit('loop: row 2 failed', '', [LEDGER_PATH], null);
    run.commit('loop: repair seed', 'seed miss: unreadable', [LEDGER_PATH], null);
    const history = run.history();
    expect(rowHistoryOf(history, 2).emptyChildStreak).toBe(0);
    expect(history.seedRepairCount).toBe(1);
  });

  it('an empty history counts nothing', () => {
    const ledger = openRows(2);
    expect(historyFromCommits([], { ledger, ledgerPath: LEDGER_PATH })).toEqual(emptyLoopHistory(ledger));
  });
});
