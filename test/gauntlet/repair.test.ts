import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { parseRepairBody } from '../../src/gauntlet/commits.js';
import { checkLedger, parseLedger, serializeLedger } from '../../src/gauntlet/ledger.js';
import {
  cutRowEdit,
  emptyVerificationMarker,
  escalationEdit,
  interruptedRowRepair,
  interruptedSeedRepair,
  type LedgerEdit,
  LedgerEditError,
  ordinaryMissRepair,
  preservingAmendEdit,
  raiseAllowanceEdit,
  reopenRowEdit,
  retryEdit,
  seedMissRepair,
  verificationRepairMarker,
} from '../../src/gauntlet/repair.js';
import type { ActionRecord, Ledger, LedgerRow } from '../../src/gauntlet/types.js';
import { checkReturnBoundary, validateReturn } from '../../src/gauntlet/validate.js';
import {
  conformingOrdinary,
  conformingSeed,
  ledger,
  midLoop,
  row,
  tuple,
  unseeded,
  withRows,
} from './validation-fixtures.js';

const capture: ActionRecord = {
  kind: 'ran',
  action: 'capture',
  k: 1,
  bound: 1,
  text: 'ran capture (1 of 1)',
};

function rowOf(l: Ledger, n: number): LedgerRow {
  const found = l.rows.find((r) => r.row === n);
  if (found === undefined) throw new Error(`no row ${n}`);
  return found;
}

/** Rows that an edit is not about must come back exactly as they were. */
function expectRowsKept(before: Ledger, after: Ledger, except: number[]): void {
  for (const r of before.rows) if (!except.includes(r.row)) expect(rowOf(after, r.row)).toEqual(r);
}

function bodyLines(edit: LedgerEdit): string[] {
  return edit.body.split('\n');
}

describe('row repairs', () => {
  it('R1: an interrupted row after a silence kill becomes failed with attempts + 1 and the reason as evidence', () => {
    const saved = midLoop();
    const reason = checkReturnBoundary({
      returned: null,
      killedAfterSilence: true,
      porcelain: '',
      commitCount: 0,
    });
    expect(reason).toBe('killed after silence');
    const edit = interruptedRowRepair({
      saved,
      pending: tuple(2),
      reason: reason!,
      actionRecords: [capture],
    });
    const i = saved.iterations;
    expect(edit.subject).toBe('loop: repair row 2');
    expect(edit.ledger.iterations).toBe(i + 1);
    expect(edit.ledger.pending).toBeNull();
    expect(edit.ledger.allowance).toBe(saved.allowance);
    expect(rowOf(edit.ledger, 2)).toEqual(
      row(
        2,
        'failed',
        rowOf(saved, 2).attempts + 1,
        `iteration ${i}: interrupted - killed after silence; ran capture (1 of 1)`,
      ),
    );
    expectRowsKept(saved, edit.ledger, [2]);
    expect(edit.ledger.decisions).toEqual(saved.decisions);
    expect(bodyLines(edit)).toEqual([
      `pending: 2 | home | ${tuple(2).head}`,
      `iteration: ${i + 1}`,
      'interrupted: killed after silence',
      'ran capture (1 of 1)',
    ]);
  });

  it('R9: zero and three commits name the count as the reason', () => {
    const saved = midLoop();
    for (const count of [0, 3]) {
      const reason = checkReturnBoundary({ returned: 'DONE', porcelain: '', commitCount: count })!;
      const edit = interruptedRowRepair({ saved, pending: tuple(3), reason });
      expect(rowOf(edit.ledger, 3).evidence).toBe(
        `iteration ${saved.iterations}: interrupted - ${count} commits`,
      );
    }
  });

  it('records beyond the three-result bound stay complete in the body', () => {
    const saved = midLoop();
    const records: ActionRecord[] = ['a', 'b', 'c', 'd'].map((action) => ({
      kind: 'ran',
      action,
      k: 1,
      bound: 2,
      text: `ran ${action} (1 of 2)`,
    }));
    records.push({ kind: 'ran', action: 'a', k: 2, bound: 2, text: 'ran a (2 of 2)' });
    records.push(records[0] as ActionRecord);
    const edit = interruptedRowRepair({
      saved,
      pending: tuple(2),
      reason: 'dirty tree',
      actionRecords: records,
    });
    const segments = rowOf(edit.ledger, 2).evidence.split('; ');
    expect(segments).toEqual([
      `iteration ${saved.iterations}: interrupted - dirty tree`,
      'ran a (2 of 2)',
      'ran b (1 of 2)',
      'ran c (1 of 2)',
    ]);
    // Identical copies are one spend; every distinct record is in the body.
    expect(bodyLines(edit).slice(3)).toEqual([
      'ran a (1 of 2)',
      'ran b (1 of 2)',
      'ran c (1 of 2)',
      'ran d (1 of 2)',
      'ran a (2 of 2)',
    ]);
  });

  it('an ordinary miss restores every other row and drops the appended decisions', () => {
    const { facts, saved } = conformingOrdinary();
    const broken = {
      ...facts,
      headLedger: withRows(facts.headLedger as Ledger, row(4, 'open', 0, 'npm test; back in')),
    };
    const outcome = validateReturn(broken);
    expect(outcome.kind).toBe('miss');
    if (outcome.kind !== 'miss') return;
    const edit = ordinaryMissRepair({ saved, pending: tuple(2), miss: outcome.miss });
    expect(edit.subject).toBe('loop: repair row 2');
    expect(rowOf(edit.ledger, 2)).toEqual(
      row(2, 'failed', rowOf(saved, 2).attempts + 1, `iteration ${saved.iterations}: ${outcome.miss}`),
    );
    // Row 3's admitted-looking close and row 4's change are both discarded.
    expectRowsKept(saved, edit.ledger, [2]);
    expect(edit.ledger.decisions).toEqual(saved.decisions);
    expect(edit.ledger.iterations).toBe(saved.iterations + 1);
    expect(bodyLines(edit)[2]).toBe(`miss: ${outcome.miss}`);
  });

  it('a miss with separators stays inside one evidence segment', () => {
    const edit = ordinaryMissRepair({ saved: midLoop(), pending: tuple(5), miss: 'a; b | c\nd' });
    expect(rowOf(edit.ledger, 5).evidence).toBe('iteration 3: a, b / c d');
  });

  it('refuses a row repair for the seed or a resolved row', () => {
    expect(() => ordinaryMissRepair({ saved: midLoop(), pending: tuple('seed'), miss: 'x' })).toThrow(
      LedgerEditError,
    );
    expect(() => interruptedRowRepair({ saved: midLoop(), pending: tuple(1), reason: 'non-DONE' })).toThrow(
      /row 1: it is done/,
    );
  });
});

