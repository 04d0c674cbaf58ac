/**
 * The scripted child's commits, judged by the loop's own validation: every valid behaviour is
 * admitted, every named violation is exactly one validation miss.
 */

import { describe, expect, it } from 'vitest';
import { childTask, type DispatchPlan, planDispatch } from '../../src/gauntlet/dispatch.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import { validateReturn } from '../../src/gauntlet/validate.js';
import { recordsFromLines } from '../../src/host/carried-records.js';
import { type Behaviour, CONTRACT_VIOLATIONS } from '../../src/host/child-script.js';
import { scriptedCommit } from '../../src/host/scripted-return.js';
import { API_BASE, coordinatedLedgerText, HOME_BASE, parsedLedger } from '../support/legs-fixtures.js';

const HEAD = 'a'.repeat(40);
const BASE = 'b'.repeat(40);

function ledger(rows: Ledger['rows'], decisions: string[] = []): Ledger {
  return {
    discriminant: '# Loop ledger',
    spec: 'docs/specs/feature.md',
    base: BASE,
    verification: 'npm test',
    checks: 'commands',
    iterations: 3,
    allowance: 4,
    pending: null,
    rows,
    decisions,
  };
}

const afterSeed = ledger(
  [
    { row: 1, status: 'failed', attempts: 1, evidence: 'check; 1 failing' },
    { row: 2, status: 'open', attempts: 0, evidence: 'check; not yet' },
    { row: 3, status: 'cut', attempts: 0, evidence: 'deviates: not needed' },
  ],
  [
    'row 0 done | seeded 2 rows, closed 0 on baseline | row 1',
    'row 1 failed | attempt 1 failed: 1 failing | retry',
  ],
);
const beforeSeed = ledger([
  { row: 1, status: 'open', attempts: 0, evidence: '' },
  { row: 2, status: 'open', attempts: 0, evidence: '' },
  { row: 3, status: 'cut', attempts: 0, evidence: 'deviates: not needed' },
]);

function judge(plan: DispatchPlan, behaviour: Behaviour, jobsFileRecords: readonly string[] = []) {
  const task = childTask(plan, {
    worktree: '/w',
    ledger: 'docs/plans/feature.md',
    spec: 'docs/specs/feature.md',
    returnFile: '/r',
    jobsFile: '/j',
  });
  const carried =
    behaviour.do === 'miss' && behaviour.violation === 'dropped-spend'
      ? []
      : 'spend' in behaviour
        ? (behaviour.spend ?? [])
        : [];
  const commit = scriptedCommit(
    plan.reserved,
    task,
    behaviour as Parameters<typeof scriptedCommit>[2],
    carried,
  );
  return validateReturn({
    target: plan.target as number | 'seed',
    iteration: plan.iteration,
    pending: plan.pending,
    saved: plan.saved,
    boundary: { returned: 'DONE', porcelain: '', commitCount: 1 },
    commit: { subject: commit.subject, body: commit.body },
    headLedger: commit.ledger ?? plan.reserved,
    retainedActionRecords: recordsFromLines(jobsFileRecords),
  });
}

const rowPlan = planDispatch({ ledger: afterSeed, target: 1, head: HEAD });
const seedPlan = planDispatch({ ledger: beforeSeed, target: 'seed', head: HEAD });

