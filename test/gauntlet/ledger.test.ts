import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { LedgerFormatError } from '../../src/common/errors.js';
import {
  formatEscalatedDecision,
  formatOutcomeDecision,
  formatRaiseDecision,
  formatRetryDecision,
  formatSeedDecision,
} from '../../src/gauntlet/decisions.js';
import { buildEvidence, escapePipes } from '../../src/gauntlet/evidence.js';
import {
  checkLedger,
  formatPending,
  parseLedger,
  parsePending,
  serializeLedger,
} from '../../src/gauntlet/ledger.js';
import { parseSpec } from '../../src/gauntlet/spec.js';
import type { Ledger, LedgerRow, PendingTuple } from '../../src/gauntlet/types.js';
import { BASE, EXAMPLE_LEDGER as EXAMPLE, HEAD, ledgerText } from './text-fixtures.js';

function withoutLayout(ledger: Ledger): Ledger {
  const { layout: _layout, ...values } = ledger;
  return values;
}

function parsed(text: string): Ledger {
  const result = parseLedger(text);
  expect(result.findings).toEqual([]);
  if (result.ledger === null) throw new Error('expected a ledger');
  return result.ledger;
}

function codes(text: string): string[] {
  return parseLedger(text).findings.map((f) => f.code);
}

/** The example with one line replaced (1-based), or removed when `replacement` is null. */
function withLine(line: number, replacement: string | null, text = EXAMPLE): string {
  const lines = text.split('\n');
  if (replacement === null) lines.splice(line - 1, 1);
  else lines[line - 1] = replacement;
  return lines.join('\n');
}

function row(n: number, status: LedgerRow['status'], attempts: number, evidence: string): LedgerRow {
  return { row: n, status, attempts, evidence };
}

describe('parseLedger: the §1.8 example', () => {
  it('reads every header, row and decision', () => {
    const ledger = parsed(EXAMPLE);
    expect(ledger.discriminant).toBe('# Loop ledger');
    expect(ledger.spec).toBe('doc/specs/2026-11-02-csv-export.md');
    expect(ledger.base).toBe(BASE);
    expect(ledger.verification).toBe('npm test');
    expect(ledger.checks).toBe('commands');
    expect(ledger.iterations).toBe(7);
    expect(ledger.allowance).toBe(4);
    expect(ledger.pending).toEqual({ target: 3, repo: 'home', head: HEAD });
    expect(ledger.rows.map((r) => [r.row, r.status, r.attempts])).toEqual([
      [1, 'done', 0],
      [2, 'done', 1],
      [3, 'failed', 4],
      [4, 'cut', 0],
      [5, 'open', 0],
      [6, 'cut', 0],
    ]);
    expect(ledger.rows[3]?.evidence).toBe('deferred: ACME-412');
    expect(ledger.decisions).toHaveLength(8);
    expect(ledger.decisions[7]).toBe('row 3 retry | use the local MinIO fixture | allowed attempts 5');
  });

  it('writes the example back byte for byte', () => {
    expect(serializeLedger(parsed(EXAMPLE))).toBe(EXAMPLE);
  });

  it('writes the example canonically without its layout (the example is canonical)', () => {
    expect(serializeLedger(withoutLayout(parsed(EXAMPLE)))).toBe(EXAMPLE);
  });
});

