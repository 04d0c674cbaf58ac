// The ledger parser's member lines, `## Leg mapping` table, header values and row table, finding
// by finding: code, 1-based line and the sentence a person acts on (gauntlet-protocol §1.2-§1.8,
// docs/ledger-format.md "Coordinated ledgers", docs/decisions/legs.md). Every expected value is
// written by hand; the ledger is §1.8's coordinated variant (members web = home and api).
import { describe, expect, it } from 'vitest';
import { LedgerFormatError } from '../../src/common/errors.js';
import { checkLedger, parseLedger, serializeLedger } from '../../src/gauntlet/ledger.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import { API_BASE as API, coordinatedText, HEAD, BASE as HOME, ledgerHead } from './text-fixtures.js';

// §1.8's coordinated ledger. Line numbers are 1-based, as in findings: 1 `# Loop ledger`, 2
// `**Spec:**`, 3 `base:`, 4-5 web's pair, 6-7 api's pair, 8 `verification:`, 9 `checks:`, 10
// `iterations: 2`, 11 `allowance: 4`, 13-14 the table head, 15-18 rows 1-4, 20 `## Leg mapping`,
// 22-23 its head, 24-27 its entries, 29 `## Decisions`.
const TEXT = coordinatedText({
  rows: [
    '| 1 | done | 0 | seed: button renders |',
    '| 2 | open | 0 |  |',
    '| 3 | open | 0 |  |',
    '| 4 | open | 0 |  |',
  ],
});
const LINES = TEXT.split('\n');

/** The ledger with line `n` (1-based) replaced by `replacement` (which may hold several lines), or removed. */
function edit(text: string, n: number, replacement: string | null): string {
  const lines = text.split('\n');
  if (replacement === null) lines.splice(n - 1, 1);
  else lines[n - 1] = replacement;
  return lines.join('\n');
}

function edits(...changes: [number, string | null][]): string {
  // Highest line first, so that a removal does not shift the lines still to edit.
  return [...changes].sort((a, b) => b[0] - a[0]).reduce((text, [n, r]) => edit(text, n, r), TEXT);
}

function refused(text: string) {
  const result = parseLedger(text);
  expect(result.ledger).toBeNull();
  return result.findings;
}

function accepted(text: string): Ledger {
  const result = parseLedger(text);
  expect(result.findings).toEqual([]);
  if (result.ledger === null) throw new Error('expected a ledger');
  return result.ledger;
}

const f = (code: string, line: number, reason: string) => ({ code, line, reason });

/** The findings serializeLedger throws for a built ledger. */
function thrown(ledger: Ledger) {
  try {
    serializeLedger(ledger);
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerFormatError);
    return (error as LedgerFormatError).findings;
  }
  throw new Error('serializeLedger accepted the ledger');
}

