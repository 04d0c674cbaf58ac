/**
 * The spec side of an amendment (`amendSpecText`, gauntlet-protocol §3.13 and §3.17,
 * docs/decisions/amendments.md): a cut sets the criterion's nested disposition line and may add an
 * `## Out of scope` entry, a requirement-preserving amendment adds one `## Amendments` entry, a
 * re-bound with text rewrites the criterion after its checkbox. Every other byte stays, line endings
 * included. The spec grammar is §1.3's (a disposition is the indented line under its bullet) and
 * docs/decisions/formats.md 38-39. Every expected text below is written out by hand.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { amendSpecText } from '../../src/gauntlet/amendment.js';
import { parseSpec } from '../../src/gauntlet/spec.js';

const lines = (...text: string[]): string => `${text.join('\n')}\n`;

/** Four criteria: 1 without a disposition, 2 explicitly in scope, 3 deferred, 4 bare before 5. */
const SPEC = lines(
  '# CSV export',
  '',
  '**Amend-grant:** none',
  '',
  '## Acceptance criteria',
  '',
  '- [ ] Export writes a header row',
  '- [x] Upload appears in the staging bucket',
  '  in-scope',
  '- [ ] Empty reports still get a header',
  '  deferred: #12',
  '- [ ] The file name carries the date',
  '- [ ] Only in-scope columns are exported',
  '',
  '## Out of scope',
  '',
  '- XLSX',
  '',
  '## Notes',
  '',
  'Written with the product owner.',
);

/** The thrown error's code and message. */
function failure(run: () => unknown): { code: string; message: string } {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InputError);
    return { code: (error as InputError).code, message: (error as InputError).message };
  }
  throw new Error('expected amendSpecText to throw');
}

