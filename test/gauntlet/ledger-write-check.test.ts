// The ledger's serializer and checker, line by line: which bytes an edit keeps and where added
// lines go (docs/ledger-format.md, gauntlet-protocol §1.2-§1.8, §6 A26), and the exact findings
// of the value checks and of the §1.9 checks against a spec. Every expected text is written by
// hand from the protocol's format; none is computed by the code under test.
import { describe, expect, it } from 'vitest';
import { LedgerFormatError } from '../../src/common/errors.js';
import { checkLedger, formatLedgerRow, parseLedger, serializeLedger } from '../../src/gauntlet/ledger.js';
import { parseSpec } from '../../src/gauntlet/spec.js';
import type { Ledger, LedgerRow, Spec } from '../../src/gauntlet/types.js';
import { BASE, HEAD, ledgerText, API_BASE as OTHER } from './text-fixtures.js';

function parsed(text: string): Ledger {
  const result = parseLedger(text);
  expect(result.findings).toEqual([]);
  if (result.ledger === null) throw new Error('expected a ledger');
  return result.ledger;
}

function row(n: number, status: LedgerRow['status'], attempts: number, evidence: string): LedgerRow {
  return { row: n, status, attempts, evidence };
}

function spec(text: string): Spec {
  const result = parseSpec(text);
  expect(result.findings).toEqual([]);
  return result.spec;
}

function thrown(run: () => unknown): unknown {
  try {
    run();
  } catch (error) {
    return error;
  }
  return null;
}

// A hand-written single-leg ledger with odd spacing on every line a test edits.
const ODD = [
  '# Loop ledger  ',
  '**Spec:**   doc/specs/x.md',
  `base:  ${BASE}`,
  'verification:   npm test',
  'checks:  commands',
  'iterations:  3',
  'allowance:  4',
  `pending: 2 | home | ${HEAD}  `,
  '',
  '|row|status|attempts|evidence|',
  '|:--|---|---|--:|',
  '|  1 | done |  1 | npm test; ok |',
  '|  2 | open |  0 |   |',
  '|  3 | cut |  0 | deferred: ACME-1 |',
  '',
  '## Decisions',
  '',
  'row 1 done | first | row 2',
  'row 2 failed | second | try again',
  '',
].join('\n');

describe('formatLedgerRow', () => {
  it('writes the canonical | row | status | attempts | evidence | line', () => {
    expect(formatLedgerRow(row(3, 'failed', 2, 'npm test; 1 failing'))).toBe(
      '| 3 | failed | 2 | npm test; 1 failing |',
    );
    expect(formatLedgerRow(row(1, 'open', 0, ''))).toBe('| 1 | open | 0 |  |');
  });
});