describe('member lines (§1.2: base <member>: / seeded <member>:)', () => {
  it('reads both pairs in order of first appearance, trims values, and keeps the bytes', () => {
    const spaced = edits([4, `base\tweb :   ${HOME}  `], [5, 'seeded   web:yes'], [7, 'seeded api:  no\t']);
    const ledger = accepted(spaced);
    expect(ledger.legs?.members).toEqual([
      { name: 'web', base: HOME, seeded: true },
      { name: 'api', base: API, seeded: false },
    ]);
    expect(serializeLedger(ledger)).toBe(spaced);
    // api's seeded line before web's pair: api is the first member.
    const apiFirst = edits(
      [4, 'seeded api: no'],
      [5, `base web: ${HOME}`],
      [6, 'seeded web: yes'],
      [7, `base api: ${API}`],
    );
    expect(accepted(apiFirst).legs?.members.map((m) => m.name)).toEqual(['api', 'web']);
  });

  it('refuses a member name outside the leg-name grammar, and only reports it', () => {
    expect(refused(edits([6, `base Api: ${API}`], [7, 'seeded Api: no']))).toEqual([
      f('ledger.legs.name', 6, 'member name "Api" must be lowercase letters, digits, ".", "_" or "-"'),
      f('ledger.legs.name', 7, 'member name "Api" must be lowercase letters, digits, ".", "_" or "-"'),
      f(
        'ledger.legs.single-member',
        0,
        'a single-member run carries no coordinated metadata: remove the base <member>: / seeded <member>: lines',
      ),
    ]);
  });

  it('refuses a repeated line, naming the first', () => {
    expect(refused(edit(TEXT, 5, 'seeded web: yes\nseeded web: no'))).toEqual([
      f('ledger.legs.duplicate', 6, 'seeded web: appears again (first on line 5)'),
    ]);
    expect(refused(edit(TEXT, 6, `base api: ${API}\nbase api: ${API}`))).toEqual([
      f('ledger.legs.duplicate', 7, 'base api: appears again (first on line 6)'),
    ]);
  });

  it('refuses a base that is not a full lowercase sha, and a seeded that is not yes or no', () => {
    expect(refused(edit(TEXT, 6, `base api: ${API.toUpperCase()}`))).toEqual([
      f('ledger.legs.base', 6, `base api: must be a full lowercase 40-hex SHA, found "${API.toUpperCase()}"`),
    ]);
    expect(refused(edit(TEXT, 6, 'base api:'))).toEqual([
      f('ledger.legs.base', 6, 'base api: must be a full lowercase 40-hex SHA, found ""'),
    ]);
    for (const value of ['Yes', 'true', '']) {
      expect(refused(edit(TEXT, 7, `seeded api: ${value}`))).toEqual([
        f('ledger.legs.seeded', 7, `seeded api: must be yes or no, found "${value}"`),
      ]);
    }
  });

  it('a bad value still counts as the line: a second one is a duplicate, no pair is missing', () => {
    expect(refused(edit(TEXT, 7, 'seeded api: maybe\nseeded api: no'))).toEqual([
      f('ledger.legs.seeded', 7, 'seeded api: must be yes or no, found "maybe"'),
      f('ledger.legs.duplicate', 8, 'seeded api: appears again (first on line 7)'),
    ]);
    expect(refused(edit(TEXT, 6, 'base api: 0c1d\nbase api: 0c1d'))).toEqual([
      f('ledger.legs.base', 6, 'base api: must be a full lowercase 40-hex SHA, found "0c1d"'),
      f('ledger.legs.duplicate', 7, 'base api: appears again (first on line 6)'),
    ]);
  });

  it('a member with a bad value is no member: the mapping then has no members, or needs none', () => {
    expect(refused(edits([4, 'base web: x'], [6, 'base api: y']))).toEqual([
      f('ledger.legs.base', 4, 'base web: must be a full lowercase 40-hex SHA, found "x"'),
      f('ledger.legs.base', 6, 'base api: must be a full lowercase 40-hex SHA, found "y"'),
      f(
        'ledger.legs.members-missing',
        20,
        'a ## Leg mapping section without base <member>: / seeded <member>: header pairs',
      ),
    ]);
    // Without a ## Leg mapping section, no member asks for one.
    expect(refused(edits([5, 'seeded web: on'], [7, 'seeded api: off'], [20, '## Notes']))).toEqual([
      f('ledger.legs.seeded', 5, 'seeded web: must be yes or no, found "on"'),
      f('ledger.legs.seeded', 7, 'seeded api: must be yes or no, found "off"'),
    ]);
  });

  it('refuses half pairs on the line of the half that is there, and a single pair', () => {
    expect(refused(edit(TEXT, 7, null))).toEqual([
      f('ledger.legs.pair', 6, 'member api needs both "base api: <sha>" and "seeded api: yes|no"'),
    ]);
    expect(refused(edit(TEXT, 6, null))).toEqual([
      f('ledger.legs.pair', 6, 'member api needs both "base api: <sha>" and "seeded api: yes|no"'),
    ]);
    expect(refused(edits([6, null], [7, null]))).toEqual([
      f(
        'ledger.legs.single-member',
        0,
        'a single-member run carries no coordinated metadata: remove the base <member>: / seeded <member>: lines',
      ),
    ]);
  });
});

