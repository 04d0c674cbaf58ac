/**
 * The history replay reads the commits the parent actually writes: the repair and human-choice
 * edits of src/gauntlet/repair.ts. A format drift between the writer and the reader fails here.
 */
import { describe, expect, it } from 'vitest';
import { rowHistoryOf } from '../../src/gauntlet/history.js';
import {
  cutRowEdit,
  emptyVerificationMarker,
  interruptedRowRepair,
  interruptedSeedRepair,
  type LedgerEdit,
  ordinaryMissRepair,
  raiseAllowanceEdit,
  retryEdit,
  seedMissRepair,
} from '../../src/gauntlet/repair.js';
import { evaluateRules } from '../../src/gauntlet/rules.js';
import type { ActionRecord, Ledger, PendingTuple } from '../../src/gauntlet/types.js';
import { LEDGER_PATH, ledgerOf, RunBuilder, SOURCE_PATH, seededRun } from './rules-fixtures.js';

function apply(run: RunBuilder, edit: LedgerEdit): void {
  run.ledger = edit.ledger;
  run.commit(edit.subject, edit.body, [LEDGER_PATH]);
}

/** Saves the ledger, writes the tuple, lets the child commit `childLedger` (or nothing), returns the saved copy and tuple. */
function dispatch(
  run: RunBuilder,
  target: number | 'seed' | 'verify',
  childSubject: string | null,
  childLedger?: (saved: Ledger) => Ledger,
): { saved: Ledger; pending: PendingTuple } {
  const saved = run.ledger;
  const pending: PendingTuple = { target, repo: 'home', head: run.head() };
  if (childSubject !== null) {
    const body = `pending: ${target} | home | ${pending.head}\niteration: ${saved.iterations + 1}`;
    const ledger = { ...(childLedger?.(saved) ?? saved), iterations: saved.iterations + 1 };
    run.commit(childSubject, body, [LEDGER_PATH, SOURCE_PATH], ledger);
  }
  return { saved, pending };
}

const capture: ActionRecord = {
  kind: 'ran',
  action: 'capture',
  k: 1,
  bound: 2,
  text: 'ran capture (1 of 2)',
};

describe('history over the parent’s own repair commits', () => {
  it('counts seed repairs and keeps their reasons', () => {
    const run = new RunBuilder(
      ledgerOf({
        rows: [
          ['open', 0],
          ['open', 0],
        ],
      }),
    );
    apply(
      run,
      seedMissRepair({ ...dispatch(run, 'seed', 'loop: seed evidence'), miss: 'fabricated counts' }),
    );
    apply(
      run,
      interruptedSeedRepair({
        ...dispatch(run, 'seed', null),
        reason: 'killed after silence',
        actionRecords: [capture],
      }),
    );
    const history = run.history();
    expect(history.seedRepairCount).toBe(2);
    expect(history.lastSeedRepairReason).toBe('seed interrupted: killed after silence');
    expect(history.actionSpend.map((s) => [s.action, s.k])).toEqual([['capture', 1]]);
    expect(run.ledger.iterations).toBe(2);
  });

  it('reads ordinary misses and interruptions apart (A11) and builds the contract hint', () => {
    const run = seededRun(3);
    const childDone = (saved: Ledger) => ({
      ...saved,
      rows: saved.rows.map((r) =>
        r.row === 2 ? { ...r, status: 'done' as const, attempts: r.attempts + 1 } : r,
      ),
    });
    apply(
      run,
      ordinaryMissRepair({
        ...dispatch(run, 2, 'loop: row 2 done', childDone),
        miss: 'no decision for row 2',
      }),
    );
    apply(run, interruptedRowRepair({ ...dispatch(run, 2, null), reason: 'dirty tree' }));
    apply(
      run,
      ordinaryMissRepair({
        ...dispatch(run, 2, 'loop: row 2 done', childDone),
        miss: 'attempts +2 on row 2',
      }),
    );
    const history = run.history();
    expect(rowHistoryOf(history, 2)).toMatchObject({
      validationMissStreak: 2,
      lastConcreteMiss: 'attempts +2 on row 2',
    });
    expect(history.previousDecision).toBeNull();
    expect(evaluateRules({ ledger: run.ledger, history, escalateAfter: 9 })).toMatchObject({
      kind: 'dispatch-row',
      row: 2,
      hint: 'two returns broke the contract: attempts +2 on row 2',
      previousDecision: 'none',
    });
  });

  it('a retry written by the parent restarts windows and becomes the pending hint', () => {
    const run = seededRun(3).child(3, 'failed');
    run.child(3, 'failed', { paths: [LEDGER_PATH] }).child(3, 'failed', { paths: [LEDGER_PATH] });
    run.child(3, 'failed', { paths: [LEDGER_PATH] });
    expect(evaluateRules({ ledger: run.ledger, history: run.history(), escalateAfter: 2 })).toMatchObject({
      kind: 'row-stop',
      row: 3,
    });
    apply(run, retryEdit(run.ledger, 3, 'use the local MinIO fixture'));
    const outcome = evaluateRules({ ledger: run.ledger, history: run.history(), escalateAfter: 2 });
    expect(outcome).toMatchObject({
      kind: 'dispatch-row',
      row: 3,
      effectiveAllowance: 5,
      hint: 'use the local MinIO fixture',
      hintSource: 'human-retry',
      rule3: null,
    });
  });

  it('a raise answers a bound-spent admission; a cut answers it too', () => {
    const raised = seededRun(2).child(2, 'failed', { evidence: 'deploy; bound spent: deploy (1 of 1)' });
    apply(raised, raiseAllowanceEdit(raised.ledger, 2));
    expect(raised.history().latestAdmission?.answeredBy?.subject).toBe('loop: raise allowance');

    const cut = seededRun(2).child(2, 'failed', { evidence: 'e2e; unreachable: prod DNS - runbook' });
    apply(
      cut,
      cutRowEdit(cut.ledger, 2, 'deviates: unreachable in this checkout - prod DNS; proof at runbook'),
    );
    expect(cut.history().latestAdmission?.answeredBy?.subject).toBe('loop: cut row 2');
  });

  it('an empty verification marker counts one repair and matches its tuple', () => {
    const run = seededRun(1).child(1, 'done');
    const tuple = run.pending('verify');
    const saved = { ...run.ledger, iterations: run.ledger.iterations - 1, pending: null };
    apply(run, emptyVerificationMarker({ saved, pending: tuple, reason: 'killed after silence' }));
    expect(run.history().verificationRepairs).toBe(1);
  });
});