describe('serializeLedger with a layout: unchanged lines keep their bytes, edits are canonical', () => {
  it('an unchanged ledger is written back byte for byte', () => {
    expect(serializeLedger(parsed(ODD))).toBe(ODD);
  });

  it('a new discriminant replaces line 1 canonically; the same one keeps its spacing', () => {
    const ledger = parsed(ODD);
    expect(serializeLedger({ ...ledger, discriminant: '# Other ledger' })).toBe(
      ODD.replace('# Loop ledger  \n', '# Other ledger\n'),
    );
  });

  it('each edited header is rewritten canonically, the others keep their spacing', () => {
    const ledger = parsed(ODD);
    expect(serializeLedger({ ...ledger, spec: 'doc/specs/y.md' })).toBe(
      ODD.replace('**Spec:**   doc/specs/x.md', '**Spec:** doc/specs/y.md'),
    );
    expect(serializeLedger({ ...ledger, base: OTHER })).toBe(ODD.replace(`base:  ${BASE}`, `base: ${OTHER}`));
    expect(serializeLedger({ ...ledger, verification: 'npm run ci' })).toBe(
      ODD.replace('verification:   npm test', 'verification: npm run ci'),
    );
    expect(serializeLedger({ ...ledger, checks: 'review' })).toBe(
      ODD.replace('checks:  commands', 'checks: review'),
    );
    expect(serializeLedger({ ...ledger, iterations: 4 })).toBe(
      ODD.replace('iterations:  3', 'iterations: 4'),
    );
    expect(serializeLedger({ ...ledger, allowance: 9 })).toBe(ODD.replace('allowance:  4', 'allowance: 9'));
  });

  it('pending: keeps its line while the tuple is the same, is rewritten when it changes, dropped when cleared', () => {
    const ledger = parsed(ODD);
    expect(serializeLedger({ ...ledger, pending: { target: 2, repo: 'home', head: HEAD } })).toBe(ODD);
    expect(serializeLedger({ ...ledger, pending: { target: 'verify', repo: 'home', head: HEAD } })).toBe(
      ODD.replace(`pending: 2 | home | ${HEAD}  `, `pending: verify | home | ${HEAD}`),
    );
    expect(serializeLedger({ ...ledger, pending: { target: 2, repo: 'home', head: OTHER } })).toBe(
      ODD.replace(`pending: 2 | home | ${HEAD}  `, `pending: 2 | home | ${OTHER}`),
    );
    expect(serializeLedger({ ...ledger, pending: null })).toBe(
      ODD.replace(`pending: 2 | home | ${HEAD}  \n`, ''),
    );
  });

  it('a pending tuple added to a ledger without one goes right after allowance:, with the file line ending', () => {
    const crlf = ODD.replace(`pending: 2 | home | ${HEAD}  \n`, '').replaceAll('\n', '\r\n');
    const ledger = parsed(crlf);
    expect(ledger.pending).toBeNull();
    expect(serializeLedger({ ...ledger, pending: { target: 'seed', repo: 'home', head: HEAD } })).toBe(
      crlf.replace('allowance:  4\r\n', `allowance:  4\r\npending: seed | home | ${HEAD}\r\n`),
    );
    // pending: written elsewhere in the header block stays where it is (§6 A26).
    const early = ODD.replace(`pending: 2 | home | ${HEAD}  \n`, '').replace(
      'checks:  commands\n',
      `checks:  commands\npending: 1 | home | ${HEAD}\n`,
    );
    expect(serializeLedger({ ...parsed(early), pending: { target: 3, repo: 'home', head: HEAD } })).toBe(
      early.replace(`pending: 1 | home | ${HEAD}`, `pending: 3 | home | ${HEAD}`),
    );
  });

  it('rows: an edited row is canonical, a removed row is dropped, added rows follow the last row', () => {
    const ledger = parsed(ODD);
    const rows = ledger.rows;
    expect(
      serializeLedger({
        ...ledger,
        rows: [rows[0] as LedgerRow, row(2, 'done', 1, 'npm test; 3 passed'), rows[2] as LedgerRow],
      }),
    ).toBe(ODD.replace('|  2 | open |  0 |   |', '| 2 | done | 1 | npm test; 3 passed |'));
    expect(serializeLedger({ ...ledger, rows: rows.slice(0, 2) })).toBe(
      ODD.replace('|  3 | cut |  0 | deferred: ACME-1 |\n', ''),
    );
    expect(
      serializeLedger({ ...ledger, rows: [...rows, row(4, 'open', 0, ''), row(5, 'open', 0, '')] }),
    ).toBe(
      ODD.replace('deferred: ACME-1 |\n', 'deferred: ACME-1 |\n| 4 | open | 0 |  |\n| 5 | open | 0 |  |\n'),
    );
  });

  it('a change to any one cell of a row re-renders that row', () => {
    const ledger = parsed(ODD);
    const edit = (changed: LedgerRow): string =>
      serializeLedger({
        ...ledger,
        rows: [ledger.rows[0] as LedgerRow, changed, ledger.rows[2] as LedgerRow],
      });
    expect(edit(row(2, 'failed', 0, ''))).toBe(
      ODD.replace('|  2 | open |  0 |   |', '| 2 | failed | 0 |  |'),
    );
    expect(edit(row(2, 'open', 1, ''))).toBe(ODD.replace('|  2 | open |  0 |   |', '| 2 | open | 1 |  |'));
    expect(edit(row(2, 'open', 0, 'npm test; 1 failing'))).toBe(
      ODD.replace('|  2 | open |  0 |   |', '| 2 | open | 0 | npm test; 1 failing |'),
    );
    expect(edit(row(2, 'open', 0, ''))).toBe(ODD);
  });

  it('rows added to a table without rows follow its separator', () => {
    // A separator of its own spelling, so the added rows are seen to follow it.
    const empty = ledgerText({ rows: [] }).replace('|---|---|---|---|', '|-|-|-|-|');
    const ledger = parsed(empty);
    expect(ledger.rows).toEqual([]);
    expect(
      serializeLedger({ ...ledger, rows: [row(1, 'open', 0, ''), row(2, 'cut', 0, 'deferred: X')] }),
    ).toBe(empty.replace('|-|-|-|-|\n', '|-|-|-|-|\n| 1 | open | 0 |  |\n| 2 | cut | 0 | deferred: X |\n'));
  });

  it('decisions: an edited decision is written as given, a removed one dropped, added ones follow the last', () => {
    const ledger = parsed(ODD);
    expect(
      serializeLedger({
        ...ledger,
        decisions: ['row 1 done | changed | row 2', 'row 2 failed | second | try again'],
      }),
    ).toBe(ODD.replace('row 1 done | first | row 2', 'row 1 done | changed | row 2'));
    expect(serializeLedger({ ...ledger, decisions: ['row 1 done | first | row 2'] })).toBe(
      ODD.replace('row 2 failed | second | try again\n', ''),
    );
    expect(
      serializeLedger({ ...ledger, decisions: [...ledger.decisions, 'row 2 done | third | row 3'] }),
    ).toBe(ODD.replace('try again\n', 'try again\nrow 2 done | third | row 3\n'));
  });

  it('the first decisions of an empty section go after the blank lines under the heading, without adding one', () => {
    const text = ODD.replace('row 1 done | first | row 2\nrow 2 failed | second | try again\n', '\n');
    const ledger = parsed(text);
    expect(ledger.decisions).toEqual([]);
    expect(text.endsWith('## Decisions\n\n\n')).toBe(true);
    expect(serializeLedger({ ...ledger, decisions: ['row 1 done | a | b', 'row 2 done | c | d'] })).toBe(
      text.replace('## Decisions\n\n\n', '## Decisions\n\n\nrow 1 done | a | b\nrow 2 done | c | d\n'),
    );
    // Without decisions nothing is added.
    expect(serializeLedger(ledger)).toBe(text);
  });

  it('the first decision under a heading that ends the file follows a blank line and keeps the missing newline', () => {
    const text = ODD.replace('\n\nrow 1 done | first | row 2\nrow 2 failed | second | try again\n', '');
    expect(text.endsWith('## Decisions')).toBe(true);
    const ledger = parsed(text);
    expect(serializeLedger({ ...ledger, decisions: ['row 1 done | a | b'] })).toBe(
      `${text}\n\nrow 1 done | a | b`,
    );
    expect(serializeLedger(ledger)).toBe(text);
    const crlf = text.replaceAll('\n', '\r\n');
    expect(serializeLedger({ ...parsed(crlf), decisions: ['row 1 done | a | b'] })).toBe(
      `${crlf}\r\n\r\nrow 1 done | a | b`,
    );
  });

  it('the first decision under a heading followed by an unknown section goes right under a new blank line', () => {
    const text = ODD.replace(
      '\n\nrow 1 done | first | row 2\nrow 2 failed | second | try again\n',
      '\n## Notes\n',
    );
    const ledger = parsed(text);
    expect(ledger.decisions).toEqual([]);
    expect(serializeLedger({ ...ledger, decisions: ['row 1 done | a | b'] })).toBe(
      text.replace('## Decisions\n', '## Decisions\n\nrow 1 done | a | b\n'),
    );
    expect(serializeLedger(ledger)).toBe(text);
  });
});

