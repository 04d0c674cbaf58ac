/**
 * Verify step 1's admission of a verification repair and its repair-count gate, in process
 * (gauntlet-protocol §3.18, §1.6, §3.19, §3.20). The repair child's single commit keeps the bumped
 * ledger with `pending: verify …` and changes no row, header or decision; its body starts with the
 * exact tuple and the consumed iteration, and the action records after those two lines are copied
 * into the parent's marker. Repairs go on while `repairs < allowance`, with the bare header
 * allowance. Every expected value is written by hand.
 */
import { describe, expect, it } from 'vitest';
import type { Ledger } from '../../src/gauntlet/types.js';
import {
  type VerificationReturnFacts,
  validateVerificationReturn,
  verificationRepairAllowed,
} from '../../src/gauntlet/verify.js';
import { HEAD_BEFORE, ledger, midLoop, row } from './validation-fixtures.js';

const CHILD = 'c'.repeat(40);
const TUPLE_LINE = `pending: verify | home | ${HEAD_BEFORE}`;
const pending = { target: 'verify' as const, repo: 'home', head: HEAD_BEFORE };
// midLoop: iterations 3, allowance 4, five rows, two decisions. The reserved ledger is bumped to 4.
const saved = midLoop();
const reserved: Ledger = { ...saved, iterations: 4, pending };

const facts = (parts: Partial<VerificationReturnFacts> = {}): VerificationReturnFacts => ({
  pending,
  saved,
  boundary: { returned: 'DONE', porcelain: '', commitCount: 1 },
  commit: { sha: CHILD, subject: 'fix: quote commas', body: `${TUPLE_LINE}\niteration: 4` },
  headLedger: reserved,
  ...parts,
});

describe('an admitted verification repair', () => {
  it('carries the child SHA, the ledger with the tuple and the action records after the two attribution lines', () => {
    const body = [TUPLE_LINE, 'iteration: 4', 'ran capture (1 of 2)', 'bound spent: deploy (1 of 1)'].join(
      '\n',
    );
    expect(
      validateVerificationReturn(facts({ commit: { sha: CHILD, subject: 'fix: quote commas', body } })),
    ).toEqual({
      kind: 'admitted',
      childSha: CHILD,
      actionRecords: [
        { kind: 'ran', action: 'capture', k: 1, bound: 2, text: 'ran capture (1 of 2)' },
        { kind: 'bound-spent', action: 'deploy', k: 1, bound: 1, text: 'bound spent: deploy (1 of 1)' },
      ],
      ledger: reserved,
    });
  });

  it('a companion repair whose home status shows only a blank line is admitted (home has no other dirt)', () => {
    const companion = { target: 'verify' as const, repo: 'api', head: HEAD_BEFORE };
    const outcome = validateVerificationReturn(
      facts({
        pending: companion,
        commit: {
          sha: CHILD,
          subject: 'fix: api',
          body: `pending: verify | api | ${HEAD_BEFORE}\niteration: 4`,
        },
        headLedger: { ...saved, iterations: 4, pending: companion },
        home: { headMoved: false, unexpectedDirt: '\n' },
      }),
    );
    expect(outcome.kind).toBe('admitted');
  });

  it('names every line of other home dirt in the stop detail', () => {
    const companion = { target: 'verify' as const, repo: 'api', head: HEAD_BEFORE };
    expect(
      validateVerificationReturn(
        facts({
          pending: companion,
          home: { headMoved: false, unexpectedDirt: '?? notes.txt\n M src/web.ts\n' },
        }),
      ),
    ).toEqual({
      kind: 'home-changed',
      detail:
        'home has changes beyond the reserved ledger during the api verification repair: ?? notes.txt;  M src/web.ts',
    });
  });

  it('keeps the status column of the first dirt line (an unstaged change is not shown as staged) and skips blank lines', () => {
    const companion = { target: 'verify' as const, repo: 'api', head: HEAD_BEFORE };
    expect(
      validateVerificationReturn(
        facts({
          pending: companion,
          home: { headMoved: false, unexpectedDirt: '\n   \n M src/web.ts\nM  staged.ts\n' },
        }),
      ),
    ).toEqual({
      kind: 'home-changed',
      detail:
        'home has changes beyond the reserved ledger during the api verification repair:  M src/web.ts; M  staged.ts',
    });
  });
});

