// Verify step 1's gate set on coordinated runs (issue 13). Expected values are written by hand
// from gauntlet-protocol §3.18 (rerun scope: "Rerun the failing checkout's gate pairs once ...
// then run the original fail-fast run's still-unexecuted pairs from other checkouts in ledger
// order"), §3.20 ("the gate set grouped by ## Leg mapping", "keep the home verification header as
// the CI command", "success only after every leg passes"), §6 A3 (ordered {index, leg, name,
// command} pairs; single pair in leg home), and docs/decisions/legs.md where the protocol is silent.
import { describe, expect, it } from 'vitest';
import {
  everyLegVerified,
  GateSetConfigError,
  gateLegs,
  gateScope,
  gateSet,
  pairsByLeg,
} from '../../src/gauntlet/gate-set.js';
import { formatLegRows, legOfRow, legSummaries } from '../../src/gauntlet/leg-status.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import { validateVerificationReturn } from '../../src/gauntlet/verify.js';
import { API_BASE, coordinatedLedgerText, HOME_BASE, parsedLedger } from '../support/legs-fixtures.js';
import { ledgerText as singleLegText } from './text-fixtures.js';

const DOCS_BASE = '1111111111111111111111111111111111111111';

function ledgerText(members: [string, string][], mapping: [number, number, string][]): string {
  return coordinatedLedgerText({
    members: members.map(([name, base]) => ({ name, base, seeded: true })),
    rows: mapping.map(([row]) => `| ${row} | open | 0 |  |`),
    mapping,
  });
}

const parsed = parsedLedger;

/** A single-leg ledger, parsed inside the test that calls it. */
const single = (): Ledger =>
  parsed(
    singleLegText({
      spec: 'doc/specs/csv-export.md',
      base: HOME_BASE,
      rows: ['| 1 | done | 1 | unit: ok |'],
    }),
  );

// web (home) rows 1-2, api rows 3-4 (the reference's §1.8 mapping).
const TWO = parsed(
  ledgerText(
    [
      ['web', HOME_BASE],
      ['api', API_BASE],
    ],
    [
      [1, 1, 'web'],
      [2, 2, 'web'],
      [3, 2, 'api'],
      [4, 3, 'api'],
    ],
  ),
);

// Three members; the mapping names api first, and docs has no mapped row.
const THREE = parsed(
  ledgerText(
    [
      ['web', HOME_BASE],
      ['docs', DOCS_BASE],
      ['api', API_BASE],
    ],
    [
      [1, 1, 'api'],
      [2, 2, 'web'],
    ],
  ),
);

describe('gate set', () => {
  it("a single leg keeps today's set: verification then the extra gates, all in leg home", () => {
    expect(gateSet(single(), { home: 'home', extra: ['npm run lint'] })).toEqual([
      { index: 1, leg: 'home', name: 'verification', command: 'npm test' },
      { index: 2, leg: 'home', name: 'gate 2', command: 'npm run lint' },
    ]);
  });

  it('groups the pairs by leg in membership order; a companion without commands runs the verification header', () => {
    expect(gateSet(TWO, { home: 'web', extra: ['npm run lint'] })).toEqual([
      { index: 1, leg: 'web', name: 'verification', command: 'npm test' },
      { index: 2, leg: 'web', name: 'gate 2', command: 'npm run lint' },
      { index: 3, leg: 'api', name: 'api verification', command: 'npm test' },
    ]);
  });

  it('a companion runs its configured commands, numbered on after the home pairs', () => {
    expect(gateSet(TWO, { home: 'web', legGates: { api: ['make check', 'make lint'] } })).toEqual([
      { index: 1, leg: 'web', name: 'verification', command: 'npm test' },
      { index: 2, leg: 'api', name: 'api gate 2', command: 'make check' },
      { index: 3, leg: 'api', name: 'api gate 3', command: 'make lint' },
    ]);
  });

  it('membership order, not mapping order; a member the mapping does not name has no pairs', () => {
    expect(gateLegs(THREE)).toEqual(['web', 'api']);
    expect(gateSet(THREE, { home: 'web' }).map((pair) => [pair.index, pair.leg])).toEqual([
      [1, 'web'],
      [2, 'api'],
    ]);
  });

  it('refuses commands for the home member, an unknown member, or any member of a single leg', () => {
    expect(() => gateSet(TWO, { home: 'web', legGates: { web: ['x'] } })).toThrow(GateSetConfigError);
    expect(() => gateSet(TWO, { home: 'web', legGates: { ops: ['x'] } })).toThrow(/ops.*companions: api/);
    expect(() => gateSet(single(), { home: 'home', legGates: { api: ['x'] } })).toThrow(/single-leg/);
    expect(() => gateSet(TWO, { home: 'home' })).toThrow(/home member home is not a member/);
  });

  it('names the refusal GateSetConfigError and lists the ledger’s members or companions', () => {
    const refusal = (call: () => unknown) => {
      try {
        call();
      } catch (error) {
        return error as Error;
      }
      throw new Error('the gate set was not refused');
    };
    const notMember = refusal(() => gateSet(TWO, { home: 'home' }));
    expect([notMember.name, notMember.message]).toEqual([
      'GateSetConfigError',
      'the home member home is not a member of the ledger (web, api)',
    ]);
    expect(refusal(() => gateSet(THREE, { home: 'web', legGates: { ops: ['make check'] } })).message).toBe(
      'gate commands are given for ops, which is not a companion leg of this ledger (companions: docs, api)',
    );
  });

  it('pairsByLeg groups consecutive pairs of one leg', () => {
    const pairs = gateSet(TWO, { home: 'web', extra: ['lint'] });
    expect(pairsByLeg(pairs).map((group) => [group.leg, group.pairs.map((p) => p.index)])).toEqual([
      ['web', [1, 2]],
      ['api', [3]],
    ]);
  });
});