describe('seed repairs', () => {
  it('R5: an interrupted seed leaves every row and decision unchanged and names the reason in the body', () => {
    const saved = unseeded();
    const edit = interruptedSeedRepair({
      saved,
      pending: tuple('seed'),
      reason: 'non-DONE',
      actionRecords: [capture],
    });
    expect(edit.subject).toBe('loop: repair seed');
    expect(edit.ledger.rows).toEqual(saved.rows);
    expect(edit.ledger.decisions).toEqual(saved.decisions);
    expect(edit.ledger.iterations).toBe(saved.iterations + 1);
    expect(edit.ledger.pending).toBeNull();
    expect(bodyLines(edit)).toEqual([
      `pending: seed | home | ${tuple('seed').head}`,
      `iteration: ${saved.iterations + 1}`,
      'seed interrupted: non-DONE',
      'ran capture (1 of 1)',
    ]);
    // The seed count and its last reason are read back from this body on resume.
    expect(parseRepairBody(edit.body)).toEqual({
      pending: tuple('seed'),
      iteration: saved.iterations + 1,
      reason: { kind: 'seed-interrupted', text: 'non-DONE' },
      records: [capture],
    });
  });

  it('AS1: a capture that ran before an interrupted seed stays in the seed repair body', () => {
    const saved = unseeded();
    const reservation: ActionRecord = {
      kind: 'ran',
      action: 'capture',
      k: 1,
      bound: 1,
      text: 'ran capture 1 of 1',
    };
    const edit = interruptedSeedRepair({
      saved,
      pending: tuple('seed'),
      reason: 'killed after silence',
      actionRecords: [reservation],
    });
    // Reset removed the fixture and the ledger changes; the record survives in the body only.
    expect(edit.ledger.rows).toEqual(saved.rows);
    expect(parseRepairBody(edit.body).records.map((r) => [r.kind, r.action, r.k, r.bound])).toEqual([
      ['ran', 'capture', 1, 1],
    ]);
    expect(bodyLines(edit)).toContain('ran capture (1 of 1)');
  });

  it('a seed miss restores the saved rows and decisions (cut rows preserved) with seed miss: in the body', () => {
    const { facts, saved } = conformingSeed();
    const outcome = validateReturn({
      ...facts,
      headLedger: withRows(facts.headLedger as Ledger, row(2, 'failed', 0, 'npm test; 2 failing')),
    });
    expect(outcome.kind).toBe('miss');
    if (outcome.kind !== 'miss') return;
    const edit = seedMissRepair({ saved, pending: tuple('seed'), miss: outcome.miss });
    expect(edit.ledger.rows).toEqual(saved.rows);
    expect(rowOf(edit.ledger, 4)).toEqual(rowOf(saved, 4));
    expect(edit.ledger.decisions).toEqual(saved.decisions);
    expect(edit.ledger.iterations).toBe(saved.iterations + 1);
    expect(bodyLines(edit)[2]).toBe(`seed miss: ${outcome.miss}`);
  });

  it('refuses a seed repair for a numbered target', () => {
    expect(() => seedMissRepair({ saved: unseeded(), pending: tuple(2), miss: 'x' })).toThrow(
      LedgerEditError,
    );
  });
});