describe('cut: the criterion gets its disposition line (§3.17 "approved deviates/deferred/elsewhere")', () => {
  it('a criterion without one gets the line nested two spaces under its bullet', () => {
    expect(
      amendSpecText(SPEC, { kind: 'cut', row: 1, disposition: 'deviates: headers come from the template' }),
    ).toBe(
      lines(
        '# CSV export',
        '',
        '**Amend-grant:** none',
        '',
        '## Acceptance criteria',
        '',
        '- [ ] Export writes a header row',
        '  deviates: headers come from the template',
        '- [x] Upload appears in the staging bucket',
        '  in-scope',
        '- [ ] Empty reports still get a header',
        '  deferred: #12',
        '- [ ] The file name carries the date',
        '- [ ] Only in-scope columns are exported',
        '',
        '## Out of scope',
        '',
        '- XLSX',
        '',
        '## Notes',
        '',
        'Written with the product owner.',
      ),
    );
  });

  it('a criterion that has one (an explicit in-scope) gets it replaced, never a second', () => {
    const after = amendSpecText(SPEC, { kind: 'cut', row: 2, disposition: 'deferred: ACME-7' });
    expect(after).toBe(SPEC.replace('  in-scope\n', '  deferred: ACME-7\n'));
    const parsed = parseSpec(after);
    expect(parsed.findings).toEqual([]);
    expect(parsed.spec.rows[1]?.disposition).toEqual({
      kind: 'deferred',
      where: 'ACME-7',
      text: 'deferred: ACME-7',
    });
  });

  it('the row after a disposed row: the earlier disposition and the next criterion stay as they are', () => {
    // Row 4's bullet follows row 3's disposition line and precedes row 5, whose text holds
    // " in-scope" mid-line: neither is row 4's disposition.
    expect(amendSpecText(SPEC, { kind: 'cut', row: 4, disposition: 'elsewhere: naming-service' })).toBe(
      SPEC.replace(
        '- [ ] The file name carries the date\n',
        '- [ ] The file name carries the date\n  elsewhere: naming-service\n',
      ),
    );
  });

  it('a loose list (a blank line before the disposition) keeps one disposition per criterion', () => {
    const loose = lines(
      '# Loose',
      '',
      '## Acceptance criteria',
      '',
      '- [ ] Export writes a header row',
      '',
      '  deferred: #12',
      '',
      '- [ ] Upload appears in the staging bucket',
    );
    expect(parseSpec(loose).findings).toEqual([]);
    const after = amendSpecText(loose, { kind: 'cut', row: 1, disposition: 'deviates: no header wanted' });
    expect(after).toBe(
      lines(
        '# Loose',
        '',
        '## Acceptance criteria',
        '',
        '- [ ] Export writes a header row',
        '',
        '  deviates: no header wanted',
        '',
        '- [ ] Upload appears in the staging bucket',
      ),
    );
    expect(parseSpec(after).findings).toEqual([]);
    // A line of blanks is as blank as an empty one.
    expect(
      amendSpecText('## Acceptance criteria\n\n- [ ] Export writes a header row\n   \n  deferred: #12\n', {
        kind: 'cut',
        row: 1,
        disposition: 'deviates: no header wanted',
      }),
    ).toBe('## Acceptance criteria\n\n- [ ] Export writes a header row\n   \n  deviates: no header wanted\n');
  });

  it('the last criterion of the section: the line goes under it, not after the blank line', () => {
    expect(amendSpecText(SPEC, { kind: 'cut', row: 5, disposition: 'deferred: #40' })).toBe(
      SPEC.replace(
        '- [ ] Only in-scope columns are exported\n\n',
        '- [ ] Only in-scope columns are exported\n  deferred: #40\n\n',
      ),
    );
  });

  it('the disposition is trimmed', () => {
    expect(amendSpecText(SPEC, { kind: 'cut', row: 1, disposition: '  deferred: #3 \t' })).toBe(
      SPEC.replace(
        '- [ ] Export writes a header row\n',
        '- [ ] Export writes a header row\n  deferred: #3\n',
      ),
    );
  });

  it('with an out-of-scope entry: it goes after the last entry of ## Out of scope, before the blank line', () => {
    const after = amendSpecText(SPEC, {
      kind: 'cut',
      row: 1,
      disposition: 'deviates: unreachable in this checkout - DNS; proof at docs/ops.md',
      outOfScope: 'Export writes a header row - unreachable in this checkout - DNS',
    });
    expect(after).toBe(
      lines(
        '# CSV export',
        '',
        '**Amend-grant:** none',
        '',
        '## Acceptance criteria',
        '',
        '- [ ] Export writes a header row',
        '  deviates: unreachable in this checkout - DNS; proof at docs/ops.md',
        '- [x] Upload appears in the staging bucket',
        '  in-scope',
        '- [ ] Empty reports still get a header',
        '  deferred: #12',
        '- [ ] The file name carries the date',
        '- [ ] Only in-scope columns are exported',
        '',
        '## Out of scope',
        '',
        '- XLSX',
        '- Export writes a header row - unreachable in this checkout - DNS',
        '',
        '## Notes',
        '',
        'Written with the product owner.',
      ),
    );
  });

  it('a spec without ## Out of scope gets the section at its end', () => {
    const spec = lines('# T', '', '## Acceptance criteria', '', '- [ ] a');
    expect(
      amendSpecText(spec, { kind: 'cut', row: 1, disposition: 'deviates: x', outOfScope: '  a - x  ' }),
    ).toBe(
      lines(
        '# T',
        '',
        '## Acceptance criteria',
        '',
        '- [ ] a',
        '  deviates: x',
        '',
        '## Out of scope',
        '',
        '- a - x',
      ),
    );
  });

  it('refuses a row the spec does not have (amend.row) and text that is not one line (amend.text)', () => {
    expect(failure(() => amendSpecText(SPEC, { kind: 'cut', row: 6, disposition: 'deferred: #1' }))).toEqual({
      code: 'amend.row',
      message: 'the spec has no acceptance criterion 6',
    });
    for (const disposition of ['', '  \t', 'deviates: two\nlines', 'deviates: two\r\nlines'])
      expect(failure(() => amendSpecText(SPEC, { kind: 'cut', row: 1, disposition }))).toEqual({
        code: 'amend.text',
        message: 'the disposition must be one non-empty line',
      });
    for (const outOfScope of [' ', 'a\nb'])
      expect(
        failure(() => amendSpecText(SPEC, { kind: 'cut', row: 1, disposition: 'deviates: x', outOfScope })),
      ).toEqual({ code: 'amend.text', message: 'the out-of-scope entry must be one non-empty line' });
  });
});

