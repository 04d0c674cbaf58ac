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

// The decision grammars of gauntlet-protocol §1.5 (docs/ledger-format.md §2) are whole-line
// grammars: each is anchored at both ends. These lines carry a well-formed decision somewhere
// other than at the start, or a well-formed head followed by a tail the grammar forbids.

/** The error a formatter throws, as `{ code, message }`; fails the test when none is thrown. */
function thrown(write: () => unknown): { code: string; message: string } {
  try {
    write();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return { code: (error as InputError).code, message: (error as InputError).message };
  }
  throw new Error('expected the formatter to refuse its input');
}

describe('decision grammars are anchored at the start of the line', () => {
  it('an outcome quoted after a malformed row token is not an outcome', () => {
    const line = 'row x done | row 3 done | a | b';
    expect(parseDecision(line)).toEqual({ kind: 'other', line });
  });

  it('a seed decision quoted after a malformed row token is not a seed', () => {
    const line = 'row x done | row 0 done | seeded 1 rows, closed 0 on baseline | row 1';
    expect(parseDecision(line)).toEqual({ kind: 'other', line });
  });

  it('a retry quoted after a malformed row token is not a retry', () => {
    const line = 'row x retry | row 3 retry | h | allowed attempts 2';
    expect(parseDecision(line)).toEqual({ kind: 'other', line });
  });

  it('an escalation quoted after a malformed row token is not an escalation', () => {
    const line = 'row x escalated | row 3 escalated | implModel round';
    expect(parseDecision(line)).toEqual({ kind: 'other', line });
  });

  it('a raise quoted after a malformed amount is not a raise', () => {
    const line = 'rows +x | rows +3 | more';
    expect(parseDecision(line)).toEqual({ kind: 'other', line });
  });

  it('a note that mentions a decision kind mid-line is legacy history, not malformed', () => {
    expect(decisionProblem('note: see row 3 done|x')).toBeNull();
    expect(decisionProblem('asked whether rows +2 | is enough')).toBeNull();
  });
});

describe('decision grammars are anchored at the end of the line', () => {
  it('a 201-character last cell of an outcome is malformed, 200 are fine', () => {
    expect(parseDecision(`row 2 done | a | ${'b'.repeat(200)}`).kind).toBe('outcome');
    const line = `row 2 done | a | ${'b'.repeat(201)}`;
    expect(parseDecision(line)).toEqual({ kind: 'other', line });
  });

  it('a 201-character first-row cell of a seed is malformed, 200 are fine', () => {
    const head = 'row 0 done | seeded 1 rows, closed 0 on baseline | ';
    expect(parseDecision(`${head}${'r'.repeat(200)}`).kind).toBe('seed');
    const line = `${head}${'r'.repeat(201)}`;
    expect(parseDecision(line)).toEqual({ kind: 'other', line });
  });

  it('a retry whose allowed attempts are followed by more text is not a retry', () => {
    const line = 'row 3 retry | h | allowed attempts 5x';
    expect(parseDecision(line)).toEqual({ kind: 'other', line });
    expect(decisionProblem(line)).toBe(
      'retry decision must read "row <n> retry | <hint> | allowed attempts <m>"',
    );
  });

  it('a raise whose separator is glued to its words is not a raise', () => {
    const line = 'rows +3 |more';
    expect(parseDecision(line)).toEqual({ kind: 'other', line });
    expect(decisionProblem(line)).toBe(
      'allowance raise must read "rows +<N> | <words>" with N a positive integer (bare: "rows +<N> |")',
    );
  });
});

describe('multi-digit counts', () => {
  it('reads seed counts of two digits', () => {
    const line = 'row 0 done | seeded 12 rows, closed 10 on baseline | row 3';
    expect(parseDecision(line)).toEqual({ kind: 'seed', seeded: 12, closed: 10, firstRow: 'row 3', line });
  });
});

