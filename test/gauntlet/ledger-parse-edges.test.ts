/**
 * Edges of the ledger's `pending:` tuple, its line splitting and its parser (gauntlet-protocol
 * §1.2-§1.6, docs/ledger-format.md §1.2-§1.6). Every expected value below is written by hand from
 * the format page: tuples, finding codes, finding lines and the reasons a person reads.
 */
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import {
  checkLedger,
  DEFAULT_CHECKS,
  FULL_SHA,
  formatPending,
  parseLedger,
  parsePending,
  pendingProblem,
  samePending,
  serializeLedger,
} from '../../src/gauntlet/ledger.js';
import type { Ledger, PendingTuple } from '../../src/gauntlet/types.js';
import { BASE, HEAD } from './text-fixtures.js';

const OTHER = '0123456789abcdef0123456789abcdef01234567';

/** A small valid single-leg ledger, one element per line (joined by the tests). */
const LINES = [
  '# Loop ledger', // 1
  '**Spec:** doc/specs/x.md', // 2
  `base: ${BASE}`, // 3
  'verification: npm test', // 4
  'checks: commands', // 5
  'iterations: 2', // 6
  'allowance: 4', // 7
  '', // 8
  '| row | status | attempts | evidence |', // 9
  '|---|---|---|---|', // 10
  '| 1 | done | 1 | npm test; ok |', // 11
  '| 2 | open | 0 |  |', // 12
  '', // 13
  '## Decisions', // 14
  '', // 15
  'row 1 done | first row closed | row 2', // 16
];
const TEXT = `${LINES.join('\n')}\n`;

/** The small ledger with line `n` (1-based) replaced by `lines` (none: removed). */
function edit(n: number, ...lines: string[]): string {
  const copy = [...LINES];
  copy.splice(n - 1, 1, ...lines);
  return `${copy.join('\n')}\n`;
}

function only(text: string): { code: string; line: number; reason: string }[] {
  const result = parseLedger(text);
  expect(result.ledger).toBeNull();
  return result.findings;
}

function valid(text: string, options?: { discriminant?: string }): Ledger {
  const result = parseLedger(text, options);
  expect(result.findings).toEqual([]);
  if (result.ledger === null) throw new Error('expected a ledger');
  return result.ledger;
}

describe('parsePending: the one spelling of §1.6', () => {
  it('reads multi-digit row targets, one-letter repos and blanks around the whole line', () => {
    expect(parsePending(`pending: 12 | home | ${HEAD}`)).toEqual({ target: 12, repo: 'home', head: HEAD });
    expect(parsePending(`pending: 105 | a | ${HEAD}`)).toEqual({ target: 105, repo: 'a', head: HEAD });
    expect(parsePending(`  pending: seed | web.app | ${HEAD}\t`)).toEqual({
      target: 'seed',
      repo: 'web.app',
      head: HEAD,
    });
    expect(parsePending(`pending: verify | home | ${HEAD}`)).toEqual({
      target: 'verify',
      repo: 'home',
      head: HEAD,
    });
  });

  it('refuses text before or after the tuple, a leading zero and a row beyond safe integers', () => {
    for (const line of [
      `x pending: 3 | home | ${HEAD}`,
      `pending: 3 | home | ${HEAD} x`,
      `pending: 3 | home | ${HEAD}0`,
      `pending: 03 | home | ${HEAD}`,
      `pending: 0 | home | ${HEAD}`,
      `pending: 99999999999999999999 | home | ${HEAD}`,
      `pending: seeds | home | ${HEAD}`,
      `pending: 3 | | ${HEAD}`,
      `pending: 3 | a|b | ${HEAD}`,
      `pending: 3 | home | ${HEAD.slice(1)}g`,
      'pending: 3 | home',
      '',
    ])
      expect(parsePending(line), line).toBeNull();
  });

  it('FULL_SHA takes exactly 40 lowercase hex digits', () => {
    expect(FULL_SHA.test(HEAD)).toBe(true);
    expect(FULL_SHA.test(`${HEAD}a`)).toBe(false);
    expect(FULL_SHA.test(`a${HEAD}`)).toBe(false);
    expect(FULL_SHA.test(HEAD.slice(1))).toBe(false);
    expect(FULL_SHA.test(HEAD.toUpperCase())).toBe(false);
    expect(FULL_SHA.test(`${HEAD.slice(1)}g`)).toBe(false);
  });
});