describe('## Leg mapping table (§1.7)', () => {
  it('reads the mapping with any cell padding, alignment colons and blank lines under the heading', () => {
    const loose = edits(
      [21, '\n'],
      [23, '|:--| --: |:-:|'],
      [24, '|1|1|web|'],
      [26, '  |  3  |  2  |  api  |  '],
    );
    const ledger = accepted(loose);
    expect(ledger.legs?.mapping).toEqual([
      { row: 1, ac: 1, leg: 'web' },
      { row: 2, ac: 2, leg: 'web' },
      { row: 3, ac: 2, leg: 'api' },
      { row: 4, ac: 3, leg: 'api' },
    ]);
    expect(serializeLedger(ledger)).toBe(loose);
    // The mapping table ends at its first non-table line; a later section is not part of it.
    const notes = accepted(`${TEXT}\n## Notes\n\n| a | b | c |\n`);
    expect(notes.legs?.mapping).toHaveLength(4);
  });

  it('refuses a header of other than three closed cells', () => {
    expect(refused(edit(TEXT, 22, '| row | ac |'))).toEqual([
      f(
        'ledger.legs.mapping-header',
        22,
        'the leg mapping header must have three cells (row, ac, leg), found 2',
      ),
    ]);
    expect(refused(edit(TEXT, 22, '| row | ac | leg'))).toEqual([
      f(
        'ledger.legs.mapping-header',
        22,
        'the leg mapping header must have three cells (row, ac, leg), found 3',
      ),
    ]);
  });

  const missingSeparator = 'the leg mapping separator line (|---|---|---|) is missing';

  it('refuses a missing or malformed separator; a first mapping line in its place is still read', () => {
    expect(refused(edit(TEXT, 23, null))).toEqual([f('ledger.legs.mapping-separator', 23, missingSeparator)]);
    for (const bad of ['|---|---|', '|---|---|---', '|---|ac|---|', '|---|---|---|---|']) {
      const findings = refused(edit(TEXT, 23, bad));
      expect(findings[0]).toEqual(f('ledger.legs.mapping-separator', 23, missingSeparator));
    }
    // Unconsumed, the bad separator is read as mapping line 1.
    expect(refused(edit(TEXT, 23, '|---|---|---'))).toEqual([
      f('ledger.legs.mapping-separator', 23, missingSeparator),
      f('ledger.legs.mapping-cells', 23, 'a leg mapping line has three cells: | row | ac | leg |'),
      f(
        'ledger.legs.mapping-row',
        24,
        'expected mapping for row 2, found "1" (every row is mapped exactly once, in order)',
      ),
      f(
        'ledger.legs.mapping-row',
        25,
        'expected mapping for row 3, found "2" (every row is mapped exactly once, in order)',
      ),
      f(
        'ledger.legs.mapping-row',
        26,
        'expected mapping for row 4, found "3" (every row is mapped exactly once, in order)',
      ),
      f(
        'ledger.legs.mapping-row',
        27,
        'expected mapping for row 5, found "4" (every row is mapped exactly once, in order)',
      ),
    ]);
  });

  it('a line that does not start with a pipe is no separator, however it continues', () => {
    // Not a table line: the mapping table ends under its header; the lines below belong to no table.
    expect(refused(edit(TEXT, 23, 'x---|---|---|'))).toEqual([
      f('ledger.legs.mapping-separator', 23, missingSeparator),
    ]);
  });

  it('names the last line when the header is the last line of the file', () => {
    const text = `${LINES.slice(0, 22).join('\n')}`;
    const findings = refused(text);
    expect(findings).toContainEqual(f('ledger.legs.mapping-separator', 22, missingSeparator));
  });

  it('refuses each bad mapping line once (a parse finding stops before the count check)', () => {
    const cells = 'a leg mapping line has three cells: | row | ac | leg |';
    expect(refused(edit(TEXT, 24, '| 1 | 1 |'))).toEqual([f('ledger.legs.mapping-cells', 24, cells)]);
    expect(refused(edit(TEXT, 24, '| 1 | 1 | web | x |'))).toEqual([
      f('ledger.legs.mapping-cells', 24, cells),
    ]);
    expect(refused(edit(TEXT, 24, '| 1 | 1 | web'))).toEqual([f('ledger.legs.mapping-cells', 24, cells)]);
    expect(refused(edit(TEXT, 25, '| two | 2 | web |'))).toEqual([
      f(
        'ledger.legs.mapping-row',
        25,
        'expected mapping for row 2, found "two" (every row is mapped exactly once, in order)',
      ),
    ]);
    expect(refused(edit(TEXT, 25, '| 3 | 2 | web |'))).toEqual([
      f(
        'ledger.legs.mapping-row',
        25,
        'expected mapping for row 2, found "3" (every row is mapped exactly once, in order)',
      ),
    ]);
    for (const ac of ['0', 'x', '-1', '1.5']) {
      expect(refused(edit(TEXT, 25, `| 2 | ${ac} | web |`))).toEqual([
        f('ledger.legs.mapping-ac', 25, `ac "${ac}" is not an acceptance criterion number`),
      ]);
    }
    expect(refused(edit(TEXT, 25, '| 2 | 2 | Web |'))).toEqual([
      f('ledger.legs.mapping-leg', 25, 'leg "Web" is not a member name'),
    ]);
  });

  it('maps a well-formed line naming a non-member, a row too many, and a pending repo outside the members', () => {
    expect(refused(edit(TEXT, 27, '| 4 | 3 | cli |'))).toEqual([
      f('ledger.legs.unknown-leg', 0, 'row 4 is mapped to cli, which is not a member'),
    ]);
    expect(refused(edit(TEXT, 27, '| 4 | 3 | api |\n| 5 | 3 | api |'))).toEqual([
      f('ledger.legs.mapping-count', 0, 'the leg mapping has 5 entries for 4 rows (every row exactly once)'),
    ]);
    expect(refused(edit(TEXT, 11, `allowance: 4\npending: 2 | home | ${HEAD}`))).toEqual([
      f('ledger.legs.pending-repo', 0, 'the pending tuple names home, which is not a member (web, api)'),
    ]);
    expect(accepted(edit(TEXT, 11, `allowance: 4\npending: 3 | api | ${HEAD}`)).pending).toEqual({
      target: 3,
      repo: 'api',
      head: HEAD,
    });
  });
});

