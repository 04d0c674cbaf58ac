import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { effectiveAllowance, exhaustedRows, isExhausted, retryCount } from '../../src/gauntlet/allowance.js';
import { ledgerOf } from './rules-fixtures.js';

describe('effective allowance (§3.5)', () => {
  it('A1: two retries raise the effective allowance by two, whatever their stored m', () => {
    const ledger = ledgerOf({
      allowance: 4,
      rows: [
        ['open', 0],
        ['open', 0],
        ['failed', 4],
      ],
      decisions: [
        'row 3 retry | use the MinIO fixture | allowed attempts 5',
        'row 3 retry | try the stub endpoint | allowed attempts 99',
      ],
    });
    expect(effectiveAllowance(ledger, 3)).toBe(6);
  });

  it('raising the shared header to 7 makes a twice-retried row 9 and an unretried row 7', () => {
    const ledger = ledgerOf({
      allowance: 7,
      rows: [
        ['open', 0],
        ['failed', 4],
      ],
      decisions: [
        'row 2 retry | a | allowed attempts 5',
        'row 2 retry | b | allowed attempts 99',
        'rows +3 | more',
      ],
    });
    expect(effectiveAllowance(ledger, 2)).toBe(9);
    expect(effectiveAllowance(ledger, 1)).toBe(7);
  });

  it('ignores every other decision: other rows, escalations, raises, outcomes, legacy lines', () => {
    const ledger = ledgerOf({
      allowance: 4,
      rows: [
        ['failed', 2],
        ['failed', 1],
      ],
      decisions: [
        'row 0 done | seeded 2 rows, closed 0 on baseline | row 1',
        'row 2 retry | hint for another row | allowed attempts 5',
        'row 1 escalated | implModel round | allowed attempts 4',
        'row 1 failed | retry looked like this | allowed attempts 12',
        'rows +50 |',
        'grant row 1 +3',
        'row 1 retry | missing the attempts cell',
        'row 1 retry | x | allowed attempts many',
      ],
    });
    expect(retryCount(ledger, 1)).toBe(0);
    expect(effectiveAllowance(ledger, 1)).toBe(4);
    expect(effectiveAllowance(ledger, 2)).toBe(5);
  });

  it('is the header plus the count of that row’s retry lines for any decision list', () => {
    const line = fc.oneof(
      fc
        .tuple(fc.integer({ min: 1, max: 4 }), fc.string({ maxLength: 8 }), fc.nat(200))
        .map(
          ([row, hint, m]) => `row ${row} retry | ${hint.replace(/[|\n\r]/g, '')} | allowed attempts ${m}`,
        ),
      fc
        .integer({ min: 1, max: 4 })
        .map((row) => `row ${row} escalated | implModel round | allowed attempts 4`),
      fc.integer({ min: 1, max: 60 }).map((n) => `rows +${n} |`),
      fc.string({ maxLength: 20 }),
    );
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9 }),
        fc.array(line, { maxLength: 12 }),
        (allowance, decisions) => {
          const ledger = ledgerOf({ allowance, rows: [['open', 0]], decisions });
          const retries = decisions.filter((d) =>
            /^row 1 retry \| .* \| allowed attempts \d+$/.test(d),
          ).length;
          expect(effectiveAllowance(ledger, 1)).toBe(allowance + retries);
        },
      ),
      { numRuns: 1000 },
    );
  });
});

describe('exhaustion (§3.4 rule 2)', () => {
  it('A3: a migrated row already above its allowance is exhausted and keeps its attempts', () => {
    const ledger = ledgerOf({
      allowance: 4,
      rows: [
        ['open', 0],
        ['failed', 5],
      ],
    });
    expect(isExhausted(ledger, 2)).toBe(true);
    expect(ledger.rows[1]?.attempts).toBe(5);
  });

  it('A5: done and cut rows are exempt whatever their attempts', () => {
    const ledger = ledgerOf({
      allowance: 4,
      rows: [
        ['done', 6],
        ['cut', 4],
        ['open', 3],
      ],
    });
    expect(isExhausted(ledger, 1)).toBe(false);
    expect(isExhausted(ledger, 2)).toBe(false);
    expect(isExhausted(ledger, 3)).toBe(false);
    expect(exhaustedRows(ledger)).toEqual([]);
  });

  it('an open or failed row at exactly its effective allowance is exhausted; one below is not', () => {
    const ledger = ledgerOf({
      allowance: 4,
      rows: [
        ['open', 4],
        ['failed', 4],
        ['failed', 4],
      ],
      decisions: ['row 3 retry | one more | allowed attempts 5'],
    });
    expect(isExhausted(ledger, 1)).toBe(true);
    expect(isExhausted(ledger, 2)).toBe(true);
    expect(isExhausted(ledger, 3)).toBe(false);
  });

  it('lists every exhausted row lowest first, and a missing row is never exhausted', () => {
    const ledger = ledgerOf({
      allowance: 1,
      rows: [
        ['open', 0],
        ['failed', 3],
        ['done', 9],
        ['open', 1],
      ],
    });
    expect(exhaustedRows(ledger).map((r) => r.row)).toEqual([2, 4]);
    expect(isExhausted(ledger, 7)).toBe(false);
  });

  it('a migrated allowance of 0 exhausts every unresolved row at once (§6 A20)', () => {
    const ledger = ledgerOf({
      allowance: 0,
      rows: [
        ['open', 0],
        ['cut', 0],
      ],
    });
    expect(exhaustedRows(ledger).map((r) => r.row)).toEqual([1]);
  });
});

describe('exhaustedRows order (§6 A13: rule 2 stops on the first exhausted row)', () => {
  it('lists exhausted rows lowest first even when the table lists them out of order', () => {
    const ordered = ledgerOf({
      allowance: 2,
      rows: [
        ['failed', 2],
        ['open', 0],
        ['failed', 3],
      ],
    });
    const shuffled = { ...ordered, rows: [ordered.rows[2], ordered.rows[1], ordered.rows[0]].map((r) => r!) };
    expect(exhaustedRows(shuffled).map((cells) => cells.row)).toEqual([1, 3]);
  });
});
