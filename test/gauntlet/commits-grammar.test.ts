/**
 * The exact grammar of commit subjects, attribution lines and repair reasons (ledger format §5,
 * §6): anchors, the one-line rule, refusals and the tolerant repair-body reader. Expected values
 * are written by hand from the format's tables.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import {
  formatAttribution,
  formatRepairReason,
  formatSubject,
  parseRepairBody,
  parseSubject,
  readAttribution,
} from '../../src/gauntlet/commits.js';
import type { PendingTuple } from '../../src/gauntlet/types.js';

const HEAD = '9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b';
const TUPLE_LINE = `pending: 3 | home | ${HEAD}`;
const TUPLE: PendingTuple = { target: 3, repo: 'home', head: HEAD };

/** Runs `fn`, which must throw an InputError, and returns it. */
function inputError(fn: () => unknown): InputError {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return error as InputError;
  }
  throw new Error('expected an InputError, nothing was thrown');
}

describe('subjects are matched exactly (§5)', () => {
  it('a subject with text before `loop:` is other, for numbered and record subjects alike', () => {
    expect(parseSubject('x loop: row 2 done')).toEqual({ kind: 'other', subject: 'x loop: row 2 done' });
    expect(parseSubject('re: loop: repair row 4')).toEqual({
      kind: 'other',
      subject: 're: loop: repair row 4',
    });
    expect(parseSubject('x loop: record api row 3')).toEqual({
      kind: 'other',
      subject: 'x loop: record api row 3',
    });
  });

  it('a child row subject needs its status; the parent subjects take none', () => {
    expect(parseSubject('loop: row 3')).toEqual({ kind: 'other', subject: 'loop: row 3' });
    expect(parseSubject('loop: repair row 3 done')).toEqual({
      kind: 'other',
      subject: 'loop: repair row 3 done',
    });
    expect(parseSubject('loop: escalate row 3')).toEqual({ kind: 'escalate-row', row: 3 });
  });

  it('a row number beyond exact integers is not a row: the subject is other', () => {
    const subject = 'loop: row 123456789012345678901 done';
    expect(parseSubject(subject)).toEqual({ kind: 'other', subject });
  });
});

describe('formatSubject refusals', () => {
  it('refuses row 0 outside a record with commit.invalid naming the row', () => {
    const error = inputError(() => formatSubject({ kind: 'repair-row', row: 0 }));
    expect(error.code).toBe('commit.invalid');
    expect(error.message).toMatch(/\b0\b/);
  });

  it('refuses a record repo that is two words or holds a pipe, naming the repo', () => {
    for (const repo of ['my api', 'api x', 'a|b']) {
      const error = inputError(() => formatSubject({ kind: 'record-row', repo, row: 2 }));
      expect(error.code).toBe('commit.invalid');
      expect(error.message).toContain(`"${repo}"`);
    }
    expect(formatSubject({ kind: 'record-row', repo: 'web-ui', row: 2 })).toBe('loop: record web-ui row 2');
  });

  it('writes an other subject verbatim and refuses one that spans lines', () => {
    expect(formatSubject({ kind: 'other', subject: 'fix: typo in README' })).toBe('fix: typo in README');
    for (const subject of ['first\nsecond', 'first\rsecond']) {
      const error = inputError(() => formatSubject({ kind: 'other', subject }));
      expect(error.code).toBe('commit.invalid');
      expect(error.message).not.toBe('');
    }
  });
});

describe('attribution lines (§6.1)', () => {
  it('refuses a consumed iteration below 1 with commit.invalid naming it', () => {
    const error = inputError(() => formatAttribution(TUPLE, 0));
    expect(error.code).toBe('commit.invalid');
    expect(error.message).toMatch(/\b0\b/);
  });

  it('reads line 2 only when it is exactly `iteration: <n>`', () => {
    expect(readAttribution(`${TUPLE_LINE}\niteration: 8`).iteration).toBe(8);
    expect(readAttribution(`${TUPLE_LINE}\nxiteration: 8`).iteration).toBeNull();
    expect(readAttribution(`${TUPLE_LINE}\niteration: 8 extra`).iteration).toBeNull();
  });

  it('a count beyond exact integers is not a count', () => {
    const body = `${TUPLE_LINE}\niteration: 123456789012345678901`;
    expect(readAttribution(body)).toEqual({
      pendingLine: TUPLE_LINE,
      iterationLine: 'iteration: 123456789012345678901',
      pending: TUPLE,
      iteration: null,
    });
  });
});

describe('reason lines (§6.2)', () => {
  it('refuses an admitted child that is not a full lowercase SHA, naming it', () => {
    const error = inputError(() => formatRepairReason({ kind: 'admitted', child: 'ABCDEF1' }));
    expect(error.code).toBe('commit.invalid');
    expect(error.message).toContain('"ABCDEF1"');
  });

  it('refuses a blank reason with commit.invalid naming the reason kind', () => {
    const error = inputError(() => formatRepairReason({ kind: 'seed-miss', text: ' \n ' }));
    expect(error.code).toBe('commit.invalid');
    expect(error.message).toContain('seed-miss');
  });
});

describe('the tolerant repair-body reader (§6.2)', () => {
  it('reads indented and trailing-blank lines by their grammar', () => {
    const body = [
      `  ${TUPLE_LINE}`,
      '  iteration: 4 ',
      '\tmiss: no decision line  ',
      ' ran capture (1 of 1)',
    ].join('\n');
    expect(parseRepairBody(body)).toEqual({
      pending: TUPLE,
      iteration: 4,
      reason: { kind: 'miss', text: 'no decision line' },
      records: [{ kind: 'ran', action: 'capture', k: 1, bound: 1, text: 'ran capture (1 of 1)' }],
    });
  });

  it('a line with text before the reason label is no reason line', () => {
    expect(parseRepairBody('see miss: not a reason').reason).toBeNull();
    expect(parseRepairBody('the seed interrupted: no').reason).toBeNull();
  });

  it('the reason text starts after the blanks that follow the label', () => {
    expect(parseRepairBody('interrupted:   killed after silence').reason).toEqual({
      kind: 'interrupted',
      text: 'killed after silence',
    });
  });

  it('keeps the first tuple, the first count and the first reason of a body', () => {
    const other = `pending: seed | home | ${'1'.repeat(40)}`;
    const body = [
      TUPLE_LINE,
      'iteration: 4',
      'miss: the first miss',
      other,
      'iteration: 9',
      'interrupted: a later reason',
      'seed miss: another',
    ].join('\n');
    expect(parseRepairBody(body)).toEqual({
      pending: TUPLE,
      iteration: 4,
      reason: { kind: 'miss', text: 'the first miss' },
      records: [],
    });
  });
});