describe('rerun scope', () => {
  // Built inside each test, so a gate set that throws fails the tests instead of their collection.
  const rerunPairs = () =>
    gateSet(
      parsed(
        ledgerText(
          [
            ['web', HOME_BASE],
            ['docs', DOCS_BASE],
            ['api', API_BASE],
          ],
          [
            [1, 1, 'web'],
            [2, 2, 'docs'],
            [3, 3, 'api'],
          ],
        ),
      ),
      { home: 'web', extra: ['lint'] },
    );
  const indexes = (scope: { index: number }[]) => scope.map((pair) => pair.index);

  it('a fresh session (and a resume) runs the complete gate set', () => {
    expect(indexes(gateScope(rerunPairs(), {}))).toEqual([1, 2, 3, 4]);
  });

  it('after a repair in a companion: its pairs, then the still-unexecuted pairs of later legs', () => {
    // web (1, 2) passed, docs (3) failed and was repaired; api (4) never ran.
    expect(indexes(gateScope(rerunPairs(), { web: 'a'.repeat(40) }, 'docs'))).toEqual([3, 4]);
  });

  it('after a repair in home: every home pair again, then the legs not run yet', () => {
    expect(indexes(gateScope(rerunPairs(), {}, 'web'))).toEqual([1, 2, 3, 4]);
  });

  it('a leg that passed keeps its result; the failing leg reruns even if it was recorded', () => {
    expect(indexes(gateScope(rerunPairs(), { web: 'a'.repeat(40), docs: 'b'.repeat(40) }, 'api'))).toEqual([
      4,
    ]);
    expect(indexes(gateScope(rerunPairs(), { web: 'a'.repeat(40), docs: 'b'.repeat(40) }, 'docs'))).toEqual([
      3, 4,
    ]);
  });

  it('success only once every leg of the set is verified', () => {
    expect(everyLegVerified(rerunPairs(), { web: 'a', api: 'c' })).toBe(false);
    expect(everyLegVerified(rerunPairs(), { web: 'a', docs: 'b', api: 'c' })).toBe(true);
  });
});

