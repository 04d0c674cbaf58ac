// Coordinated legs in the dispatch loop (issue 13, gauntlet-protocol §3.20 and the coordinated-legs
// reference's `## Companion return validation`): leg selection, companion return validation from
// the commit body, and the home record commit. Expected values are written by hand from the
// protocol text and docs/decisions/legs.md (L6-L12), never computed by the functions under test.
import { describe, expect, it } from 'vitest';
import {
  companionRecordEdit,
  dispatchLeg,
  isCompanionTuple,
  parseCompanionBody,
  seedLeg,
  validateLegReturn,
} from '../../src/gauntlet/companion.js';
import type { Ledger, PendingTuple } from '../../src/gauntlet/types.js';
import { API_BASE, coordinatedLedgerText, HOME_BASE, parsedLedger } from '../support/legs-fixtures.js';
import { API_COMMIT, API_HEAD, clean, companionFacts } from './companion-fixtures.js';

/** §1.8's coordinated variant: web = home (rows 1, 2), api (rows 3, 4; AC 2 shared). */
function ledger(
  opts: { seededWeb?: boolean; seededApi?: boolean; rows?: string[]; decisions?: string[] } = {},
) {
  return parsedLedger(
    coordinatedLedgerText({
      members: [
        { name: 'web', base: HOME_BASE, seeded: opts.seededWeb !== false },
        { name: 'api', base: API_BASE, seeded: opts.seededApi === true },
      ],
      rows: opts.rows ?? [
        '| 1 | open | 0 | page check; 1 failing |',
        '| 2 | open | 0 | serve check; 1 failing |',
        '| 3 | open | 0 |  |',
        '| 4 | open | 0 |  |',
      ],
      decisions: opts.decisions ?? ['row 0 done | seeded 2 rows, closed 0 on baseline | row 1'],
    }),
  );
}

describe('which leg a dispatch goes to', () => {
  it('a row goes to its mapped leg; the seed to the first unseeded leg with a non-cut row', () => {
    const l = ledger();
    expect(dispatchLeg(l, 1)).toBe('web');
    expect(dispatchLeg(l, 3)).toBe('api');
    expect(seedLeg(l)).toBe('api');
    expect(seedLeg(ledger({ seededWeb: false }))).toBe('web');
    expect(seedLeg(ledger({ seededApi: true }))).toBeNull();
    // api's rows all cut: nothing of api to seed (L7).
    const cutApi = ledger({
      rows: [
        '| 1 | open | 0 |  |',
        '| 2 | open | 0 |  |',
        '| 3 | cut | 0 | deferred: later |',
        '| 4 | cut | 0 | deferred: later |',
      ],
    });
    expect(seedLeg(cutApi)).toBeNull();
    expect(isCompanionTuple(l, { target: 3, repo: 'api', head: API_HEAD })).toBe(true);
    expect(isCompanionTuple(l, { target: 1, repo: 'web', head: HOME_BASE })).toBe(false);
  });
});

describe('a companion body', () => {
  it('reads table lines then decision lines after the attribution; other lines are ignored', () => {
    const body = parseCompanionBody(
      [
        'pending: 3 | api | x',
        'iteration: 3',
        '| 3 | done | 1 | serve check; passes \\| fast |',
        'row 3 done | served | row 4',
        'ran capture (1 of 2)',
      ].join('\n'),
    );
    expect(body).toEqual({
      rows: [{ row: 3, status: 'done', attempts: 1, evidence: 'serve check; passes \\| fast' }],
      decisions: ['row 3 done | served | row 4'],
      problem: null,
    });
    expect(parseCompanionBody('a\nb\n| 3 | done | 1 |\n').problem).toMatch(/3 cells instead of 4/);
    expect(parseCompanionBody('a\nb\n| 3 | done | 1 | x |\n| 3 | done | 1 | y |').problem).toBe(
      'row 3 is listed twice',
    );
  });
});