describe('scripted commits are valid by construction', () => {
  it('admits a seed that gives evidence and closes a row on the baseline', () => {
    const outcome = judge(seedPlan, {
      do: 'seed',
      evidence: { '1': 'check; passes', '2': 'check; 1 failing' },
      closeOnBaseline: [1],
    });
    expect(outcome.kind).toBe('admitted');
    if (outcome.kind === 'admitted')
      expect(outcome.decision).toBe('row 0 done | seeded 2 rows, closed 1 on baseline | row 2');
  });

  it("names the seed leg's own first open row, never another leg's (docs/decisions/legs.md L24)", () => {
    // §1.8's mapping: rows 1 and 2 are web's, rows 3 and 4 api's; no leg seeded yet.
    const ledger = parsedLedger(
      coordinatedLedgerText({
        members: [
          { name: 'web', base: HOME_BASE, seeded: false },
          { name: 'api', base: API_BASE, seeded: false },
        ],
        rows: ['| 1 | open | 0 |  |', '| 2 | open | 0 |  |', '| 3 | open | 0 |  |', '| 4 | open | 0 |  |'],
      }),
    );
    const decisionOf = (member: 'web' | 'api', behaviour: Behaviour) => {
      const plan = planDispatch({
        ledger,
        target: 'seed',
        head: member === 'web' ? HOME_BASE : API_BASE,
        repo: member,
      });
      const task = childTask(
        plan,
        { worktree: '/w', ledger: 'l', spec: 's', returnFile: '/r', jobsFile: '/j' },
        { leg: { member, companion: member === 'api', home: '/h', homeLedger: '/h/l', homeSpec: '/h/s' } },
      );
      const commit = scriptedCommit(plan.reserved, task, behaviour as Parameters<typeof scriptedCommit>[2]);
      return commit.ledger?.decisions.at(-1);
    };
    // api closes row 4 on the baseline: its first open row is row 3 (row 1, open, is web's).
    expect(
      decisionOf('api', {
        do: 'seed',
        evidence: { '3': 'check; 1 failing', '4': 'check; passes' },
        closeOnBaseline: [4],
      }),
    ).toBe('row 0 done | seeded 2 rows, closed 1 on baseline | row 3');
    // web closes both its rows: none of web's is left (rows 3 and 4 are api's).
    expect(
      decisionOf('web', {
        do: 'seed',
        evidence: { '1': 'check; passes', '2': 'check; passes' },
        closeOnBaseline: [1, 2],
      }),
    ).toBe('row 0 done | seeded 2 rows, closed 2 on baseline | none');
    // A seed scripted without evidence gives its own leg's first open row the evidence.
    expect(decisionOf('api', { do: 'done', evidence: 'check; 1 failing' })).toBe(
      'row 0 done | seeded 1 rows, closed 0 on baseline | row 3',
    );
  });

  it('admits a done target with a done extra, and a failed target', () => {
    const done = judge(rowPlan, {
      do: 'done',
      evidence: 'check; 2 passed',
      extras: [{ row: 2, evidence: 'check; passes' }],
    });
    expect(done.kind).toBe('admitted');
    if (done.kind === 'admitted')
      expect(done.changedRows.map((c) => [c.row, c.after.status])).toEqual([
        [1, 'done'],
        [2, 'done'],
      ]);
    const failed = judge(rowPlan, { do: 'failed', evidence: 'check; unreachable: prod DNS - runbook' });
    expect(failed.kind).toBe('admitted');
    if (failed.kind === 'admitted') expect(failed.routeUnreachable).toBe(true);
  });

  it('repeats carried action records in the decision so that none is dropped', () => {
    const carrying = planDispatch({
      ledger: {
        ...afterSeed,
        rows: afterSeed.rows.map((r) =>
          r.row === 1 ? { ...r, evidence: 'check; ran capture (1 of 1)' } : r,
        ),
      },
      target: 1,
      head: HEAD,
    });
    const task = childTask(
      carrying,
      { worktree: '/w', ledger: 'l', spec: 's', returnFile: '/r', jobsFile: '/j' },
      { actionRecords: [{ kind: 'ran', action: 'capture', k: 1, bound: 1, text: 'ran capture (1 of 1)' }] },
    );
    const commit = scriptedCommit(carrying.reserved, task, {
      do: 'failed',
      evidence: 'check; still failing',
    });
    const outcome = validateReturn({
      target: 1,
      iteration: carrying.iteration,
      pending: carrying.pending,
      saved: carrying.saved,
      boundary: { returned: 'DONE', porcelain: '', commitCount: 1 },
      commit,
      headLedger: commit.ledger as Ledger,
    });
    expect(outcome.kind).toBe('admitted');
  });

  it('makes every named violation exactly one validation miss', () => {
    const codes = Object.fromEntries(
      CONTRACT_VIOLATIONS.filter((v) => v !== 'seed-miscount' && v !== 'dropped-spend').map((violation) => {
        const outcome = judge(rowPlan, { do: 'miss', violation });
        return [violation, outcome.kind === 'miss' ? outcome.code : outcome.kind];
      }),
    );
    expect(codes).toEqual({
      'header-change': 'miss.header',
      'malformed-decision': 'miss.decision-malformed',
      'four-result-lines': 'miss.evidence',
      'keep-pending': 'miss.tuple-retained',
      'no-attempt': 'miss.target',
      'failed-extra': 'miss.extra',
      'missing-decision': 'miss.decision-missing',
      'wrong-subject': 'miss.subject',
      'removed-decision': 'miss.decisions',
    });
    const seed = judge(seedPlan, { do: 'miss', violation: 'seed-miscount' });
    expect(seed.kind === 'miss' ? seed.code : seed.kind).toBe('miss.seed-decision');
  });

  it('drops a spend from the ledger on request: a miss once the jobs-file record is retained', () => {
    const record = 'ran capture (1 of 1)';
    const behaviour: Behaviour = { do: 'miss', violation: 'dropped-spend', spend: [record] };
    // Without the jobs-file record the ledger itself conforms ...
    expect(judge(rowPlan, behaviour).kind).toBe('admitted');
    // ... and with it, as readBoundary retains it, the return is a miss naming the record.
    const outcome = judge(rowPlan, behaviour, [record]);
    expect(outcome.kind === 'miss' ? outcome.code : outcome.kind).toBe('miss.action-record-dropped');
    // A child that keeps its spend is admitted with the same retained record.
    expect(judge(rowPlan, { do: 'done', evidence: 'check; ok', spend: [record] }, [record]).kind).toBe(
      'admitted',
    );
  });

  it('misattributes a commit on request, which the loop cannot attribute to the dispatch', () => {
    expect(judge(rowPlan, { do: 'done', evidence: 'check; ok', attribution: 'wrong-iteration' }).kind).toBe(
      'unattributed',
    );
    expect(judge(rowPlan, { do: 'done', evidence: 'check; ok', attribution: 'missing' }).kind).toBe(
      'unattributed',
    );
  });
});