describe('edits of a parsed coordinated ledger keep every untouched byte', () => {
  // Member and mapping lines spelled loosely, so that a kept line differs from its canonical form.
  const LOOSE = edits(
    [4, `base  web:  ${HOME}`],
    [7, 'seeded api:no'],
    [24, '|1|1|web|'],
    [26, '| 3 |  2 | api |'],
  );

  it('re-renders only the member line whose value changed', () => {
    const ledger = accepted(LOOSE);
    const legs = ledger.legs as NonNullable<Ledger['legs']>;
    const seededApi: Ledger = {
      ...ledger,
      legs: {
        ...legs,
        members: [legs.members[0], { ...legs.members[1], seeded: true }] as typeof legs.members,
      },
    };
    expect(serializeLedger(seededApi)).toBe(edit(LOOSE, 7, 'seeded api: yes'));
    const movedWeb: Ledger = {
      ...ledger,
      legs: { ...legs, members: [{ ...legs.members[0], base: API }, legs.members[1]] as typeof legs.members },
    };
    expect(serializeLedger(movedWeb)).toBe(edit(LOOSE, 4, `base web: ${API}`));
  });

  it('re-renders only the mapping line whose value changed', () => {
    const ledger = accepted(LOOSE);
    const legs = ledger.legs as NonNullable<Ledger['legs']>;
    const mapping = legs.mapping.map((e) => (e.row === 3 ? { ...e, leg: 'web' } : e));
    expect(serializeLedger({ ...ledger, legs: { ...legs, mapping } })).toBe(
      edit(LOOSE, 26, '| 3 | 2 | web |'),
    );
    const first = legs.mapping.map((e) => (e.row === 1 ? { ...e, ac: 2 } : e));
    expect(serializeLedger({ ...ledger, legs: { ...legs, mapping: first } })).toBe(
      edit(LOOSE, 24, '| 1 | 2 | web |'),
    );
  });

  it('a ledger whose legs are dropped loses its member lines and its mapping table', () => {
    const { legs: _legs, ...single } = accepted(LOOSE);
    const text = serializeLedger(single);
    expect(text).not.toMatch(
      /^(base web|seeded web|base api|seeded api):|Leg mapping|\| row \| ac \| leg \||^\|-+\|-+\|-+\|$|\| api \||\|web\|/m,
    );
    expect(text.split('\n').slice(0, 7)).toEqual(
      ledgerHead({ spec: 'doc/specs/csv-export.md', base: HOME, iterations: 2 }),
    );
  });
});