// A coordinated ledger in the layout of docs/ledger-format.md with odd spacing on member and
// mapping lines (§1.2, §1.7): members web (home) and api, AC 2 shared.
const COORD = [
  '# Loop ledger',
  '**Spec:** doc/specs/x.md',
  `base: ${BASE}`,
  `base web:  ${BASE}`,
  'seeded web:  yes',
  `base api:  ${OTHER}`,
  'seeded api:  no',
  'verification: npm test',
  'checks: commands',
  'iterations: 1',
  'allowance: 4',
  '',
  '| row | status | attempts | evidence |',
  '|---|---|---|---|',
  '| 1 | open | 0 |  |',
  '| 2 | open | 0 |  |',
  '| 3 | open | 0 |  |',
  '',
  '## Leg mapping',
  '',
  '| row | ac | leg |',
  '|---|---|---|',
  '|  1 |  1 | web |',
  '|  2 |  2 | web |',
  '|  3 |  2 | api |',
  '',
  '## Decisions',
  '',
].join('\n');

const PLAIN_ROWS = ['| 1 | open | 0 |  |', '| 2 | open | 0 |  |', '| 3 | open | 0 |  |'];
const PLAIN = ledgerText({ iterations: 1, rows: PLAIN_ROWS });

const WEB = { name: 'web', base: BASE, seeded: true };
const API = { name: 'api', base: OTHER, seeded: false };
const MAPPING = [
  { row: 1, ac: 1, leg: 'web' },
  { row: 2, ac: 2, leg: 'web' },
  { row: 3, ac: 2, leg: 'api' },
];

