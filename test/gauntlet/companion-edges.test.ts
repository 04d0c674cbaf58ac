// Edges of coordinated legs (gauntlet-protocol §3.20, docs/decisions/legs.md L2, L7-L11, L20,
// L21): the home member by base when home is not listed first, single-leg ledgers, the body
// grammar of a companion return line by line, the home fence's texts, the seed's row list with a
// cut row in the leg, the record commit's evidence mark, and the return lines a companion child
// writes. Every expected value is written by hand from those texts, never computed by the
// functions under test.
import { describe, expect, it } from 'vitest';
import {
  companionCandidate,
  companionRecordEdit,
  companionReturnLines,
  dispatchLeg,
  homeMemberOf,
  isCompanionTuple,
  legOfRow,
  legRows,
  parseCompanionBody,
  seedLeg,
  validateLegReturn,
} from '../../src/gauntlet/companion.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import {
  API_BASE,
  coordinatedLedgerText,
  HOME_BASE,
  type LedgerMember,
  type MappingLine,
  parsedLedger,
} from '../support/legs-fixtures.js';
import { API_COMMIT, API_HEAD, clean, companionFacts } from './companion-fixtures.js';

const ATTRIBUTION = `pending: 3 | api | ${API_HEAD}\niteration: 3`;

/** §1.8's coordinated ledger (web = home: rows 1, 2; api: rows 3, 4), api seeded unless told. */
function ledger(
  opts: {
    seededWeb?: boolean;
    seededApi?: boolean;
    rows?: string[];
    decisions?: string[];
    mapping?: MappingLine[];
    members?: LedgerMember[];
  } = {},
): Ledger {
  return parsedLedger(
    coordinatedLedgerText({
      members: opts.members ?? [
        { name: 'web', base: HOME_BASE, seeded: opts.seededWeb !== false },
        { name: 'api', base: API_BASE, seeded: opts.seededApi !== false },
      ],
      rows: opts.rows ?? [
        '| 1 | open | 0 | page check; 1 failing |',
        '| 2 | open | 0 | serve check; 1 failing |',
        '| 3 | open | 0 | serve check; 2 failing |',
        '| 4 | open | 0 |  |',
      ],
      ...(opts.mapping === undefined ? {} : { mapping: opts.mapping }),
      decisions: opts.decisions ?? ['row 0 done | seeded 2 rows, closed 0 on baseline | row 1'],
    }),
  );
}

/** A single-leg ledger (L2: no coordinated metadata), written by hand. */
function singleLeg(): Ledger {
  return parsedLedger(
    [
      '# Loop ledger',
      '**Spec:** doc/specs/csv-export.md',
      `base: ${HOME_BASE}`,
      'verification: npm test',
      'checks: commands',
      'iterations: 2',
      'allowance: 4',
      '',
      '| row | status | attempts | evidence |',
      '|---|---|---|---|',
      '| 1 | done | 1 | csv check; passes |',
      '| 2 | open | 0 |  |',
      '',
      '## Decisions',
      '',
      'row 1 done | header written | row 2',
      '',
    ].join('\n'),
  );
}

describe('members, home and single-leg ledgers', () => {
  it('a row without a mapping line has no leg', () => {
    const l = ledger();
    const legs = l.legs as NonNullable<Ledger['legs']>;
    const unmapped: Ledger = { ...l, legs: { ...legs, mapping: legs.mapping.filter((m) => m.row !== 4) } };
    expect(() => legOfRow(unmapped, 4)).toThrow('row 4 has no leg mapping');
  });

  it('a leg with one open row beside a cut row still needs its seed (L7)', () => {
    const l = ledger({
      seededApi: false,
      rows: [
        '| 1 | open | 0 | page check; 1 failing |',
        '| 2 | open | 0 | serve check; 1 failing |',
        '| 3 | open | 0 |  |',
        '| 4 | cut | 0 | deferred: ACME-412 |',
      ],
    });
    expect(seedLeg(l)).toBe('api');
    expect(dispatchLeg(l, 'seed')).toBe('api');
  });

  it('home is the member whose base is base:, even when it is not listed first (L20)', () => {
    // Membership api, web: shared AC 2 is row 2 in api and row 3 in web (L3).
    const l = ledger({
      members: [
        { name: 'api', base: API_BASE, seeded: true },
        { name: 'web', base: HOME_BASE, seeded: true },
      ],
      mapping: [
        [1, 1, 'web'],
        [2, 2, 'api'],
        [3, 2, 'web'],
        [4, 3, 'api'],
      ],
    });
    expect(homeMemberOf(l)).toBe('web');
    expect(isCompanionTuple(l, { target: 2, repo: 'api', head: API_HEAD })).toBe(true);
    expect(isCompanionTuple(l, { target: 1, repo: 'web', head: HOME_BASE })).toBe(false);
  });

  it('a single-leg ledger is all home: every row is home, no tuple names a companion (L2)', () => {
    const l = singleLeg();
    expect(homeMemberOf(l)).toBe('home');
    expect(dispatchLeg(l, 2)).toBe('home');
    expect(legRows(l, 'home')).toEqual([
      { row: 1, status: 'done', attempts: 1, evidence: 'csv check; passes' },
      { row: 2, status: 'open', attempts: 0, evidence: '' },
    ]);
    expect(legRows(l, 'api')).toEqual([]);
    expect(isCompanionTuple(l, { target: 2, repo: 'api', head: API_HEAD })).toBe(false);
  });
});