describe('serializeLedger: canonical layout', () => {
  const skeleton: Ledger = {
    discriminant: '# Loop ledger',
    spec: 'doc/specs/x.md',
    base: BASE,
    verification: 'npm test',
    checks: 'commands',
    iterations: 0,
    allowance: 4,
    pending: null,
    rows: [row(1, 'open', 0, ''), row(2, 'cut', 0, 'deferred: ACME-1')],
    decisions: [],
  };

  it('writes headers in protocol order, an empty evidence cell as two spaces, and an empty Decisions section last', () => {
    expect(serializeLedger(skeleton)).toBe(
      ledgerText({
        spec: 'doc/specs/x.md',
        rows: ['| 1 | open | 0 |  |', '| 2 | cut | 0 | deferred: ACME-1 |'],
      }),
    );
  });

  it('puts pending: right after allowance: (§6 A26) and separates decisions from their heading by a blank line', () => {
    const text = serializeLedger({
      ...skeleton,
      iterations: 1,
      pending: { target: 'seed', repo: 'home', head: HEAD },
      decisions: ['row 0 done | seeded 1 rows, closed 0 on baseline | row 1'],
    });
    expect(text).toContain(`iterations: 1\nallowance: 4\npending: seed | home | ${HEAD}\n\n| row |`);
    expect(text.endsWith('## Decisions\n\nrow 0 done | seeded 1 rows, closed 0 on baseline | row 1\n')).toBe(
      true,
    );
  });

  it('writes a table with no rows for a spec without acceptance criteria', () => {
    const text = serializeLedger({ ...skeleton, rows: [] });
    expect(text).toContain('|---|---|---|---|\n\n## Decisions\n');
    expect(parsed(text).rows).toEqual([]);
  });

  it('refuses values it cannot write, with a named error', () => {
    const bad = (ledger: Ledger): unknown => {
      try {
        serializeLedger(ledger);
      } catch (error) {
        return error;
      }
      return null;
    };
    const pipe = bad({ ...skeleton, rows: [row(1, 'done', 1, 'npm test; a | b'), row(2, 'open', 0, '')] });
    expect(pipe).toBeInstanceOf(LedgerFormatError);
    expect((pipe as LedgerFormatError).findings.map((f) => f.code)).toEqual(['ledger.table.evidence']);
    const newline = bad({ ...skeleton, rows: [row(1, 'done', 1, 'npm test\nok'), row(2, 'open', 0, '')] });
    expect((newline as LedgerFormatError).findings.map((f) => f.code)).toEqual(['ledger.table.evidence']);
    const gap = bad({ ...skeleton, rows: [row(1, 'open', 0, ''), row(3, 'open', 0, '')] });
    expect((gap as LedgerFormatError).findings.map((f) => f.code)).toEqual(['ledger.table.row-number']);
    const heading = bad({ ...skeleton, decisions: ['## Notes'] });
    expect((heading as LedgerFormatError).findings.map((f) => f.code)).toEqual(['ledger.decisions.line']);
  });
});

