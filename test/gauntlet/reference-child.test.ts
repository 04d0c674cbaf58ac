/**
 * The reference child's commit for each kind of dispatch, in process. Every expected ledger,
 * subject and body is written out by hand from gauntlet-protocol §1.5 (decision grammars), §1.6
 * (the body's first two lines are the exact tuple and `iteration: <i + 1>`), §2 (child subjects and
 * what each commit changes) and §3.10 (what an admitted seed and ordinary return change), and from
 * the named contract violations the reference child documents: each one breaks exactly one rule of
 * an otherwise conforming return.
 */
import { describe, expect, it } from 'vitest';
import { type DispatchPlan, planDispatch } from '../../src/gauntlet/dispatch.js';
import { type ContractViolation, referenceChildReturn } from '../../src/gauntlet/reference-child.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import { HEAD_BEFORE, ledger, midLoop, row } from './validation-fixtures.js';

/** The body every child commit of these plans starts with: the tuple, then the consumed count. */
const body = (target: string, consumed: number) =>
  `pending: ${target} | home | ${HEAD_BEFORE}\niteration: ${consumed}`;

/** The reserved ledger after the child's commit: bumped, tuple removed, these rows and decisions. */
const committedAs = (saved: Ledger, rows: Ledger['rows'], decisions: readonly string[]): Ledger => ({
  ...saved,
  iterations: saved.iterations + 1,
  pending: null,
  rows,
  decisions: [...saved.decisions, ...decisions],
});

// midLoop (iterations 3): row 1 done, 2 failed (1 attempt), 3 open, 4 cut, 5 open.
const MID_ROWS = midLoop().rows;
/** midLoop's rows with these rows replaced. */
const midRowsWith = (...changed: Ledger['rows']) =>
  MID_ROWS.map((r) => changed.find((c) => c.row === r.row) ?? r);
const numbered = (target: number): DispatchPlan =>
  planDispatch({ ledger: midLoop(), target, head: HEAD_BEFORE, previousDecision: 'none' });

// A ledger before its seed whose first row is cut, so "the first open row" is row 2.
const CUT_FIRST = ledger({
  iterations: 1,
  rows: [
    row(1, 'cut', 0, 'deferred: TRACK-7'),
    row(2, 'open', 0, ''),
    row(3, 'open', 0, ''),
    row(4, 'open', 0, ''),
  ],
});
/** CUT_FIRST's rows with these rows replaced. */
const cutFirstWith = (...changed: Ledger['rows']) =>
  CUT_FIRST.rows.map((r) => changed.find((c) => c.row === r.row) ?? r);
const seedPlan = (): DispatchPlan => planDispatch({ ledger: CUT_FIRST, target: 'seed', head: HEAD_BEFORE });

describe('a conforming numbered return', () => {
  it('closes the target (status, attempts + 1, evidence) and an extra beside it, one decision each, target first', () => {
    const result = referenceChildReturn(numbered(3), {
      kind: 'done',
      evidence: 'npm test -- export.test.ts; 4 passed',
      extras: [{ row: 5, evidence: 'npm test -- export.test.ts; totals row written' }],
    });
    expect(result).toEqual({
      ledger: committedAs(
        midLoop(),
        midRowsWith(
          row(3, 'done', 1, 'npm test -- export.test.ts; 4 passed'),
          row(5, 'done', 0, 'npm test -- export.test.ts; totals row written'),
        ),
        ['row 3 done | attempt 1 done | continue', 'row 5 done | closed beside the target | continue'],
      ),
      subject: 'loop: row 3 done',
      body: body('3', 4),
    });
  });

  it('records a failed attempt on a row that already has one: attempts 1 -> 2', () => {
    const result = referenceChildReturn(numbered(2), {
      kind: 'failed',
      evidence: 'npm test -- export.test.ts; 1 failing: quoted commas split',
    });
    expect(result).toEqual({
      ledger: committedAs(
        midLoop(),
        midRowsWith(row(2, 'failed', 2, 'npm test -- export.test.ts; 1 failing: quoted commas split')),
        ['row 2 failed | attempt 2 failed | continue'],
      ),
      subject: 'loop: row 2 failed',
      body: body('2', 4),
    });
  });
});

describe('a conforming seed return', () => {
  it('gives evidence, closes the baseline rows and names the first row left open (a cut row is never taken)', () => {
    const result = referenceChildReturn(seedPlan(), {
      kind: 'seed',
      evidence: { 2: 'npm test; header already written on baseline', 3: 'npm test; 1 failing' },
      closeOnBaseline: [2],
    });
    expect(result).toEqual({
      ledger: committedAs(
        CUT_FIRST,
        cutFirstWith(
          row(2, 'done', 0, 'npm test; header already written on baseline'),
          row(3, 'open', 0, 'npm test; 1 failing'),
        ),
        ['row 0 done | seeded 2 rows, closed 1 on baseline | row 3'],
      ),
      subject: 'loop: seed evidence',
      body: body('seed', 2),
    });
  });

  it('names none when every row it could take is closed on the baseline', () => {
    const saved = ledger({ rows: [row(1, 'cut', 0, 'deferred: TRACK-7'), row(2, 'open', 0, '')] });
    const result = referenceChildReturn(planDispatch({ ledger: saved, target: 'seed', head: HEAD_BEFORE }), {
      kind: 'seed',
      evidence: { 2: 'npm test; passes on baseline' },
      closeOnBaseline: [2],
    });
    expect(result.ledger.rows).toEqual([
      row(1, 'cut', 0, 'deferred: TRACK-7'),
      row(2, 'done', 0, 'npm test; passes on baseline'),
    ]);
    expect(result.ledger.decisions).toEqual(['row 0 done | seeded 1 rows, closed 1 on baseline | none']);
    expect(result.body).toBe(body('seed', 1));
  });
});

