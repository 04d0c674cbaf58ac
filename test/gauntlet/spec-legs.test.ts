// The `## Legs` grammar's edges (docs/decisions/legs.md L1-L3; gauntlet-protocol §1.7, §3.20):
// what bounds the section, how member items and criterion lists read, the home member, the
// `## Leg mapping` a spec requires, and the wording of every finding. Expected values are written
// by hand from L1-L3; every parse happens inside a test.
import { describe, expect, it } from 'vitest';
import { expectedLegMapping } from '../../src/gauntlet/leg-entries.js';
import { parseSpec } from '../../src/gauntlet/spec.js';
import { lineOf } from './text-fixtures.js';

const THREE = ['- [ ] export button', '- [ ] CSV endpoint', '- [ ] rate limit'];

/** A spec with the given criteria and `## Legs` lines, and a section after it. */
function specText(
  legs: string[],
  criteria: string[] = THREE,
  after: string[] = ['## Notes', '', '- see the wiki'],
): string {
  return [
    '# CSV export',
    '',
    '## Acceptance criteria',
    '',
    ...criteria,
    '',
    '## Legs',
    '',
    ...legs,
    '',
    ...after,
    '',
  ].join('\n');
}

describe('## Legs: the section and its items (L1)', () => {
  it('reads members with spacing, unordered lists, spaced ranges and numbers past 9; prose and fences are skipped', () => {
    const criteria = Array.from({ length: 12 }, (_, index) => `- [ ] criterion ${index + 1}`);
    const text = specText(
      [
        'Members, in membership order:',
        '',
        '- web  (home): 3, 1, 2, 4 - 9, 10',
        '-  api: 10-12',
        '',
        '```text',
        '- other: 1',
        '```',
      ],
      criteria,
    );
    const result = parseSpec(text);
    expect(result.findings).toEqual([]);
    expect(result.spec.legs).toEqual([
      {
        name: 'web',
        home: true,
        acs: [1, 2, 3, 4, 5, 6, 7, 8, 9, 10],
        line: lineOf(text, '- web  (home): 3, 1, 2, 4 - 9, 10'),
      },
      { name: 'api', home: false, acs: [10, 11, 12], line: lineOf(text, '-  api: 10-12') },
    ]);
  });

  it('sorts a member’s criteria by number', () => {
    const legs = parseSpec(specText(['- web (home): 3, 1', '- api: 2'])).spec.legs;
    expect(legs?.map((leg) => leg.acs)).toEqual([[1, 3], [2]]);
  });

  it('marks the first listed member home when none is marked, and only that one', () => {
    const result = parseSpec(specText(['- app: all', '- docs: 3']));
    expect(result.findings).toEqual([]);
    expect(result.spec.legs?.map((leg) => [leg.name, leg.home, leg.acs])).toEqual([
      ['app', true, [1, 2, 3]],
      ['docs', false, [3]],
    ]);
  });

  it('the section starts right under its heading, even with no blank line after the criteria', () => {
    const text = [
      '# CSV export',
      '',
      '## Acceptance criteria',
      '',
      ...THREE,
      '## Legs',
      '- web (home): 1, 2',
      '- api: 3',
      '',
    ].join('\n');
    const result = parseSpec(text);
    expect(result.findings).toEqual([]);
    expect(result.spec.legs?.map((leg) => leg.name)).toEqual(['web', 'api']);
  });

  it('runs to the end of the file when it is the last section, last line included', () => {
    const text = [
      '# CSV export',
      '',
      '## Acceptance criteria',
      '',
      ...THREE,
      '',
      '## Legs',
      '',
      '- web (home): 1',
      '- api: 2-3',
    ].join('\n');
    const result = parseSpec(text);
    expect(result.findings).toEqual([]);
    expect(result.spec.legs?.map((leg) => [leg.name, leg.acs])).toEqual([
      ['web', [1]],
      ['api', [2, 3]],
    ]);
  });

  it('the heading is exactly "Legs": other headings holding the word are other sections', () => {
    const text = [
      '# CSV export',
      '',
      '## Acceptance criteria',
      '',
      ...THREE,
      '',
      '## Sea legs',
      '',
      '- crew: 1',
      '',
      '## Legs overview',
      '',
      '- web: all',
      '',
    ].join('\n');
    const result = parseSpec(text);
    expect(result.findings).toEqual([]);
    expect('legs' in result.spec).toBe(false);
  });

  it('names list items that are not member items: a numbered item, a bare dash, a two-digit number', () => {
    const lines = [
      '- web (home): 1-3',
      '1. web - api: all',
      '-',
      '10) docs: all',
      'One line per member - see L1.',
    ];
    const text = specText(lines);
    const reason =
      'a ## Legs item reads "- <member>: <acceptance criteria>" (numbers, ranges a-b or all, comma-separated), with "(home)" after the home member\'s name';
    const result = parseSpec(text);
    expect(result.findings).toEqual([
      { code: 'spec.legs.item', line: lineOf(text, '1. web - api: all'), reason },
      { code: 'spec.legs.item', line: lineOf(text, '-'), reason },
      { code: 'spec.legs.item', line: lineOf(text, '10) docs: all'), reason },
    ]);
    expect(result.spec.legs?.map((leg) => leg.name)).toEqual(['web']);
  });

  it('names a member name with a capital anywhere, and an empty section', () => {
    const text = specText(['- webApi: 1-3']);
    expect(parseSpec(text).findings).toEqual([
      {
        code: 'spec.legs.name',
        line: lineOf(text, '- webApi: 1-3'),
        reason:
          'member name "webApi" must be lowercase letters, digits, ".", "_" or "-", starting with a letter or digit',
      },
      {
        code: 'spec.legs.empty',
        line: lineOf(text, '## Legs'),
        reason: 'the ## Legs section lists no member',
      },
    ]);
  });

  it('names a member listed twice with its first line, two homes, unassigned criteria and a second section', () => {
    const twice = specText(['- web: 1-3', '- web: 2']);
    expect(parseSpec(twice).findings).toEqual([
      {
        code: 'spec.legs.duplicate-member',
        line: lineOf(twice, '- web: 2'),
        reason: `member "web" is already listed on line ${lineOf(twice, '- web: 1-3')}`,
      },
    ]);
    const homes = specText(['- web (home): 1-3', '- api (home): 2']);
    expect(parseSpec(homes).findings).toEqual([
      {
        code: 'spec.legs.home',
        line: lineOf(homes, '- api (home): 2'),
        reason: 'more than one member is marked (home): web, api',
      },
    ]);
    const unassigned = specText(['- web (home): 1']);
    expect(parseSpec(unassigned).findings).toEqual([
      {
        code: 'spec.legs.unassigned',
        line: lineOf(unassigned, '## Legs'),
        reason: 'acceptance criteria 2, 3 belong to no member of ## Legs',
      },
    ]);
    const second = specText(['- web: all'], THREE, ['## Legs', '', '- api: 1']);
    expect(parseSpec(second).findings).toEqual([
      {
        code: 'spec.legs.duplicate',
        line: second.split('\n').lastIndexOf('## Legs') + 1,
        reason: `a second "## Legs" section (the first, line ${lineOf(second, '## Legs')}, is used)`,
      },
    ]);
  });
});