describe('serializeLedger with a layout: coordinated metadata', () => {
  it('round-trips the coordinated ledger', () => {
    expect(serializeLedger(parsed(COORD))).toBe(COORD);
  });

  it('legs added to a single-leg layout: member pairs after base:, the mapping section before ## Decisions', () => {
    const ledger = parsed(PLAIN);
    expect(serializeLedger({ ...ledger, legs: { members: [WEB, API], mapping: MAPPING } })).toBe(
      ledgerText({
        spec: 'doc/specs/x.md',
        base: BASE,
        members: [WEB, API],
        iterations: 1,
        rows: PLAIN_ROWS,
        mapping: [
          [1, 1, 'web'],
          [2, 2, 'web'],
          [3, 2, 'api'],
        ],
      }),
    );
  });

  it('legs removed: every member and mapping line goes, the blank lines around them stay', () => {
    const { legs: _legs, ...ledger } = parsed(COORD);
    expect(serializeLedger(ledger)).toBe(
      COORD.replace(/base web:.*\nseeded web:.*\nbase api:.*\nseeded api:.*\n/, '').replace(
        /## Leg mapping\n\n\| row \| ac \| leg \|\n\|---\|---\|---\|\n(\|.*\n){3}/,
        '\n',
      ),
    );
  });

  it('an edited member line is canonical, a removed member is dropped, an added member follows the last', () => {
    const ledger = parsed(COORD);
    const third = { name: 'docs', base: OTHER, seeded: true };
    expect(
      serializeLedger({ ...ledger, legs: { members: [WEB, { ...API, base: HEAD }], mapping: MAPPING } }),
    ).toBe(COORD.replace(`base api:  ${OTHER}`, `base api: ${HEAD}`));
    expect(serializeLedger({ ...ledger, legs: { members: [WEB, API, third], mapping: MAPPING } })).toBe(
      COORD.replace('seeded api:  no\n', `seeded api:  no\nbase docs: ${OTHER}\nseeded docs: yes\n`),
    );
    expect(
      serializeLedger({
        ...ledger,
        legs: {
          members: [WEB, third],
          mapping: MAPPING.map((e) => (e.leg === 'api' ? { ...e, leg: 'docs' } : e)),
        },
      }),
    ).toBe(
      COORD.replace(`base api:  ${OTHER}\nseeded api:  no\n`, '')
        .replace('seeded web:  yes\n', `seeded web:  yes\nbase docs: ${OTHER}\nseeded docs: yes\n`)
        .replace('|  3 |  2 | api |', '| 3 | 2 | docs |'),
    );
  });

  it('mapping lines: an edited one is canonical, a removed one dropped, added ones follow the last', () => {
    const ledger = parsed(COORD);
    const legs = { members: [WEB, API] };
    expect(
      serializeLedger({
        ...ledger,
        legs: { ...legs, mapping: [MAPPING[0], { row: 2, ac: 3, leg: 'web' }, MAPPING[2]] as typeof MAPPING },
      }),
    ).toBe(COORD.replace('|  2 |  2 | web |', '| 2 | 3 | web |'));
    expect(
      serializeLedger({
        ...ledger,
        rows: [...ledger.rows, row(4, 'open', 0, '')],
        legs: { ...legs, mapping: [...MAPPING, { row: 4, ac: 3, leg: 'api' }] },
      }),
    ).toBe(
      COORD.replace('| 3 | open | 0 |  |\n', '| 3 | open | 0 |  |\n| 4 | open | 0 |  |\n').replace(
        '|  3 |  2 | api |\n',
        '|  3 |  2 | api |\n| 4 | 3 | api |\n',
      ),
    );
    expect(
      serializeLedger({
        ...ledger,
        rows: ledger.rows.slice(0, 2),
        legs: { ...legs, mapping: MAPPING.slice(0, 2) },
      }),
    ).toBe(COORD.replace('| 3 | open | 0 |  |\n', '').replace('|  3 |  2 | api |\n', ''));
  });

  it('mapping lines added to a mapping table without lines follow its separator', () => {
    const empty = COORD.replace(/\| [123] \| open \| 0 \| {2}\|\n/g, '').replace(
      /\| {2}[123] \| {2}[12] \| (web|api) \|\n/g,
      '',
    );
    const ledger = parsed(empty);
    expect(ledger.legs?.mapping).toEqual([]);
    expect(
      serializeLedger({
        ...ledger,
        rows: [row(1, 'open', 0, '')],
        legs: { members: [WEB, API], mapping: [{ row: 1, ac: 1, leg: 'api' }] },
      }),
    ).toBe(
      empty
        .replace('|---|---|---|---|\n', '|---|---|---|---|\n| 1 | open | 0 |  |\n')
        .replace('\n|---|---|---|\n', '\n|---|---|---|\n| 1 | 1 | api |\n'),
    );
  });
});

describe('serializeLedger without a layout: the canonical single-leg layout', () => {
  it('writes pending: after allowance:, no member lines, and the decisions after a blank line', () => {
    const { layout: _layout, ...ledger } = parsed(PLAIN);
    expect(
      serializeLedger({
        ...ledger,
        pending: { target: 2, repo: 'home', head: HEAD },
        decisions: ['row 1 done | a | row 2', 'row 2 failed | b | c'],
      }),
    ).toBe(
      PLAIN.replace('allowance: 4\n', `allowance: 4\npending: 2 | home | ${HEAD}\n`).replace(
        '## Decisions\n',
        '## Decisions\n\nrow 1 done | a | row 2\nrow 2 failed | b | c\n',
      ),
    );
    expect(serializeLedger(ledger)).toBe(PLAIN);
  });
});