describe('preserve: one entry at the end of ## Amendments (decision 2)', () => {
  const entry = 'row 1: the header is Title; evidence: header.csv line 1';

  it('after the last entry, keeping the blank line before the next heading', () => {
    const spec = lines(
      '# T',
      '',
      '## Amendments',
      '',
      '- row 2: first; evidence: one',
      '',
      '## Notes',
      '',
      '- a note',
    );
    expect(amendSpecText(spec, { kind: 'preserve', what: entry })).toBe(
      lines(
        '# T',
        '',
        '## Amendments',
        '',
        '- row 2: first; evidence: one',
        `- ${entry}`,
        '',
        '## Notes',
        '',
        '- a note',
      ),
    );
  });

  it('the section last in the file: after its last entry, the final newline kept', () => {
    const spec = lines('# T', '', '## Amendments', '', '- first', '');
    expect(amendSpecText(spec, { kind: 'preserve', what: entry })).toBe(
      lines('# T', '', '## Amendments', '', '- first', `- ${entry}`, ''),
    );
  });

  it('an empty section gets a blank line after its heading, then the entry', () => {
    expect(
      amendSpecText(lines('# T', '', '## Amendments', '', '## Notes'), { kind: 'preserve', what: entry }),
    ).toBe(lines('# T', '', '## Amendments', '', `- ${entry}`, '', '## Notes'));
    expect(amendSpecText(lines('# T', '', '## Amendments'), { kind: 'preserve', what: entry })).toBe(
      lines('# T', '', '## Amendments', '', `- ${entry}`),
    );
    // No final newline: none is added.
    expect(amendSpecText('# T\n\n## Amendments', { kind: 'preserve', what: entry })).toBe(
      `# T\n\n## Amendments\n\n- ${entry}`,
    );
  });

  it('the heading is found with trailing blanks; no second section is made', () => {
    const spec = lines('# T', '', '## Amendments  ', '', '- first');
    expect(amendSpecText(spec, { kind: 'preserve', what: entry })).toBe(
      lines('# T', '', '## Amendments  ', '', '- first', `- ${entry}`),
    );
  });

  it('only a heading ends the section: "# " inside an entry does not, a level-1 heading does', () => {
    const spec = lines(
      '# T',
      '',
      '## Amendments',
      '',
      '- row 1: the C# client reads the header; evidence: csharp test',
      '',
      '# Appendix',
      '',
      '- not an amendment',
    );
    expect(amendSpecText(spec, { kind: 'preserve', what: entry })).toBe(
      lines(
        '# T',
        '',
        '## Amendments',
        '',
        '- row 1: the C# client reads the header; evidence: csharp test',
        `- ${entry}`,
        '',
        '# Appendix',
        '',
        '- not an amendment',
      ),
    );
  });

  it('a line of blanks before the next heading counts as blank', () => {
    const spec = lines('# T', '', '## Amendments', '', '- first', '   ', '## Notes');
    expect(amendSpecText(spec, { kind: 'preserve', what: entry })).toBe(
      lines('# T', '', '## Amendments', '', '- first', `- ${entry}`, '   ', '## Notes'),
    );
  });

  it('a spec without a final newline gets one before the new section', () => {
    expect(amendSpecText('# T\n\nSome text', { kind: 'preserve', what: `  ${entry}\t` })).toBe(
      `# T\n\nSome text\n\n## Amendments\n\n- ${entry}\n`,
    );
  });

  it('refuses an empty or multi-line amendment', () => {
    for (const what of ['', '   ', 'one\ntwo'])
      expect(failure(() => amendSpecText(SPEC, { kind: 'preserve', what }))).toEqual({
        code: 'amend.text',
        message: 'the amendment must be one non-empty line',
      });
  });
});

describe('reopen with text: the criterion after its checkbox is rewritten (decision 6)', () => {
  it('keeps the bullet, its spacing and the checkbox state; trims the text', () => {
    const spec = lines(
      '# T',
      '',
      '## Acceptance criteria',
      '',
      '-  [x] Upload appears in the staging bucket',
      '* [X] Export writes a header row',
      '+ [ ] Empty reports still get a header',
    );
    expect(
      amendSpecText(spec, { kind: 'reopen', row: 1, text: '  Upload appears in the ingest bucket ' }),
    ).toBe(
      spec.replace(
        '-  [x] Upload appears in the staging bucket',
        '-  [x] Upload appears in the ingest bucket',
      ),
    );
    expect(amendSpecText(spec, { kind: 'reopen', row: 2, text: 'Export writes the header twice' })).toBe(
      spec.replace('* [X] Export writes a header row', '* [X] Export writes the header twice'),
    );
    expect(amendSpecText(spec, { kind: 'reopen', row: 3, text: 'Empty reports get no file' })).toBe(
      spec.replace('+ [ ] Empty reports still get a header', '+ [ ] Empty reports get no file'),
    );
  });

  it('leaves the disposition line under the criterion alone', () => {
    expect(amendSpecText(SPEC, { kind: 'reopen', row: 2, text: 'Upload lands in the ingest bucket' })).toBe(
      SPEC.replace(
        '- [x] Upload appears in the staging bucket\n',
        '- [x] Upload lands in the ingest bucket\n',
      ),
    );
  });

  it('refuses a row the spec does not have and an empty or multi-line text', () => {
    expect(failure(() => amendSpecText(SPEC, { kind: 'reopen', row: 9, text: 'x' }))).toEqual({
      code: 'amend.row',
      message: 'the spec has no acceptance criterion 9',
    });
    for (const text of ['', ' ', 'a\nb'])
      expect(failure(() => amendSpecText(SPEC, { kind: 'reopen', row: 1, text }))).toEqual({
        code: 'amend.text',
        message: 'the criterion text must be one non-empty line',
      });
  });
});

