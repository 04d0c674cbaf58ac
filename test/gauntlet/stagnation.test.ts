import { describe, expect, it } from 'vitest';
import { emptyLoopHistory, type LoopHistory } from '../../src/gauntlet/history.js';
import { rule3HintFor, rule3Hints } from '../../src/gauntlet/stagnation.js';
import { LEDGER_PATH, ledgerOf, seededRun } from './rules-fixtures.js';

// The protocol's exact hint texts (§3.4 rule 3).
const EMPTY = 'the last two attempts changed nothing outside the ledger';
const BROKE = 'two returns broke the contract: ';

/** A row's window counters after two empty child commits (the empty-child pair of §3.8). */
function stagnant(row: number) {
  return { row, windowStart: null, emptyChildStreak: 2, validationMissStreak: 0, lastConcreteMiss: null };
}

/** S1: row 3's last two child commits changed only the ledger and left it failed. */
function s1() {
  return seededRun(5)
    .child(3, 'failed')
    .child(3, 'failed', { paths: [LEDGER_PATH] })
    .child(3, 'failed', { paths: [LEDGER_PATH] });
}

describe('rule 3 hints (§3.4, §3.8)', () => {
  it('S1: two empty child commits for row 3 set the empty-child hint on row 3 only', () => {
    const run = s1();
    expect(rule3Hints(run.ledger, run.history())).toEqual([{ row: 3, kind: 'empty-child', text: EMPTY }]);
  });

  it('S3: a retry of row 3 restarts its windows, so the hint is gone', () => {
    const run = s1().retry(3, 'use the fixture');
    expect(rule3HintFor(run.ledger, run.history(), 3)).toBeNull();
  });

  it('S5: an amendment or any cut restarts every row’s windows', () => {
    const amended = s1().amend();
    expect(rule3Hints(amended.ledger, amended.history())).toEqual([]);
    const cut = s1().cut(5, 'deferred: ACME-412');
    expect(rule3Hints(cut.ledger, cut.history())).toEqual([]);
  });

  it('raising the allowance resets neither window', () => {
    const run = s1().raise(2);
    expect(rule3HintFor(run.ledger, run.history(), 3)?.text).toBe(EMPTY);
  });

  it('two consecutive validation misses set the contract hint with the last concrete miss', () => {
    const run = seededRun(4).miss(4, 'evidence has 4 result lines').miss(4, 'no decision line for row 4');
    expect(rule3HintFor(run.ledger, run.history(), 4)).toEqual({
      row: 4,
      kind: 'validation-miss',
      text: `${BROKE}no decision line for row 4`,
    });
  });

  it('S7: miss, conforming return, miss sets no validation-miss hint', () => {
    const run = seededRun(4).miss(4, 'first').child(4, 'failed').miss(4, 'second');
    expect(rule3HintFor(run.ledger, run.history(), 4)).toBeNull();
  });

  it('S11: parent repairs between child commits do not break the empty pair', () => {
    const run = seededRun(3)
      .child(3, 'failed')
      .child(3, 'failed', { paths: [LEDGER_PATH] })
      .interrupted(3, 'killed after silence')
      .child(3, 'failed', { paths: [LEDGER_PATH] });
    expect(rule3HintFor(run.ledger, run.history(), 3)?.kind).toBe('empty-child');
  });

  it('when both windows fire the validation-miss hint wins', () => {
    const ledger = ledgerOf({ rows: [['failed', 3]] });
    const history: LoopHistory = {
      ...emptyLoopHistory(ledger),
      rows: [
        {
          row: 1,
          windowStart: null,
          emptyChildStreak: 2,
          validationMissStreak: 2,
          lastConcreteMiss: 'attempts +2',
        },
      ],
    };
    expect(rule3HintFor(ledger, history, 1)?.text).toBe(`${BROKE}attempts +2`);
  });

  it('a cut row, a done row and a row the ledger lacks carry no hint', () => {
    const ledger = ledgerOf({
      rows: [
        ['cut', 2, 'deviates: dropped'],
        ['done', 2],
        ['failed', 2],
      ],
    });
    const history: LoopHistory = { ...emptyLoopHistory(ledger), rows: [1, 2, 3, 4].map(stagnant) };
    expect(rule3Hints(ledger, history).map((h) => h.row)).toEqual([3]);
    expect(rule3HintFor(ledger, history, 4)).toBeNull();
  });
});

describe('rule 3 hints on open rows and in row order', () => {
  it('an open row with two empty child commits carries the empty-child hint', () => {
    const ledger = ledgerOf({ rows: [['open', 2]] });
    const history: LoopHistory = { ...emptyLoopHistory(ledger), rows: [stagnant(1)] };
    expect(rule3HintFor(ledger, history, 1)).toEqual({ row: 1, kind: 'empty-child', text: EMPTY });
  });

  it('hints come lowest row first even when the table lists rows out of order', () => {
    const ordered = ledgerOf({
      rows: [
        ['failed', 2],
        ['open', 2],
        ['failed', 2],
      ],
    });
    const shuffled = { ...ordered, rows: [ordered.rows[2], ordered.rows[0], ordered.rows[1]].map((r) => r!) };
    const history: LoopHistory = { ...emptyLoopHistory(shuffled), rows: [1, 2, 3].map(stagnant) };
    expect(rule3Hints(shuffled, history).map((hint) => hint.row)).toEqual([1, 2, 3]);
  });
});