describe('built coordinated ledgers (legs values the serializer refuses)', () => {
  const ledger = (): Ledger => {
    const { layout: _layout, ...values } = accepted(TEXT);
    return structuredClone(values);
  };
  /** The ledger's fields, writable, to build values a typed caller could not. */
  const fields = (l: Ledger) => l as unknown as Record<string, unknown>;

  it('writes members and the mapping canonically: seeded as yes / no, a mapping line per entry', () => {
    const text = serializeLedger(ledger());
    expect(text).toBe(TEXT);
    const flipped = ledger();
    const legs = flipped.legs as NonNullable<Ledger['legs']>;
    fields(flipped).legs = {
      members: [
        { ...(legs.members[0] as (typeof legs.members)[0]), seeded: false },
        { ...(legs.members[1] as (typeof legs.members)[0]), seeded: true },
      ],
      mapping: legs.mapping,
    };
    expect(serializeLedger(flipped)).toBe(edits([5, 'seeded web: no'], [7, 'seeded api: yes']));
  });

  it('refuses legs that are not two lists', () => {
    const bad = ledger();
    fields(bad).legs = { members: 'web', mapping: [] };
    expect(thrown(bad)).toEqual([
      f('ledger.value.shape', 0, 'legs must hold a list of members and a list of mapping entries'),
    ]);
    const noMapping = ledger();
    fields(noMapping).legs = { members: noMapping.legs?.members, mapping: null };
    expect(thrown(noMapping)).toEqual([
      f('ledger.value.shape', 0, 'legs must hold a list of members and a list of mapping entries'),
    ]);
  });

  it('refuses bad member values, each with its own finding', () => {
    const bad = ledger();
    fields(bad).legs = {
      members: [
        { name: 'web', base: HOME, seeded: true },
        { name: 'API', base: API, seeded: false },
        { name: 'web', base: 'abc', seeded: 'no' },
        { name: 7, base: API, seeded: false },
      ],
      mapping: bad.legs?.mapping,
    };
    expect(thrown(bad)).toEqual([
      f('ledger.legs.name', 0, 'member 2 has the name API'),
      f('ledger.legs.duplicate', 0, 'member web appears twice'),
      f('ledger.legs.base', 0, 'member web: base must be a full lowercase 40-hex SHA'),
      f('ledger.legs.seeded', 0, 'member web: seeded must be true or false'),
      f('ledger.legs.name', 0, 'member 4 has the name 7'),
      // api is no member: its two mapping lines name a non-member.
      f('ledger.legs.unknown-leg', 0, 'row 3 is mapped to api, which is not a member'),
      f('ledger.legs.unknown-leg', 0, 'row 4 is mapped to api, which is not a member'),
    ]);
    const nullMember = ledger();
    fields(nullMember).legs = {
      members: [null, ...(nullMember.legs?.members ?? [])],
      mapping: nullMember.legs?.mapping,
    };
    expect(thrown(nullMember)).toEqual([
      f('ledger.legs.name', 0, 'member 1 has the name undefined'),
      f('ledger.legs.base', 0, 'member undefined: base must be a full lowercase 40-hex SHA'),
      f('ledger.legs.seeded', 0, 'member undefined: seeded must be true or false'),
    ]);
  });

  it('refuses one member, a short or long mapping, and bad mapping entries', () => {
    const single = ledger();
    const legs = single.legs as NonNullable<Ledger['legs']>;
    fields(single).legs = {
      members: [legs.members[0] as (typeof legs.members)[0]],
      mapping: legs.mapping.map((e) => ({ ...e, leg: 'web' })),
    };
    expect(thrown(single)).toEqual([
      f(
        'ledger.legs.single-member',
        0,
        'a coordinated ledger has at least two members; a single leg carries no coordinated metadata',
      ),
    ]);
    const short = ledger();
    (short.legs as unknown as { mapping: unknown[] }).mapping.pop();
    expect(thrown(short)).toEqual([
      f('ledger.legs.mapping-count', 0, 'the leg mapping has 3 entries for 4 rows (every row exactly once)'),
    ]);
    const entries = ledger();
    (entries.legs as unknown as { mapping: unknown[] }).mapping = [
      { row: 1, ac: 1, leg: 'web' },
      { row: 3, ac: 0, leg: 'web' },
      { row: 3, ac: 1.5, leg: 7 },
      null,
    ];
    expect(thrown(entries)).toEqual([
      f('ledger.legs.mapping-row', 0, 'mapping entry 2 is for row 3'),
      f('ledger.legs.mapping-ac', 0, 'mapping entry 2 has ac 0'),
      f('ledger.legs.mapping-ac', 0, 'mapping entry 3 has ac 1.5'),
      f('ledger.legs.unknown-leg', 0, 'row 3 is mapped to 7, which is not a member'),
      f('ledger.legs.mapping-row', 0, 'mapping entry 4 is for row undefined'),
      f('ledger.legs.mapping-ac', 0, 'mapping entry 4 has ac undefined'),
      f('ledger.legs.unknown-leg', 0, 'row 4 is mapped to undefined, which is not a member'),
    ]);
  });

  it('refuses a pending tuple whose repo is not a member; checkLedger reports the same', () => {
    const bad = ledger();
    fields(bad).pending = { target: 'verify', repo: 'home', head: HEAD };
    const expected = [
      f('ledger.legs.pending-repo', 0, 'the pending tuple names home, which is not a member (web, api)'),
    ];
    expect(thrown(bad)).toEqual(expected);
    expect(checkLedger(bad)).toEqual(expected);
    fields(bad).pending = { target: 'verify', repo: 'web', head: HEAD };
    expect(checkLedger(bad)).toEqual([]);
    // A pending value that is no tuple is named once, as malformed; it names no repo to check.
    fields(bad).pending = 'verify';
    expect(thrown(bad)).toEqual([
      f(
        'ledger.pending.malformed',
        0,
        'the pending tuple must be an object with target, repo and head, got verify',
      ),
    ]);
  });
});