describe('serializeLedger: edits keep every untouched byte', () => {
  // A valid ledger a person wrote: CRLF, odd spacing, a coordinated run's member pairs and leg
  // mapping (after the decisions: the parser takes it anywhere after the table), alignment
  // separators, an unknown section and no final newline.
  const HAND = [
    '# Loop ledger',
    '**Spec:**   doc/specs/x.md',
    `base:${BASE}`,
    `base web: ${BASE}`,
    'seeded web: yes',
    `base api:${BASE}`,
    'seeded  api :no',
    'verification:  npm test  ',
    'checks: commands',
    '',
    'iterations:7',
    'allowance: 4 ',
    '',
    '',
    '|row|status|attempts|evidence|',
    '| :--- | --- | ---: | :-: |',
    '|1|done|0|x|',
    '|  2  |  failed | 3 |npm test; 1 failing \\| flaky|',
    '| 3 | open | 0 ||',
    '',
    '## Decisions',
    'row 2 failed | one test still fails | fix the flaky assertion',
    '',
    'grant: legacy note kept verbatim',
    '',
    '## Leg mapping',
    '',
    '| row | ac | leg |',
    '|---|---|---|',
    '| 1 | 1 | web |',
    '|2|2|  web|',
    '| 3 | 2 | api |',
  ].join('\r\n');

  it('round-trips the hand-written ledger', () => {
    const ledger = parsed(HAND);
    expect(ledger.rows[1]?.evidence).toBe('npm test; 1 failing \\| flaky');
    expect(ledger.decisions).toEqual([
      'row 2 failed | one test still fails | fix the flaky assertion',
      'grant: legacy note kept verbatim',
    ]);
    expect(serializeLedger(ledger)).toBe(HAND);
  });

  it('T7: the dispatch bump rewrites iterations: and adds pending: after allowance:, nothing else', () => {
    const ledger = parsed(HAND);
    const out = serializeLedger({
      ...ledger,
      iterations: 8,
      pending: { target: 3, repo: 'api', head: HEAD },
    });
    const expected = HAND.replace('iterations:7', 'iterations: 8').replace(
      'allowance: 4 \r\n',
      `allowance: 4 \r\npending: 3 | api | ${HEAD}\r\n`,
    );
    expect(out).toBe(expected);
    expect(parsed(out).pending).toEqual({ target: 3, repo: 'api', head: HEAD });
  });

  it('re-renders only the edited row, canonically, with the file line ending', () => {
    const ledger = parsed(HAND);
    const rows = ledger.rows.map((r) =>
      r.row === 3 ? { ...r, status: 'done' as const, evidence: 'npm test; ok' } : r,
    );
    expect(serializeLedger({ ...ledger, rows })).toBe(
      HAND.replace('| 3 | open | 0 ||', '| 3 | done | 0 | npm test; ok |'),
    );
  });

  it('appends a decision after the last decision and keeps the missing final newline', () => {
    const ledger = parsed(HAND);
    const out = serializeLedger({
      ...ledger,
      decisions: [...ledger.decisions, 'row 3 done | passes now | none'],
    });
    expect(out).toBe(
      HAND.replace(
        'grant: legacy note kept verbatim\r\n',
        'grant: legacy note kept verbatim\r\nrow 3 done | passes now | none\r\n',
      ),
    );
  });

  it('removing pending: removes exactly its line', () => {
    const ledger = parsed(EXAMPLE);
    expect(serializeLedger({ ...ledger, pending: null })).toBe(withLine(8, null));
  });

  it('the first decision of an empty section follows a blank line under the heading', () => {
    const empty = `${EXAMPLE.slice(0, EXAMPLE.indexOf('## Decisions'))}## Decisions\n`;
    const ledger = parsed(empty);
    expect(ledger.decisions).toEqual([]);
    const out = serializeLedger({
      ...ledger,
      decisions: ['row 0 done | seeded 4 rows, closed 1 on baseline | row 2'],
    });
    expect(out).toBe(`${empty}\nrow 0 done | seeded 4 rows, closed 1 on baseline | row 2\n`);
  });

  it('a byte-order mark before line 1 is accepted and kept', () => {
    const ledger = parsed(`\uFEFF${EXAMPLE}`);
    expect(ledger.discriminant).toBe('# Loop ledger');
    expect(serializeLedger({ ...ledger, iterations: 8 })).toBe(
      `\uFEFF${EXAMPLE.replace('iterations: 7', 'iterations: 8')}`,
    );
  });

  it('a layout from another tool is ignored and the canonical layout is written', () => {
    const ledger = { ...parsed(EXAMPLE), layout: { lines: [] } };
    expect(serializeLedger(ledger)).toBe(EXAMPLE);
  });
});