describe('per-leg state (status, viewer)', () => {
  // §1.8's coordinated variant: web (home, base = base:) rows 1-2, api rows 3-4; row 1 done,
  // row 2 failed, row 3 cut, row 4 open; a dispatch in flight in api.
  const text = ledgerText(
    [
      ['web', HOME_BASE],
      ['api', API_BASE],
    ],
    [
      [1, 1, 'web'],
      [2, 2, 'web'],
      [3, 2, 'api'],
      [4, 3, 'api'],
    ],
  )
    .replace('| 1 | open | 0 |  |', '| 1 | done | 0 | seed: ok |')
    .replace('| 2 | open | 0 |  |', '| 2 | failed | 1 | unit: red |')
    .replace('| 3 | open | 0 |  |', '| 3 | cut | 0 | deferred: later |')
    .replace('seeded api: yes', 'seeded api: no')
    .replace('allowance: 4', `allowance: 4\npending: 4 | api | ${API_BASE}`);
  const ledger = parsed(text);

  it("counts each leg's rows by status, names home, its seeded flag and the pending member", () => {
    expect(legSummaries(ledger)).toEqual([
      {
        member: 'web',
        home: true,
        base: HOME_BASE,
        seeded: true,
        rowNumbers: [1, 2],
        rows: { open: 0, done: 1, failed: 1, cut: 0 },
        pending: false,
      },
      {
        member: 'api',
        home: false,
        base: API_BASE,
        seeded: false,
        rowNumbers: [3, 4],
        rows: { open: 1, done: 0, failed: 0, cut: 1 },
        pending: true,
      },
    ]);
    expect(formatLegRows({ open: 1, done: 0, failed: 0, cut: 1 })).toBe('open 1, done 0, failed 0, cut 1');
  });

  it('the spec names home when given; a single leg has no per-leg state', () => {
    expect(legSummaries(ledger, 'api')?.map((leg) => [leg.member, leg.home])).toEqual([
      ['web', false],
      ['api', true],
    ]);
    expect(legSummaries(single())).toBeNull();
  });

  it('legOfRow reads the mapping (home for a single leg)', () => {
    expect([legOfRow(ledger, 2), legOfRow(ledger, 3), legOfRow(ledger, 9)]).toEqual(['web', 'api', null]);
    expect(legOfRow(single(), 1)).toBe('home');
  });

  it('on a single leg every row of the table is home’s, a row it does not have is no leg’s', () => {
    const one = single();
    const twoRows = {
      ...one,
      rows: [...one.rows, { row: 2, status: 'open' as const, attempts: 0, evidence: '' }],
    };
    expect([legOfRow(twoRows, 1), legOfRow(twoRows, 2), legOfRow(twoRows, 3)]).toEqual([
      'home',
      'home',
      null,
    ]);
  });

  it('without a named home, home is the member whose base is base:, wherever it is listed (L20)', () => {
    // `## Legs` may mark a later member `(home)`: api is listed first, web holds the spec.
    const apiFirst = parsed(
      ledgerText(
        [
          ['api', API_BASE],
          ['web', HOME_BASE],
        ],
        [
          [1, 1, 'api'],
          [2, 2, 'web'],
        ],
      ),
    );
    expect(legSummaries(apiFirst)?.map((leg) => [leg.member, leg.home])).toEqual([
      ['api', false],
      ['web', true],
    ]);
  });
});

describe('a verification repair in a companion leg (validateVerificationReturn)', () => {
  // §3.18 admission + §3.20: the companion child commits its leg only; home HEAD and its expected
  // dirt (the bumped ledger with the tuple) stay unchanged; the first two body lines are the tuple
  // and the consumed iteration.
  const saved = TWO; // iterations 2
  const pending = { target: 'verify' as const, repo: 'api', head: API_BASE };
  const reserved: Ledger = { ...saved, iterations: 3, pending };
  const childSha = 'c'.repeat(40);
  const body = `pending: verify | api | ${API_BASE}\niteration: 3\n\nfix the api test`;
  const facts = {
    pending,
    saved,
    boundary: { returned: 'DONE', porcelain: '', commitCount: 1 },
    commit: { sha: childSha, subject: 'fix: api gate', body },
    headLedger: reserved,
    home: { headMoved: false, unexpectedDirt: '' },
  };

  it('admits one clean companion commit while home keeps its HEAD and only the reserved ledger', () => {
    const outcome = validateVerificationReturn(facts);
    expect(outcome.kind).toBe('admitted');
    expect(outcome.kind === 'admitted' && [outcome.childSha, outcome.ledger.pending]).toEqual([
      childSha,
      pending,
    ]);
  });

  it('after a clean companion boundary, a home HEAD that moved or other home dirt is a state-preserving stop', () => {
    const moved = validateVerificationReturn({ ...facts, home: { headMoved: true, unexpectedDirt: '' } });
    expect(moved).toEqual({
      kind: 'home-changed',
      detail: 'home HEAD moved during the api verification repair',
    });
    const dirty = validateVerificationReturn({
      ...facts,
      home: { headMoved: false, unexpectedDirt: ' M src/web.ts\n' },
    });
    expect(dirty.kind).toBe('home-changed');
    expect(dirty.kind === 'home-changed' && dirty.detail).toContain(' M src/web.ts');
    // An interrupted companion boundary goes to recovery first, whose provenance step fences home.
    expect(
      validateVerificationReturn({
        ...facts,
        boundary: { returned: 'DONE', porcelain: ' M x', commitCount: 0 },
        home: { headMoved: true, unexpectedDirt: '' },
      }),
    ).toEqual({ kind: 'not-admitted', reason: 'dirty tree' });
  });

  it('a dirty companion or zero commits routes to recovery of the companion; a home ledger edit is not admitted', () => {
    expect(
      validateVerificationReturn({
        ...facts,
        boundary: { returned: 'DONE', porcelain: '?? x', commitCount: 1 },
      }),
    ).toEqual({ kind: 'not-admitted', reason: 'dirty tree' });
    expect(
      validateVerificationReturn({ ...facts, boundary: { returned: 'DONE', porcelain: '', commitCount: 0 } }),
    ).toEqual({ kind: 'not-admitted', reason: '0 commits' });
    expect(validateVerificationReturn({ ...facts, headLedger: { ...reserved, pending: null } })).toEqual({
      kind: 'not-admitted',
      reason: 'repair commit did not keep the pending verify tuple',
    });
  });
});