describe('header values (§1.2)', () => {
  it('names the problem of each header value on its line', () => {
    expect(refused(edit(TEXT, 3, 'base: HEAD'))).toEqual([
      f('ledger.header.base', 3, 'base: must be a full lowercase 40-hex SHA, found "HEAD"'),
    ]);
    expect(refused(edit(TEXT, 8, 'verification:   '))).toEqual([
      f('ledger.header.empty', 8, 'verification: has no value'),
    ]);
    expect(refused(edit(TEXT, 9, 'checks:'))).toEqual([f('ledger.header.empty', 9, 'checks: has no value')]);
    expect(refused(edit(TEXT, 10, 'iterations: 2.0'))).toEqual([
      f('ledger.header.not-integer', 10, 'iterations: must be a non-negative integer, found "2.0"'),
    ]);
    // Digits only, but past the safe integers: refused, not rounded.
    expect(refused(edit(TEXT, 11, 'allowance: 9007199254740993'))).toEqual([
      f(
        'ledger.header.not-integer',
        11,
        'allowance: must be a non-negative integer, found "9007199254740993"',
      ),
    ]);
    expect(refused(edit(TEXT, 11, 'allowance: 4\npending: 2 |  web | x'))).toEqual([
      f(
        'ledger.pending.malformed',
        12,
        'pending: must read "pending: <row|seed|verify> | <repo> | <40-hex sha>", found "pending: 2 |  web | x"',
      ),
    ]);
    expect(refused(edit(TEXT, 2, '**Spec:** /doc/specs/csv-export.md'))).toEqual([
      f('ledger.header.spec', 2, 'the **Spec:** path must be repo-relative, not absolute'),
    ]);
  });

  it('reads counters with leading zeros and trims every value', () => {
    const ledger = accepted(
      edits([8, 'verification:\t npm test  '], [10, 'iterations: 007'], [11, 'allowance:0']),
    );
    expect(ledger.verification).toBe('npm test');
    expect(ledger.iterations).toBe(7);
    expect(ledger.allowance).toBe(0);
  });
});