describe('companion return validation (from its commit, never the reply)', () => {
  it('admits a same-leg target with its decision', () => {
    const saved = ledger({ seededApi: true });
    const outcome = validateLegReturn(
      companionFacts(saved, 3, 'loop: row 3 done', [
        '| 3 | done | 1 | serve check; passes |',
        'row 3 done | served | row 4',
      ]),
    );
    expect(outcome.kind).toBe('admitted');
    if (outcome.kind !== 'admitted') return;
    expect(outcome.decision).toBe('row 3 done | served | row 4');
    expect(outcome.ledger.iterations).toBe(3);
    expect(outcome.ledger.pending).toBeNull();
    expect(outcome.ledger.rows[2]).toEqual({
      row: 3,
      status: 'done',
      attempts: 1,
      evidence: 'serve check; passes',
    });
  });

  it('a foreign-leg extra is a miss; a foreign entry even unchanged is a miss', () => {
    const saved = ledger({ seededApi: true });
    const extra = validateLegReturn(
      companionFacts(saved, 3, 'loop: row 3 done', [
        '| 1 | done | 0 | page check; passes |',
        '| 3 | done | 1 | serve check; passes |',
        'row 3 done | served | row 4',
        'row 1 done | page too | row 4',
      ]),
    );
    expect(extra).toMatchObject({ kind: 'miss', miss: 'row 1 belongs to leg web, not api' });
    const listed = validateLegReturn(
      companionFacts(saved, 3, 'loop: row 3 done', [
        '| 1 | open | 0 | page check; 1 failing |',
        '| 3 | done | 1 | serve check; passes |',
        'row 3 done | served | row 4',
      ]),
    );
    expect(listed).toMatchObject({ kind: 'miss', miss: 'row 1 belongs to leg web, not api' });
  });

  it('a companion seed lists all and only its non-cut rows; unchanged open rows are admitted', () => {
    const saved = ledger();
    const ok = validateLegReturn(
      companionFacts(saved, 'seed', 'loop: seed evidence', [
        '| 3 | open | 0 | serve check; 2 failing |',
        '| 4 | open | 0 |  |',
        'row 0 done | seeded 1 rows, closed 0 on baseline | row 3',
      ]),
    );
    expect(ok.kind).toBe('admitted');
    const partial = validateLegReturn(
      companionFacts(saved, 'seed', 'loop: seed evidence', [
        '| 3 | open | 0 | serve check; 2 failing |',
        'row 0 done | seeded 1 rows, closed 0 on baseline | row 3',
      ]),
    );
    expect(partial).toMatchObject({ kind: 'miss', miss: 'the api seed does not list its row 4' });
  });

  it('boundary and home fence: a dirty companion is interrupted; moved home HEAD or home dirt is unattributed', () => {
    const saved = ledger({ seededApi: true });
    const facts = companionFacts(saved, 3, 'loop: row 3 done', [
      '| 3 | done | 1 | x; y |',
      'row 3 done | a | b',
    ]);
    expect(validateLegReturn({ ...facts, boundary: { ...clean, porcelain: '?? half.ts' } })).toMatchObject({
      kind: 'interrupted',
      reason: 'dirty tree',
    });
    expect(validateLegReturn({ ...facts, boundary: { ...clean, commitCount: 2 } })).toMatchObject({
      kind: 'interrupted',
      reason: '2 commits',
    });
    expect(validateLegReturn({ ...facts, home: { ...facts.home, head: 'f'.repeat(40) } })).toMatchObject({
      kind: 'unattributed',
    });
    expect(
      validateLegReturn({ ...facts, home: { ...facts.home, porcelain: ' M src/page.ts' } }),
    ).toMatchObject({
      kind: 'unattributed',
    });
    // Wrong tuple in the body: not this dispatch's commit.
    const wrong = {
      ...facts,
      commit: { ...facts.commit, body: facts.commit.body.replace('iteration: 3', 'iteration: 9') },
    };
    expect(validateLegReturn(wrong).kind).toBe('unattributed');
  });

  it('a home seed of a coordinated run sets its own seeded flag; a home return touching api rows is a miss', () => {
    const empty = [
      '| 1 | open | 0 |  |',
      '| 2 | open | 0 |  |',
      '| 3 | open | 0 |  |',
      '| 4 | open | 0 |  |',
    ];
    const saved = ledger({ seededWeb: false, decisions: [], rows: empty });
    const pending: PendingTuple = { target: 'seed', repo: 'web', head: HOME_BASE };
    const headWithout: Ledger = {
      ...saved,
      iterations: 3,
      pending: null,
      rows: saved.rows.map((r) => (r.row <= 2 ? { ...r, evidence: `check ${r.row}; 1 failing` } : r)),
      decisions: ['row 0 done | seeded 2 rows, closed 0 on baseline | row 1'],
    };
    const base = {
      target: 'seed' as const,
      iteration: 2,
      pending,
      saved,
      boundary: clean,
      commit: { subject: 'loop: seed evidence', body: `pending: seed | web | ${HOME_BASE}\niteration: 3` },
    };
    expect(validateLegReturn({ ...base, headLedger: headWithout })).toMatchObject({
      kind: 'miss',
      code: 'miss.header',
    });
    const legs = saved.legs as NonNullable<Ledger['legs']>;
    const withFlag = {
      ...headWithout,
      legs: { ...legs, members: legs.members.map((m) => (m.name === 'web' ? { ...m, seeded: true } : m)) },
    };
    expect(validateLegReturn({ ...base, headLedger: withFlag }).kind).toBe('admitted');

    // A home row return closing an api row beside its target: a foreign-leg extra.
    const seededBoth = ledger({ seededApi: true, rows: empty });
    const rowHead: Ledger = {
      ...seededBoth,
      iterations: 3,
      pending: null,
      rows: seededBoth.rows.map((r) =>
        r.row === 1
          ? { ...r, status: 'done', attempts: 1, evidence: 'page check; passes' }
          : r.row === 3
            ? { ...r, status: 'done', evidence: 'serve check; passes' }
            : r,
      ),
      decisions: [...seededBoth.decisions, 'row 1 done | page | row 2', 'row 3 done | serve | row 2'],
    };
    const homePending: PendingTuple = { target: 1, repo: 'web', head: HOME_BASE };
    expect(
      validateLegReturn({
        target: 1,
        iteration: 2,
        pending: homePending,
        saved: seededBoth,
        boundary: clean,
        commit: { subject: 'loop: row 1 done', body: `pending: 1 | web | ${HOME_BASE}\niteration: 3` },
        headLedger: rowHead,
      }),
    ).toMatchObject({ kind: 'miss', miss: 'row 3 belongs to leg api, not web' });
  });
});