describe('parseLedger: findings', () => {
  const cases: [string, string, string, number][] = [
    ['a plan instead of a ledger', withLine(1, '# CSV export plan'), 'ledger.discriminant', 1],
    ['a missing verification: header', withLine(4, null), 'ledger.header.missing', 0],
    [
      'a duplicate checks: header',
      withLine(5, 'checks: commands\nchecks: commands'),
      'ledger.header.duplicate',
      6,
    ],
    [
      'base: before **Spec:**',
      withLine(3, `**Spec:** doc/specs/x.md`, withLine(2, `base: ${BASE}`)),
      'ledger.header.order',
      3,
    ],
    ['E9: a legacy cap: line', withLine(7, 'allowance: 4\ncap: 4'), 'ledger.allowance.cap', 8],
    ['E9: no allowance: line', withLine(7, null), 'ledger.allowance.missing', 0],
    ['allowance: not right after iterations:', withLine(7, '\nallowance: 4'), 'ledger.allowance.position', 8],
    ['a word for iterations', withLine(6, 'iterations: seven'), 'ledger.header.not-integer', 6],
    ['a negative allowance', withLine(7, 'allowance: -1'), 'ledger.header.not-integer', 7],
    ['a short base sha', withLine(3, 'base: 3f9c2d1'), 'ledger.header.base', 3],
    ['a decorated spec path', withLine(2, '**Spec:** `doc/specs/x.md` §2'), 'ledger.header.spec', 2],
    ['an absolute spec path', withLine(2, '**Spec:** /home/me/doc/specs/x.md'), 'ledger.header.spec', 2],
    ['an empty verification command', withLine(4, 'verification:'), 'ledger.header.empty', 4],
    ['a short pending sha', withLine(8, 'pending: 3 | home | 9a8b7c'), 'ledger.pending.malformed', 8],
    ['a pending row 0', withLine(8, `pending: 0 | home | ${HEAD}`), 'ledger.pending.malformed', 8],
    [
      'no table',
      EXAMPLE.replace(/\| row[\s\S]*?\n\n## Decisions/, '## Decisions'),
      'ledger.table.missing',
      10,
    ],
    ['a three-column header', withLine(10, '| row | status | attempts |'), 'ledger.table.header', 10],
    ['no separator', withLine(11, null), 'ledger.table.separator', 11],
    ['a row with three cells', withLine(13, '| 2 | done | 1 |'), 'ledger.table.cells', 13],
    ['a row without a closing pipe', withLine(13, '| 2 | done | 1 | x'), 'ledger.table.cells', 13],
    [
      'an unescaped pipe in evidence',
      withLine(13, '| 2 | done | 1 | a | b |'),
      'ledger.table.unescaped-pipe',
      13,
    ],
    ['a gap in row numbers', withLine(13, '| 7 | done | 1 | x |'), 'ledger.table.row-number', 13],
    ['an unknown status', withLine(13, '| 2 | passed | 1 | x |'), 'ledger.table.status', 13],
    ['fractional attempts', withLine(13, '| 2 | done | 1.5 | x |'), 'ledger.table.attempts', 13],
    ['a blank line inside the table', withLine(14, '\n| 3 | failed | 4 | x |'), 'ledger.table.split', 15],
    ['no Decisions section', withLine(19, '## Notes'), 'ledger.decisions.missing', 0],
    ['two Decisions sections', `${EXAMPLE}\n## Decisions\n`, 'ledger.decisions.duplicate', 30],
    ['a stray carriage return', withLine(22, 'row 2 done | a\r | b'), 'ledger.line.carriage-return', 22],
  ];
  for (const [what, text, code, line] of cases) {
    // Scenario ids (E9) come first in a test's name.
    it(/^[A-Z]+\d+:/.test(what) ? `${what} (${code})` : `${code}: ${what}`, () => {
      const result = parseLedger(text);
      expect(result.ledger).toBeNull();
      expect(result.findings).toContainEqual(expect.objectContaining({ code, line }));
      for (const f of result.findings) expect(f.reason.length).toBeGreaterThan(10);
    });
  }

  it('ledger.empty: an empty file', () => {
    expect(parseLedger('')).toEqual({
      ledger: null,
      findings: [expect.objectContaining({ code: 'ledger.empty', line: 0 })],
    });
  });

  it('names every problem of a broken ledger in one pass', () => {
    const broken = withLine(13, '| 2 | passed | x | a |', withLine(7, 'cap: 4', withLine(3, 'base: nope')));
    expect(codes(broken)).toEqual([
      'ledger.header.base',
      'ledger.allowance.cap',
      'ledger.allowance.missing',
      'ledger.table.status',
      'ledger.table.attempts',
    ]);
  });

  it('accepts allowance 0 as written (rule 2 stops on it; §6 A20) and any pending target', () => {
    expect(parsed(withLine(7, 'allowance: 0')).allowance).toBe(0);
    expect(parsed(withLine(8, `pending: verify | home | ${HEAD}`)).pending?.target).toBe('verify');
  });
});

describe('pending tuple', () => {
  it('reads and writes the three target kinds', () => {
    const tuples: PendingTuple[] = [
      { target: 3, repo: 'home', head: HEAD },
      { target: 'seed', repo: 'home', head: HEAD },
      { target: 'verify', repo: 'api', head: HEAD },
    ];
    for (const tuple of tuples) expect(parsePending(formatPending(tuple))).toEqual(tuple);
    expect(formatPending(tuples[0] as PendingTuple)).toBe(`pending: 3 | home | ${HEAD}`);
  });

  it('has one spelling: other spacing, short or uppercase shas and unknown targets are refused', () => {
    for (const line of [
      `pending: 3|home|${HEAD}`,
      `pending:  3 | home | ${HEAD}`,
      `pending: 3 | home | ${HEAD.toUpperCase()}`,
      `pending: 3 | home | ${HEAD.slice(0, 12)}`,
      `pending: row 3 | home | ${HEAD}`,
      `pending: 3 | two words | ${HEAD}`,
    ])
      expect(parsePending(line)).toBeNull();
    expect(() => formatPending({ target: 0, repo: 'home', head: HEAD })).toThrow(/row number/);
  });
});

describe('checkLedger (§1.9)', () => {
  it('finds nothing wrong with the example, with or without its spec', () => {
    const spec = parseSpec(
      [
        '# CSV export',
        '',
        '## Acceptance criteria',
        '',
        '- [ ] header row',
        '- [ ] commas and quotes escaped',
        '- [ ] upload to staging',
        '  venue: staging - upload visible in the bucket',
        '- [ ] scheduled export',
        '  deferred: ACME-412',
        '- [ ] empty report has a header',
        '- [ ] XLSX output',
        '  deviates: XLSX output dropped by product decision; CSV only',
      ].join('\n'),
    ).spec;
    expect(checkLedger(parsed(EXAMPLE))).toEqual([]);
    expect(checkLedger(parsed(EXAMPLE), spec)).toEqual([]);
  });

  it('done and failed rows need evidence; open rows may be empty', () => {
    const findings = checkLedger(parsed(withLine(13, '| 2 | done | 1 |  |')));
    expect(findings).toEqual([expect.objectContaining({ code: 'ledger.check.evidence-empty', line: 13 })]);
    expect(checkLedger(parsed(withLine(16, '| 5 | open | 0 |  |')))).toEqual([]);
  });

  it('a decision that starts like a known kind but breaks its grammar is a finding; legacy lines are kept', () => {
    const text = `${EXAMPLE}row 3 failed | missing next cell\ngrant: option 5 granted by the human\n`;
    expect(checkLedger(parsed(text))).toEqual([
      expect.objectContaining({ code: 'ledger.check.decision-malformed', line: 29 }),
    ]);
  });

  it('with the spec: row count, cut rows and their disposition evidence', () => {
    const spec = parseSpec(
      '# S\n\n## Acceptance criteria\n\n- [ ] a\n- [ ] b\n  deviates: out of scope | for now\n- [ ] c\n',
    ).spec;
    const ledger = (rows: LedgerRow[]): Ledger => ({ ...withoutLayout(parsed(EXAMPLE)), rows });
    expect(
      checkLedger(
        ledger([
          row(1, 'open', 0, ''),
          row(2, 'cut', 0, 'deviates: out of scope \\| for now'),
          row(3, 'open', 0, ''),
        ]),
        spec,
      ),
    ).toEqual([]);
    expect(checkLedger(ledger([row(1, 'open', 0, '')]), spec).map((f) => f.code)).toEqual([
      'ledger.check.row-count',
    ]);
    expect(
      checkLedger(ledger([row(1, 'cut', 0, 'x'), row(2, 'open', 0, ''), row(3, 'open', 0, '')]), spec).map(
        (f) => f.code,
      ),
    ).toEqual(['ledger.check.cut-mismatch', 'ledger.check.cut-mismatch']);
    expect(
      checkLedger(
        ledger([row(1, 'open', 0, ''), row(2, 'cut', 0, 'deviates: something else'), row(3, 'open', 0, '')]),
        spec,
      ).map((f) => f.code),
    ).toEqual(['ledger.check.cut-evidence']);
  });
});

describe('properties', () => {
  it('(a) any valid ledger in any spelling parses to its values and serializes back byte for byte', () => {
    fc.assert(
      fc.property(arbitraryLedgerText, ({ ledger, text }) => {
        const result = parseLedger(text);
        expect(result.findings).toEqual([]);
        expect(withoutLayout(result.ledger as Ledger)).toEqual(ledger);
        expect(serializeLedger(result.ledger as Ledger)).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  it('(a) an edit re-renders only the edited line', () => {
    fc.assert(
      fc.property(arbitraryLedgerText, fc.nat({ max: 1000 }), ({ text }, bump) => {
        const ledger = parseLedger(text).ledger as Ledger;
        const out = serializeLedger({ ...ledger, iterations: ledger.iterations + bump + 1 });
        const before = text.split('\n');
        const after = out.split('\n');
        expect(after).toHaveLength(before.length);
        const changed = after.flatMap((line, index) => (line === before[index] ? [] : [index]));
        expect(changed).toHaveLength(1);
        expect(after[changed[0] as number]?.replace(/\r$/, '')).toBe(
          `iterations: ${ledger.iterations + bump + 1}`,
        );
      }),
      { numRuns: 1000 },
    );
  });

  it('(b) parseLedger never throws, and whatever it accepts it writes back unchanged', () => {
    fc.assert(
      fc.property(ledgerLikeText, (text) => {
        const result = parseLedger(text);
        const lineCount = text.split('\n').length;
        for (const f of result.findings) {
          expect(f.code).toMatch(/^ledger\./);
          expect(f.code).not.toBe('ledger.internal'); // the safety net never fires
          expect(f.line).toBeGreaterThanOrEqual(0);
          expect(f.line).toBeLessThanOrEqual(lineCount);
        }
        if (result.ledger === null) expect(result.findings.length).toBeGreaterThan(0);
        else expect(serializeLedger(result.ledger)).toBe(text);
      }),
      { numRuns: 1000 },
    );
  });

  it('(c) parse(serialize(ledger)) equals the ledger for any structured ledger', () => {
    fc.assert(
      fc.property(arbitraryLedger, (ledger) => {
        const text = serializeLedger(ledger);
        const result = parseLedger(text);
        expect(result.findings).toEqual([]);
        expect(withoutLayout(result.ledger as Ledger)).toEqual(ledger);
        expect(checkLedger(ledger).filter((f) => !f.code.startsWith('ledger.check.'))).toEqual([]);
      }),
      { numRuns: 1000 },
    );
  });
});

// ---------------------------------------------------------------------------------------------
// Arbitraries: structured ledgers, and valid ledger texts in random (non-canonical) spellings.

/** One trimmed line of arbitrary unicode text. */
function lineText(maxLength = 30): fc.Arbitrary<string> {
  return fc
    .string({ unit: 'grapheme', minLength: 1, maxLength })
    .map((s) => s.replace(/[\r\n]/g, ' ').trim())
    .filter((s) => s !== '');
}

const sha = fc.stringMatching(/^[0-9a-f]{40}$/);
const counter = fc.oneof(fc.nat({ max: 30 }), fc.nat());
const plain = fc.string({ unit: 'grapheme', maxLength: 60 }).map((s) => s.replace(/[\r\n]/g, ' ').trim());
// Decision cells are one line for the protocol's regex (`.` stops at U+2028/U+2029) and hold no pipe.
const cellText = plain.filter((s) => !/[|\u2028\u2029]/.test(s));

const evidence = fc.oneof(
  fc.constant(''),
  plain.map(escapePipes),
  fc
    .tuple(lineText(20), fc.array(lineText(20), { maxLength: 3 }))
    .filter(([check, results]) => ![check, ...results].some((part) => /<[A-Za-z!/?][^<>]*>/.test(part)))
    .map(([check, results]) => buildEvidence(check, results)),
);

const decision = fc.oneof(
  fc
    .tuple(
      fc.integer({ min: 1, max: 99 }),
      fc.constantFrom('done' as const, 'failed' as const),
      cellText,
      cellText,
    )
    .filter(([, , a, b]) => a !== '' && b !== '' && [...a].length <= 200 && [...b].length <= 200)
    .map(([n, status, a, b]) => formatOutcomeDecision(n, status, a, b)),
  fc
    .tuple(
      fc.nat({ max: 9 }),
      fc.nat({ max: 9 }),
      lineText(10).filter((s) => !/[|\u2028\u2029]/.test(s)),
    )
    .map(([k, m, first]) => formatSeedDecision(k + m, m, first)),
  fc
    .tuple(fc.integer({ min: 1, max: 99 }), cellText, fc.nat({ max: 99 }))
    .map(([n, h, m]) => formatRetryDecision(n, h, m)),
  fc
    .tuple(fc.integer({ min: 1, max: 99 }), fc.nat({ max: 99 }))
    .map(([n, m]) => formatEscalatedDecision(n, m)),
  fc
    .tuple(
      fc.integer({ min: 1, max: 500 }),
      plain.filter((s) => !/[\u2028\u2029]/.test(s)),
    )
    .map(([n, w]) => formatRaiseDecision(n, w)),
  fc
    .string({ unit: 'grapheme', minLength: 1, maxLength: 80 })
    .map((s) => s.replace(/[\r\n]/g, ' '))
    .filter((s) => s.trim() !== '' && !/^#{1,6}(?:[ \t]|$)/.test(s)),
);

const pending = fc.option(
  fc.record({
    target: fc.oneof(fc.integer({ min: 1, max: 500 }), fc.constantFrom('seed' as const, 'verify' as const)),
    // These ledgers are single-leg, whose only checkout is home (ledger-pending-repo.test.ts
    // covers any other repo; legs.test.ts covers a coordinated ledger's members).
    repo: fc.constant('home'),
    head: sha,
  }),
  { nil: null },
);

const arbitraryLedger: fc.Arbitrary<Ledger> = fc.record({
  discriminant: fc.constant('# Loop ledger'),
  spec: lineText().filter((s) => !/[`§]/.test(s) && !s.startsWith('/') && !/^[A-Za-z]:[\\/]/.test(s)),
  base: sha,
  verification: lineText(),
  checks: fc.oneof(fc.constant('commands'), lineText()),
  iterations: counter,
  allowance: counter,
  pending,
  rows: fc
    .array(
      fc.record({
        status: fc.constantFrom('open' as const, 'done' as const, 'failed' as const, 'cut' as const),
        attempts: counter,
        evidence,
      }),
      { maxLength: 8 },
    )
    .map((rows) => rows.map((r, index) => ({ row: index + 1, ...r }))),
  decisions: fc.array(decision, { maxLength: 8 }),
});

/** Renders `ledger` in a random valid spelling, as a person or another tool might write it. */
function spell(ledger: Ledger, g: fc.GeneratorValue): string {
  const pick = <T>(...values: T[]): T => g(fc.constantFrom, ...values);
  const count = (max: number): number => g(fc.nat, { max });
  const ws = (): string => pick('', ' ', '  ', '\t');
  const eolMode = pick('lf', 'crlf', 'mixed');
  const eol = (): string => (eolMode === 'lf' ? '\n' : eolMode === 'crlf' ? '\r\n' : pick('\n', '\r\n'));
  const unknownHeaderLine = (): string =>
    g(() =>
      fc.oneof(
        // Coordinated member lines are not unknown: legs.test.ts covers them.
        fc.constantFrom('', '   ', '\t', 'owner: web', 'reviewed: yes'),
        sha.map((s) => `parent: ${s}`),
        lineText().map((t) => `x-${t}`),
      ),
    );
  const prose = (): string => g(() => lineText().map((t) => `x-${t}`));

  const header: string[] = [];
  const keyed = (label: string, value: string | number): string =>
    `${label}${label.startsWith('**') ? pick('', ' ', '   ') : pick('', ' ', '  ', '\t')}${value}${ws()}`;
  let iterationsAt = -1;
  for (const [label, value] of [
    ['**Spec:**', ledger.spec],
    ['base:', ledger.base],
    ['verification:', ledger.verification],
    ['checks:', ledger.checks],
    ['iterations:', ledger.iterations],
    ['allowance:', ledger.allowance],
  ] as const) {
    header.push(keyed(label, value));
    if (label === 'iterations:') {
      iterationsAt = header.length - 1;
      continue;
    }
    for (let n = count(2); n > 0; n--) header.push(unknownHeaderLine());
  }
  if (ledger.pending !== null) {
    // Anywhere in the header block (§6 A26), but never between iterations: and allowance:.
    const slots = Array.from({ length: header.length + 1 }, (_, i) => i).filter(
      (i) => i !== iterationsAt + 1,
    );
    header.splice(g(fc.constantFrom, ...slots), 0, formatPending(ledger.pending) + ws());
  }

  const lead = (): string => pick('', ' ', '  ');
  const cell = (value: string | number): string => `${ws()}${value}${ws()}`;
  const table = [
    pick(
      '| row | status | attempts | evidence |',
      '|row|status|attempts|evidence|',
      '  | Row | Status | Tries | Notes |  ',
    ),
    `${lead()}|${Array.from({ length: 4 }, () => pick('---', ' --- ', ':---', '---:', ' :-: ', '-')).join('|')}|${ws()}`,
    ...ledger.rows.map((r) => {
      // A cell ending in a backslash needs a blank before the closing pipe, or it escapes it.
      const pad = r.evidence.endsWith('\\') ? ` ${ws()}` : ws();
      return `${lead()}|${cell(r.row)}|${cell(r.status)}|${cell(r.attempts)}|${ws()}${r.evidence}${pad}|${ws()}`;
    }),
  ];

  const after: string[] = [];
  for (let n = count(2); n > 0; n--) after.push(pick('', '  '));
  if (count(3) === 0) after.push(prose(), '');
  if (count(3) === 0) after.push('## Notes', prose(), '');
  after.push(pick('## Decisions', '##  Decisions', '## Decisions ', '##\tDecisions'));
  for (const line of ledger.decisions) {
    for (let n = count(1); n > 0; n--) after.push(pick('', ' '));
    after.push(line);
  }
  for (let n = count(1); n > 0; n--) after.push('');
  if (count(2) === 0)
    // An unknown section with a table (## Leg mapping is not unknown: legs.test.ts covers it).
    after.push('', '## Review log', '', '| round | verdict |', '|---|---|', '| 1 | SHIP |');

  const lines = [ledger.discriminant + pick('', ' '), ...header, ...table, ...after];
  const final = pick(true, false);
  return lines.map((line, index) => line + (index < lines.length - 1 || final ? eol() : '')).join('');
}

const arbitraryLedgerText = fc
  .tuple(arbitraryLedger, fc.gen())
  .map(([ledger, g]) => ({ ledger, text: spell(ledger, g) }));

const fragments = [
  ...EXAMPLE.split('\n'),
  '',
  '|',
  '||',
  '| 1 | open | 0 |',
  '| 1 | open | 0 | a \\| b |',
  '## Decisions',
  '#',
  'cap: 3',
  'allowance: x',
  `pending: seed | home | ${HEAD}`,
  '**Spec:** ',
  '```',
  '\\',
  '\uFEFF# Loop ledger',
];

const ledgerLikeText: fc.Arbitrary<string> = fc.oneof(
  fc.string({ unit: 'grapheme', maxLength: 200 }),
  fc.string({ unit: 'binary', maxLength: 200 }),
  fc
    .array(fc.oneof(fc.constantFrom(...fragments), fc.string({ unit: 'grapheme', maxLength: 20 })), {
      maxLength: 40,
    })
    .chain((lines) =>
      fc
        .array(fc.constantFrom('\n', '\r\n', '\r', ''), { minLength: lines.length, maxLength: lines.length })
        .map((eols) => lines.map((line, index) => line + eols[index]).join('')),
    ),
  fc
    .tuple(arbitraryLedgerText, fc.nat(), fc.nat(), fc.constantFrom('delete', 'duplicate', 'swap'))
    .map(([{ text }, a, b, how]) => {
      const lines = text.split('\n');
      const i = a % lines.length;
      const j = b % lines.length;
      if (how === 'delete') lines.splice(i, 1);
      else if (how === 'duplicate') lines.splice(i, 0, lines[i] as string);
      else [lines[i], lines[j]] = [lines[j] as string, lines[i] as string];
      return lines.join('\n');
    }),
);
