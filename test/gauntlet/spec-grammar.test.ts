// The spec grammar's edges (gauntlet-protocol §1.3 for the acceptance criteria and their
// dispositions, §3.17 for the `**Amend-grant:**` header): how lines, code fences and headings
// bound what the parser reads, and the wording of every finding. Expected values are written by
// hand from the protocol text; every parse happens inside a test, so a parser that throws fails
// that test instead of the file's collection.
import { afterEach, describe, expect, it, vi } from 'vitest';
import { parseSpec } from '../../src/gauntlet/spec.js';
import { csvSpecText, lineOf } from './text-fixtures.js';

function rowTexts(text: string): string[] {
  return parseSpec(text).spec.rows.map((row) => row.text);
}

function codes(text: string): string[] {
  return parseSpec(text).findings.map((f) => f.code);
}

describe('lines and line endings', () => {
  it('reads a CRLF file as its LF twin: no carriage return reaches a row, a grant line or a checkbox', () => {
    const text = [
      '# CSV export',
      '**Amend-grant:** yes',
      '**Amend-grant:** no',
      '',
      '## Acceptance criteria',
      '',
      '- [ ] header row',
      '- [ ]',
      '',
    ].join('\r\n');
    const result = parseSpec(text);
    expect(result.spec.title).toBe('CSV export');
    expect(result.spec.rows.map((row) => [row.row, row.text, row.line])).toEqual([
      [1, 'header row', 7],
      [2, '', 8],
    ]);
    expect(result.spec.amendGrant).toEqual({
      kind: 'malformed',
      lines: [
        { line: 2, text: '**Amend-grant:** yes' },
        { line: 3, text: '**Amend-grant:** no' },
      ],
    });
    expect(result.findings.map((f) => [f.code, f.line])).toEqual([
      ['spec.amend-grant.malformed', 2],
      ['spec.ac.empty-text', 8],
    ]);
  });

  it('a non-string input reads as an empty text: no section, no internal failure', () => {
    const result = parseSpec(undefined as unknown as string);
    expect(result.spec).toEqual({ title: null, rows: [], amendGrant: { kind: 'none' } });
    expect(result.findings.map((f) => f.code)).toEqual(['spec.ac.missing']);
  });
});

describe('parseSpec never throws: an internal failure is a named finding', () => {
  afterEach(() => {
    vi.restoreAllMocks();
  });

  it('turns an exception inside the parser into spec.internal with the error message', () => {
    const text = csvSpecText(['- [ ] a']);
    vi.spyOn(String.prototype, 'split').mockImplementationOnce(() => {
      throw new Error('boom');
    });
    const result = parseSpec(text);
    expect(result).toEqual({
      spec: { title: null, rows: [], amendGrant: { kind: 'none' } },
      findings: [{ code: 'spec.internal', line: 0, reason: 'the spec parser failed: boom' }],
    });
  });
});

describe('code fences', () => {
  it('a closed fence hides its rows and headings; the rows after it count', () => {
    const text = csvSpecText([
      '- [ ] a',
      '```',
      '- [ ] an example row',
      '## an example heading',
      '```',
      '- [ ] b',
    ]);
    expect(parseSpec(text).findings).toEqual([]);
    expect(rowTexts(text)).toEqual(['a', 'b']);
  });

  it('only a marker of the opening kind closes a fence', () => {
    const text = csvSpecText(['- [ ] a', '```', '~~~', '- [ ] an example row', '```', '- [ ] b']);
    expect(parseSpec(text).findings).toEqual([]);
    expect(rowTexts(text)).toEqual(['a', 'b']);
  });

  it('a fence opens only with three or more backticks or tildes at the start of a line', () => {
    const text = csvSpecText([
      '`npm test` must pass for every row.',
      '~~Old rows~~ were dropped.',
      '- [ ] wrap the output in ``` fences',
      '- [ ] b',
    ]);
    expect(parseSpec(text).findings).toEqual([]);
    expect(rowTexts(text)).toEqual(['wrap the output in ``` fences', 'b']);
  });

  it('a code block indented under a criterion is no stray line; the disposition after it still nests', () => {
    const text = csvSpecText(['- [ ] a', '  ```', '  npm test', '  ```', '  deferred: ACME-1']);
    const result = parseSpec(text);
    expect(result.findings).toEqual([]);
    expect(result.spec.rows[0]?.disposition).toEqual({
      kind: 'deferred',
      where: 'ACME-1',
      text: 'deferred: ACME-1',
    });
  });
});

