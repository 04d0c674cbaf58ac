import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import {
  buildEvidence,
  escapePipes,
  escapeSegment,
  evidenceProblem,
  splitEvidence,
  splitUnescaped,
  unescapeEvidence,
} from '../../src/gauntlet/evidence.js';

// docs/ledger-format.md §3: `\|` is a literal pipe, `\;` a semicolon inside one result line and
// `\\` a backslash; any other backslash is literal. Expected cells below are written by hand;
// String.raw keeps each backslash as one character.

/** The error buildEvidence throws, as `{ code, message }`; fails the test when none is thrown. */
function thrown(build: () => unknown): { code: string; message: string } {
  try {
    build();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return { code: (error as InputError).code, message: (error as InputError).message };
  }
  throw new Error('expected buildEvidence to refuse its input');
}

describe('a backslash before an escapable character or the end of the cell is doubled', () => {
  it('a trailing backslash is doubled so it cannot escape the closing pipe', () => {
    expect(escapeSegment('dir\\')).toBe(String.raw`dir\\`);
    expect(escapePipes('C:\\')).toBe(String.raw`C:\\`);
  });

  it('a backslash before a pipe, semicolon or backslash is doubled; elsewhere it stays single', () => {
    expect(escapeSegment('a\\;b')).toBe(String.raw`a\\\;b`);
    expect(escapeSegment('a\\|b')).toBe(String.raw`a\\\|b`);
    expect(escapeSegment('x\\\\y')).toBe(String.raw`x\\\y`);
    expect(escapeSegment('x\\y')).toBe(String.raw`x\y`);
    expect(escapePipes('a\\;b')).toBe(String.raw`a\\;b`);
  });
});

describe('unescapeEvidence reads each escape once', () => {
  it('"\\\\" is one backslash', () => {
    expect(unescapeEvidence(String.raw`C:\\`)).toBe('C:\\');
    expect(unescapeEvidence(String.raw`a\\b`)).toBe('a\\b');
  });

  it('an escaped backslash does not also escape the character after it', () => {
    expect(unescapeEvidence(String.raw`a\\;b`)).toBe('a\\;b');
    expect(unescapeEvidence(String.raw`a\\\|b`)).toBe('a\\|b');
  });
});

describe('splitting keeps a trailing backslash as written', () => {
  it('a backslash at the very end escapes nothing', () => {
    expect(splitUnescaped('a\\', ';')).toEqual(['a\\']);
    expect(splitEvidence('check; dir\\')).toEqual(['check', 'dir\\']);
    expect(splitEvidence(String.raw`check; a\;b; c\\; d`)).toEqual(['check', String.raw`a\;b`, 'c\\\\', 'd']);
  });
});

describe('angle markup is any HTML-like tag, not only one-letter ones', () => {
  it('refuses tags with several characters between the angle brackets', () => {
    for (const cell of ['npm test; line one<br/>line two', 'npm test; <b>bold', 'npm test; <td class=x>1'])
      expect(evidenceProblem(cell)).toBe('evidence contains angle markup (write plain text)');
  });
});

describe('buildEvidence', () => {
  it('a check name alone is a whole cell', () => {
    expect(buildEvidence('npm test')).toBe('npm test');
  });

  it('refuses a blank result line beside a real check name', () => {
    expect(thrown(() => buildEvidence('npm test', ['14 passed', '  ']))).toEqual({
      code: 'evidence.invalid',
      message: 'evidence check name and result lines must not be blank',
    });
  });

  it('refuses more than three results, line breaks and markup with evidence.invalid', () => {
    expect(thrown(() => buildEvidence('npm test', ['1', '2', '3', '4']))).toEqual({
      code: 'evidence.invalid',
      message: 'evidence takes at most 3 result lines, got 4',
    });
    expect(thrown(() => buildEvidence('npm test', ['a\nb']))).toEqual({
      code: 'evidence.invalid',
      message: 'evidence parts must be single lines',
    });
    expect(thrown(() => buildEvidence('npm test', ['<b>bold</b>']))).toEqual({
      code: 'evidence.invalid',
      message: 'evidence must be plain text without angle markup',
    });
  });
});