describe('the companion body grammar (L8)', () => {
  const body = (...lines: string[]) => parseCompanionBody([ATTRIBUTION, ...lines].join('\n'));

  it('the first two lines are the attribution and are never read as rows or decisions', () => {
    expect(parseCompanionBody('| 3 | done | 1 | x; y |\nrow 3 done | a | b')).toEqual({
      rows: [],
      decisions: [],
      problem: null,
    });
  });

  it('reads an indented row line, a backslash that escapes no pipe, rows and decisions past 9', () => {
    expect(
      body(
        '  | 3 | done | 1 | grep check; matched a\\b twice |',
        '| 12 | failed | 10 | smoke; 1 failing |',
        'row 3 done | found it | row 12',
        'row 12 failed | still failing | retry',
      ),
    ).toEqual({
      rows: [
        { row: 3, status: 'done', attempts: 1, evidence: 'grep check; matched a\\b twice' },
        { row: 12, status: 'failed', attempts: 10, evidence: 'smoke; 1 failing' },
      ],
      decisions: ['row 3 done | found it | row 12', 'row 12 failed | still failing | retry'],
      problem: null,
    });
  });

  it('drops trailing blanks of a decision line; prose, even ending in a pipe or naming a row, is ignored', () => {
    expect(
      body(
        '| 3 | done | 1 | serve check; passes |',
        'row 3 done | served | row 4   ',
        'retried row 3 once before the fix',
        'see the table above |',
        '   row 4 done | indented | not a decision',
      ),
    ).toEqual({
      rows: [{ row: 3, status: 'done', attempts: 1, evidence: 'serve check; passes' }],
      decisions: ['row 3 done | served | row 4'],
      problem: null,
    });
  });

  it('a row line after a decision line is a problem (rows come first)', () => {
    expect(body('row 3 done | served | row 4', '| 3 | done | 1 | serve check; passes |').problem).toBe(
      'a row line follows the decision lines (rows come first)',
    );
  });

  it('a row line with a wrong cell count is named by its first 60 characters', () => {
    const line = '| 3 | done | serve check against the staging endpoint; 12 passed; 0 failed |';
    expect(body(line).problem).toBe(
      'row line "| 3 | done | serve check against the staging endpoint; 12 pa" has 3 cells instead of 4',
    );
  });

  it('a row line whose number, status or attempts cell is malformed is a problem', () => {
    const not = (shown: string) =>
      `row line "${shown}" is not | <row> | <status> | <attempts> | <evidence> |`;
    for (const line of [
      '| r3 | done | 1 | x; y |',
      '| 3x | done | 1 | x; y |',
      '| 3 | closed | 1 | x; y |',
      '| 3 | done | x1 | x; y |',
      '| 3 | done | 1x | x; y |',
      '| 3 | done | one | x; y |',
    ])
      expect(body(line).problem, line).toBe(not(line));
    const long = '| three | done | 1 | serve check against the staging endpoint; 12 passed |';
    expect(body(long).problem).toBe(not('| three | done | 1 | serve check against the staging endpoin'));
  });

  it('a listed row the ledger does not have is refused', () => {
    const saved = ledger();
    expect(
      companionCandidate(saved, {
        rows: [{ row: 9, status: 'done', attempts: 1, evidence: 'x; y' }],
        decisions: [],
        problem: null,
      }),
    ).toBe('row 9 is not a row of the ledger');
  });
});