describe('serializeLedger without a layout: the canonical coordinated layout', () => {
  it('writes member pairs after base: and ## Leg mapping before ## Decisions', () => {
    const { layout: _layout, ...ledger } = parsed(PLAIN);
    expect(serializeLedger({ ...ledger, legs: { members: [WEB, API], mapping: MAPPING } })).toBe(
      COORD.replaceAll(':  ', ': ').replace(/\| {2}(\d) \| {2}(\d) \|/g, '| $1 | $2 |'),
    );
  });
});

const VALID: Ledger = {
  discriminant: '# Loop ledger',
  spec: 'doc/specs/x.md',
  base: BASE,
  verification: 'npm test',
  checks: 'commands',
  iterations: 0,
  allowance: 4,
  pending: null,
  rows: [row(1, 'open', 0, '')],
  decisions: [],
};

describe('checkLedger and serializeLedger: values that cannot be written', () => {
  const cases: [string, unknown, { code: string; line: number; reason: string }[]][] = [
    [
      'a ledger that is not an object',
      null,
      [{ code: 'ledger.value.shape', line: 0, reason: 'the ledger is not an object' }],
    ],
    [
      'a string ledger',
      'ledger',
      [{ code: 'ledger.value.shape', line: 0, reason: 'the ledger is not an object' }],
    ],
    [
      'rows and decisions that are not lists',
      { ...VALID, rows: 'none', decisions: {} },
      [
        { code: 'ledger.value.shape', line: 0, reason: 'rows must be a list of rows' },
        { code: 'ledger.value.shape', line: 0, reason: 'decisions must be a list of lines' },
      ],
    ],
    [
      'a row that is not an object and a decision that is not a string',
      { ...VALID, rows: [row(1, 'open', 0, ''), null, 3], decisions: ['row 1 done | a | b', 7] },
      [
        { code: 'ledger.value.shape', line: 0, reason: 'row 2 is not an object' },
        { code: 'ledger.value.shape', line: 0, reason: 'row 3 is not an object' },
        { code: 'ledger.value.shape', line: 0, reason: 'decision 2 is not a string' },
      ],
    ],
    [
      'an empty discriminant',
      { ...VALID, discriminant: '' },
      [{ code: 'ledger.discriminant', line: 0, reason: 'the discriminant is empty' }],
    ],
    [
      'a spec path in backticks',
      { ...VALID, spec: '`doc/specs/x.md`' },
      [
        {
          code: 'ledger.header.spec',
          line: 0,
          reason: 'the **Spec:** header takes the bare repo-relative path, without backticks or anchors',
        },
      ],
    ],
    [
      'a short base',
      { ...VALID, base: 'abc1234' },
      [{ code: 'ledger.header.base', line: 0, reason: 'base must be a full lowercase 40-hex SHA' }],
    ],
    [
      'a base that is a list holding a valid sha',
      { ...VALID, base: [BASE] },
      [{ code: 'ledger.header.base', line: 0, reason: 'base must be a full lowercase 40-hex SHA' }],
    ],
    [
      'a base that is not text',
      { ...VALID, base: 7 },
      [{ code: 'ledger.header.base', line: 0, reason: 'base must be a full lowercase 40-hex SHA' }],
    ],
    [
      'empty verification and a two-line checks value',
      { ...VALID, verification: '', checks: 'a\nb' },
      [
        { code: 'ledger.header.empty', line: 0, reason: 'verification is empty' },
        { code: 'ledger.header.empty', line: 0, reason: 'checks spans more than one line' },
      ],
    ],
    [
      'negative iterations and a fractional allowance',
      { ...VALID, iterations: -1, allowance: 1.5 },
      [
        { code: 'ledger.header.not-integer', line: 0, reason: 'iterations must be an integer >= 0' },
        { code: 'ledger.header.not-integer', line: 0, reason: 'allowance must be an integer >= 0' },
      ],
    ],
    [
      'a pending tuple with a short head',
      { ...VALID, pending: { target: 1, repo: 'home', head: 'abc' } },
      [
        {
          code: 'ledger.pending.malformed',
          line: 0,
          reason: 'pending head "abc" is not a full lowercase 40-hex SHA',
        },
      ],
    ],
    [
      'a misnumbered row, an unknown status, fractional attempts, a piped evidence cell',
      { ...VALID, rows: [row(2, 'closed' as LedgerRow['status'], 0.5, 'a | b')] },
      [
        {
          code: 'ledger.table.row-number',
          line: 0,
          reason: 'row 1 is numbered 2; rows are numbered 1..N in order',
        },
        { code: 'ledger.table.status', line: 0, reason: 'row 1 has status "closed"' },
        { code: 'ledger.table.attempts', line: 0, reason: 'row 1 attempts must be an integer >= 0' },
        {
          code: 'ledger.table.evidence',
          line: 0,
          reason: 'row 1: evidence contains an unescaped pipe (write it as \\|)',
        },
      ],
    ],
    [
      'a blank decision and a heading decision',
      { ...VALID, decisions: ['row 1 done | a | b', '  ', '# note'] },
      [
        { code: 'ledger.decisions.line', line: 0, reason: 'decision 2: decision line is blank' },
        {
          code: 'ledger.decisions.line',
          line: 0,
          reason: 'decision 3: decision line would read as a markdown heading',
        },
      ],
    ],
    [
      'legs with one member',
      { ...VALID, legs: { members: [WEB], mapping: [{ row: 1, ac: 1, leg: 'web' }] } },
      [
        {
          code: 'ledger.legs.single-member',
          line: 0,
          reason:
            'a coordinated ledger has at least two members; a single leg carries no coordinated metadata',
        },
      ],
    ],
  ];
  for (const [what, value, expected] of cases) {
    it(`${what}: exact findings from checkLedger, and serializeLedger refuses it`, () => {
      expect(checkLedger(value as Ledger)).toEqual(expected);
      const error = thrown(() => serializeLedger(value as Ledger));
      expect(error).toBeInstanceOf(LedgerFormatError);
      expect((error as LedgerFormatError).findings).toEqual(expected);
    });
  }

  it('shape findings stop the other checks (no TypeError on a row that is not an object)', () => {
    const value = { ...VALID, base: 'bad', rows: [null], decisions: [] } as unknown as Ledger;
    expect(checkLedger(value)).toEqual([
      { code: 'ledger.value.shape', line: 0, reason: 'row 1 is not an object' },
    ]);
  });

  it('a valid value ledger has no finding and is written canonically', () => {
    expect(checkLedger(VALID)).toEqual([]);
    expect(serializeLedger(VALID)).toContain('| 1 | open | 0 |  |\n\n## Decisions\n');
  });
});

