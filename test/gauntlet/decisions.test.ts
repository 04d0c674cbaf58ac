import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import {
  decisionProblem,
  formatEscalatedDecision,
  formatOutcomeDecision,
  formatRaiseDecision,
  formatRetryDecision,
  formatSeedDecision,
  parseDecision,
} from '../../src/gauntlet/decisions.js';

describe('parseDecision: every kind of §1.5', () => {
  it('reads a child outcome', () => {
    const line =
      'row 3 failed | upload step cannot reach the staging bucket | try a local object-store fixture';
    expect(parseDecision(line)).toEqual({
      kind: 'outcome',
      row: 3,
      status: 'failed',
      summary: 'upload step cannot reach the staging bucket',
      next: 'try a local object-store fixture',
      line,
    });
  });

  it('reads the seed decision', () => {
    const line = 'row 0 done | seeded 4 rows, closed 1 on baseline | row 2';
    expect(parseDecision(line)).toEqual({ kind: 'seed', seeded: 4, closed: 1, firstRow: 'row 2', line });
  });

  it('reads a retry; the stored allowed attempts is history only (§3.5)', () => {
    const line = 'row 3 retry | use the local MinIO fixture | allowed attempts 99';
    expect(parseDecision(line)).toEqual({
      kind: 'retry',
      row: 3,
      hint: 'use the local MinIO fixture',
      allowedAttempts: 99,
      line,
    });
  });

  it('recognises an escalation by its prefix alone (§6 A5)', () => {
    for (const line of [
      'row 3 escalated | implModel round | allowed attempts 4',
      'row 3 escalated | implModel round | allowed a',
      'row 3 escalated |',
    ])
      expect(parseDecision(line)).toEqual({ kind: 'escalated', row: 3, line });
  });

  it('reads an allowance raise, the bare reply with an empty words cell', () => {
    expect(parseDecision('rows +50 |')).toEqual({ kind: 'raise', amount: 50, words: '', line: 'rows +50 |' });
    expect(parseDecision('rows +2 | the fixture needs two more tries')).toEqual({
      kind: 'raise',
      amount: 2,
      words: 'the fixture needs two more tries',
      line: 'rows +2 | the fixture needs two more tries',
    });
  });

  it('keeps legacy grant history and hand notes as other', () => {
    for (const line of ['grant: option 5', 'note: talked to the PM', 'row 3 note | x | y'])
      expect(parseDecision(line)).toEqual({ kind: 'other', line });
  });
});

describe('the outcome regex ^row <n> <status> \\| .{1,200} \\| .{1,200}$', () => {
  it('accepts 200 characters in a cell', () => {
    expect(parseDecision(`row 2 done | ${'a'.repeat(200)} | next`).kind).toBe('outcome');
  });

  it('V7: a 201-character middle cell is malformed', () => {
    const line = `row 2 done | ${'a'.repeat(201)} | next`;
    expect(parseDecision(line).kind).toBe('other');
    expect(decisionProblem(line)).toMatch(/201 characters/);
  });

  it('counts characters as a person does (code points), not UTF-16 units', () => {
    expect(parseDecision(`row 2 done | ${'😀'.repeat(200)} | next`).kind).toBe('outcome');
  });
});

describe('decisionProblem', () => {
  it('is null for every well-formed kind and for lines of no known kind', () => {
    for (const line of [
      'row 2 done | a | b',
      'row 0 done | seeded 1 rows, closed 0 on baseline | row 1',
      'row 2 retry |  | allowed attempts 5',
      'row 2 escalated | implModel round | allowed attempts 4',
      'rows +3 |',
      'grant: legacy',
      'rows of notes',
    ])
      expect(decisionProblem(line)).toBeNull();
  });

  it('names what is wrong with a line that starts like a known kind', () => {
    expect(decisionProblem('row 3 failed | only one cell')).toMatch(/summary cell and a next cell/);
    expect(decisionProblem('row 3 done|a|b')).toMatch(/separated by " \| "/);
    expect(decisionProblem('row 0 done | seeded some rows | row 1')).toMatch(/seed decision/);
    expect(decisionProblem('row 0 failed | a | b')).toMatch(/reserved for the seed/);
    expect(decisionProblem('row 03 done | a | b')).toMatch(/not a positive integer/);
    expect(decisionProblem('row 3 retry | hint | allowed attempts many')).toMatch(/retry decision/);
    expect(decisionProblem('row 3 escalated')).toMatch(/escalation decision/);
    expect(decisionProblem('rows +0 |')).toMatch(/positive integer/);
    expect(decisionProblem('rows +5')).toMatch(/rows \+<N>/);
  });
});

describe('formatters', () => {
  it('write each kind in the protocol spelling', () => {
    expect(formatOutcomeDecision(2, 'done', 'escapes commas', 'take row 3 next')).toBe(
      'row 2 done | escapes commas | take row 3 next',
    );
    expect(formatSeedDecision(4, 1, 'row 2')).toBe(
      'row 0 done | seeded 4 rows, closed 1 on baseline | row 2',
    );
    expect(formatRetryDecision(3, 'use the MinIO fixture', 5)).toBe(
      'row 3 retry | use the MinIO fixture | allowed attempts 5',
    );
    expect(formatEscalatedDecision(3, 4)).toBe('row 3 escalated | implModel round | allowed attempts 4');
    expect(formatRaiseDecision(50)).toBe('rows +50 |');
    expect(formatRaiseDecision(50, '  ')).toBe('rows +50 |');
    expect(formatRaiseDecision(2, 'two more')).toBe('rows +2 | two more');
  });

  it('refuse what would not read back, with a named error', () => {
    expect(() => formatOutcomeDecision(2, 'done', 'a'.repeat(201), 'b')).toThrow(InputError);
    expect(() => formatOutcomeDecision(0, 'done', 'a', 'b')).toThrow(/row/);
    expect(() => formatOutcomeDecision(2, 'done', 'a', 'b | c')).toThrow(/read back/);
    expect(() => formatRetryDecision(2, 'two\nlines', 5)).toThrow(/one line/);
    expect(() => formatRaiseDecision(0)).toThrow(/>= 1/);
    expect(() => formatSeedDecision(1, 2, 'row 1')).toThrow(/cannot exceed/);
  });

  it('every formatted decision parses back to its parts', () => {
    const cell = fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 200 })
      .filter((s) => !/[|\r\n\u2028\u2029]/.test(s) && [...s].length <= 200);
    const row = fc.integer({ min: 1, max: 10_000 });
    const count = fc.nat({ max: 10_000 });
    fc.assert(
      fc.property(
        row,
        fc.constantFrom('done' as const, 'failed' as const),
        cell,
        cell,
        (n, status, summary, next) => {
          expect(parseDecision(formatOutcomeDecision(n, status, summary, next))).toMatchObject({
            kind: 'outcome',
            row: n,
            status,
            summary,
            next,
          });
        },
      ),
      { numRuns: 1000 },
    );
    fc.assert(
      fc.property(row, fc.oneof(fc.constant(''), cell), count, (n, hint, m) => {
        expect(parseDecision(formatRetryDecision(n, hint, m))).toMatchObject({
          kind: 'retry',
          row: n,
          hint,
          allowedAttempts: m,
        });
        expect(parseDecision(formatEscalatedDecision(n, m))).toMatchObject({ kind: 'escalated', row: n });
        expect(parseDecision(formatRaiseDecision(n, hint))).toMatchObject({
          kind: 'raise',
          amount: n,
          words: hint.trim(),
        });
        expect(decisionProblem(formatRetryDecision(n, hint, m))).toBeNull();
      }),
      { numRuns: 1000 },
    );
  });
});