describe('headings', () => {
  it('a # inside a criterion is no heading; the section goes on', () => {
    const text = csvSpecText(['- [ ] support C# projects', '- [ ] b']);
    expect(parseSpec(text).findings).toEqual([]);
    expect(rowTexts(text)).toEqual(['support C# projects', 'b']);
  });

  it('a bare ## is an empty heading that ends the section', () => {
    const text = csvSpecText(['- [ ] a', '##', '- [ ] under the empty heading']);
    expect(rowTexts(text)).toEqual(['a']);
  });

  it('the title is the first # heading, trimmed of any whitespace; a bare # is an empty title', () => {
    expect(parseSpec(csvSpecText(['- [ ] a']).replace('# CSV export', '# CSV export\u00a0')).spec.title).toBe(
      'CSV export',
    );
    expect(parseSpec(csvSpecText(['- [ ] a']).replace('# CSV export', '#')).spec.title).toBe('');
  });

  it('the section heading is exactly "Acceptance criteria": longer headings naming it are other sections', () => {
    const text = csvSpecText(['- [ ] a'])
      .replace('## Goal', '## Notes on acceptance criteria')
      .replace('## Out of scope', '## Acceptance criteria history');
    expect(parseSpec(text).findings).toEqual([]);
    expect(rowTexts(text)).toEqual(['a']);
  });

  it('names a missing section, and the first section’s line when there are two', () => {
    expect(parseSpec('# CSV export\n\n## Goal\n\nx\n').findings).toEqual([
      { code: 'spec.ac.missing', line: 0, reason: 'the spec has no "## Acceptance criteria" section' },
    ]);
    const text = `${csvSpecText(['- [ ] a'])}\n## Acceptance criteria\n\n- [ ] b\n`;
    const first = lineOf(text, '## Acceptance criteria');
    expect(parseSpec(text).findings).toEqual([
      {
        code: 'spec.ac.duplicate',
        line: text.split('\n').lastIndexOf('## Acceptance criteria') + 1,
        reason: `a second "## Acceptance criteria" section (the first, line ${first}, is used)`,
      },
    ]);
    expect(rowTexts(text)).toEqual(['a']);
  });
});

