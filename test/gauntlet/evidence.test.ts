import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import {
  buildEvidence,
  escapePipes,
  escapeSegment,
  evidenceProblem,
  firstResultSegment,
  hasUnescapedPipe,
  isBoundedEvidence,
  splitEvidence,
  unescapeEvidence,
} from '../../src/gauntlet/evidence.js';

describe('splitEvidence (§1.4, §6 A4)', () => {
  it('segment 0 is the check name, the rest are trimmed result lines', () => {
    expect(
      splitEvidence('npm test -- csv.test.ts; 14 passed;commas and quotes escaped in src/export/csv.ts  '),
    ).toEqual(['npm test -- csv.test.ts', '14 passed', 'commas and quotes escaped in src/export/csv.ts']);
  });

  it('does not split on an escaped semicolon, and keeps escapes in the segment', () => {
    expect(splitEvidence('grep a\\;b; found 2 \\| lines')).toEqual(['grep a\\;b', 'found 2 \\| lines']);
  });

  it('gives no segments for an empty cell', () => {
    expect(splitEvidence('')).toEqual([]);
    expect(splitEvidence('   ')).toEqual([]);
  });
});

describe('firstResultSegment (§3.13)', () => {
  it('U1: reads the marker in the first result segment after the check name', () => {
    expect(firstResultSegment('e2e; unreachable: prod DNS - runbook §4')).toBe(
      'unreachable: prod DNS - runbook §4',
    );
  });

  it('U5: a marker in the second result segment is not the first result segment', () => {
    expect(firstResultSegment('e2e; 3 failed; unreachable: prod DNS - runbook §4')).toBe('3 failed');
  });

  it('is null for a check name alone or an empty cell, and unescapes the segment', () => {
    expect(firstResultSegment('npm test')).toBeNull();
    expect(firstResultSegment('')).toBeNull();
    expect(firstResultSegment('smoke; bound spent: deploy a\\|b (1 of 1)')).toBe(
      'bound spent: deploy a|b (1 of 1)',
    );
  });
});

describe('bounded evidence (§1.4, §3.10)', () => {
  it('accepts a check name plus up to three result lines', () => {
    expect(isBoundedEvidence('npm test')).toBe(true);
    expect(isBoundedEvidence('npm test; r1; r2; r3')).toBe(true);
    expect(isBoundedEvidence('iteration 3: interrupted - killed after silence; ran capture (1 of 1)')).toBe(
      true,
    );
  });

  it('V11: four result lines are not bounded', () => {
    expect(isBoundedEvidence('npm test; r1; r2; r3; r4')).toBe(false);
    expect(evidenceProblem('npm test; r1; r2; r3; r4')).toMatch(/4 result lines/);
  });

  it('refuses empty cells, line breaks, unescaped pipes, angle markup and empty segments', () => {
    expect(evidenceProblem('')).toMatch(/empty/);
    expect(evidenceProblem('npm test\n14 passed')).toMatch(/physical line/);
    expect(evidenceProblem('npm test; a | b')).toMatch(/unescaped pipe/);
    expect(evidenceProblem('npm test; 14 passed<br>1 failed')).toMatch(/angle markup/);
    expect(evidenceProblem('npm test;; 14 passed')).toMatch(/empty segment/);
  });

  it('adds no command-format check: any check name and a bare "<" are fine', () => {
    expect(isBoundedEvidence('looked at the page by hand; a < b holds')).toBe(true);
    expect(isBoundedEvidence('npm test; 1 \\| 2 passed')).toBe(true);
  });
});

describe('escaping', () => {
  it('escapePipes keeps semicolons as separators; escapeSegment escapes them too', () => {
    expect(escapePipes('deviates: a | b; proof at c')).toBe('deviates: a \\| b; proof at c');
    expect(escapeSegment('a | b; c')).toBe('a \\| b\\; c');
  });

  it('leaves ordinary backslashes alone (Windows paths, regexes)', () => {
    expect(escapeSegment('C:\\dir\\file.txt')).toBe('C:\\dir\\file.txt');
    expect(unescapeEvidence('C:\\dir\\file.txt')).toBe('C:\\dir\\file.txt');
  });

  it('escaped text never has an unescaped pipe, and unescapes to the original', () => {
    fc.assert(
      fc.property(fc.string({ unit: 'grapheme', maxLength: 80 }), (text) => {
        for (const escaped of [escapePipes(text), escapeSegment(text)]) {
          expect(hasUnescapedPipe(escaped)).toBe(false);
          expect(unescapeEvidence(escaped)).toBe(text);
        }
        const segments = splitEvidence(`check; ${escapeSegment(text)}`);
        expect(segments).toHaveLength(2);
        expect(unescapeEvidence(segments[1] as string)).toBe(text.trim());
      }),
      { numRuns: 1000 },
    );
  });
});

describe('buildEvidence', () => {
  it('joins escaped parts with "; " and splits back into the same parts', () => {
    expect(buildEvidence('npm test -- csv.test.ts', ['14 passed', 'a | b; c'])).toBe(
      'npm test -- csv.test.ts; 14 passed; a \\| b\\; c',
    );
    const line = fc
      .string({ unit: 'grapheme', minLength: 1, maxLength: 30 })
      .map((s) => s.replace(/[\r\n<>]/g, ' ').trim())
      .filter((s) => s !== '');
    fc.assert(
      fc.property(line, fc.array(line, { maxLength: 3 }), (check, results) => {
        const cell = buildEvidence(check, results);
        expect(isBoundedEvidence(cell)).toBe(true);
        expect(splitEvidence(cell).map(unescapeEvidence)).toEqual([check, ...results]);
      }),
      { numRuns: 1000 },
    );
  });

  it('refuses more than three results, blank parts, line breaks and markup with a named error', () => {
    expect(() => buildEvidence('npm test', ['1', '2', '3', '4'])).toThrow(InputError);
    expect(() => buildEvidence(' ', [])).toThrow(/blank/);
    expect(() => buildEvidence('npm test', ['a\nb'])).toThrow(/single lines/);
    expect(() => buildEvidence('npm test', ['<b>bold</b>'])).toThrow(/angle markup/);
  });
});