describe('the home record commit', () => {
  it('writes the rows with the companion SHA after the check name, the tuple, iteration and SHA in the body', () => {
    const saved = ledger({ seededApi: true });
    const outcome = validateLegReturn(
      companionFacts(saved, 3, 'loop: row 3 done', [
        '| 3 | done | 1 | serve check; passes |',
        'row 3 done | served | row 4',
      ]),
    );
    if (outcome.kind !== 'admitted') throw new Error(outcome.kind);
    const edit = companionRecordEdit({
      admitted: outcome.ledger,
      changedRows: [3],
      pending: { target: 3, repo: 'api', head: API_HEAD },
      companionSha: API_COMMIT,
    });
    expect(edit.subject).toBe('loop: record api row 3');
    expect(edit.body).toBe(
      [`pending: 3 | api | ${API_HEAD}`, 'iteration: 3', `companion: api ${API_COMMIT}`].join('\n'),
    );
    expect(edit.ledger.rows[2]?.evidence).toBe('serve check @ api c0ffee012345; passes');
    expect(edit.ledger.pending).toBeNull();
    expect(edit.ledger.decisions.at(-1)).toBe('row 3 done | served | row 4');
  });

  it('a seed record is `loop: record <member> row 0` and sets only that member seeded', () => {
    const saved = ledger();
    const outcome = validateLegReturn(
      companionFacts(saved, 'seed', 'loop: seed evidence', [
        '| 3 | open | 0 | serve check; 2 failing |',
        '| 4 | open | 0 |  |',
        'row 0 done | seeded 1 rows, closed 0 on baseline | row 3',
      ]),
    );
    if (outcome.kind !== 'admitted') throw new Error(outcome.kind);
    const edit = companionRecordEdit({
      admitted: outcome.ledger,
      changedRows: outcome.changedRows.map((c) => c.row),
      pending: { target: 'seed', repo: 'api', head: API_HEAD },
      companionSha: API_COMMIT,
    });
    expect(edit.subject).toBe('loop: record api row 0');
    expect(edit.ledger.legs?.members).toEqual([
      { name: 'web', base: HOME_BASE, seeded: true },
      { name: 'api', base: API_BASE, seeded: true },
    ]);
    expect(edit.ledger.rows.map((r) => r.evidence)).toEqual([
      'page check; 1 failing',
      'serve check; 1 failing',
      'serve check @ api c0ffee012345; 2 failing',
      '',
    ]);
  });
});
