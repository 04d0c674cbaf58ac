/**
 * The edges of the amendment markers and of the `## Amendments` reader (docs/decisions/amendments.md
 * decisions 1-3): `amend: <what> - <evidence>` and `redraw: <why>` in the first result segment,
 * both halves trimmed and nonempty, anything else that starts like a marker malformed; the entries
 * are the `- ` bullets of `## Amendments` up to the next heading, each text trimmed; an evidence an
 * entry already carries is the repeated-evidence stop. Expected values are written by hand.
 */
import { describe, expect, it } from 'vitest';
import { amendSpecText } from '../../src/gauntlet/amendment.js';
import {
  amendmentEntries,
  readAmendmentMarker,
  routeAmendmentMarker,
} from '../../src/gauntlet/amendment-items.js';

describe('readAmendmentMarker: both halves trimmed and nonempty', () => {
  it('blanks around <what> and <evidence> are not part of them', () => {
    expect(readAmendmentMarker('npm test; amend:   the header is Title   -   header.csv line 1')).toEqual({
      kind: 'amend',
      segment: 'amend:   the header is Title   -   header.csv line 1',
      what: 'the header is Title',
      evidence: 'header.csv line 1',
    });
  });

  it('a blank <what> before the separator is malformed, not an amend item', () => {
    expect(readAmendmentMarker('npm test; amend:   - header.csv line 1')).toEqual({
      kind: 'none',
      segment: 'amend:   - header.csv line 1',
      malformed: true,
    });
  });

  it('blanks around <why> are not part of it', () => {
    expect(readAmendmentMarker('e2e; redraw:    uploads move to the ingest service')).toEqual({
      kind: 'redraw',
      segment: 'redraw:    uploads move to the ingest service',
      why: 'uploads move to the ingest service',
    });
  });

  it('"amend:" or "redraw:" without the blank after the colon is malformed; other words are no marker', () => {
    expect(readAmendmentMarker('npm test; amend:the header is Title - header.csv')).toEqual({
      kind: 'none',
      segment: 'amend:the header is Title - header.csv',
      malformed: true,
    });
    expect(readAmendmentMarker('e2e; redraw:uploads move')).toEqual({
      kind: 'none',
      segment: 'redraw:uploads move',
      malformed: true,
    });
    expect(readAmendmentMarker('npm test; amended the header - see log')).toEqual({
      kind: 'none',
      segment: 'amended the header - see log',
      malformed: false,
    });
  });
});

describe('amendmentEntries: the bullets of ## Amendments', () => {
  it('a spec without the section has none, bullets above its first heading included', () => {
    expect(amendmentEntries('- a stray list\n- before the title\n\n# T\n\n## Notes\n\n- n\n')).toEqual([]);
  });

  it('the section last in the file is read to its end', () => {
    expect(amendmentEntries('# T\n\n## Amendments\n\n- first\n- second')).toEqual(['first', 'second']);
    expect(amendmentEntries('# T\n## Amendments\n- first\n')).toEqual(['first']);
  });

  it('the heading may carry trailing blanks; CRLF lines read alike', () => {
    expect(amendmentEntries('# T\n\n## Amendments  \n\n- first\n')).toEqual(['first']);
    expect(amendmentEntries('# T\r\n\r\n## Amendments\r\n\r\n- first\r\n- second\r\n')).toEqual([
      'first',
      'second',
    ]);
  });

  it('indented and starred bullets are entries; their text is trimmed, a no-break space included', () => {
    expect(amendmentEntries('## Amendments\n\n - first\n* second  \n- \u00a0third\u00a0\n')).toEqual([
      'first',
      'second',
      'third',
    ]);
  });

  it('prose is not an entry, even with " - " inside', () => {
    expect(amendmentEntries('## Amendments\n\nEntries follow - newest last.\n\n- first\n')).toEqual([
      'first',
    ]);
  });

  it('only a heading ends the section: "# " inside an entry does not, a level-1 heading does', () => {
    const spec = [
      '## Amendments',
      '',
      '- row 1: the C# client reads the header; evidence: csharp test',
      '- second',
      '',
      '# Appendix',
      '',
      '- not an amendment',
      '',
    ].join('\n');
    expect(amendmentEntries(spec)).toEqual([
      'row 1: the C# client reads the header; evidence: csharp test',
      'second',
    ]);
  });

  it('an entry holding a U+2028 is read whole', () => {
    expect(amendmentEntries('## Amendments\n\n- row 1: a; evidence: ls\u2028b\n')).toEqual([
      'row 1: a; evidence: ls\u2028b',
    ]);
  });
});

describe('repeated evidence survives the round trip through the spec', () => {
  it('an evidence with a U+2028 (one physical ledger line) stops the second time, under a grant', () => {
    const evidence = 'e2e; amend: the bucket is reports-staging - aws s3 ls lists\u2028reports-staging';
    const first = routeAmendmentMarker({ row: 2, evidence, amendments: [], amendPermission: true });
    expect(first).toEqual({
      kind: 'spec-amend',
      row: 2,
      what: 'the bucket is reports-staging',
      evidence: 'aws s3 ls lists\u2028reports-staging',
      entry: 'row 2: the bucket is reports-staging; evidence: aws s3 ls lists\u2028reports-staging',
      autoApply: true,
      amendedLine: 'amended the spec: row 2 - the bucket is reports-staging',
    });
    const spec = amendSpecText('# T\n\n## Acceptance criteria\n\n- [ ] a\n- [ ] b\n', {
      kind: 'preserve',
      what: 'row 2: the bucket is reports-staging; evidence: aws s3 ls lists\u2028reports-staging',
    });
    expect(
      routeAmendmentMarker({ row: 2, evidence, amendments: amendmentEntries(spec), amendPermission: true }),
    ).toEqual({
      kind: 'repeated-evidence',
      row: 2,
      what: 'the bucket is reports-staging',
      evidence: 'aws s3 ls lists\u2028reports-staging',
      earlier: 'row 2: the bucket is reports-staging; evidence: aws s3 ls lists\u2028reports-staging',
    });
  });
});