describe('pendingProblem and formatPending', () => {
  const ok: PendingTuple = { target: 3, repo: 'home', head: HEAD };

  it('accepts the three target kinds', () => {
    expect(pendingProblem(ok)).toBeNull();
    expect(pendingProblem({ target: 1, repo: 'home', head: HEAD })).toBeNull();
    expect(pendingProblem({ target: 'seed', repo: 'home', head: HEAD })).toBeNull();
    expect(pendingProblem({ target: 'verify', repo: 'x', head: HEAD })).toBeNull();
  });

  it('names each unwritable part', () => {
    const bad = (value: unknown): string | null => pendingProblem(value as PendingTuple);
    expect(bad(null)).toBe('the pending tuple must be an object with target, repo and head, got null');
    expect(bad('pending: 3')).toBe(
      'the pending tuple must be an object with target, repo and head, got pending: 3',
    );
    expect(bad({ ...ok, target: 0 })).toBe('pending target 0 is not a row number >= 1');
    expect(bad({ ...ok, target: -2 })).toBe('pending target -2 is not a row number >= 1');
    expect(bad({ ...ok, target: 1.5 })).toBe('pending target 1.5 is not a row number >= 1');
    expect(bad({ ...ok, target: 2 ** 53 })).toBe(`pending target ${2 ** 53} is not a row number >= 1`);
    expect(bad({ ...ok, target: 'row' })).toBe('pending target "row" is not a row number, seed or verify');
    expect(bad({ ...ok, target: undefined })).toBe(
      'pending target "undefined" is not a row number, seed or verify',
    );
    expect(bad({ ...ok, repo: '' })).toBe('pending repo "" must be one word without pipes');
    expect(bad({ ...ok, repo: 'two words' })).toBe('pending repo "two words" must be one word without pipes');
    expect(bad({ ...ok, repo: 'a|b' })).toBe('pending repo "a|b" must be one word without pipes');
    expect(bad({ ...ok, repo: ' home' })).toBe('pending repo " home" must be one word without pipes');
    expect(bad({ ...ok, repo: 'home ' })).toBe('pending repo "home " must be one word without pipes');
    expect(bad({ ...ok, repo: 7 })).toBe('pending repo "7" must be one word without pipes');
    expect(bad({ ...ok, head: HEAD.toUpperCase() })).toBe(
      `pending head "${HEAD.toUpperCase()}" is not a full lowercase 40-hex SHA`,
    );
    expect(bad({ ...ok, head: `${HEAD}0` })).toBe(
      `pending head "${HEAD}0" is not a full lowercase 40-hex SHA`,
    );
    expect(bad({ ...ok, head: null })).toBe('pending head "null" is not a full lowercase 40-hex SHA');
    // A list holding the sha reads as the sha when coerced to text; it is still not a sha.
    expect(bad({ ...ok, head: [HEAD] })).toBe(
      `pending head "["${HEAD}"]" is not a full lowercase 40-hex SHA`,
    );
    expect(bad({ ...ok, repo: ['home'] })).toBe('pending repo "["home"]" must be one word without pipes');
  });

  it('formatPending writes the tuple or throws pending.invalid with the problem', () => {
    expect(formatPending({ target: 'seed', repo: 'web', head: HEAD })).toBe(`pending: seed | web | ${HEAD}`);
    expect(formatPending({ target: 10, repo: 'home', head: HEAD })).toBe(`pending: 10 | home | ${HEAD}`);
    let thrown: unknown = null;
    try {
      formatPending({ target: 3, repo: 'two words', head: HEAD });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(InputError);
    expect((thrown as InputError).code).toBe('pending.invalid');
    expect((thrown as InputError).message).toBe('pending repo "two words" must be one word without pipes');
  });

  it('samePending compares every part, and absences only with absences', () => {
    expect(samePending(null, null)).toBe(true);
    expect(samePending(ok, null)).toBe(false);
    expect(samePending(null, ok)).toBe(false);
    expect(samePending(ok, { target: 3, repo: 'home', head: HEAD })).toBe(true);
    expect(samePending(ok, { ...ok, target: 4 })).toBe(false);
    expect(samePending(ok, { ...ok, target: 'seed' })).toBe(false);
    expect(samePending(ok, { ...ok, repo: 'web' })).toBe(false);
    expect(samePending(ok, { ...ok, head: OTHER })).toBe(false);
  });
});

describe('defaults', () => {
  it('the gate-set mode defaults to commands (§6 A3)', () => {
    expect(DEFAULT_CHECKS).toBe('commands');
  });
});

describe('parseLedger: line endings and line 1', () => {
  it('reads CRLF, LF and a missing final newline alike, and writes every byte back', () => {
    for (const text of [
      LINES.join('\r\n'),
      `${LINES.join('\r\n')}\r\n`,
      LINES.join('\n'),
      `${LINES.slice(0, 8).join('\r\n')}\r\n${LINES.slice(8).join('\n')}\n`,
    ]) {
      const ledger = valid(text);
      expect(ledger.spec).toBe('doc/specs/x.md');
      expect(ledger.decisions).toEqual(['row 1 done | first row closed | row 2']);
      expect(ledger.rows.map((r) => r.evidence)).toEqual(['npm test; ok', '']);
      expect(serializeLedger(ledger)).toBe(text);
    }
  });

  it('an added decision takes the line ending of line 1; an edited line keeps its own', () => {
    const text = `${LINES.slice(0, 11).join('\r\n')}\r\n${LINES.slice(11).join('\n')}\n`;
    const ledger = valid(text);
    const out = serializeLedger({
      ...ledger,
      iterations: 3,
      rows: [
        ledger.rows[0] as Ledger['rows'][number],
        { row: 2, status: 'done', attempts: 1, evidence: 'e' },
      ],
      decisions: [...ledger.decisions, 'row 2 done | second | none'],
    });
    expect(out).toBe(
      `${[...LINES.slice(0, 5), 'iterations: 3', ...LINES.slice(6, 11)].join('\r\n')}\r\n` +
        `${['| 2 | done | 1 | e |', ...LINES.slice(12)].join('\n')}\n` +
        'row 2 done | second | none\r\n',
    );
  });

  it('a lone carriage return is a finding on each line that holds one', () => {
    const findings = only(edit(4, 'verification: npm\rtest', 'note\r here'));
    expect(findings).toEqual([
      {
        code: 'ledger.line.carriage-return',
        line: 4,
        reason: 'line contains a carriage return that is not part of a CRLF line ending',
      },
      {
        code: 'ledger.line.carriage-return',
        line: 5,
        reason: 'line contains a carriage return that is not part of a CRLF line ending',
      },
    ]);
  });

  it('a CR before CRLF is a stray carriage return on that line', () => {
    const text = LINES.join('\r\n').replace('first row closed', 'first row closed\r');
    expect(only(text).map((f) => [f.code, f.line])).toEqual([['ledger.line.carriage-return', 16]]);
  });

  it('accepts blanks around the discriminant and a configured one', () => {
    expect(valid(edit(1, '  # Loop ledger \t')).discriminant).toBe('# Loop ledger');
    expect(valid(edit(1, '# Gauntlet run'), { discriminant: '# Gauntlet run' }).discriminant).toBe(
      '# Gauntlet run',
    );
    expect(valid(TEXT, {}).discriminant).toBe('# Loop ledger');
  });

  it('names a wrong line 1 and a byte-order mark in front of it', () => {
    expect(only(edit(1, '# Plan'))).toEqual([
      { code: 'ledger.discriminant', line: 1, reason: 'line 1 must be "# Loop ledger", found "# Plan"' },
    ]);
    expect(only(edit(1, '\uFEFF# Plan'))).toEqual([
      {
        code: 'ledger.discriminant',
        line: 1,
        reason:
          'line 1 must be "# Loop ledger", found "\uFEFF# Plan" (the file starts with a byte-order mark)',
      },
    ]);
    expect(only(TEXT.replace('# Loop ledger', '# Plan')).length).toBe(1);
    expect(parseLedger(TEXT, { discriminant: '# Other' }).findings).toEqual([
      { code: 'ledger.discriminant', line: 1, reason: 'line 1 must be "# Other", found "# Loop ledger"' },
    ]);
  });

  it('shortens a long line 1 to 57 characters and an ellipsis; 60 characters stay whole', () => {
    const sixty = `# ${'x'.repeat(58)}`;
    const sixtyOne = `# ${'x'.repeat(59)}`;
    expect(only(edit(1, sixty))[0]?.reason).toBe(`line 1 must be "# Loop ledger", found "${sixty}"`);
    expect(only(edit(1, sixtyOne))[0]?.reason).toBe(
      `line 1 must be "# Loop ledger", found "# ${'x'.repeat(55)}..."`,
    );
  });

  it('an empty text, or one that is not text, is ledger.empty', () => {
    const empty = [{ code: 'ledger.empty', line: 0, reason: 'the ledger is empty' }];
    expect(parseLedger('')).toEqual({ ledger: null, findings: empty });
    expect(parseLedger(42 as unknown as string)).toEqual({ ledger: null, findings: empty });
    expect(parseLedger(null as unknown as string)).toEqual({ ledger: null, findings: empty });
    expect(parseLedger(['# Loop ledger'] as unknown as string)).toEqual({ ledger: null, findings: empty });
  });

  it('a single newline is one blank line 1, not an empty ledger', () => {
    const codes = parseLedger('\n').findings.map((f) => [f.code, f.line]);
    expect(codes[0]).toEqual(['ledger.discriminant', 1]);
  });

  it('never throws: a failure inside the parser is one ledger.internal finding', () => {
    const symbol = Symbol('d') as unknown as string;
    expect(parseLedger(TEXT, { discriminant: symbol })).toEqual({
      ledger: null,
      findings: [
        {
          code: 'ledger.internal',
          line: 0,
          reason: 'the ledger parser failed: Cannot convert a Symbol value to a string',
        },
      ],
    });
    const throwsText = {
      trim: () => '',
      toString: () => {
        throw 'not an error';
      },
    } as unknown as string;
    expect(parseLedger(TEXT, { discriminant: throwsText })).toEqual({
      ledger: null,
      findings: [{ code: 'ledger.internal', line: 0, reason: 'the ledger parser failed: not an error' }],
    });
  });
});

describe('parseLedger: the header block', () => {
  it('values may hold U+2028 and U+2029 inside them', () => {
    const text = TEXT.replace('doc/specs/x.md', 'doc/a\u2028b.md').replace('npm test', 'npm\u2029test');
    const ledger = valid(text);
    expect(ledger.spec).toBe('doc/a\u2028b.md');
    expect(ledger.verification).toBe('npm\u2029test');
  });

  it('a key starts at column 1; a line that mentions a key later is a kept unknown line', () => {
    const text = edit(
      3,
      `base: ${BASE}`,
      'see base: elsewhere',
      'note **Spec:** other.md',
      'a pending: 3 | x',
    );
    const ledger = valid(text);
    expect(ledger.base).toBe(BASE);
    expect(ledger.spec).toBe('doc/specs/x.md');
    expect(ledger.pending).toBeNull();
    expect(serializeLedger(ledger)).toBe(text);
  });

  it('a heading-like line of seven hashes or without a blank stays in the header block', () => {
    const text = edit(5, 'checks: commands', '####### not a heading', '#note');
    const ledger = valid(text);
    expect(ledger.checks).toBe('commands');
    expect(serializeLedger({ ...ledger, checks: 'all' })).toBe(
      text.replace('checks: commands', 'checks: all'),
    );
  });

  it('a heading ends the header block; so does an indented table line', () => {
    expect(only(edit(5, '#')).map((f) => f.code)).toContain('ledger.header.missing');
    const indented = edit(9, '  | row | status | attempts | evidence |');
    expect(valid(indented).rows).toHaveLength(2);
  });

  it('pending: may sit anywhere in the header block', () => {
    const ledger = valid(edit(2, `pending: 2 | home | ${HEAD}`, '**Spec:** doc/specs/x.md'));
    expect(ledger.pending).toEqual({ target: 2, repo: 'home', head: HEAD });
    expect(valid(edit(4, `pending: seed | home | ${HEAD}`, 'verification: npm test')).pending?.target).toBe(
      'seed',
    );
  });

  it('a duplicate header names its first line; the duplicate of pending: too', () => {
    expect(only(edit(5, 'checks: commands', 'checks: all'))).toEqual([
      {
        code: 'ledger.header.duplicate',
        line: 6,
        reason: 'checks: appears again (first on line 5)',
      },
    ]);
    expect(
      only(edit(7, 'allowance: 4', `pending: 1 | home | ${HEAD}`, `pending: 1 | home | ${HEAD}`)),
    ).toEqual([
      { code: 'ledger.header.duplicate', line: 9, reason: 'pending: appears again (first on line 8)' },
    ]);
    expect(only(edit(2, '**Spec:** doc/specs/x.md', '**Spec:** y.md'))[0]).toEqual({
      code: 'ledger.header.duplicate',
      line: 3,
      reason: '**Spec:** appears again (first on line 2)',
    });
  });

  it('a header out of order names the header it must precede and the whole order', () => {
    const order = '(order: **Spec:**, base:, verification:, checks:, iterations:, allowance:)';
    expect(only(edit(3, 'verification: npm test', `base: ${BASE}`)).slice(0, 1)).toEqual([
      { code: 'ledger.header.order', line: 4, reason: `base: must come before verification: ${order}` },
    ]);
    const twice = only(edit(2, 'checks: commands', '**Spec:** doc/specs/x.md', `base: ${BASE}`));
    expect(twice.filter((f) => f.code === 'ledger.header.order')).toEqual([
      { code: 'ledger.header.order', line: 3, reason: `**Spec:** must come before checks: ${order}` },
      { code: 'ledger.header.order', line: 4, reason: `base: must come before checks: ${order}` },
      { code: 'ledger.header.order', line: 6, reason: `verification: must come before checks: ${order}` },
    ]);
  });

  it('an out-of-order header does not become the header the next one is compared with', () => {
    // verification, then base (out of order), then checks: only base is out of order.
    const text = `${[
      '# Loop ledger',
      '**Spec:** doc/specs/x.md',
      'verification: npm test',
      `base: ${BASE}`,
      'checks: commands',
      'iterations: 2',
      'allowance: 4',
      ...LINES.slice(7),
    ].join('\n')}\n`;
    expect(only(text).map((f) => [f.code, f.line])).toEqual([['ledger.header.order', 4]]);
  });

  it('each missing header is its own finding at line 0, allowance: with the resume hint', () => {
    expect(only(`# Loop ledger\n\n${LINES.slice(8).join('\n')}\n`)).toEqual([
      { code: 'ledger.header.missing', line: 0, reason: 'the **Spec:** header is missing' },
      { code: 'ledger.header.missing', line: 0, reason: 'the base: header is missing' },
      { code: 'ledger.header.missing', line: 0, reason: 'the verification: header is missing' },
      { code: 'ledger.header.missing', line: 0, reason: 'the checks: header is missing' },
      { code: 'ledger.header.missing', line: 0, reason: 'the iterations: header is missing' },
      {
        code: 'ledger.allowance.missing',
        line: 0,
        reason: 'ledger has no allowance: line - resume through /skill:gauntlet-resume',
      },
    ]);
  });

  it('a legacy cap: line names the migration', () => {
    expect(only(edit(7, 'allowance: 4', 'cap: 4'))).toEqual([
      {
        code: 'ledger.allowance.cap',
        line: 8,
        reason:
          'legacy `cap:` line: ledger has no allowance: line - resume through /skill:gauntlet-resume (loop: migrate allowance)',
      },
    ]);
  });

  it('allowance: must follow iterations: directly; without iterations: only the missing header is named', () => {
    expect(only(edit(7, 'note', 'allowance: 4'))).toEqual([
      {
        code: 'ledger.allowance.position',
        line: 8,
        reason: 'allowance: must be the line right after iterations: (line 7)',
      },
    ]);
    expect(only(edit(6))).toEqual([
      { code: 'ledger.header.missing', line: 0, reason: 'the iterations: header is missing' },
    ]);
    const allowanceMissing = only(edit(7));
    expect(allowanceMissing.map((f) => f.code)).toEqual(['ledger.allowance.missing']);
  });

  it('allowance: before iterations: is out of order and out of place', () => {
    const swapped = TEXT.replace('iterations: 2\nallowance: 4', 'allowance: 4\niterations: 2');
    expect(only(swapped).map((f) => [f.code, f.line])).toEqual([
      ['ledger.header.order', 7],
      ['ledger.allowance.position', 6],
    ]);
  });
});

describe('parseLedger: table and sections', () => {
  it('a ledger that ends in its header block names the missing table at line 0', () => {
    const findings = only(`${LINES.slice(0, 7).join('\n')}\n`);
    expect(findings).toEqual([
      {
        code: 'ledger.table.missing',
        line: 0,
        reason:
          'the four-column row table (| row | status | attempts | evidence |) is missing after the header lines',
      },
      { code: 'ledger.decisions.missing', line: 0, reason: 'the ## Decisions section is missing' },
    ]);
  });

  it('a heading before the table names the missing table on that heading', () => {
    expect(only(`${LINES.slice(0, 8).join('\n')}\n## Decisions\n`)).toEqual([
      {
        code: 'ledger.table.missing',
        line: 9,
        reason:
          'the four-column row table (| row | status | attempts | evidence |) is missing after the header lines',
      },
    ]);
  });

  it('prose after the table and table lines inside other sections are kept; a stray table line is not', () => {
    const text = edit(
      13,
      '',
      'prose between the table and the first heading',
      '',
      '## Notes',
      '| a | b |',
      '### Sub',
      '| c |',
      '',
    );
    const ledger = valid(text);
    expect(ledger.decisions).toEqual(['row 1 done | first row closed | row 2']);
    expect(serializeLedger(ledger)).toBe(text);
    expect(only(edit(13, '', 'prose', '| 3 | open | 0 |  |'))).toEqual([
      {
        code: 'ledger.table.split',
        line: 15,
        reason: 'table line after the row table ended (remove the blank line inside the table)',
      },
    ]);
  });

  it('decision lines run to the next heading; blank lines between them are layout', () => {
    const text = `${TEXT}\n   indented decision  \n\nthird\n## Notes\nnot a decision\n\n#### deep\nnor this\n`;
    const ledger = valid(text);
    expect(ledger.decisions).toEqual([
      'row 1 done | first row closed | row 2',
      '   indented decision  ',
      'third',
    ]);
    expect(serializeLedger({ ...ledger, decisions: [...ledger.decisions, 'fourth'] })).toBe(
      text.replace('third\n', 'third\nfourth\n'),
    );
  });

  it('Decisions headings with extra blanks are the section; a second one is a finding', () => {
    expect(valid(edit(14, '##  Decisions \t')).decisions).toHaveLength(1);
    expect(valid(edit(14, '##\tDecisions')).decisions).toHaveLength(1);
    expect(only(edit(14, '## Decisions list')).map((f) => f.code)).toEqual(['ledger.decisions.missing']);
    expect(only(`${TEXT}## Decisions\n| 3 | open | 0 |  |\n`)).toEqual([
      {
        code: 'ledger.decisions.duplicate',
        line: 17,
        reason: 'a second ## Decisions section (first on line 14)',
      },
    ]);
  });

  it('an edited discriminant is written on line 1', () => {
    const ledger = valid(edit(1, '  # Loop ledger'));
    expect(serializeLedger({ ...ledger, discriminant: '# Gauntlet run' })).toBe(edit(1, '# Gauntlet run'));
  });

  it('a header-block line ending in a pipe is a kept note, not the table', () => {
    const text = edit(5, 'checks: commands', 'a note that ends in a pipe |');
    expect(serializeLedger(valid(text))).toBe(text);
  });

  it('a table line without its closing pipe is named as such; a lone pipe too', () => {
    expect(only(edit(9, '| row | status | attempts | evidence'))).toEqual([
      {
        code: 'ledger.table.header',
        line: 9,
        reason:
          'the table header must have four cells (row, status, attempts, evidence), found 4 and no closing pipe',
      },
    ]);
    expect(only(edit(9, '| row | status | attempts |'))[0]?.reason).toBe(
      'the table header must have four cells (row, status, attempts, evidence), found 3',
    );
    const open = [
      {
        code: 'ledger.table.cells',
        line: 11,
        reason: 'table row must end with a pipe (is the last pipe escaped by a backslash?)',
      },
    ];
    expect(only(edit(11, '| 1 | done | 1 | npm test; ok'))).toEqual(open);
    expect(only(edit(11, '| 1 | done | 1 | npm test; ok \\|'))).toEqual(open);
    expect(only(edit(11, '|'))).toEqual(open);
    expect(only(edit(11, '| 1 | done | 1 |'))).toEqual([
      {
        code: 'ledger.table.cells',
        line: 11,
        reason: 'table row has 3 cells instead of 4 (row, status, attempts, evidence)',
      },
    ]);
  });

  it('a single-leg ledger has no legs value at all', () => {
    const ledger = valid(TEXT);
    expect(Object.keys(ledger)).not.toContain('legs');
    expect(ledger.pending).toBeNull();
    expect(Object.keys(ledger).sort()).toEqual(
      [
        'allowance',
        'base',
        'checks',
        'decisions',
        'discriminant',
        'iterations',
        'layout',
        'pending',
        'rows',
        'spec',
        'verification',
      ].sort(),
    );
  });
});

describe('parseLedger: the line grammar of headings, counters and separators', () => {
  it('a section heading starts at column 1: a decision may mention one', () => {
    const text = `${TEXT}see ## Decisions\nsee ## Leg mapping\n`;
    expect(valid(text).decisions).toEqual([
      'row 1 done | first row closed | row 2',
      'see ## Decisions',
      'see ## Leg mapping',
    ]);
  });

  it('## Leg mapping is the whole heading; a longer one is an unknown section', () => {
    const text = `${TEXT}\n## Leg mapping notes\n\n| row | ac | leg |\n`;
    expect(valid(text).legs).toBeUndefined();
  });

  it('counters are digits only, in the header and in the table', () => {
    for (const value of ['-1', '+7', '7.0', '7x', 'x7', ' 1 2'])
      expect(
        only(edit(6, `iterations: ${value}`)).map((f) => [f.code, f.line]),
        value,
      ).toEqual([['ledger.header.not-integer', 6]]);
    expect(valid(edit(6, 'iterations: 12')).iterations).toBe(12);
    expect(valid(edit(11, '| 1 | done | 10 | npm test; ok |')).rows[0]?.attempts).toBe(10);
    for (const attempts of ['+1', '1.0', '-1'])
      expect(
        only(edit(11, `| 1 | done | ${attempts} | npm test; ok |`)).map((f) => f.code),
        attempts,
      ).toEqual(['ledger.table.attempts']);
  });

  it('separator cells are dashes with optional alignment colons and nothing else', () => {
    expect(valid(edit(10, '|:---|---:|:-:|-|')).rows).toHaveLength(2);
    for (const sep of [
      '| x--- | --- | --- | --- |',
      '| ---x | --- | --- | --- |',
      '| --- | --- | --- | -:- |',
    ])
      expect(
        only(edit(10, sep)).map((f) => [f.code, f.line]),
        sep,
      ).toContainEqual(['ledger.table.separator', 10]);
  });
});

describe('parseLedger: a coordinated ledger (§1.7)', () => {
  const COORD = [
    '# Loop ledger', // 1
    '**Spec:** doc/specs/x.md', // 2
    `base: ${BASE}`, // 3
    `base web: ${BASE}`, // 4
    'seeded web: yes', // 5
    `base api: ${OTHER}`, // 6
    'seeded api: no', // 7
    'verification: npm test', // 8
    'checks: commands', // 9
    'iterations: 1', // 10
    'allowance: 4', // 11
    `pending: 2 | api | ${HEAD}`, // 12
    '', // 13
    '| row | status | attempts | evidence |', // 14
    '|---|---|---|---|', // 15
    '| 1 | done | 0 | npm test; ok |', // 16
    '| 2 | open | 0 |  |', // 17
    '', // 18
    '## Leg mapping', // 19
    '', // 20
    '| row | ac | leg |', // 21
    '|---|---|---|', // 22
    '| 1 | 1 | web |', // 23
    '| 2 | 1 | api |', // 24
    '', // 25
    '## Decisions', // 26
  ];
  const coord = (n: number, ...lines: string[]): string => {
    const copy = [...COORD];
    copy.splice(n - 1, 1, ...lines);
    return `${copy.join('\n')}\n`;
  };

  it('reads members, the mapping and a pending tuple on a member', () => {
    const ledger = valid(coord(1, '# Loop ledger'));
    expect(ledger.legs).toEqual({
      members: [
        { name: 'web', base: BASE, seeded: true },
        { name: 'api', base: OTHER, seeded: false },
      ],
      mapping: [
        { row: 1, ac: 1, leg: 'web' },
        { row: 2, ac: 1, leg: 'api' },
      ],
    });
    expect(ledger.pending).toEqual({ target: 2, repo: 'api', head: HEAD });
  });

  it('the mapping may follow its heading directly or after several blank lines', () => {
    expect(valid(coord(20)).legs?.mapping).toHaveLength(2);
    expect(valid(coord(20, '', '', '')).legs?.mapping).toHaveLength(2);
  });

  it('member lines allow several blanks before the name and before the colon, and ## Leg mapping blanks', () => {
    const text = coord(19, '##  Leg mapping \t')
      .replace('base web: ', 'base \t web : ')
      .replace('seeded api: no', 'seeded  api  :no');
    const ledger = valid(text);
    expect(ledger.legs?.members).toEqual([
      { name: 'web', base: BASE, seeded: true },
      { name: 'api', base: OTHER, seeded: false },
    ]);
    expect(ledger.legs?.mapping).toHaveLength(2);
  });

  it('a member line starts at column 1: a note that mentions one is kept', () => {
    const text = valid(edit(7, 'allowance: 4', `note base web: ${BASE}`, 'note seeded web: yes'));
    expect(text.legs).toBeUndefined();
  });

  it('a mapping ac is digits only, named on its line', () => {
    for (const ac of ['1x', '+1', '0'])
      expect(
        only(coord(23, `| 1 | ${ac} | web |`)).map((f) => [f.code, f.line]),
        ac,
      ).toEqual([['ledger.legs.mapping-ac', 23]]);
    expect(only(coord(22, '| --- | x--- | --- |')).map((f) => [f.code, f.line])).toContainEqual([
      'ledger.legs.mapping-separator',
      22,
    ]);
    expect(only(coord(22, '| --- | ---x | --- |')).map((f) => [f.code, f.line])).toContainEqual([
      'ledger.legs.mapping-separator',
      22,
    ]);
  });

  it('written without its layout, a coordinated ledger takes the canonical layout of §1.5 and §1.7', () => {
    const { layout: _layout, ...values } = valid(coord(1, '# Loop ledger'));
    expect(serializeLedger(values)).toBe(`${COORD.join('\n')}\n`);
  });

  it('a coordinated ledger in its own spelling is written back byte for byte, edited or not', () => {
    const text = coord(19, '##   Leg mapping').replace('| 2 | 1 | api |', '|2|1|api|');
    const ledger = valid(text);
    expect(serializeLedger(ledger)).toBe(text);
    expect(serializeLedger({ ...ledger, iterations: 2 })).toBe(
      text.replace('iterations: 1', 'iterations: 2'),
    );
  });

  it('a ## Leg mapping heading followed only by blank lines up to the end has no table', () => {
    for (const tail of ['## Leg mapping\n', '## Leg mapping\n\n', '## Leg mapping\n\n  \n'])
      expect(only(`${TEXT}${tail}`), tail).toEqual([
        {
          code: 'ledger.legs.mapping-table',
          line: 17,
          reason: 'the ## Leg mapping section has no | row | ac | leg | table',
        },
        {
          code: 'ledger.legs.members-missing',
          line: 17,
          reason: 'a ## Leg mapping section without base <member>: / seeded <member>: header pairs',
        },
      ]);
  });

  it('a member value may end in U+2028, which trimming drops', () => {
    expect(valid(coord(5, 'seeded web: yes\u2028')).legs?.members[0]).toEqual({
      name: 'web',
      base: BASE,
      seeded: true,
    });
  });

  it('a mapping heading without a table, and a second mapping heading, are findings', () => {
    expect(only(coord(21, 'prose', '| row | ac | leg |')).map((f) => [f.code, f.line])).toContainEqual([
      'ledger.legs.mapping-table',
      19,
    ]);
    expect(only(coord(19, '## Leg mapping', '## Leg mapping')).slice(0, 1)).toEqual([
      {
        code: 'ledger.legs.mapping-table',
        line: 19,
        reason: 'the ## Leg mapping section has no | row | ac | leg | table',
      },
    ]);
    expect(only(`${coord(1, '# Loop ledger')}## Leg mapping\n`)).toEqual([
      {
        code: 'ledger.legs.mapping-duplicate',
        line: 27,
        reason: 'a second ## Leg mapping section (first on line 19)',
      },
    ]);
  });

  it('after the mapping table the section is over: a table line there is not a split table', () => {
    const text = coord(25, '', '## Notes', '| x |', '');
    expect(valid(text).legs?.mapping).toHaveLength(2);
  });

  it('a heading right after the mapping table is read as the next section', () => {
    const ledger = valid(`${coord(25)}\nrow 1 done | web side | row 2\n`);
    expect(ledger.decisions).toEqual(['row 1 done | web side | row 2']);
    expect(ledger.legs?.mapping).toHaveLength(2);
  });

  it('members without a mapping, a mapping without members', () => {
    expect(only(`${COORD.slice(0, 17).join('\n')}\n\n## Decisions\n`)).toEqual([
      {
        code: 'ledger.legs.mapping-missing',
        line: 0,
        reason:
          'the ledger names its members (base <member>: / seeded <member>:) but has no ## Leg mapping section',
      },
    ]);
    const noMembers = coord(4, '').replace(/seeded web: yes\n|base api: [0-9a-f]+\n|seeded api: no\n/g, '');
    expect(only(noMembers.replace(`| 2 | api | ${HEAD}`, `| 2 | home | ${HEAD}`))).toEqual([
      {
        code: 'ledger.legs.members-missing',
        line: 16,
        reason: 'a ## Leg mapping section without base <member>: / seeded <member>: header pairs',
      },
    ]);
  });

  it('value checks of the legs run only once the syntax is clean, and see the pending tuple', () => {
    const findings = only(coord(12, `pending: 2 | home | ${HEAD}`));
    expect(findings.map((f) => [f.code, f.line])).toEqual([['ledger.legs.pending-repo', 0]]);
    const both = only(coord(12, `pending: 2 | home | ${HEAD}`, 'cap: 4'));
    expect(both.map((f) => f.code)).toEqual(['ledger.allowance.cap']);
  });
});

describe('the value checks behind serializeLedger and checkLedger', () => {
  const base = (): Ledger => valid(TEXT);
  const problems = (ledger: Ledger): [string, string][] => checkLedger(ledger).map((f) => [f.code, f.reason]);

  it('single-line values: text, not empty, one line, no outer blanks', () => {
    expect(problems({ ...base(), verification: 7 as unknown as string })).toEqual([
      ['ledger.header.empty', 'verification must be text'],
    ]);
    expect(problems({ ...base(), verification: '' })).toEqual([
      ['ledger.header.empty', 'verification is empty'],
    ]);
    expect(problems({ ...base(), checks: 'a\nb' })).toEqual([
      ['ledger.header.empty', 'checks spans more than one line'],
    ]);
    expect(problems({ ...base(), checks: 'a\rb' })).toEqual([
      ['ledger.header.empty', 'checks spans more than one line'],
    ]);
    expect(problems({ ...base(), checks: ' all' })).toEqual([
      ['ledger.header.empty', 'checks has leading or trailing blanks'],
    ]);
    expect(problems({ ...base(), discriminant: '# Loop ledger ' })).toEqual([
      ['ledger.discriminant', 'the discriminant has leading or trailing blanks'],
    ]);
  });

  it('the spec path: bare, repo-relative', () => {
    expect(problems({ ...base(), spec: '' })).toEqual([
      ['ledger.header.spec', 'the **Spec:** path is empty'],
    ]);
    expect(problems({ ...base(), spec: 'doc/`x`.md' })).toEqual([
      [
        'ledger.header.spec',
        'the **Spec:** header takes the bare repo-relative path, without backticks or anchors',
      ],
    ]);
    expect(problems({ ...base(), spec: 'doc/x.md §2' })).toHaveLength(1);
    for (const spec of ['/doc/x.md', 'C:\\doc\\x.md', 'c:/doc/x.md'])
      expect(problems({ ...base(), spec })).toEqual([
        ['ledger.header.spec', 'the **Spec:** path must be repo-relative, not absolute'],
      ]);
    for (const spec of ['doc/C:/x.md', 'CD:/x.md', 'C:x.md', 'doc//x.md'])
      expect(problems({ ...base(), spec }), spec).toEqual([]);
  });

  it('counters are safe integers >= 0', () => {
    expect(problems({ ...base(), iterations: 0 })).toEqual([]);
    for (const iterations of [-1, 1.5, 2 ** 53, '3' as unknown as number])
      expect(problems({ ...base(), iterations })).toEqual([
        ['ledger.header.not-integer', 'iterations must be an integer >= 0'],
      ]);
  });

  it('an evidence cell: one line without an unescaped pipe, possibly empty', () => {
    const withEvidence = (evidence: unknown): Ledger => ({
      ...base(),
      rows: [{ row: 1, status: 'open', attempts: 0, evidence: evidence as string }],
    });
    expect(problems(withEvidence(''))).toEqual([]);
    expect(problems(withEvidence('a \\| b'))).toEqual([]);
    expect(problems(withEvidence('a | b'))).toEqual([
      ['ledger.table.evidence', 'row 1: evidence contains an unescaped pipe (write it as \\|)'],
    ]);
    expect(problems(withEvidence(5))).toEqual([['ledger.table.evidence', 'row 1: evidence must be text']]);
    expect(problems(withEvidence(' x'))).toEqual([
      ['ledger.table.evidence', 'row 1: evidence has leading or trailing blanks'],
    ]);
  });

  it('a decision line: text, not blank, one line, not a heading', () => {
    const withDecision = (decision: unknown): Ledger => ({ ...base(), decisions: [decision as string] });
    expect(problems(withDecision(' \t'))).toEqual([
      ['ledger.decisions.line', 'decision 1: decision line is blank'],
    ]);
    expect(problems(withDecision('a\nb'))[0]).toEqual([
      'ledger.decisions.line',
      'decision 1: decision spans more than one line',
    ]);
    expect(problems(withDecision('a\rb'))[0]).toEqual([
      'ledger.decisions.line',
      'decision 1: decision spans more than one line',
    ]);
    expect(problems(withDecision('### x'))).toEqual([
      ['ledger.decisions.line', 'decision 1: decision line would read as a markdown heading'],
    ]);
    expect(problems(withDecision('#'))).toEqual([
      ['ledger.decisions.line', 'decision 1: decision line would read as a markdown heading'],
    ]);
    // Not headings: seven hashes, or a hash without a blank after it.
    expect(problems(withDecision('####### x')).map((p) => p[0])).not.toContain('ledger.decisions.line');
    expect(problems(withDecision('#x')).map((p) => p[0])).not.toContain('ledger.decisions.line');
  });

  it('a layout that is not the parser’s own is ignored', () => {
    // The file spells iterations: without a blank; the canonical text is the small ledger.
    const spelled = edit(6, 'iterations:2');
    const ledger = valid(spelled);
    const layout = ledger.layout as { format: string; eol: string; lines: unknown[] };
    for (const other of [
      null,
      'layout',
      { ...layout, format: 'loopchart.ledger-layout/2' },
      { ...layout, format: '' },
      { ...layout, lines: 'not a list' },
      { ...layout, eol: 1 },
    ])
      expect(serializeLedger({ ...ledger, layout: other } as Ledger)).toBe(TEXT);
    expect(serializeLedger({ ...ledger, layout })).toBe(spelled);
  });
});