describe('line endings: every other byte is kept', () => {
  const crlf = (text: string): string => text.replaceAll('\n', '\r\n');

  it('a CRLF spec: the added lines end in CRLF, a rewritten line keeps its CRLF', () => {
    const spec = crlf(lines('# T', '', '## Acceptance criteria', '', '- [ ] a', '- [x] b'));
    expect(
      amendSpecText(spec, { kind: 'cut', row: 1, disposition: 'deviates: x', outOfScope: 'a - x' }),
    ).toBe(
      crlf(
        lines(
          '# T',
          '',
          '## Acceptance criteria',
          '',
          '- [ ] a',
          '  deviates: x',
          '- [x] b',
          '',
          '## Out of scope',
          '',
          '- a - x',
        ),
      ),
    );
    expect(amendSpecText(spec, { kind: 'reopen', row: 2, text: 'c' })).toBe(
      crlf(lines('# T', '', '## Acceptance criteria', '', '- [ ] a', '- [x] c')),
    );
    const amended = crlf(lines('# T', '', '## Amendments', '', '- first', '', '## Notes'));
    expect(amendSpecText(amended, { kind: 'preserve', what: 'second' })).toBe(
      crlf(lines('# T', '', '## Amendments', '', '- first', '- second', '', '## Notes')),
    );
    expect(amendSpecText(crlf(lines('# T', '', '## Amendments')), { kind: 'preserve', what: 'first' })).toBe(
      crlf(lines('# T', '', '## Amendments', '', '- first')),
    );
  });

  it('a CRLF spec whose last line is the bullet, without a final line ending', () => {
    const spec = '# T\r\n\r\n## Acceptance criteria\r\n\r\n- [ ] a';
    expect(amendSpecText(spec, { kind: 'cut', row: 1, disposition: 'deferred: #1' })).toBe(
      '# T\r\n\r\n## Acceptance criteria\r\n\r\n- [ ] a\r\n  deferred: #1',
    );
    expect(amendSpecText(spec, { kind: 'preserve', what: 'first' })).toBe(
      '# T\r\n\r\n## Acceptance criteria\r\n\r\n- [ ] a\r\n\r\n## Amendments\r\n\r\n- first\r\n',
    );
  });

  it('mixed endings: the edit lands on the criterion parseSpec numbered, nothing else moves', () => {
    // LF above the section, CRLF inside it (a file edited by two tools).
    const spec = '# T\n\n## Acceptance criteria\r\n\r\n- [ ] a\r\n- [ ] b\r\n';
    const cut = amendSpecText(spec, { kind: 'cut', row: 1, disposition: 'deferred: #1' });
    expect(cut).toBe('# T\n\n## Acceptance criteria\r\n\r\n- [ ] a\r\n  deferred: #1\r\n- [ ] b\r\n');
    expect(parseSpec(cut).spec.rows.map((row) => row.disposition.kind)).toEqual(['deferred', 'in-scope']);
    expect(amendSpecText(spec, { kind: 'reopen', row: 2, text: 'c' })).toBe(
      '# T\n\n## Acceptance criteria\r\n\r\n- [ ] a\r\n- [ ] c\r\n',
    );
    // CRLF above, LF inside: the added line ends like its bullet, and the bullet keeps its LF.
    expect(
      amendSpecText('# T\r\n\r\n## Acceptance criteria\n\n- [ ] a\n- [ ] b\n', {
        kind: 'cut',
        row: 1,
        disposition: 'deferred: #1',
      }),
    ).toBe('# T\r\n\r\n## Acceptance criteria\n\n- [ ] a\n  deferred: #1\n- [ ] b\n');
  });
});
