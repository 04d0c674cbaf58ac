import { describe, expect, it } from 'vitest';
import { emptyLoopHistory, type LoopHistory } from '../../src/gauntlet/history.js';
import { selectTarget, stillFailedPreviousRow, unresolvedRetryTarget } from '../../src/gauntlet/targeting.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import { ledgerOf, RunBuilder, seededRun } from './rules-fixtures.js';

const SURVIVED: LoopHistory = {
  ...emptyLoopHistory(),
  seedSurvival: { sha: 'a'.repeat(40), decision: 'row 0 done | seeded 3 rows, closed 0 on baseline | row 1' },
};

describe('target selection (§3.6)', () => {
  it('T1: three interrupted seed dispatches still select the seed, independently of iterations', () => {
    const run = new RunBuilder(
      ledgerOf({
        rows: [
          ['open', 0],
          ['open', 0],
          ['cut', 0, 'deferred: #12'],
        ],
      }),
    )
      .seedInterrupted('killed after silence')
      .seedInterrupted('dirty tree')
      .seedInterrupted('non-DONE');
    expect(run.ledger.iterations).toBe(3);
    const selection = selectTarget(run.ledger, run.history());
    expect(selection?.target).toBe('seed');
    expect(selection?.why).toBe('seed-not-survived');
  });

  it('never re-seeds a validated partial seed to fill empty evidence cells', () => {
    const run = new RunBuilder(
      ledgerOf({
        rows: [
          ['open', 0],
          ['open', 0],
          ['open', 0],
        ],
      }),
    ).seedEvidence({
      2: 'npm test; 1 failing',
    });
    expect(run.ledger.rows[0]?.evidence).toBe('');
    expect(selectTarget(run.ledger, run.history())).toMatchObject({ target: 1, why: 'first-open' });
  });

  it('T3: the still-failed row named by the previous decision comes before the first failed row', () => {
    const ledger = ledgerOf({
      rows: [
        ['failed', 1],
        ['open', 0],
        ['failed', 2],
      ],
    });
    const history = { ...SURVIVED, previousDecision: 'row 3 failed | upload still red | try a fixture' };
    expect(selectTarget(ledger, history)).toMatchObject({ target: 3, why: 'previous-decision' });
  });

  it('T5: an extra’s line never names the target; the admitted target row does', () => {
    const run = seededRun(5)
      .child(1, 'failed')
      .child(2, 'failed', { extras: [{ row: 5, evidence: 'npm test; ok' }] });
    expect(selectTarget(run.ledger, run.history())).toMatchObject({ target: 2, why: 'previous-decision' });
  });

  it('the still-unresolved human retry target comes first', () => {
    const ledger = ledgerOf({
      rows: [
        ['failed', 1],
        ['open', 0],
        ['failed', 4],
        ['failed', 4],
      ],
      decisions: [
        'row 3 retry | older | allowed attempts 5',
        'row 4 retry | use the MinIO fixture | allowed attempts 5',
      ],
    });
    const history = { ...SURVIVED, previousDecision: 'row 1 failed | still red | next' };
    expect(selectTarget(ledger, history)).toMatchObject({ target: 4, why: 'retry-target' });
    expect(unresolvedRetryTarget(ledger)).toBe(4);
  });

  it('a resolved retry target falls through to the rest of the priority (§6 A14)', () => {
    const ledger = ledgerOf({
      rows: [
        ['open', 0],
        ['failed', 1],
        ['done', 5],
      ],
      decisions: [
        'row 2 retry | older hint | allowed attempts 5',
        'row 3 retry | latest | allowed attempts 5',
      ],
    });
    expect(unresolvedRetryTarget(ledger)).toBeNull();
    expect(selectTarget(ledger, SURVIVED)).toMatchObject({ target: 2, why: 'first-failed' });
  });

  it('durable status beats a decision’s suggestion', () => {
    const ledger = ledgerOf({
      rows: [
        ['open', 0],
        ['done', 1],
        ['open', 1],
      ],
    });
    const history = { ...SURVIVED, previousDecision: 'row 2 failed | red | take row 3 next' };
    expect(stillFailedPreviousRow(ledger, history.previousDecision)).toBeNull();
    expect(selectTarget(ledger, history)).toMatchObject({ target: 1, why: 'first-open' });
  });

  it('A15: the seed decision’s first row to take is informational only', () => {
    const run = new RunBuilder(
      ledgerOf({
        rows: [
          ['open', 0],
          ['open', 0],
          ['open', 0],
        ],
      }),
    ).seedEvidence({ 1: 'npm test; 2 failing', 3: 'npm test; 1 failing' }, [], 'row 3');
    expect(selectTarget(run.ledger, run.history())).toMatchObject({ target: 1, why: 'first-open' });
  });

  it('after an ordinary miss the previous decision is none and the first failed row is taken', () => {
    const run = seededRun(3).child(3, 'failed').miss(2, 'decision does not match the row');
    expect(run.history().previousDecision).toBeNull();
    expect(selectTarget(run.ledger, run.history())).toMatchObject({ target: 2, why: 'first-failed' });
  });

  it('first failed before first open, lowest row first', () => {
    const ledger = ledgerOf({
      rows: [
        ['open', 0],
        ['failed', 1],
        ['failed', 1],
      ],
    });
    expect(selectTarget(ledger, SURVIVED)).toMatchObject({ target: 2, why: 'first-failed' });
  });

  it('never selects a done or cut row, not even the seed, when nothing is open or failed', () => {
    const ledger = ledgerOf({
      rows: [
        ['done', 1],
        ['cut', 0, 'deviates: out of scope'],
      ],
    });
    expect(selectTarget(ledger, emptyLoopHistory(ledger))).toBeNull();
    expect(selectTarget(ledger, SURVIVED)).toBeNull();
  });

  it('A14: an open row named by the latest retry is the retry target', () => {
    const ledger = ledgerOf({
      rows: [
        ['failed', 1],
        ['open', 0],
      ],
      decisions: [
        'row 1 failed | still red | next',
        'row 2 retry | start from the fixture | allowed attempts 5',
      ],
    });
    expect(unresolvedRetryTarget(ledger)).toBe(2);
    expect(selectTarget(ledger, SURVIVED)).toMatchObject({ target: 2, why: 'retry-target' });
  });

  it('A14: a retry that is the only decision still names the retry target', () => {
    const ledger = ledgerOf({
      rows: [
        ['failed', 1],
        ['failed', 4],
      ],
      decisions: ['row 2 retry | use the MinIO fixture | allowed attempts 5'],
    });
    expect(unresolvedRetryTarget(ledger)).toBe(2);
  });

  it('each reason names its row and the evidence for the choice', () => {
    const retry = selectTarget(
      ledgerOf({
        rows: [
          ['failed', 1],
          ['failed', 4],
        ],
        decisions: ['row 2 retry | use the MinIO fixture | allowed attempts 5'],
      }),
      SURVIVED,
    );
    expect(retry?.because).toMatch(/\brow 2\b/);
    expect(retry?.because).toMatch(/retry/);
    const previous = selectTarget(
      ledgerOf({
        rows: [
          ['failed', 1],
          ['failed', 1],
        ],
      }),
      { ...SURVIVED, previousDecision: 'row 2 failed | upload still red | try a fixture' },
    );
    expect(previous?.because).toMatch(/\brow 2\b/);
    expect(previous?.because).toMatch(/previous decision/);
    expect(previous?.because).toMatch(/failed/);
    const failed = selectTarget(
      ledgerOf({
        rows: [
          ['open', 0],
          ['failed', 1],
        ],
      }),
      SURVIVED,
    );
    expect(failed?.because).toMatch(/\brow 2\b/);
    expect(failed?.because).toMatch(/first failed/);
    const open = selectTarget(
      ledgerOf({
        rows: [
          ['done', 1],
          ['open', 0],
        ],
      }),
      SURVIVED,
    );
    expect(open?.because).toMatch(/\brow 2\b/);
    expect(open?.because).toMatch(/first open/);
    const seed = selectTarget(ledgerOf({ rows: [['open', 0]] }), emptyLoopHistory());
    expect(seed?.because).toMatch(/seed/);
    expect(seed?.because).toMatch(/no validated/);
  });
});