describe('verification markers', () => {
  it('the marker after an admitted repair removes only the verify tuple and records the child commit', () => {
    const closed = ledger({
      iterations: 9,
      pending: tuple('verify'),
      rows: [row(1, 'done', 1, 'npm test; passes'), row(2, 'cut', 0, 'elsewhere: api')],
      decisions: ['row 1 done | ok | none'],
    });
    const sha = 'c'.repeat(40);
    const edit = verificationRepairMarker(closed, sha, [capture]);
    expect(edit.subject).toBe('loop: repair verification');
    expect(edit.ledger).toEqual({ ...closed, pending: null });
    expect(bodyLines(edit)).toEqual([
      `pending: verify | home | ${tuple('verify').head}`,
      'iteration: 9',
      `admitted: ${sha}`,
      'ran capture (1 of 1)',
    ]);
    expect(() => verificationRepairMarker({ ...closed, pending: null }, sha)).toThrow(/pending: verify/);
  });

  it('the empty marker keeps the saved row cells and the consumed iteration', () => {
    const saved = ledger({ iterations: 9, rows: [row(1, 'done', 1, 'npm test; passes')] });
    const edit = emptyVerificationMarker({ saved, pending: tuple('verify'), reason: '2 commits' });
    expect(edit.ledger).toEqual({ ...saved, iterations: 10, pending: null });
    expect(bodyLines(edit)[2]).toBe('interrupted: 2 commits');
    expect(() => emptyVerificationMarker({ saved, pending: tuple(1), reason: 'x' })).toThrow(LedgerEditError);
  });
});

