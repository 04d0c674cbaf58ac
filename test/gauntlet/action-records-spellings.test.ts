/**
 * Action-spend records (§3.19) at the edges of their grammar: one-letter actions, multi-digit
 * counts in both accepted spellings (§6 A7), text after a record, counts too large to hold
 * exactly, the named refusals of the writer, and the bound the fold keeps when two records share
 * the highest k. Expected values are written by hand.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import {
  foldActionRecords,
  formatActionRecord,
  parseActionRecord,
} from '../../src/gauntlet/action-records.js';
import type { ActionRecord } from '../../src/gauntlet/types.js';

function counts(text: string): Pick<ActionRecord, 'kind' | 'action' | 'k' | 'bound'> | null {
  const record = parseActionRecord(text);
  return record === null
    ? null
    : { kind: record.kind, action: record.action, k: record.k, bound: record.bound };
}

describe('parseActionRecord at the edges of the grammar', () => {
  it('reads a one-letter action', () => {
    expect(counts('ran x (1 of 1)')).toEqual({ kind: 'ran', action: 'x', k: 1, bound: 1 });
  });

  it('reads multi-digit counts in both spellings', () => {
    expect(counts('ran capture (12 of 20)')).toEqual({ kind: 'ran', action: 'capture', k: 12, bound: 20 });
    expect(counts('bound spent: upload 10 of 10')).toEqual({
      kind: 'bound-spent',
      action: 'upload',
      k: 10,
      bound: 10,
    });
    expect(counts('ran upload 3 of 15.')).toEqual({ kind: 'ran', action: 'upload', k: 3, bound: 15 });
  });

  it('is not a record when text follows the counts', () => {
    expect(parseActionRecord('ran capture (1 of 1) twice')).toBeNull();
    expect(parseActionRecord('bound spent: capture 1 of 1 today')).toBeNull();
  });

  it('is not a record when a count is too large to hold exactly', () => {
    expect(parseActionRecord('ran capture (99999999999999999999 of 1)')).toBeNull();
    expect(parseActionRecord('ran capture (1 of 99999999999999999999)')).toBeNull();
  });
});

describe('formatActionRecord refusals', () => {
  function refusal(record: Pick<ActionRecord, 'kind' | 'action' | 'k' | 'bound'>) {
    try {
      formatActionRecord(record);
    } catch (error) {
      if (error instanceof InputError) return { code: error.code, message: error.message };
      throw error;
    }
    return 'accepted';
  }

  it('names the action or the count it cannot write', () => {
    expect([
      refusal({ kind: 'ran', action: 'capture (fixture)', k: 1, bound: 1 }),
      refusal({ kind: 'ran', action: 'capture', k: -1, bound: 1 }),
      refusal({ kind: 'bound-spent', action: 'capture', k: 1, bound: 1.5 }),
    ]).toEqual([
      {
        code: 'action-record.invalid',
        message: 'action name "capture (fixture)" must be one line without parentheses, pipes or semicolons',
      },
      { code: 'action-record.invalid', message: 'k must be an integer >= 0, got -1' },
      { code: 'action-record.invalid', message: 'bound must be an integer >= 0, got 1.5' },
    ]);
  });
});

describe('foldActionRecords with records sharing the highest k', () => {
  it('keeps the highest bound among them, in either order', () => {
    const record = (bound: number): ActionRecord => ({
      kind: 'ran',
      action: 'capture',
      k: 1,
      bound,
      text: `ran capture (1 of ${bound})`,
    });
    for (const records of [
      [record(2), record(3)],
      [record(3), record(2)],
    ])
      expect(
        foldActionRecords(records).map(({ action, k, bound, spent }) => ({ action, k, bound, spent })),
      ).toEqual([{ action: 'capture', k: 1, bound: 3, spent: false }]);
  });
});