describe('## Legs: criterion lists (L1)', () => {
  /** The findings of member api's list, with web (home) covering every criterion. */
  function apiFindings(list: string): { line: number; reason: string; code: string }[] {
    const text = specText(['- web (home): all', `- api:${list}`]);
    const line = lineOf(text, `- api:${list}`);
    return parseSpec(text).findings.map((f) => {
      expect(f.line).toBe(line);
      return { line: f.line, code: f.code, reason: f.reason };
    });
  }
  const acs = (reason: string) => ({ code: 'spec.legs.acs', reason });

  it('names an empty list, blank or not', () => {
    const reason = 'member "api": lists no acceptance criterion (write numbers, ranges a-b or all)';
    for (const list of ['', '   ']) {
      expect(apiFindings(list).map(({ code, reason }) => ({ code, reason }))).toEqual([acs(reason)]);
    }
  });

  it('names each part that is not a number, a range or all, and the parts out of range', () => {
    expect(apiFindings(' x3, 3x, 3-2, 0, 4, 2, 2').map(({ code, reason }) => ({ code, reason }))).toEqual([
      acs('member "api": "x3" is not an acceptance criterion number, a range a-b or all'),
      acs('member "api": "3x" is not an acceptance criterion number, a range a-b or all'),
      acs('member "api": range 3-2 runs backwards'),
      acs('member "api": 0 names an acceptance criterion the spec does not have (it has 3)'),
      acs('member "api": 4 names an acceptance criterion the spec does not have (it has 3)'),
      acs('member "api": acceptance criterion 2 is listed twice'),
    ]);
  });

  it('keeps the valid parts of a list with bad ones', () => {
    const legs = parseSpec(specText(['- web (home): all', '- api: 0, 2'])).spec.legs;
    expect(legs?.[1]?.acs).toEqual([2]);
  });
});

describe('expectedLegMapping (§1.7, L3)', () => {
  it('is null for a single-leg spec, with or without ## Legs', () => {
    const noSection = parseSpec(
      ['# CSV export', '', '## Acceptance criteria', '', ...THREE, ''].join('\n'),
    ).spec;
    const oneMember = parseSpec(specText(['- app: all'])).spec;
    expect(expectedLegMapping(noSection)).toBeNull();
    expect(expectedLegMapping(oneMember)).toBeNull();
  });

  it('lists row, criterion and member for each entry of a coordinated spec, nothing more', () => {
    const spec = parseSpec(specText(['- web (home): 1, 2', '- api: 2, 3'])).spec;
    expect(expectedLegMapping(spec)).toEqual([
      { row: 1, ac: 1, leg: 'web' },
      { row: 2, ac: 2, leg: 'web' },
      { row: 3, ac: 2, leg: 'api' },
      { row: 4, ac: 3, leg: 'api' },
    ]);
  });
});