describe('the header block and **Amend-grant:** (§3.17)', () => {
  it('the header block is the lines after the title, even when a section comes before the title', () => {
    const text =
      '## Status board\n\n# CSV export\n**Amend-grant:** yes\n\n## Acceptance criteria\n\n- [ ] a\n';
    expect(parseSpec(text).spec.amendGrant).toEqual({ kind: 'active', sentence: 'yes' });
  });

  it('a grant line inside the first section is not the header, even right after the title', () => {
    const text = '# CSV export\n## Acceptance criteria\n\n- [ ] a\n**Amend-grant:** yes\n\n## Notes\n';
    const result = parseSpec(text);
    expect(result.spec.amendGrant).toEqual({ kind: 'none' });
    expect(result.findings).toEqual([]);
  });

  it('without any section the header runs to the last line, newline or not', () => {
    expect(parseSpec('# CSV export\n**Amend-grant:** yes').spec.amendGrant).toEqual({
      kind: 'active',
      sentence: 'yes',
    });
  });

  it('the grant line starts with the field; a mention of it inside a sentence is no grant', () => {
    expect(
      parseSpec(csvSpecText(['- [ ] a'], ['Ask before amending; no **Amend-grant:** yet'])).spec.amendGrant,
    ).toEqual({ kind: 'none' });
  });

  it('the grant may be followed by a blank or whitespace-only line, another header field or a heading', () => {
    const sentence = 'I approve auto-applied amendments for this loop.';
    for (const next of ['   ', '**Status:** approved', '**Ticket:** ACME-1']) {
      const result = parseSpec(csvSpecText(['- [ ] a'], [`**Amend-grant:** ${sentence}`, next]));
      expect(result.spec.amendGrant).toEqual({ kind: 'active', sentence });
      expect(result.findings).toEqual([]);
    }
    // A ## heading ends the header block; a deeper heading stays inside it and is no continuation.
    const headed = parseSpec(
      csvSpecText(['- [ ] a'], [`**Amend-grant:** ${sentence}`, '### Context', 'Some context.']),
    );
    expect(headed.spec.amendGrant).toEqual({ kind: 'active', sentence });
    expect(headed.findings).toEqual([]);
  });

  it('any other next line continues the grant: malformed, naming both lines', () => {
    for (const [next, ...rest] of [['see the **Status:** line'], ['```', 'an example', '```']] as const) {
      const text = csvSpecText(['- [ ] a'], ['**Amend-grant:** yes', next, ...rest]);
      const result = parseSpec(text);
      expect(result.spec.amendGrant).toEqual({
        kind: 'malformed',
        lines: [
          { line: 2, text: '**Amend-grant:** yes' },
          { line: 3, text: next },
        ],
      });
      expect(result.findings).toEqual([
        {
          code: 'spec.amend-grant.malformed',
          line: 2,
          reason:
            '**Amend-grant:** continues onto the next physical line; the granting sentence must be one line',
        },
      ]);
    }
  });

  it('names two grant lines and an empty value', () => {
    expect(
      parseSpec(csvSpecText(['- [ ] a'], ['**Amend-grant:** yes', '**Amend-grant:** no'])).findings,
    ).toEqual([
      {
        code: 'spec.amend-grant.malformed',
        line: 2,
        reason: '**Amend-grant:** appears on 2 lines; write it once',
      },
    ]);
    expect(parseSpec(csvSpecText(['- [ ] a'], ['**Amend-grant:**'])).findings).toEqual([
      {
        code: 'spec.amend-grant.malformed',
        line: 2,
        reason: '**Amend-grant:** has an empty value (write `none` or the granting sentence)',
      },
    ]);
  });
});