describe('validating coordinated returns: texts and ordering', () => {
  it('a home seed without its seeded flag and a home row return changing a leg header are header misses, each with its text (L9)', () => {
    const empty = [
      '| 1 | open | 0 |  |',
      '| 2 | open | 0 |  |',
      '| 3 | open | 0 |  |',
      '| 4 | open | 0 |  |',
    ];
    const saved = ledger({ seededWeb: false, seededApi: false, decisions: [], rows: empty });
    const seedHead: Ledger = {
      ...saved,
      iterations: 3,
      pending: null,
      rows: saved.rows.map((r) => (r.row <= 2 ? { ...r, evidence: `check ${r.row}; 1 failing` } : r)),
      decisions: ['row 0 done | seeded 2 rows, closed 0 on baseline | row 1'],
    };
    expect(
      validateLegReturn({
        target: 'seed',
        iteration: 2,
        pending: { target: 'seed', repo: 'web', head: HOME_BASE },
        saved,
        boundary: clean,
        commit: { subject: 'loop: seed evidence', body: `pending: seed | web | ${HOME_BASE}\niteration: 3` },
        headLedger: seedHead,
      }),
    ).toMatchObject({
      kind: 'miss',
      code: 'miss.header',
      miss: 'a home seed sets "seeded web: yes" and changes no other leg header or mapping',
    });

    // A row return of home that flips the seeded flag: only a seed may set it.
    const rowSaved = ledger({ seededWeb: false });
    const legs = rowSaved.legs as NonNullable<Ledger['legs']>;
    const rowHead: Ledger = {
      ...rowSaved,
      iterations: 3,
      pending: null,
      rows: rowSaved.rows.map((r) =>
        r.row === 1 ? { ...r, status: 'done', attempts: 1, evidence: 'page check; passes' } : r,
      ),
      decisions: [...rowSaved.decisions, 'row 1 done | page renders | row 2'],
      legs: { ...legs, members: legs.members.map((m) => (m.name === 'web' ? { ...m, seeded: true } : m)) },
    };
    const rowFacts = {
      target: 1,
      iteration: 2,
      pending: { target: 1, repo: 'web', head: HOME_BASE },
      saved: rowSaved,
      boundary: clean,
      commit: { subject: 'loop: row 1 done', body: `pending: 1 | web | ${HOME_BASE}\niteration: 3` },
    };
    expect(validateLegReturn({ ...rowFacts, headLedger: rowHead })).toMatchObject({
      kind: 'miss',
      code: 'miss.header',
      miss: 'the commit changed the coordinated leg headers or the leg mapping',
    });
    // The same return leaving the flag alone is admitted.
    expect(validateLegReturn({ ...rowFacts, headLedger: { ...rowHead, legs } }).kind).toBe('admitted');
  });

  it('the home fence names what moved: home HEAD, or the first line of home dirt; blank status is clean (L11)', () => {
    const saved = ledger();
    const facts = companionFacts(saved, 3, 'loop: row 3 done', [
      '| 3 | done | 1 | serve check; passes |',
      'row 3 done | served | row 4',
    ]);
    const moved = 'f'.repeat(40);
    expect(validateLegReturn({ ...facts, home: { ...facts.home, head: moved } })).toEqual({
      kind: 'unattributed',
      target: 3,
      what: 'ambiguous attribution',
      detail: `home HEAD moved from ${HOME_BASE} to ${moved} during the api dispatch`,
    });
    expect(
      validateLegReturn({ ...facts, home: { ...facts.home, porcelain: '\n M src/page.ts\n?? notes.txt\n' } }),
    ).toEqual({
      kind: 'unattributed',
      target: 3,
      what: 'ambiguous attribution',
      // Porcelain v1 `XY PATH`: the blank index column says the change is not staged.
      detail: 'home has changes besides the reserved ledger:  M src/page.ts',
    });
    expect(validateLegReturn({ ...facts, home: { ...facts.home, porcelain: '\n' } }).kind).toBe('admitted');
  });

  it('a commit not attributed to the dispatch is unattributed before its body is judged', () => {
    const saved = ledger();
    const facts = companionFacts(saved, 3, 'loop: row 3 done', [
      '| 1 | done | 0 | page check; passes |',
      '| 3 | done | 1 | serve check; passes |',
      'row 3 done | served | row 4',
    ]);
    const wrong = {
      ...facts,
      commit: { ...facts.commit, body: facts.commit.body.replace('iteration: 3', 'iteration: 9') },
    };
    expect(validateLegReturn(wrong).kind).toBe('unattributed');
  });

  it('a companion seed lists its non-cut rows and never a cut row of its leg (L8)', () => {
    const saved = ledger({
      seededApi: false,
      rows: [
        '| 1 | open | 0 | page check; 1 failing |',
        '| 2 | open | 0 | serve check; 1 failing |',
        '| 3 | open | 0 |  |',
        '| 4 | cut | 0 | deferred: ACME-412 |',
      ],
    });
    const seedDecision = 'row 0 done | seeded 1 rows, closed 0 on baseline | row 3';
    const ok = validateLegReturn(
      companionFacts(saved, 'seed', 'loop: seed evidence', [
        '| 3 | open | 0 | serve check; 2 failing |',
        seedDecision,
      ]),
    );
    expect(ok.kind).toBe('admitted');
    const withCut = validateLegReturn(
      companionFacts(saved, 'seed', 'loop: seed evidence', [
        '| 3 | open | 0 | serve check; 2 failing |',
        '| 4 | cut | 0 | deferred: ACME-412 |',
        seedDecision,
      ]),
    );
    expect(withCut).toMatchObject({
      kind: 'miss',
      code: 'miss.seed-table',
      miss: 'the api seed lists the cut row 4',
    });
  });
});

