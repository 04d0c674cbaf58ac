import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { dispositionEvidence, isCutDisposition, parseSpec } from '../../src/gauntlet/spec.js';
import { csvSpecText } from './text-fixtures.js';

function codes(text: string): string[] {
  return parseSpec(text).findings.map((f) => f.code);
}

describe('acceptance criteria (§1.3)', () => {
  const text = csvSpecText([
    'Ticket ACME-1, checkbox list, rows verbatim:',
    '',
    '- [ ] header row is written',
    '  in-scope',
    '- [x] commas and quotes are escaped',
    '- [ ] upload to the staging bucket',
    '  venue: staging - upload visible in the bucket',
    '- [ ] scheduled export',
    '  deferred: ACME-412',
    '- [ ] XLSX output',
    '  deviates: XLSX dropped by product decision; CSV only',
    '- [ ] mobile export',
    '  elsewhere: acme/mobile',
  ]);

  it('numbers rows 1..N in order; nested disposition lines are never rows', () => {
    const { spec: parsed, findings } = parseSpec(text);
    expect(findings).toEqual([]);
    expect(parsed.title).toBe('CSV export');
    expect(parsed.rows.map((r) => [r.row, r.text])).toEqual([
      [1, 'header row is written'],
      [2, 'commas and quotes are escaped'],
      [3, 'upload to the staging bucket'],
      [4, 'scheduled export'],
      [5, 'XLSX output'],
      [6, 'mobile export'],
    ]);
    expect(parsed.rows[0]?.line).toBe(text.split('\n').indexOf('- [ ] header row is written') + 1);
  });

  it('reads each disposition; an absent one is in-scope, not explicit', () => {
    const rows = parseSpec(text).spec.rows;
    expect(rows.map((r) => r.disposition)).toEqual([
      { kind: 'in-scope', explicit: true },
      { kind: 'in-scope', explicit: false },
      {
        kind: 'venue',
        env: 'staging',
        observation: 'upload visible in the bucket',
        text: 'venue: staging - upload visible in the bucket',
      },
      { kind: 'deferred', where: 'ACME-412', text: 'deferred: ACME-412' },
      {
        kind: 'deviates',
        why: 'XLSX dropped by product decision; CSV only',
        text: 'deviates: XLSX dropped by product decision; CSV only',
      },
      { kind: 'elsewhere', repo: 'acme/mobile', text: 'elsewhere: acme/mobile' },
    ]);
    expect(rows.map((r) => isCutDisposition(r.disposition))).toEqual([false, false, false, true, true, true]);
  });

  it('the cut evidence is the disposition text with pipes escaped; in-scope and venue rows seed none', () => {
    const rows = parseSpec(
      csvSpecText(['- [ ] a', '  deviates: a | b; proof at c', '- [ ] b', '  venue: qa - seen']),
    ).spec.rows;
    expect(dispositionEvidence(rows[0]?.disposition as never)).toBe('deviates: a \\| b; proof at c');
    expect(dispositionEvidence(rows[1]?.disposition as never)).toBe('');
  });

  it('a "none - ..." section gives zero rows', () => {
    for (const line of [
      'none - no ticket',
      'none - ticket has no acceptance criteria',
      'none - ticket not fetched (offline)',
    ]) {
      const result = parseSpec(csvSpecText([line]));
      expect(result.findings).toEqual([]);
      expect(result.spec.rows).toEqual([]);
    }
  });

  it('accepts the heading in another letter case and ignores criteria inside code fences', () => {
    const text = csvSpecText(['- [ ] real row', '```', '- [ ] example inside a fence', '```']).replace(
      '## Acceptance criteria',
      '## Acceptance Criteria',
    );
    expect(parseSpec(text).spec.rows.map((r) => r.text)).toEqual(['real row']);
  });
});