describe('behaviours that do not fit the dispatch', () => {
  it('refuses a verification repair, a seed without a seed behaviour, a row with one, and a missing row', () => {
    const verify = planDispatch({ ledger: midLoop(), target: 'verify', head: HEAD_BEFORE });
    expect(() => referenceChildReturn(verify, { kind: 'done', evidence: 'x; y' })).toThrow(
      /^the reference child does not do verification repairs$/,
    );
    expect(() => referenceChildReturn(seedPlan(), { kind: 'done', evidence: 'x; y' })).toThrow(
      /^a seed dispatch needs a seed behaviour$/,
    );
    expect(() => referenceChildReturn(numbered(3), { kind: 'seed', evidence: { 3: 'x; y' } })).toThrow(
      /^a numbered dispatch needs a done or failed behaviour$/,
    );
    expect(() => referenceChildReturn(numbered(9), { kind: 'failed', evidence: 'x; y' })).toThrow(
      /^the ledger has no row 9$/,
    );
  });
});

/*
 * Each violation on row target 2 (failed, 1 attempt). The conforming part: row 2 failed with
 * attempts 2 and evidence `check; still failing`, decision `row 2 failed | attempt failed | continue`,
 * subject `loop: row 2 failed`.
 */
describe('contract violations on a numbered target', () => {
  const saved = midLoop();
  const failed2 = row(2, 'failed', 2, 'check; still failing');
  const decision = 'row 2 failed | attempt failed | continue';
  const rowsWith = midRowsWith;
  const violate = (violation: ContractViolation) =>
    referenceChildReturn(numbered(2), { kind: 'violate', violation });
  const expected = (ledgerAfter: Ledger) => ({
    ledger: ledgerAfter,
    subject: 'loop: row 2 failed',
    body: body('2', 4),
  });

  it.each<[ContractViolation, Ledger]>([
    ['allowance-change', { ...committedAs(saved, rowsWith(failed2), [decision]), allowance: 5 }],
    [
      'long-decision',
      committedAs(saved, rowsWith(failed2), [`row 2 failed | ${'x'.repeat(201)} | continue`]),
    ],
    [
      'four-results',
      committedAs(saved, rowsWith({ ...failed2, evidence: 'check; r1; r2; r3; r4' }), [decision]),
    ],
    [
      'keep-pending',
      {
        ...committedAs(saved, rowsWith(failed2), [decision]),
        pending: { target: 2, repo: 'home', head: HEAD_BEFORE },
      },
    ],
    ['no-attempt', committedAs(saved, rowsWith({ ...failed2, attempts: 1 }), [decision])],
    // the foreign row closed as failed is the first other open row, 3
    ['failed-extra', committedAs(saved, rowsWith(failed2, row(3, 'failed', 0, 'x; y')), [decision])],
  ])('%s breaks only its rule', (violation, ledgerAfter) => {
    expect(violate(violation)).toEqual(expected(ledgerAfter));
  });

  it('failed-extra on an open target closes the next other open row, never the target', () => {
    // target 3 is the first open row; the foreign row is 5 (row 4 is cut)
    const result = referenceChildReturn(numbered(3), { kind: 'violate', violation: 'failed-extra' });
    expect(result).toEqual({
      ledger: committedAs(
        saved,
        rowsWith(row(3, 'failed', 1, 'check; still failing'), row(5, 'failed', 0, 'x; y')),
        ['row 3 failed | attempt failed | continue'],
      ),
      subject: 'loop: row 3 failed',
      body: body('3', 4),
    });
  });
});

/*
 * Each violation on a seed dispatch of CUT_FIRST: the row it seeds is the first open row (2).
 * Conforming part: row 2 gets evidence `check; seeded` (attempts stay 0), the decision
 * `row 0 done | seeded 1 rows, closed 0 on baseline | row 2`, subject `loop: seed evidence`.
 */
describe('contract violations on a seed', () => {
  const seeded2 = row(2, 'open', 0, 'check; seeded');
  const decision = 'row 0 done | seeded 1 rows, closed 0 on baseline | row 2';
  const rowsWith = cutFirstWith;
  const expected = (ledgerAfter: Ledger) => ({
    ledger: ledgerAfter,
    subject: 'loop: seed evidence',
    body: body('seed', 2),
  });

  it.each<[ContractViolation, Ledger]>([
    ['allowance-change', { ...committedAs(CUT_FIRST, rowsWith(seeded2), [decision]), allowance: 5 }],
    [
      'long-decision',
      committedAs(CUT_FIRST, rowsWith(seeded2), [`row 2 failed | ${'x'.repeat(201)} | continue`]),
    ],
    [
      'four-results',
      committedAs(CUT_FIRST, rowsWith({ ...seeded2, evidence: 'check; r1; r2; r3; r4' }), [decision]),
    ],
    [
      'keep-pending',
      {
        ...committedAs(CUT_FIRST, rowsWith(seeded2), [decision]),
        pending: { target: 'seed', repo: 'home', head: HEAD_BEFORE },
      },
    ],
    // a seed never touches attempts, so the seed's no-attempt return is the conforming ledger
    ['no-attempt', committedAs(CUT_FIRST, rowsWith(seeded2), [decision])],
    // V3: the seeded row itself is marked failed, and the next open row (3) is closed failed
    [
      'failed-extra',
      committedAs(CUT_FIRST, rowsWith({ ...seeded2, status: 'failed' }, row(3, 'failed', 0, 'x; y')), [
        decision,
      ]),
    ],
  ])('%s breaks only its rule', (violation, ledgerAfter) => {
    expect(referenceChildReturn(seedPlan(), { kind: 'violate', violation })).toEqual(expected(ledgerAfter));
  });
});
