import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import {
  distinctActionRecords,
  extractActionRecords,
  foldActionRecords,
  formatActionRecord,
  parseActionRecord,
} from '../../src/gauntlet/action-records.js';
import type { ActionRecord } from '../../src/gauntlet/types.js';

describe('parseActionRecord (§3.19, §6 A7)', () => {
  it('reads both record kinds in the parenthesised spelling', () => {
    expect(parseActionRecord('ran capture (1 of 1)')).toEqual({
      kind: 'ran',
      action: 'capture',
      k: 1,
      bound: 1,
      text: 'ran capture (1 of 1)',
    });
    expect(parseActionRecord('bound spent: deploy preview (2 of 2)')).toMatchObject({
      kind: 'bound-spent',
      action: 'deploy preview',
      k: 2,
      bound: 2,
    });
  });

  it('AS1: accepts the worked example spelling without parentheses on read (§6 A7)', () => {
    expect(parseActionRecord('bound spent: capture 1 of 1')).toMatchObject({
      kind: 'bound-spent',
      action: 'capture',
      k: 1,
      bound: 1,
      text: 'bound spent: capture 1 of 1',
    });
  });

  it('always writes the parenthesised spelling (§6 A7)', () => {
    const read = parseActionRecord('bound spent: capture 1 of 1') as ActionRecord;
    expect(formatActionRecord(read)).toBe('bound spent: capture (1 of 1)');
    expect(formatActionRecord({ kind: 'ran', action: 'capture', k: 1, bound: 1 })).toBe(
      'ran capture (1 of 1)',
    );
  });

  it('refuses prose and half-parenthesised counts', () => {
    for (const text of [
      'I ran tests 3 of 5 times',
      'ran capture (1 of 1',
      'ran (1 of 1)',
      'ran capture',
      'spent: x (1 of 1)',
    ])
      expect(parseActionRecord(text)).toBeNull();
  });

  it('refuses to write an action it could not read back', () => {
    expect(() => formatActionRecord({ kind: 'ran', action: 'capture (fixture)', k: 1, bound: 1 })).toThrow(
      InputError,
    );
    expect(() => formatActionRecord({ kind: 'ran', action: ' ', k: 1, bound: 1 })).toThrow(InputError);
    expect(() => formatActionRecord({ kind: 'ran', action: 'capture', k: -1, bound: 1 })).toThrow(InputError);
  });
});

describe('extractActionRecords', () => {
  it('finds records in an evidence cell after the repair reason', () => {
    const cell =
      'iteration 4: interrupted - killed after silence; ran capture (1 of 1); bound spent: upload 2 of 2';
    expect(extractActionRecords(cell).map(formatActionRecord)).toEqual([
      'ran capture (1 of 1)',
      'bound spent: upload (2 of 2)',
    ]);
  });

  it('finds records repeated in decision sentences and in a commit body', () => {
    const decision = 'row 2 done | Carried ran capture (1 of 1). ran capture (1 of 1). | take row 3';
    expect(extractActionRecords(decision).map((r) => r.text)).toEqual(['ran capture (1 of 1).']);
    const body = `pending: seed | home | ${'a'.repeat(40)}\niteration: 3\nseed interrupted: killed after silence\nran capture (1 of 1)\r\n`;
    expect(extractActionRecords(body).map(formatActionRecord)).toEqual(['ran capture (1 of 1)']);
  });
});

describe('foldActionRecords (§3.19 rule 4)', () => {
  it('AS1: the capture recorded before an interrupted seed stays spent', () => {
    const records = [
      ...extractActionRecords('seed interrupted: killed after silence\nran capture (1 of 1)'),
      ...extractActionRecords('npm test; bound spent: capture 1 of 1'),
    ];
    expect(foldActionRecords(records)).toEqual([
      {
        action: 'capture',
        k: 1,
        bound: 1,
        spent: true,
        records: ['ran capture (1 of 1)', 'bound spent: capture (1 of 1)'],
      },
    ]);
  });

  it('counts the highest k per action; identical copies are one spend', () => {
    const records = extractActionRecords(
      'ran upload (1 of 3); ran upload (2 of 3)\nran upload (1 of 3)\nran capture (1 of 2)\nran upload (2 of 3)',
    );
    const folded = foldActionRecords(records);
    expect(folded.map(({ action, k, bound, spent }) => ({ action, k, bound, spent }))).toEqual([
      { action: 'upload', k: 2, bound: 3, spent: false },
      { action: 'capture', k: 1, bound: 2, spent: false },
    ]);
    expect(folded[0]?.records).toEqual(['ran upload (1 of 3)', 'ran upload (2 of 3)']);
    expect(distinctActionRecords(records)).toHaveLength(3);
  });

  it('the fold is the per-action maximum, whatever the order or the number of copies', () => {
    const record = fc.record({
      kind: fc.constantFrom('ran' as const, 'bound-spent' as const),
      action: fc.constantFrom('capture', 'upload', 'deploy preview'),
      k: fc.nat({ max: 9 }),
      bound: fc.integer({ min: 1, max: 9 }),
    });
    const recordsAndCopies = fc.array(record, { maxLength: 20 }).chain((raw) => {
      const records = raw.map((r) => ({ ...r, text: formatActionRecord(r) }));
      const twice = [...records, ...records];
      // Every record twice, in a random order.
      return fc.tuple(fc.constant(records), fc.shuffledSubarray(twice, { minLength: twice.length }));
    });
    fc.assert(
      fc.property(recordsAndCopies, ([records, shuffledCopies]) => {
        const folded = foldActionRecords(records);
        const doubled = foldActionRecords(shuffledCopies);
        for (const entry of folded) {
          const mine = records.filter((r) => r.action === entry.action);
          expect(entry.k).toBe(Math.max(...mine.map((r) => r.k)));
          expect(entry.spent).toBe(entry.k >= entry.bound || mine.some((r) => r.kind === 'bound-spent'));
        }
        const byAction = (list: typeof folded) =>
          Object.fromEntries(list.map(({ action, k, bound, spent }) => [action, { k, bound, spent }]));
        expect(byAction(doubled)).toEqual(byAction(folded));
        expect(new Set(folded.map((e) => e.action)).size).toBe(folded.length);
      }),
      { numRuns: 1000 },
    );
  });
});