describe('checkLedger (§1.9): evidence and decision lines, with the ledger line', () => {
  it('done and failed rows without evidence, on their ledger lines; 0 without a layout', () => {
    const text = ODD.replace('|  1 | done |  1 | npm test; ok |', '|  1 | done |  1 |  |').replace(
      '|  2 | open |  0 |   |',
      '|  2 | failed |  2 |   |',
    );
    const ledger = parsed(text);
    expect(checkLedger(ledger)).toEqual([
      {
        code: 'ledger.check.evidence-empty',
        line: 12,
        reason: 'row 1 is done but its evidence cell is empty',
      },
      {
        code: 'ledger.check.evidence-empty',
        line: 13,
        reason: 'row 2 is failed but its evidence cell is empty',
      },
    ]);
    const { layout: _layout, ...bare } = ledger;
    expect(checkLedger(bare).map((f) => f.line)).toEqual([0, 0]);
    // A row added after parsing has no line in the layout.
    expect(
      checkLedger({ ...ledger, rows: [...ledger.rows, row(4, 'done', 1, '')] }).map((f) => f.line),
    ).toEqual([12, 13, 0]);
  });

  it('a decision that breaks its kind’s grammar names its line and quotes it (shortened past 60 characters)', () => {
    const long = `row 2 retry | ${'x'.repeat(60)}`;
    const text = ODD.replace('row 2 failed | second | try again', long);
    const findings = checkLedger(parsed(text));
    expect(findings).toEqual([
      {
        code: 'ledger.check.decision-malformed',
        line: 19,
        reason: `"${long.slice(0, 57)}...": retry decision must read "row <n> retry | <hint> | allowed attempts <m>"`,
      },
    ]);
    const { layout: _layout, ...bare } = parsed(text);
    expect(checkLedger(bare)[0]?.line).toBe(0);
  });
});

describe('checkLedger (§1.9): value findings and check findings together', () => {
  it('a value finding does not hide the §1.9 checks; only shape findings stop them', () => {
    const ledger = parsed(ODD.replace('|  1 | done |  1 | npm test; ok |', '|  1 | done |  1 |  |'));
    expect(checkLedger({ ...ledger, iterations: -1 })).toEqual([
      { code: 'ledger.header.not-integer', line: 0, reason: 'iterations must be an integer >= 0' },
      {
        code: 'ledger.check.evidence-empty',
        line: 12,
        reason: 'row 1 is done but its evidence cell is empty',
      },
    ]);
  });

  it('a malformed decision after ## Leg mapping is reported on its own line, not a mapping line', () => {
    const text = COORD.replace('## Decisions\n', '## Decisions\n\nrow 1 retry | no attempts cell\n');
    expect(checkLedger(parsed(text))).toEqual([
      {
        code: 'ledger.check.decision-malformed',
        line: 29,
        reason:
          '"row 1 retry | no attempts cell": retry decision must read "row <n> retry | <hint> | allowed attempts <m>"',
      },
    ]);
  });
});