describe('human-choice edits', () => {
  it('A9: retry 3 at a 4 of 4 stop appends the retry line with the new effective allowance', () => {
    const at = ledger({
      iterations: 6,
      pending: tuple(3),
      rows: [row(3, 'failed', 4, 'smoke; unreachable: bucket - ops doc')],
      decisions: ['row 3 failed | bucket unreachable | human decision needed'],
    });
    const edit = retryEdit(at, 3, 'use the MinIO fixture');
    expect(edit.subject).toBe('loop: retry row 3');
    expect(edit.ledger.decisions.at(-1)).toBe('row 3 retry | use the MinIO fixture | allowed attempts 5');
    // The tuple is not cleared; attempts, iterations and allowance stay.
    expect(edit.ledger.pending).toEqual(tuple(3));
    expect(edit.ledger.rows).toEqual(at.rows);
    expect(edit.ledger.allowance).toBe(4);
    expect(edit.ledger.iterations).toBe(6);
    // A second retry counts once more: effective 6 whatever m was written.
    expect(retryEdit(edit.ledger, 3, 'try the stub').ledger.decisions.at(-1)).toBe(
      'row 3 retry | try the stub | allowed attempts 6',
    );
  });

  it('refuses a retry of a resolved row or with an unusable hint', () => {
    const l = midLoop();
    expect(() => retryEdit(l, 1, 'again')).toThrow(/it is done/);
    expect(() => retryEdit(l, 9, 'again')).toThrow(/no row 9/);
    expect(() => retryEdit(l, 2, ' ')).toThrow(/empty/);
    expect(() => retryEdit(l, 2, 'a | b')).toThrow(/"\|"/);
  });

  it('rows +N raises the allowance and writes the bare form with an empty words cell', () => {
    const l = midLoop();
    const bare = raiseAllowanceEdit(l, 50);
    expect(bare.subject).toBe('loop: raise allowance');
    expect(bare.ledger.allowance).toBe(54);
    expect(bare.ledger.decisions.at(-1)).toBe('rows +50 |');
    expect(raiseAllowanceEdit(l, 2, 'one more round').ledger.decisions.at(-1)).toBe(
      'rows +2 | one more round',
    );
    expect(() => raiseAllowanceEdit(l, 0)).toThrow(/positive whole N/);
    expect(() => raiseAllowanceEdit(l, 1.5)).toThrow(LedgerEditError);
  });

  it('the escalation decision is written once per row with the effective allowance', () => {
    const l = {
      ...midLoop(),
      decisions: [...midLoop().decisions, 'row 2 retry | hint | allowed attempts 5'],
    };
    const edit = escalationEdit(l, 2, 'anthropic/opus:high');
    expect(edit.subject).toBe('loop: escalate row 2');
    expect(edit.ledger.decisions.at(-1)).toBe('row 2 escalated | implModel round | allowed attempts 5');
    expect(edit.body).toContain('implModel: anthropic/opus:high');
    expect(() => escalationEdit(edit.ledger, 2)).toThrow(/already spent/);
  });

  it('M3: a deferred disposition cuts row 5 keeping its attempts, iterations and allowance', () => {
    const l = withRows(midLoop(), row(5, 'failed', 2, 'npm run smoke; upload refused'));
    const edit = cutRowEdit(l, 5, 'deferred: TRACK-9');
    expect(edit.subject).toBe('loop: cut row 5');
    expect(rowOf(edit.ledger, 5)).toEqual(row(5, 'cut', 2, 'deferred: TRACK-9'));
    expect(edit.ledger.iterations).toBe(l.iterations);
    expect(edit.ledger.allowance).toBe(l.allowance);
    expect(edit.ledger.decisions).toEqual(l.decisions);
    expectRowsKept(l, edit.ledger, [5]);
  });

  it('a cut keeps the disposition semicolons and escapes pipes; it refuses non-cut dispositions', () => {
    const l = midLoop();
    const edit = cutRowEdit(
      l,
      3,
      'deviates: unreachable in this checkout - a|b; proof at runbook',
      'auto-apply amends',
    );
    expect(rowOf(edit.ledger, 3).evidence).toBe(
      'deviates: unreachable in this checkout - a\\|b; proof at runbook',
    );
    expect(edit.body).toContain('granted');
    expect(() => cutRowEdit(l, 3, 'venue: staging - upload visible')).toThrow(/deviates/);
    expect(() => cutRowEdit(l, 4, 'deferred: x')).toThrow(/already cut/);
  });

  it('a re-bound done row reopens with the amendment evidence and keeps its attempts', () => {
    const l = withRows(midLoop(), row(1, 'done', 2, 'npm test; passes'));
    const edit = reopenRowEdit(l, 1, 'the header must include units');
    expect(edit.subject).toBe('loop: amend');
    expect(rowOf(edit.ledger, 1)).toEqual(row(1, 'open', 2, 'reopened by amendment'));
    expect(() => reopenRowEdit(l, 2)).toThrow(/only a done row/);
  });

  it('a requirement-preserving amendment leaves the ledger as it is', () => {
    const l = midLoop();
    const edit = preservingAmendEdit(l, 'clarify the date format');
    expect(edit.ledger).toBe(l);
    expect(edit.subject).toBe('loop: amend');
  });
});

// ------------------------------------------------------------------------------------------
// Properties: no repair or human-choice edit lowers attempts or iterations; only rows +N changes
// the allowance, and only upwards; human-choice edits never clear the tuple.
// ------------------------------------------------------------------------------------------

const STATUSES = ['open', 'done', 'failed', 'cut'] as const;

const arbitraryLedger = fc
  .record({
    statuses: fc.array(fc.constantFrom(...STATUSES), { minLength: 1, maxLength: 6 }),
    attempts: fc.array(fc.nat({ max: 9 }), { minLength: 6, maxLength: 6 }),
    iterations: fc.nat({ max: 40 }),
    allowance: fc.integer({ min: 1, max: 9 }),
    retries: fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 4 }),
    escalated: fc.array(fc.integer({ min: 1, max: 6 }), { maxLength: 2 }),
    pending: fc.option(fc.constantFrom<number | 'seed' | 'verify'>(1, 2, 3, 'seed', 'verify'), { nil: null }),
  })
  .map((p) =>
    ledger({
      iterations: p.iterations,
      allowance: p.allowance,
      pending: p.pending === null ? null : tuple(p.pending),
      rows: p.statuses.map((status, index) =>
        row(index + 1, status, p.attempts[index] ?? 0, status === 'open' ? '' : 'npm test; result'),
      ),
      decisions: [
        ...p.retries.map((n) => `row ${n} retry | try again | allowed attempts ${n + 90}`),
        ...p.escalated.map((n) => `row ${n} escalated | implModel round | allowed attempts 4`),
      ],
    }),
  );