describe('target selection of a coordinated ledger (§3.20, docs/decisions/legs.md L7)', () => {
  function coordinated(apiSeeded: boolean, apiStatus: 'open' | 'cut' = 'open'): Ledger {
    const base = ledgerOf({
      rows: [
        ['open', 0],
        [apiStatus, 0, apiStatus === 'cut' ? 'deferred: #12' : ''],
      ],
    });
    return {
      ...base,
      legs: {
        members: [
          { name: 'home', base: 'a'.repeat(40), seeded: true },
          { name: 'api', base: 'b'.repeat(40), seeded: apiSeeded },
        ],
        mapping: [
          { row: 1, ac: 1, leg: 'home' },
          { row: 2, ac: 2, leg: 'api' },
        ],
      },
    };
  }

  it('the seed stays due while a leg with a non-cut row is not seeded, whatever the home seed history says', () => {
    expect(selectTarget(coordinated(false), SURVIVED)).toMatchObject({
      target: 'seed',
      why: 'seed-not-survived',
    });
  });

  it('once every leg is seeded the numbered rows are taken, even without a home seed commit in history', () => {
    expect(selectTarget(coordinated(true), emptyLoopHistory())).toMatchObject({
      target: 1,
      why: 'first-open',
    });
  });

  it('a leg whose rows are all cut needs no seed', () => {
    expect(selectTarget(coordinated(false, 'cut'), emptyLoopHistory())).toMatchObject({
      target: 1,
      why: 'first-open',
    });
  });
});