describe('checkLedger (§1.9) against a single-leg spec', () => {
  // Parsed inside each test (a parse at collection time would hide a crash as a survivor).
  const single = (): Spec =>
    spec(
      [
        '# S',
        '',
        '## Acceptance criteria',
        '',
        '- [ ] a',
        '- [ ] b',
        '  venue: staging - upload visible',
        '- [ ] c',
        '  deferred: ACME-1',
        '',
      ].join('\n'),
    );

  it('the hand-written ledger matches a spec with the same rows and dispositions', () => {
    expect(checkLedger(parsed(ODD), single())).toEqual([]);
  });

  it('row count, in both directions, without crashing on the rows past the spec', () => {
    const ledger = parsed(ODD);
    expect(checkLedger({ ...ledger, rows: [...ledger.rows, row(4, 'open', 0, '')] }, single())).toEqual([
      {
        code: 'ledger.check.row-count',
        line: 0,
        reason: 'the ledger has 4 rows but the spec has 3 acceptance criteria',
      },
    ]);
    expect(checkLedger({ ...ledger, rows: ledger.rows.slice(0, 2) }, single())).toEqual([
      {
        code: 'ledger.check.row-count',
        line: 0,
        reason: 'the ledger has 2 rows but the spec has 3 acceptance criteria',
      },
    ]);
  });

  it('a cut row the spec keeps (venue or in scope), and a kept row the spec cuts, on their lines', () => {
    const ledger = parsed(
      ODD.replace('|  1 | done |  1 | npm test; ok |', '|  1 | cut |  0 | x |')
        .replace('|  2 | open |  0 |   |', '|  2 | cut |  0 | y |')
        .replace('|  3 | cut |  0 | deferred: ACME-1 |', '|  3 | open |  0 | |'),
    );
    expect(checkLedger(ledger, single())).toEqual([
      { code: 'ledger.check.cut-mismatch', line: 12, reason: 'row 1 is cut but the spec keeps it in scope' },
      {
        code: 'ledger.check.cut-mismatch',
        line: 13,
        reason: 'row 2 is cut but the spec keeps it in scope (venue:)',
      },
      {
        code: 'ledger.check.cut-mismatch',
        line: 14,
        reason: 'row 3 is open but the spec disposes it as "deferred: ACME-1" (a cut row)',
      },
    ]);
  });

  it('a cut row whose evidence is not its disposition text', () => {
    const ledger = parsed(ODD.replace('deferred: ACME-1 |', 'deferred: ACME-2 |'));
    expect(checkLedger(ledger, single())).toEqual([
      {
        code: 'ledger.check.cut-evidence',
        line: 14,
        reason: 'cut row 3 must carry its disposition text "deferred: ACME-1" as evidence',
      },
    ]);
  });
});