type Operation = { name: string; humanChoice: boolean; apply: (l: Ledger) => LedgerEdit };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.record({ n: fc.integer({ min: 1, max: 6 }), miss: fc.string({ maxLength: 40 }) }).map(({ n, miss }) => ({
    name: 'ordinary miss',
    humanChoice: false,
    apply: (l: Ledger) => ordinaryMissRepair({ saved: l, pending: tuple(n), miss, actionRecords: [capture] }),
  })),
  fc.record({ n: fc.integer({ min: 1, max: 6 }), k: fc.nat({ max: 4 }) }).map(({ n, k }) => ({
    name: 'interrupted row',
    humanChoice: false,
    apply: (l: Ledger) => interruptedRowRepair({ saved: l, pending: tuple(n), reason: `${k} commits` }),
  })),
  fc.string({ maxLength: 40 }).map((miss) => ({
    name: 'seed miss',
    humanChoice: false,
    apply: (l: Ledger) => seedMissRepair({ saved: l, pending: tuple('seed'), miss }),
  })),
  fc.constant({
    name: 'interrupted seed',
    humanChoice: false,
    apply: (l: Ledger) => interruptedSeedRepair({ saved: l, pending: tuple('seed'), reason: 'dirty tree' }),
  }),
  fc.constant({
    name: 'verification marker',
    humanChoice: false,
    apply: (l: Ledger) => verificationRepairMarker({ ...l, pending: tuple('verify') }, 'd'.repeat(40)),
  }),
  fc.constant({
    name: 'empty verification marker',
    humanChoice: false,
    apply: (l: Ledger) => emptyVerificationMarker({ saved: l, pending: tuple('verify'), reason: 'non-DONE' }),
  }),
  fc.integer({ min: 1, max: 6 }).map((n) => ({
    name: 'retry',
    humanChoice: true,
    apply: (l: Ledger) => retryEdit(l, n, 'use the fixture'),
  })),
  fc.integer({ min: 1, max: 1000 }).map((amount) => ({
    name: 'raise',
    humanChoice: true,
    apply: (l: Ledger) => raiseAllowanceEdit(l, amount),
  })),
  fc.integer({ min: 1, max: 6 }).map((n) => ({
    name: 'escalate',
    humanChoice: true,
    apply: (l: Ledger) => escalationEdit(l, n),
  })),
  fc
    .record({
      n: fc.integer({ min: 1, max: 6 }),
      d: fc.constantFrom('deviates: out', 'deferred: T-1', 'elsewhere: api'),
    })
    .map(({ n, d }) => ({ name: 'cut', humanChoice: true, apply: (l: Ledger) => cutRowEdit(l, n, d) })),
  fc.integer({ min: 1, max: 6 }).map((n) => ({
    name: 'reopen',
    humanChoice: true,
    apply: (l: Ledger) => reopenRowEdit(l, n),
  })),
);

describe('repair and human-choice properties', () => {
  it('never lower attempts or iterations, never change the allowance except a raise upwards', () => {
    let applied = 0;
    let checked = 0;
    fc.assert(
      fc.property(arbitraryLedger, operation, (before, op) => {
        let edit: LedgerEdit;
        try {
          edit = op.apply(before);
        } catch (error) {
          // A refused edit must say why by name, never crash.
          expect(error).toBeInstanceOf(LedgerEditError);
          return;
        }
        applied += 1;
        const after = edit.ledger;
        expect(after.iterations).toBeGreaterThanOrEqual(before.iterations);
        for (const r of before.rows) expect(rowOf(after, r.row).attempts).toBeGreaterThanOrEqual(r.attempts);
        expect(after.rows.map((r) => r.row)).toEqual(before.rows.map((r) => r.row));
        if (op.name === 'raise') expect(after.allowance).toBeGreaterThan(before.allowance);
        else expect(after.allowance).toBe(before.allowance);
        if (op.humanChoice) {
          expect(after.pending).toEqual(before.pending);
          expect(after.iterations).toBe(before.iterations);
        } else expect(after.pending).toBeNull();
        // A valid ledger stays valid, and survives a write and a read.
        if (checkLedger(before).length === 0) {
          checked += 1;
          expect(checkLedger(after)).toEqual([]);
          expect(parseLedger(serializeLedger(after)).ledger).toMatchObject({
            rows: after.rows,
            decisions: after.decisions,
          });
        }
        // Prior decisions are never rewritten.
        expect(after.decisions.slice(0, before.decisions.length)).toEqual(before.decisions);
        expect(edit.subject).toMatch(/^loop: /);
      }),
      { numRuns: 2000 },
    );
    expect(applied).toBeGreaterThan(500);
    expect(checked).toBeGreaterThan(500);
  });
});