describe('row table (§1.3)', () => {
  it('refuses a header of other than four closed cells, saying which', () => {
    expect(refused(edit(TEXT, 13, '| row | status | attempts |'))).toEqual([
      f(
        'ledger.table.header',
        13,
        'the table header must have four cells (row, status, attempts, evidence), found 3',
      ),
    ]);
    expect(refused(edit(TEXT, 13, '| row | status | attempts | evidence'))).toEqual([
      f(
        'ledger.table.header',
        13,
        'the table header must have four cells (row, status, attempts, evidence), found 4 and no closing pipe',
      ),
    ]);
  });

  const dashes = 'the table separator must be four cells of dashes, e.g. |---|---|---|---|';
  const missing = 'the table separator line (|---|---|---|---|) is missing';

  it('a separator of dashes in the wrong shape is named and consumed; rows still read', () => {
    for (const bad of ['|---|---|---|', '|---|---|---|---', '| | | | |', '|---|---|---|---|---|']) {
      expect(refused(edit(TEXT, 14, bad))).toEqual([f('ledger.table.separator', 14, dashes)]);
    }
  });

  it('a row in the separator place is named missing and read as row 1', () => {
    expect(refused(edit(TEXT, 14, null))).toEqual([f('ledger.table.separator', 14, missing)]);
    // The unconsumed line is checked as row 1.
    expect(refused(edit(TEXT, 14, '|---|x|---|---|'))).toEqual([
      f('ledger.table.separator', 14, missing),
      f(
        'ledger.table.row-number',
        14,
        'expected row 1, found "---" (rows are numbered 1..N in spec order without gaps)',
      ),
      f('ledger.table.status', 14, 'status "x" is not one of open, done, failed, cut'),
      f('ledger.table.attempts', 14, 'attempts "---" is not a non-negative integer'),
      f(
        'ledger.table.row-number',
        15,
        'expected row 2, found "1" (rows are numbered 1..N in spec order without gaps)',
      ),
      f(
        'ledger.table.row-number',
        16,
        'expected row 3, found "2" (rows are numbered 1..N in spec order without gaps)',
      ),
      f(
        'ledger.table.row-number',
        17,
        'expected row 4, found "3" (rows are numbered 1..N in spec order without gaps)',
      ),
      f(
        'ledger.table.row-number',
        18,
        'expected row 5, found "4" (rows are numbered 1..N in spec order without gaps)',
      ),
    ]);
  });

  it('a line that does not start with a pipe is no separator: the table ends at its header', () => {
    const split = 'table line after the row table ended (remove the blank line inside the table)';
    expect(refused(edit(TEXT, 14, 'x---|---|---|---|'))).toEqual([
      f('ledger.table.separator', 14, missing),
      f('ledger.table.split', 15, split),
      f('ledger.table.split', 16, split),
      f('ledger.table.split', 17, split),
      f('ledger.table.split', 18, split),
    ]);
  });

  it('a non-table line or the end of the file after the header: separator missing there', () => {
    const single = [
      ...ledgerHead({ spec: 's.md', base: HOME }),
      '',
      '| row | status | attempts | evidence |',
    ];
    expect(refused(single.join('\n'))).toEqual([
      f('ledger.table.separator', 9, missing),
      f('ledger.decisions.missing', 0, 'the ## Decisions section is missing'),
    ]);
    expect(refused([...single, '', '## Decisions', ''].join('\n'))).toEqual([
      f('ledger.table.separator', 10, missing),
    ]);
  });

  it('names each bad row once with its cell count, and every bad cell of a row', () => {
    expect(refused(edit(TEXT, 16, '| 2 | open | 0 |  \\|'))).toEqual([
      f(
        'ledger.table.cells',
        16,
        'table row must end with a pipe (is the last pipe escaped by a backslash?)',
      ),
    ]);
    expect(refused(edit(TEXT, 16, '| 2 | open | 0 | a | b | c |'))).toEqual([
      f(
        'ledger.table.unescaped-pipe',
        16,
        'table row has 6 cells instead of 4: escape literal pipes in the evidence as \\|',
      ),
    ]);
    expect(refused(edit(TEXT, 16, '| 2 | open |'))).toEqual([
      f('ledger.table.cells', 16, 'table row has 2 cells instead of 4 (row, status, attempts, evidence)'),
    ]);
    expect(refused(edit(TEXT, 16, '| two | Open | -1 | x |'))).toEqual([
      f(
        'ledger.table.row-number',
        16,
        'expected row 2, found "two" (rows are numbered 1..N in spec order without gaps)',
      ),
      f('ledger.table.status', 16, 'status "Open" is not one of open, done, failed, cut'),
      f('ledger.table.attempts', 16, 'attempts "-1" is not a non-negative integer'),
    ]);
    expect(refused(edit(TEXT, 16, '| 2 | open | 9007199254740993 | x |'))).toEqual([
      f('ledger.table.attempts', 16, 'attempts "9007199254740993" is not a non-negative integer'),
    ]);
  });

  it('a bad row leaves no gap: the next row keeps its position', () => {
    expect(refused(edit(TEXT, 15, '| 1 | done | 0 |'))).toEqual([
      f('ledger.table.cells', 15, 'table row has 3 cells instead of 4 (row, status, attempts, evidence)'),
    ]);
  });

  it('reads cells trimmed, attempts as numbers, and an escaped pipe as part of the evidence; keeps the bytes', () => {
    const loose = edits(
      [14, '| --- | :-- | --: | :-: |'],
      [15, '|1|done|00|  seed: a \\| b  |'],
      [16, '  |  2  |  open  |  3  |  |  '],
    );
    const ledger = accepted(loose);
    expect(serializeLedger(ledger)).toBe(loose);
    expect(ledger.rows.slice(0, 2)).toEqual([
      { row: 1, status: 'done', attempts: 0, evidence: 'seed: a \\| b' },
      { row: 2, status: 'open', attempts: 3, evidence: '' },
    ]);
  });
});