describe('the record commit marks evidence once, after the check name (L10)', () => {
  function recorded(evidence: string): string | undefined {
    const saved = ledger();
    const admitted: Ledger = {
      ...saved,
      iterations: 3,
      pending: null,
      rows: saved.rows.map((r) => (r.row === 3 ? { ...r, status: 'done', attempts: 1, evidence } : r)),
      decisions: [...saved.decisions, 'row 3 done | served | row 4'],
    };
    const edit = companionRecordEdit({
      admitted,
      changedRows: [3],
      pending: { target: 3, repo: 'api', head: API_HEAD },
      companionSha: API_COMMIT,
    });
    return edit.ledger.rows[2]?.evidence;
  }

  it('a check name alone gets the mark at its end', () => {
    expect(recorded('serve check')).toBe('serve check @ api c0ffee012345');
  });

  it('blanks between the check name and the first result go before the mark', () => {
    expect(recorded('serve check ; passes')).toBe('serve check @ api c0ffee012345; passes');
  });

  it('an escaped semicolon belongs to the check name', () => {
    expect(recorded('grep a\\;b; 2 matches')).toBe('grep a\\;b @ api c0ffee012345; 2 matches');
  });

  it('recording a ledger that already carries the mark does not mark it twice', () => {
    expect(recorded('serve check @ api c0ffee012345; passes')).toBe('serve check @ api c0ffee012345; passes');
  });
});

describe("a companion child's return lines (L8, L21)", () => {
  it('a row return lists only the changed rows, whichever cell changed, then only the new decisions', () => {
    const reserved = ledger();
    const edited: Ledger = {
      ...reserved,
      rows: reserved.rows.map((r) =>
        r.row === 2
          ? { ...r, evidence: 'serve check; 2 failing' }
          : r.row === 3
            ? { ...r, status: 'failed' }
            : r.row === 4
              ? { ...r, attempts: 1 }
              : r,
      ),
      decisions: [...reserved.decisions, 'row 3 failed | still failing | retry'],
    };
    expect(companionReturnLines(reserved, edited, 'api', false)).toEqual([
      '| 2 | open | 0 | serve check; 2 failing |',
      '| 3 | failed | 0 | serve check; 2 failing |',
      '| 4 | open | 1 |  |',
      'row 3 failed | still failing | retry',
    ]);
  });

  it('an ordinary return of one row leaves the unchanged rows of its leg out', () => {
    const reserved = ledger();
    const edited: Ledger = {
      ...reserved,
      rows: reserved.rows.map((r) =>
        r.row === 3 ? { ...r, status: 'done', attempts: 1, evidence: 'serve check; passes' } : r,
      ),
      decisions: [...reserved.decisions, 'row 3 done | served | row 4'],
    };
    expect(companionReturnLines(reserved, edited, 'api', false)).toEqual([
      '| 3 | done | 1 | serve check; passes |',
      'row 3 done | served | row 4',
    ]);
  });

  it("a seed lists every non-cut row of its own leg, changed or not, and no cut row or other leg's row", () => {
    const reserved = ledger({
      seededApi: false,
      rows: [
        '| 1 | open | 0 |  |',
        '| 2 | open | 0 |  |',
        '| 3 | open | 0 |  |',
        '| 4 | open | 0 |  |',
        '| 5 | cut | 0 | deferred: ACME-412 |',
      ],
      mapping: [
        [1, 1, 'web'],
        [2, 2, 'web'],
        [3, 2, 'api'],
        [4, 3, 'api'],
        [5, 4, 'api'],
      ],
    });
    const edited: Ledger = {
      ...reserved,
      rows: reserved.rows.map((r) => (r.row === 3 ? { ...r, evidence: 'serve check; 2 failing' } : r)),
      decisions: [...reserved.decisions, 'row 0 done | seeded 1 rows, closed 0 on baseline | row 3'],
    };
    expect(companionReturnLines(reserved, edited, 'api', true)).toEqual([
      '| 3 | open | 0 | serve check; 2 failing |',
      '| 4 | open | 0 |  |',
      'row 0 done | seeded 1 rows, closed 0 on baseline | row 3',
    ]);
  });
});