describe('findings (each named)', () => {
  const cases: [string, string, string][] = [
    [
      'venue prod',
      csvSpecText(['- [ ] deploy works', '  venue: prod - visible to users']),
      'spec.disposition.venue-production',
    ],
    [
      'venue Production',
      csvSpecText(['- [ ] deploy works', '  venue: Production - visible']),
      'spec.disposition.venue-production',
    ],
    [
      'venue without observation',
      csvSpecText(['- [ ] deploy works', '  venue: staging']),
      'spec.disposition.malformed',
    ],
    ['deviates without a reason', csvSpecText(['- [ ] a', '  deviates:']), 'spec.disposition.malformed'],
    ['unknown disposition word', csvSpecText(['- [ ] a', '  postponed: later']), 'spec.ac.unexpected-line'],
    [
      'two dispositions',
      csvSpecText(['- [ ] a', '  in-scope', '  deferred: ACME-1']),
      'spec.disposition.duplicate',
    ],
    ['disposition not indented', csvSpecText(['- [ ] a', 'deferred: ACME-1']), 'spec.disposition.not-nested'],
    [
      'deferred to nowhere',
      csvSpecText(['- [ ] a', '  deferred: later maybe']),
      'spec.disposition.deferred-destination',
    ],
    ['bullet without a checkbox', csvSpecText(['- header row']), 'spec.ac.bullet'],
    ['numbered item', csvSpecText(['1. [ ] header row']), 'spec.ac.bullet'],
    ['checkbox without text', csvSpecText(['- [ ]']), 'spec.ac.empty-text'],
    [
      'no rows and no none line',
      csvSpecText(['Ticket ACME-1, checkbox list, rows verbatim:']),
      'spec.ac.empty',
    ],
    ['none line next to rows', csvSpecText(['none - no ticket', '- [ ] a']), 'spec.ac.none-with-rows'],
    ['no AC section', '# CSV export\n\n## Goal\n\nx\n', 'spec.ac.missing'],
    [
      'two AC sections',
      `${csvSpecText(['- [ ] a'])}\n## Acceptance criteria\n\n- [ ] b\n`,
      'spec.ac.duplicate',
    ],
  ];
  for (const [what, text, code] of cases) {
    it(`${code}: ${what}`, () => {
      expect(codes(text)).toContain(code);
    });
  }

  it('a disposition finding keeps the row, so nothing is lost', () => {
    const result = parseSpec(csvSpecText(['- [ ] deploy works', '  venue: prod - visible', '- [ ] b']));
    expect(result.spec.rows).toHaveLength(2);
    expect(result.spec.rows[0]?.disposition.kind).toBe('venue');
  });

  it('reports the line of the offending text', () => {
    const text = csvSpecText(['- [ ] a', '  venue: prd - visible']);
    const line = text.split('\n').indexOf('  venue: prd - visible') + 1;
    expect(parseSpec(text).findings).toEqual([
      expect.objectContaining({ code: 'spec.disposition.venue-production', line }),
    ]);
  });
});

describe('**Amend-grant:** (§3.17)', () => {
  const grant = (header: string[]) => parseSpec(csvSpecText(['- [ ] a'], header));

  it('no line, or the value none, is no grant', () => {
    expect(grant([]).spec.amendGrant).toEqual({ kind: 'none' });
    expect(grant(['**Amend-grant:**  none ']).spec.amendGrant).toEqual({ kind: 'none' });
  });

  it('one physical line with a sentence is an active grant; the sentence is the value', () => {
    const result = grant([
      '**Status:** approved',
      '**Amend-grant:** I approve auto-applied amendments for this loop.',
    ]);
    expect(result.spec.amendGrant).toEqual({
      kind: 'active',
      sentence: 'I approve auto-applied amendments for this loop.',
    });
    expect(result.findings).toEqual([]);
  });

  it('two lines, an empty value or a continued line are malformed, with the offending lines', () => {
    const two = grant(['**Amend-grant:** yes', '**Amend-grant:** no']);
    expect(two.spec.amendGrant).toEqual({
      kind: 'malformed',
      lines: [
        { line: 2, text: '**Amend-grant:** yes' },
        { line: 3, text: '**Amend-grant:** no' },
      ],
    });
    expect(two.findings.map((f) => f.code)).toEqual(['spec.amend-grant.malformed']);
    expect(grant(['**Amend-grant:**   ']).spec.amendGrant.kind).toBe('malformed');
    const continued = grant(['**Amend-grant:** I approve amendments', 'for the whole loop.']);
    expect(continued.spec.amendGrant).toEqual({
      kind: 'malformed',
      lines: [
        { line: 2, text: '**Amend-grant:** I approve amendments' },
        { line: 3, text: 'for the whole loop.' },
      ],
    });
  });

  it('a grant line outside the header block is not the header', () => {
    const text = csvSpecText(['- [ ] a']).replace('Export reports as CSV.', '**Amend-grant:** not here');
    expect(parseSpec(text).spec.amendGrant).toEqual({ kind: 'none' });
  });
});

describe('parseSpec never throws', () => {
  const fragments = [
    '# CSV export',
    '## Acceptance criteria',
    '## acceptance criteria',
    '- [ ] a',
    '- [x]',
    '  in-scope',
    '  venue: prod - x',
    '  deferred:',
    'none - no ticket',
    '**Amend-grant:** yes',
    '**Amend-grant:**',
    '```',
    '~~~',
    '1. [ ] x',
    '',
  ];
  it('on arbitrary text and spec-like fragments, and always numbers rows 1..N', () => {
    const text = fc.oneof(
      fc.string({ unit: 'grapheme', maxLength: 300 }),
      fc.string({ unit: 'binary', maxLength: 300 }),
      fc
        .array(fc.oneof(fc.constantFrom(...fragments), fc.string({ unit: 'grapheme', maxLength: 20 })), {
          maxLength: 40,
        })
        .chain((lines) =>
          fc
            .array(fc.constantFrom('\n', '\r\n', '\r'), { minLength: lines.length, maxLength: lines.length })
            .map((eols) => lines.map((line, index) => line + eols[index]).join('')),
        ),
    );
    fc.assert(
      fc.property(text, (input) => {
        const result = parseSpec(input);
        expect(result.spec.rows.map((r) => r.row)).toEqual(result.spec.rows.map((_, index) => index + 1));
        for (const f of result.findings) {
          expect(f.code).toMatch(/^spec\./);
          expect(f.code).not.toBe('spec.internal');
        }
      }),
      { numRuns: 1000 },
    );
  });
});