describe('criteria rows (§1.3)', () => {
  it('trims a row’s text and skips blank and whitespace-only lines', () => {
    const text = csvSpecText(['- [ ] header row   ', '   ', '- [ ] b']);
    expect(parseSpec(text).findings).toEqual([]);
    expect(rowTexts(text)).toEqual(['header row', 'b']);
  });

  it('a blank line between a row and its disposition keeps the disposition on that row', () => {
    const rows = parseSpec(csvSpecText(['- [ ] a', '', '  deferred: ACME-1'])).spec.rows;
    expect(rows.map((row) => row.disposition.kind)).toEqual(['deferred']);
  });

  it('a paragraph ends the criterion: a disposition indented after it is named, never dropped in silence', () => {
    // Found by mutation testing: the line used to be skipped as intro text, so the row ran
    // in-scope although its author had deferred it (docs/decisions/formats.md 39).
    const text = csvSpecText([
      '- [ ] a',
      '- [ ] b',
      'A remark on the row above.',
      '  deferred: ACME-1',
      '  a wrapped remark',
    ]);
    const result = parseSpec(text);
    expect(result.spec.rows.map((row) => row.disposition)).toEqual([
      { kind: 'in-scope', explicit: false },
      { kind: 'in-scope', explicit: false },
    ]);
    expect(result.findings).toEqual([
      {
        code: 'spec.disposition.orphan',
        line: lineOf(text, '  deferred: ACME-1'),
        reason:
          'disposition line stands under no acceptance criterion (a paragraph ended criterion 2 above it); put it right under its bullet',
      },
    ]);
  });

  it('indented intro text before the first criterion is no finding, even when it starts with a disposition word', () => {
    const text = csvSpecText(['Rows verbatim from the ticket:', '  in-scope unless marked', '- [ ] a']);
    expect(parseSpec(text).findings).toEqual([]);
    expect(rowTexts(text)).toEqual(['a']);
  });

  it('prose around the rows is no finding, even when it starts with a disposition word or holds " - "', () => {
    const text = csvSpecText([
      'Ticket ACME-1 - checkbox list, rows verbatim:',
      'in-scope rows come first.',
      '- [ ] a',
      'Rows above are verbatim.',
    ]);
    expect(parseSpec(text).findings).toEqual([]);
    expect(rowTexts(text)).toEqual(['a']);
  });

  it('an indented line continuing the intro is intro text, never the none line', () => {
    const text = csvSpecText([
      'Ticket ACME-1 lists rows, and for the rest',
      '  none - of them is optional',
      '',
      '- [ ] a',
    ]);
    expect(parseSpec(text).findings).toEqual([]);
    expect(rowTexts(text)).toEqual(['a']);
  });

  it('a nested checkbox is a stray line under its criterion, not another row', () => {
    const text = csvSpecText(['- [ ] a', '  - [ ] nested']);
    expect(rowTexts(text)).toEqual(['a']);
    expect(parseSpec(text).findings).toEqual([
      {
        code: 'spec.ac.unexpected-line',
        line: lineOf(text, '  - [ ] nested'),
        reason:
          'indented line under acceptance criterion 1 is not a disposition (in-scope, deviates: <why>, deferred: <where>, venue: <env> - <observation>, elsewhere: <repo>)',
      },
    ]);
  });

  it('a disposition word inside an indented line does not make it a disposition', () => {
    const text = csvSpecText(['- [ ] a', '  see deferred: ACME-1']);
    expect(codes(text)).toEqual(['spec.ac.unexpected-line']);
  });

  it('names list items that are not "- [ ] <text>" rows: no space after the box, a long number, a bare dash', () => {
    const text = csvSpecText(['- [ ]abc', '10. [ ] tenth', '-']);
    expect(rowTexts(text)).toEqual([]);
    const reason = 'list item in the acceptance criteria is not a "- [ ] <text>" row';
    expect(parseSpec(text).findings).toEqual([
      { code: 'spec.ac.bullet', line: lineOf(text, '- [ ]abc'), reason },
      { code: 'spec.ac.bullet', line: lineOf(text, '10. [ ] tenth'), reason },
      { code: 'spec.ac.bullet', line: lineOf(text, '-'), reason },
      {
        code: 'spec.ac.empty',
        line: 0,
        reason: 'the acceptance criteria section has no "- [ ] <text>" rows and no "none - <reason>" line',
      },
    ]);
  });

  it('the none line is a line of its own: "none - " inside a sentence is no none line', () => {
    expect(codes(csvSpecText(['Ticket: none - no ticket']))).toEqual(['spec.ac.empty']);
  });

  it('names a none line next to rows on its line', () => {
    const text = csvSpecText(['none - no ticket', '- [ ] a']);
    expect(parseSpec(text).findings).toEqual([
      {
        code: 'spec.ac.none-with-rows',
        line: lineOf(text, 'none - no ticket'),
        reason: '"none - ..." line next to acceptance criteria rows',
      },
    ]);
  });

  it('names the criterion a finding is about by its number', () => {
    const empty = csvSpecText(['- [ ] a', '- [ ]']);
    expect(parseSpec(empty).findings).toEqual([
      {
        code: 'spec.ac.empty-text',
        line: lineOf(empty, '- [ ]'),
        reason: 'acceptance criterion 2 has no text',
      },
    ]);
    const twice = csvSpecText(['- [ ] a', '- [ ] b', '  in-scope', '  deferred: ACME-1']);
    expect(parseSpec(twice).findings).toEqual([
      {
        code: 'spec.disposition.duplicate',
        line: lineOf(twice, '  deferred: ACME-1'),
        reason: 'acceptance criterion 2 already has a disposition; give exactly one',
      },
    ]);
    const flat = csvSpecText(['- [ ] a', '- [ ] b', 'deferred: ACME-1']);
    expect(parseSpec(flat).findings).toEqual([
      {
        code: 'spec.disposition.not-nested',
        line: lineOf(flat, 'deferred: ACME-1'),
        reason: 'disposition line for acceptance criterion 2 must be indented under its bullet',
      },
    ]);
  });
});