describe('a return that is not admitted', () => {
  it('without a readable commit, or without a readable ledger at HEAD', () => {
    expect(validateVerificationReturn(facts({ commit: undefined }))).toEqual({
      kind: 'not-admitted',
      reason: 'repair commit unreadable',
    });
    expect(validateVerificationReturn(facts({ headLedger: undefined }))).toEqual({
      kind: 'not-admitted',
      reason: 'ledger unreadable after repair',
    });
    expect(
      validateVerificationReturn(
        facts({ headLedger: [{ code: 'ledger.header.missing', line: 3, reason: 'no base: line' }] }),
      ),
    ).toEqual({ kind: 'not-admitted', reason: 'ledger unreadable after repair' });
  });

  it('a body that does not start with the tuple and the consumed iteration cannot be attributed', () => {
    const wrongIteration = `${TUPLE_LINE}\niteration: 3`;
    expect(
      validateVerificationReturn(facts({ commit: { sha: CHILD, subject: 'fix', body: wrongIteration } })),
    ).toEqual({
      kind: 'unattributed',
      detail: `commit body starts with "${TUPLE_LINE}" / "iteration: 3", expected "${TUPLE_LINE}" / "iteration: 4"`,
    });
    expect(validateVerificationReturn(facts({ commit: { sha: CHILD, subject: 'fix', body: '' } }))).toEqual({
      kind: 'unattributed',
      detail: `commit body starts with "" / "", expected "${TUPLE_LINE}" / "iteration: 4"`,
    });
  });

  const rowsWith = (...changed: Ledger['rows']) =>
    reserved.rows.map((r) => changed.find((c) => c.row === r.row) ?? r);
  it.each<[string, Ledger, string]>([
    ['iterations not bumped', { ...reserved, iterations: 3 }, 'repair commit changed the iterations count'],
    ['iterations bumped twice', { ...reserved, iterations: 5 }, 'repair commit changed the iterations count'],
    ['allowance raised', { ...reserved, allowance: 5 }, 'repair commit changed the allowance'],
    [
      'a row dropped',
      { ...reserved, rows: reserved.rows.slice(0, 4) },
      'repair commit changed the ledger rows',
    ],
    [
      'a row renumbered',
      { ...reserved, rows: reserved.rows.map((r) => (r.row === 3 ? { ...r, row: 6 } : r)) },
      'repair commit changed ledger row 3',
    ],
    [
      'a status',
      {
        ...reserved,
        rows: rowsWith(row(3, 'done', 0, 'npm test -- export.test.ts; 1 failing: empty report')),
      },
      'repair commit changed ledger row 3',
    ],
    [
      'attempts',
      {
        ...reserved,
        rows: rowsWith(row(2, 'failed', 2, 'npm test -- export.test.ts; 2 failing: quoted commas split')),
      },
      'repair commit changed ledger row 2',
    ],
    [
      'evidence',
      { ...reserved, rows: rowsWith(row(5, 'open', 0, 'npm test; 1 failing')) },
      'repair commit changed ledger row 5',
    ],
    [
      'a decision appended',
      { ...reserved, decisions: [...reserved.decisions, 'row 5 done | fixed during verify | continue'] },
      'repair commit changed the decisions',
    ],
    [
      'a decision removed',
      { ...reserved, decisions: reserved.decisions.slice(0, 1) },
      'repair commit changed the decisions',
    ],
    [
      'a decision rewritten',
      { ...reserved, decisions: [reserved.decisions[0] as string, 'row 2 failed | rewritten | continue'] },
      'repair commit changed the decisions',
    ],
  ])('a ledger edit (%s) is not admitted', (_what, head, reason) => {
    expect(validateVerificationReturn(facts({ headLedger: head }))).toEqual({ kind: 'not-admitted', reason });
  });
});

describe('verificationRepairAllowed (repairs < allowance, no per-row retry increments)', () => {
  const four = ledger({
    allowance: 4,
    rows: [row(1, 'done', 2, 'npm test; ok')],
    decisions: ['row 1 retry | use the fixture | allowed attempts 5'],
  });
  it.each([
    [0, true],
    [3, true],
    [4, false],
    [5, false],
  ])('%s repairs of allowance 4 -> %s', (repairs, allowed) => {
    expect(verificationRepairAllowed(four, repairs)).toBe(allowed);
  });
});