describe('checkLedger (§1.9) against a coordinated spec', () => {
  const legsSpec = (legs: string[]): Spec =>
    spec(
      ['# S', '', '## Acceptance criteria', '', '- [ ] a', '- [ ] b', '', '## Legs', '', ...legs, ''].join(
        '\n',
      ),
    );
  const coordinated = (): Spec => legsSpec(['- web (home): 1, 2', '- api: 2']);

  it('the coordinated ledger matches its spec', () => {
    expect(checkLedger(parsed(COORD), coordinated())).toEqual([]);
  });

  it('row count names the entries the legs expand to; rows past the entries are not compared', () => {
    const ledger = parsed(COORD);
    const more: Ledger = {
      ...ledger,
      rows: [...ledger.rows, row(4, 'open', 0, '')],
      legs: { members: [WEB, API], mapping: [...MAPPING, { row: 4, ac: 9, leg: 'api' }] },
    };
    expect(checkLedger(more, coordinated())).toEqual([
      {
        code: 'ledger.check.row-count',
        line: 0,
        reason:
          "the ledger has 4 rows but the spec's 2 acceptance criteria expand to 3 entries over its legs",
      },
    ]);
  });

  it('a single-leg ledger for a coordinated spec, and coordinated metadata for a single-leg spec', () => {
    expect(checkLedger(parsed(PLAIN), coordinated())).toEqual([
      {
        code: 'ledger.check.legs-missing',
        line: 0,
        reason:
          'the spec declares 2 legs but the ledger has no base <member>: / seeded <member>: pairs and no ## Leg mapping',
      },
    ]);
    const single = spec('# S\n\n## Acceptance criteria\n\n- [ ] a\n- [ ] b\n- [ ] c\n');
    expect(checkLedger(parsed(COORD), single)).toEqual([
      {
        code: 'ledger.check.legs-unexpected',
        line: 0,
        reason: 'the ledger carries coordinated metadata but the spec declares one leg or none',
      },
    ]);
  });

  it('members out of the spec’s order, a home base on the wrong member, a row mapped elsewhere', () => {
    const ledger = parsed(COORD);
    const swapped: Ledger = {
      ...ledger,
      legs: {
        members: [
          { ...API, base: BASE },
          { ...WEB, base: OTHER },
        ],
        mapping: [MAPPING[0], MAPPING[1], { row: 3, ac: 1, leg: 'web' }] as typeof MAPPING,
      },
    };
    expect(checkLedger(swapped, coordinated())).toEqual([
      {
        code: 'ledger.check.members',
        line: 0,
        reason: "the ledger's members are api, web but the spec's ## Legs lists web, api (in that order)",
      },
      {
        code: 'ledger.check.home-base',
        line: 0,
        reason: `the spec's home member web must be the only member whose base is the ledger's base: (${BASE}); members at that base: api`,
      },
      {
        code: 'ledger.check.leg-mapping',
        line: 0,
        reason: 'row 3 is mapped to ac 1 in web, but the spec expands it to ac 2 in api',
      },
    ]);
  });

  it('no member at the home base reads "none"; two members at it both named', () => {
    const ledger = parsed(COORD);
    const none: Ledger = { ...ledger, legs: { members: [{ ...WEB, base: HEAD }, API], mapping: MAPPING } };
    expect(checkLedger(none, coordinated())).toEqual([
      {
        code: 'ledger.check.home-base',
        line: 0,
        reason: `the spec's home member web must be the only member whose base is the ledger's base: (${BASE}); members at that base: none`,
      },
    ]);
    const both: Ledger = { ...ledger, legs: { members: [WEB, { ...API, base: BASE }], mapping: MAPPING } };
    expect(checkLedger(both, coordinated()).map((f) => f.reason)).toEqual([
      `the spec's home member web must be the only member whose base is the ledger's base: (${BASE}); members at that base: web, api`,
    ]);
  });

  it('a row mapped to the wrong ac in the right leg is a finding', () => {
    const ledger = parsed(COORD);
    const wrongAc: Ledger = {
      ...ledger,
      legs: {
        members: [WEB, API],
        mapping: [MAPPING[0], { row: 2, ac: 1, leg: 'web' }, MAPPING[2]] as typeof MAPPING,
      },
    };
    expect(checkLedger(wrongAc, coordinated()).map((f) => f.reason)).toEqual([
      'row 2 is mapped to ac 1 in web, but the spec expands it to ac 2 in web',
    ]);
  });

  it('two members at the home base are a finding even when their names run together to the home name', () => {
    const ledger = parsed(COORD);
    const split: Ledger = {
      ...ledger,
      legs: {
        members: [
          { name: 'we', base: BASE, seeded: true },
          { name: 'b', base: BASE, seeded: false },
        ],
        mapping: [
          { row: 1, ac: 1, leg: 'we' },
          { row: 2, ac: 2, leg: 'we' },
          { row: 3, ac: 2, leg: 'b' },
        ],
      },
    };
    expect(checkLedger(split, coordinated()).map((f) => [f.code, f.reason])).toEqual([
      [
        'ledger.check.members',
        "the ledger's members are we, b but the spec's ## Legs lists web, api (in that order)",
      ],
      [
        'ledger.check.home-base',
        `the spec's home member web must be the only member whose base is the ledger's base: (${BASE}); members at that base: we, b`,
      ],
      ['ledger.check.leg-mapping', 'row 1 is mapped to ac 1 in we, but the spec expands it to ac 1 in web'],
      ['ledger.check.leg-mapping', 'row 2 is mapped to ac 2 in we, but the spec expands it to ac 2 in web'],
      ['ledger.check.leg-mapping', 'row 3 is mapped to ac 2 in b, but the spec expands it to ac 2 in api'],
    ]);
  });

  it('a leg mapped to the right ac in the wrong leg is a finding too', () => {
    const ledger = parsed(COORD);
    const wrongLeg: Ledger = {
      ...ledger,
      legs: {
        members: [WEB, API],
        mapping: [MAPPING[0], { row: 2, ac: 2, leg: 'api' }, MAPPING[2]] as typeof MAPPING,
      },
    };
    expect(checkLedger(wrongLeg, coordinated()).map((f) => f.reason)).toEqual([
      'row 2 is mapped to ac 2 in api, but the spec expands it to ac 2 in web',
    ]);
  });
});
