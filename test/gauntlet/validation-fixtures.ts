/**
 * Ledgers and child returns for the validation, repair and human-stop tests, built as plain
 * `Ledger` objects so these tests do not depend on the ledger parser.
 */

import type { Ledger, LedgerRow, PendingTuple, RowStatus } from '../../src/gauntlet/types.js';
import type { ReturnFacts } from '../../src/gauntlet/validate.js';

export const BASE = '1111111111111111111111111111111111111111';
export const HEAD_BEFORE = '2222222222222222222222222222222222222222';

export function row(n: number, status: RowStatus, attempts: number, evidence: string): LedgerRow {
  return { row: n, status, attempts, evidence };
}

export function ledger(parts: Partial<Ledger> = {}): Ledger {
  return {
    discriminant: '# Loop ledger',
    spec: 'doc/specs/2026-01-05-report-export.md',
    base: BASE,
    verification: 'npm test',
    checks: 'commands',
    iterations: 0,
    allowance: 4,
    pending: null,
    rows: [],
    decisions: [],
    ...parts,
  };
}

/** A ledger before its seed: five rows, row 4 cut by a deferred disposition. */
export function unseeded(): Ledger {
  return ledger({
    rows: [
      row(1, 'open', 0, ''),
      row(2, 'open', 0, ''),
      row(3, 'open', 0, ''),
      row(4, 'cut', 0, 'deferred: TRACK-7'),
      row(5, 'open', 0, ''),
    ],
  });
}

/** A seeded ledger in the middle of the loop (iteration 3 consumed). */
export function midLoop(): Ledger {
  return ledger({
    iterations: 3,
    rows: [
      row(1, 'done', 0, 'npm test -- export.test.ts; header already written on baseline'),
      row(2, 'failed', 1, 'npm test -- export.test.ts; 2 failing: quoted commas split'),
      row(3, 'open', 0, 'npm test -- export.test.ts; 1 failing: empty report'),
      row(4, 'cut', 0, 'deferred: TRACK-7'),
      row(5, 'open', 0, ''),
    ],
    decisions: [
      'row 0 done | seeded 3 rows, closed 1 on baseline | row 2',
      'row 2 failed | commas inside quoted fields split the cell | quote fields before joining',
    ],
  });
}

export function tuple(target: number | 'seed' | 'verify'): PendingTuple {
  return { target, repo: 'home', head: HEAD_BEFORE };
}

export function withRows(base: Ledger, ...rows: LedgerRow[]): Ledger {
  return { ...base, rows: base.rows.map((r) => rows.find((c) => c.row === r.row) ?? r) };
}

/** The commit body a conforming child writes: tuple line, consumed iteration, then free text. */
export function attributedBody(saved: Ledger, pending: PendingTuple, rest = 'ran the export tests'): string {
  return `pending: ${String(pending.target)} | ${pending.repo} | ${pending.head}\niteration: ${saved.iterations + 1}\n\n${rest}`;
}

/** The ledger a child commits: the saved one bumped, tuple removed, with the given edits. */
export function committed(saved: Ledger, edit: (l: Ledger) => Ledger): Ledger {
  return edit({ ...saved, iterations: saved.iterations + 1, pending: null });
}

/** Facts of a clean one-commit return. */
export function cleanReturn(
  saved: Ledger,
  target: number | 'seed',
  head: Ledger,
  subject: string,
  extra: Partial<ReturnFacts> = {},
): ReturnFacts {
  const pending = tuple(target);
  return {
    target,
    iteration: saved.iterations,
    pending,
    saved,
    boundary: { returned: 'DONE', porcelain: '', commitCount: 1 },
    commit: { subject, body: attributedBody(saved, pending) },
    headLedger: head,
    ...extra,
  };
}

/** A conforming ordinary return on midLoop(): target 2 fails again, row 3 closes beside it. */
export function conformingOrdinary(): { saved: Ledger; head: Ledger; facts: ReturnFacts } {
  const saved = midLoop();
  const head = committed(saved, (l) => ({
    ...withRows(
      l,
      row(2, 'failed', 2, 'npm test -- export.test.ts; 1 failing: quote inside quoted field'),
      row(3, 'done', 0, 'npm test -- export.test.ts; empty report writes the header'),
    ),
    decisions: [
      ...l.decisions,
      'row 2 failed | doubled quotes are still not escaped | escape quotes by doubling them',
      'row 3 done | the empty report now writes its header row | take row 2 next',
    ],
  }));
  return { saved, head, facts: cleanReturn(saved, 2, head, 'loop: row 2 failed') };
}

/** A conforming seed return on unseeded(): rows 1, 2, 3, 5 get evidence, row 1 closes on baseline. */
export function conformingSeed(): { saved: Ledger; head: Ledger; facts: ReturnFacts } {
  const saved = unseeded();
  const head = committed(saved, (l) => ({
    ...withRows(
      l,
      row(1, 'done', 0, 'npm test -- export.test.ts; header already written on baseline'),
      row(2, 'open', 0, 'npm test -- export.test.ts; 2 failing: quoted commas split'),
      row(3, 'open', 0, 'npm test -- export.test.ts; 1 failing: empty report'),
      row(5, 'open', 0, 'npm run smoke; upload step not reached'),
    ),
    decisions: [...l.decisions, 'row 0 done | seeded 4 rows, closed 1 on baseline | row 2'],
  }));
  return { saved, head, facts: cleanReturn(saved, 'seed', head, 'loop: seed evidence') };
}