describe('dispositions (§1.3)', () => {
  it('the disposition word starts the line: a word without its colon is malformed, whatever follows', () => {
    const text = csvSpecText(['- [ ] a', '  deviates because elsewhere: acme/mobile handles it']);
    const result = parseSpec(text);
    expect(result.spec.rows[0]?.disposition).toEqual({ kind: 'in-scope', explicit: false });
    expect(result.findings).toEqual([
      {
        code: 'spec.disposition.malformed',
        line: lineOf(text, '  deviates because elsewhere: acme/mobile handles it'),
        reason:
          '"deviates because elsewhere: acme/mobile handles it" is not a disposition: write in-scope, deviates: <why>, deferred: <where>, venue: <env> - <observation> or elsewhere: <repo>',
      },
    ]);
  });

  it('a deferred: destination is a tracker ref, a spec path or a URL, anywhere after a space', () => {
    for (const where of [
      'follow-up in #12',
      '#12, after the launch',
      'acme/csv#12',
      'ACME-412 next quarter',
      'http://tracker.example/12',
      'https://github.com/acme/csv/issues/12',
      'docs/specs/next.md',
      'docs/specs/next.md#scope',
    ]) {
      const result = parseSpec(csvSpecText(['- [ ] a', `  deferred: ${where}`]));
      expect(result.findings, where).toEqual([]);
      expect(result.spec.rows[0]?.disposition, where).toEqual({
        kind: 'deferred',
        where,
        text: `deferred: ${where}`,
      });
    }
  });

  it('names a deferred: destination that is none of those, with the value', () => {
    for (const where of ['ACME-12x', 'later maybe', 'x#12']) {
      const text = csvSpecText(['- [ ] a', `  deferred: ${where}`]);
      expect(parseSpec(text).findings, where).toEqual([
        {
          code: 'spec.disposition.deferred-destination',
          line: lineOf(text, `  deferred: ${where}`),
          reason: `deferred destination "${where}" is not a tracker ref (#N, owner/repo#N, ABC-123), a spec path or a URL`,
        },
      ]);
    }
  });

  it('a venue splits at the first " - ": both sides trimmed, any environment name but production', () => {
    const venue = (line: string) =>
      parseSpec(csvSpecText(['- [ ] a', `  ${line}`])).spec.rows[0]?.disposition;
    expect(venue('venue: b - the beta box shows it')).toEqual({
      kind: 'venue',
      env: 'b',
      observation: 'the beta box shows it',
      text: 'venue: b - the beta box shows it',
    });
    expect(venue('venue: staging  -  upload - visible')).toEqual({
      kind: 'venue',
      env: 'staging',
      observation: 'upload - visible',
      text: 'venue: staging  -  upload - visible',
    });
  });

  it('names a production venue, with the environment as written, and a venue without " - "', () => {
    const prod = csvSpecText(['- [ ] a', '  venue: Prod  - visible to users']);
    expect(parseSpec(prod).findings).toEqual([
      {
        code: 'spec.disposition.venue-production',
        line: lineOf(prod, '  venue: Prod  - visible to users'),
        reason: 'venue "Prod" is production; a venue is never prd, prod or production',
      },
    ]);
    const bare = csvSpecText(['- [ ] a', '  venue: staging']);
    expect(parseSpec(bare).findings).toEqual([
      {
        code: 'spec.disposition.malformed',
        line: lineOf(bare, '  venue: staging'),
        reason: 'venue disposition must read "venue: <env> - <observation>"',
      },
    ]);
  });
});