describe('decisionProblem names the broken part', () => {
  it('names an empty summary cell', () => {
    expect(decisionProblem('row 3 done |  | b')).toBe('done decision summary cell is empty');
  });

  it('names an empty next cell', () => {
    expect(decisionProblem('row 3 failed | a | ')).toBe('failed decision next cell is empty');
  });

  it('names an overlong summary or next cell with its length in code points', () => {
    expect(decisionProblem(`row 3 done | ${'a'.repeat(201)} | b`)).toBe(
      'done decision summary cell has 201 characters; at most 200 are allowed',
    );
    expect(decisionProblem(`row 3 done | a | ${'b'.repeat(201)}`)).toBe(
      'done decision next cell has 201 characters; at most 200 are allowed',
    );
    expect(decisionProblem(`row 3 done | a | ${'😀'.repeat(201)}`)).toBe(
      'done decision next cell has 201 characters; at most 200 are allowed',
    );
  });

  it('reports the summary of the greedy reading: every cell but the last, rejoined with " | "', () => {
    // 150 + 3 + 100 = 253 characters before the last separator; the last cell has 201.
    const line = `row 3 done | ${'a'.repeat(150)} | ${'b'.repeat(100)} | ${'c'.repeat(201)}`;
    expect(decisionProblem(line)).toBe(
      'done decision summary cell has 253 characters; at most 200 are allowed',
    );
  });

  it('names a cell broken by a line separator, after a 200-character cell that is fine', () => {
    expect(decisionProblem('row 3 done | a\u2028b | c')).toBe('done decision summary cell spans lines');
    expect(decisionProblem(`row 3 done | ${'a'.repeat(200)} | b\u2029`)).toBe(
      'done decision next cell spans lines',
    );
    expect(decisionProblem('row 3 failed | a | b\rc')).toBe('failed decision next cell spans lines');
  });

  it('names a row token that is not a positive integer, whatever else is wrong', () => {
    expect(decisionProblem('row 3x done | a | b')).toBe(
      'row number "3x" is not a positive integer (row 0 is reserved for the seed)',
    );
    expect(decisionProblem('row 12 done |  | b')).toBe('done decision summary cell is empty');
  });

  it('names the missing " | " separator', () => {
    expect(decisionProblem('row 3 done|a|b')).toBe(
      'done decision must read "row <n> done | <summary> | <next>" (cells separated by " | ")',
    );
  });

  it('names a missing next cell', () => {
    expect(decisionProblem('row 3 failed | only one cell')).toBe(
      'failed decision needs a summary cell and a next cell separated by " | "',
    );
  });

  it('gives the retry and escalation grammars', () => {
    expect(decisionProblem('row 3 retry | hint | allowed attempts many')).toBe(
      'retry decision must read "row <n> retry | <hint> | allowed attempts <m>"',
    );
    expect(decisionProblem('row 3 escalated')).toBe(
      'escalation decision must start "row <n> escalated |" (written "row <n> escalated | implModel round | allowed attempts <m>")',
    );
  });
});

describe('formatters refuse bad input with decision.invalid and a message naming the field', () => {
  it('outcome: row', () => {
    expect(thrown(() => formatOutcomeDecision(0, 'done', 'a', 'b'))).toEqual({
      code: 'decision.invalid',
      message: 'row must be an integer >= 1, got 0',
    });
    expect(thrown(() => formatOutcomeDecision(2.5, 'done', 'a', 'b'))).toEqual({
      code: 'decision.invalid',
      message: 'row must be an integer >= 1, got 2.5',
    });
  });

  it('outcome: empty, overlong or multi-line cells', () => {
    expect(thrown(() => formatOutcomeDecision(2, 'done', '', 'b'))).toEqual({
      code: 'decision.invalid',
      message: 'summary must have 1-200 characters, got 0',
    });
    expect(thrown(() => formatOutcomeDecision(2, 'done', 'a', ''))).toEqual({
      code: 'decision.invalid',
      message: 'next must have 1-200 characters, got 0',
    });
    expect(thrown(() => formatOutcomeDecision(2, 'failed', 'a'.repeat(201), 'b'))).toEqual({
      code: 'decision.invalid',
      message: 'summary must have 1-200 characters, got 201',
    });
    expect(thrown(() => formatOutcomeDecision(2, 'failed', 'a', 'b'.repeat(201)))).toEqual({
      code: 'decision.invalid',
      message: 'next must have 1-200 characters, got 201',
    });
    expect(thrown(() => formatOutcomeDecision(2, 'done', 'a\nb', 'c'))).toEqual({
      code: 'decision.invalid',
      message: 'summary must be one line',
    });
    expect(formatOutcomeDecision(2, 'done', 'a'.repeat(200), 'b')).toBe(
      `row 2 done | ${'a'.repeat(200)} | b`,
    );
  });

  it('outcome: a cell that would read back split differently', () => {
    expect(thrown(() => formatOutcomeDecision(2, 'done', 'a', 'b | c'))).toEqual({
      code: 'decision.invalid',
      message: 'summary "a" would not read back unchanged from "row 2 done | a | b | c" (avoid " | " in it)',
    });
  });

  it('seed: negative counts, closed above seeded, bad first row', () => {
    expect(thrown(() => formatSeedDecision(-1, 0, 'row 1'))).toEqual({
      code: 'decision.invalid',
      message: 'seeded rows must be an integer >= 0, got -1',
    });
    expect(thrown(() => formatSeedDecision(1, -1, 'row 1'))).toEqual({
      code: 'decision.invalid',
      message: 'closed rows must be an integer >= 0, got -1',
    });
    expect(thrown(() => formatSeedDecision(1, 2, 'row 1'))).toEqual({
      code: 'decision.invalid',
      message: 'closed rows (2) cannot exceed seeded rows (1)',
    });
    expect(thrown(() => formatSeedDecision(1, 0, ''))).toEqual({
      code: 'decision.invalid',
      message: 'first row to take must have 1-200 characters, got 0',
    });
    expect(formatSeedDecision(0, 0, 'row 1')).toBe(
      'row 0 done | seeded 0 rows, closed 0 on baseline | row 1',
    );
  });

  it('retry: bad row, multi-line hint, negative allowed attempts', () => {
    expect(thrown(() => formatRetryDecision(0, 'h', 5))).toEqual({
      code: 'decision.invalid',
      message: 'row must be an integer >= 1, got 0',
    });
    expect(thrown(() => formatRetryDecision(2, 'two\nlines', 5))).toEqual({
      code: 'decision.invalid',
      message: 'retry hint must be one line',
    });
    expect(thrown(() => formatRetryDecision(2, 'h', -1))).toEqual({
      code: 'decision.invalid',
      message: 'allowed attempts must be an integer >= 0, got -1',
    });
  });

  it('escalation: bad row or allowed attempts', () => {
    expect(thrown(() => formatEscalatedDecision(0, 4))).toEqual({
      code: 'decision.invalid',
      message: 'row must be an integer >= 1, got 0',
    });
    expect(thrown(() => formatEscalatedDecision(-3, 4))).toEqual({
      code: 'decision.invalid',
      message: 'row must be an integer >= 1, got -3',
    });
    expect(thrown(() => formatEscalatedDecision(1.5, 4))).toEqual({
      code: 'decision.invalid',
      message: 'row must be an integer >= 1, got 1.5',
    });
    expect(thrown(() => formatEscalatedDecision(3, -1))).toEqual({
      code: 'decision.invalid',
      message: 'allowed attempts must be an integer >= 0, got -1',
    });
    expect(formatEscalatedDecision(1, 0)).toBe('row 1 escalated | implModel round | allowed attempts 0');
  });

  it('raise: amount below one, multi-line words', () => {
    expect(thrown(() => formatRaiseDecision(0))).toEqual({
      code: 'decision.invalid',
      message: 'raise amount must be an integer >= 1, got 0',
    });
    expect(thrown(() => formatRaiseDecision(2, 'a\nb'))).toEqual({
      code: 'decision.invalid',
      message: 'raise words must be one line',
    });
  });
});
