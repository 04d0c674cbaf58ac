/**
 * The child tools' pure ledger edits: a recorded return is admitted by the loop's own validation,
 * and every request the contract forbids is refused with its named error before anything is
 * written. Expected cells and lines are written by hand from docs/child-contract.md.
 */
import { describe, expect, it } from 'vitest';
import {
  ChildEditError,
  childCommitMessage,
  escapeLonePipes,
  recordRowOutcome,
  recordSeed,
  recordsToRepeat,
  spendLine,
} from '../../src/gauntlet/child-edits.js';
import { childTask, type DispatchPlan, planDispatch } from '../../src/gauntlet/dispatch.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import { validateReturn } from '../../src/gauntlet/validate.js';
import { recordsFromLines } from '../../src/host/carried-records.js';

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
    { row: 4, status: 'done', attempts: 1, evidence: 'check; passes' },
  ],
  ['row 0 done | seeded 3 rows, closed 0 on baseline | row 1', 'row 1 failed | attempt 1 failed | retry'],
);
const beforeSeed = ledger([
  { row: 1, status: 'open', attempts: 0, evidence: '' },
  { row: 2, status: 'open', attempts: 0, evidence: '' },
  { row: 3, status: 'cut', attempts: 0, evidence: 'deviates: not needed' },
]);

const paths = { worktree: '/w', ledger: 'l.md', spec: 's.md', returnFile: '/r', jobsFile: '/j' };

function taskOf(plan: DispatchPlan, actionRecords: string[] = []) {
  return childTask(plan, paths, { actionRecords: recordsFromLines(actionRecords) });
}

/** The loop's verdict on committing `edited` with the tool's commit message. */
function judge(plan: DispatchPlan, edited: Ledger, spent: string[] = [], carried: string[] = []) {
  const task = taskOf(plan, carried);
  const message = childCommitMessage(task, edited, spent);
  return validateReturn({
    target: plan.target as number | 'seed',
    iteration: plan.iteration,
    pending: plan.pending,
    saved: plan.saved,
    boundary: { returned: 'DONE', porcelain: '', commitCount: 1 },
    commit: message,
    headLedger: edited,
    retainedActionRecords: recordsFromLines([...carried, ...spent]),
  });
}

function refused(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    if (error instanceof ChildEditError) return error.code;
    throw error;
  }
  return 'accepted';
}

const rowPlan = planDispatch({ ledger: afterSeed, target: 1, head: HEAD });
const seedPlan = planDispatch({ ledger: beforeSeed, target: 'seed', head: HEAD });

describe('recordRowOutcome', () => {
  it('writes the target, an extra, the decisions target first, and removes the pending line', () => {
    const edited = recordRowOutcome(rowPlan.reserved, taskOf(rowPlan), {
      status: 'done',
      evidence: 'npm test; 3 passed',
      summary: 'escaped the commas',
      next: 'take row 2',
      extras: [{ row: 2, evidence: 'npm test; row 2 passes too' }],
    });
    expect(edited.pending).toBeNull();
    expect(edited.iterations).toBe(4);
    expect(edited.rows.slice(0, 2)).toEqual([
      { row: 1, status: 'done', attempts: 2, evidence: 'npm test; 3 passed' },
      { row: 2, status: 'done', attempts: 0, evidence: 'npm test; row 2 passes too' },
    ]);
    expect(edited.decisions.slice(2)).toEqual([
      'row 1 done | escaped the commas | take row 2',
      'row 2 done | closed beside row 1 | take row 2',
    ]);
    const outcome = judge(rowPlan, edited);
    expect(outcome.kind).toBe('admitted');
    expect(childCommitMessage(taskOf(rowPlan), edited)).toEqual({
      subject: 'loop: row 1 done',
      body: `pending: 1 | home | ${HEAD}\niteration: 4`,
    });
  });

  it('repeats carried and spent action records as sentences before the summary', () => {
    const carried = ['ran capture (1 of 2)'];
    const spent = ['ran capture (2 of 2)'];
    const edited = recordRowOutcome(
      rowPlan.reserved,
      taskOf(rowPlan, carried),
      { status: 'failed', evidence: 'capture; still flaky', summary: 'two captures differ', next: 'ask' },
      spent,
    );
    expect(edited.decisions[2]).toBe(
      'row 1 failed | ran capture (1 of 2). ran capture (2 of 2). two captures differ | ask',
    );
    expect(judge(rowPlan, edited, spent, carried).kind).toBe('admitted');
    expect(childCommitMessage(taskOf(rowPlan, carried), edited, spent).body.split('\n').slice(2)).toEqual([
      'ran capture (1 of 2)',
      'ran capture (2 of 2)',
    ]);
  });

  it('does not repeat a record the evidence already carries (the bound-spent marker)', () => {
    const edited = recordRowOutcome(
      rowPlan.reserved,
      taskOf(rowPlan, ['ran capture (1 of 1)']),
      {
        status: 'failed',
        evidence: 'capture; bound spent: capture (1 of 1)',
        summary: 'the capture bound is spent',
        next: 'ask for a raise',
      },
      ['bound spent: capture (1 of 1)'],
    );
    expect(edited.decisions[2]).toBe(
      'row 1 failed | ran capture (1 of 1). the capture bound is spent | ask for a raise',
    );
  });

  it('escapes lone pipes in evidence and keeps escaped ones', () => {
    expect(escapeLonePipes('grep; a | b')).toBe('grep; a \\| b');
    expect(escapeLonePipes('grep; a \\| b')).toBe('grep; a \\| b');
  });

  it('refuses what the contract forbids, each with its named error', () => {
    const task = taskOf(rowPlan);
    const ok = { status: 'done' as const, evidence: 'check; ok', summary: 'did it', next: 'go on' };
    const cases: Record<string, () => unknown> = {
      fourResults: () => recordRowOutcome(rowPlan.reserved, task, { ...ok, evidence: 'c; r1; r2; r3; r4' }),
      markup: () => recordRowOutcome(rowPlan.reserved, task, { ...ok, evidence: 'c; <b>x</b>' }),
      longSummary: () => recordRowOutcome(rowPlan.reserved, task, { ...ok, summary: 'x'.repeat(201) }),
      cellSeparator: () => recordRowOutcome(rowPlan.reserved, task, { ...ok, next: 'a | b' }),
      cutExtra: () =>
        recordRowOutcome(rowPlan.reserved, task, { ...ok, extras: [{ row: 3, evidence: 'c; r' }] }),
      doneExtra: () =>
        recordRowOutcome(rowPlan.reserved, task, { ...ok, extras: [{ row: 4, evidence: 'c; r' }] }),
      targetAsExtra: () =>
        recordRowOutcome(rowPlan.reserved, task, { ...ok, extras: [{ row: 1, evidence: 'c; r' }] }),
      unknownRow: () =>
        recordRowOutcome(rowPlan.reserved, task, { ...ok, extras: [{ row: 9, evidence: 'c; r' }] }),
      alreadyRecorded: () => recordRowOutcome({ ...rowPlan.reserved, pending: null }, task, ok),
      seedTask: () => recordRowOutcome(seedPlan.reserved, taskOf(seedPlan), ok),
      repeatedLine: () =>
        recordRowOutcome(rowPlan.reserved, task, {
          status: 'failed',
          evidence: 'c; r',
          summary: 'attempt 1 failed',
          next: 'retry',
        }),
    };
    expect(Object.fromEntries(Object.entries(cases).map(([name, run]) => [name, refused(run)]))).toEqual({
      fourResults: 'child.evidence',
      markup: 'child.evidence',
      longSummary: 'child.decision',
      cellSeparator: 'child.decision',
      cutExtra: 'child.row-status',
      doneExtra: 'child.row-status',
      targetAsExtra: 'child.row-status',
      unknownRow: 'child.row',
      alreadyRecorded: 'child.pending',
      seedTask: 'child.kind',
      repeatedLine: 'child.decision',
    });
  });
});

describe('recordSeed', () => {
  it('writes evidence, the baseline closures and the counted seed line', () => {
    const edited = recordSeed(seedPlan.reserved, taskOf(seedPlan), {
      evidence: new Map([
        [1, 'npm test; 1 failing'],
        [2, 'npm test; passes'],
      ]),
      closeOnBaseline: [2],
    });
    expect(edited.rows.slice(0, 2)).toEqual([
      { row: 1, status: 'open', attempts: 0, evidence: 'npm test; 1 failing' },
      { row: 2, status: 'done', attempts: 0, evidence: 'npm test; passes' },
    ]);
    expect(edited.decisions).toEqual(['row 0 done | seeded 2 rows, closed 1 on baseline | row 1']);
    expect(judge(seedPlan, edited).kind).toBe('admitted');
    expect(childCommitMessage(taskOf(seedPlan), edited).subject).toBe('loop: seed evidence');
  });

  it("sets a coordinated home leg's own seeded flag, and no companion's (L9)", () => {
    const coordinated: Ledger = {
      ...beforeSeed,
      legs: {
        members: [
          { name: 'web', base: BASE, seeded: false },
          { name: 'api', base: HEAD, seeded: false },
        ],
        mapping: [
          { row: 1, ac: 1, leg: 'web' },
          { row: 2, ac: 1, leg: 'api' },
          { row: 3, ac: 2, leg: 'api' },
        ],
      },
    };
    const plan = planDispatch({ ledger: coordinated, target: 'seed', head: HEAD, repo: 'web' });
    const leg = { member: 'web', companion: false, home: '/h', homeLedger: '/h/l.md', homeSpec: '/h/s.md' };
    const seeded = (companion: boolean) =>
      recordSeed(
        plan.reserved,
        { ...taskOf(plan), leg: { ...leg, companion } },
        { evidence: new Map([[1, 'page check; 1 failing']]) },
      ).legs?.members.map((m) => `${m.name} ${m.seeded ? 'yes' : 'no'}`);
    expect(seeded(false)).toEqual(['web yes', 'api no']);
    expect(seeded(true)).toEqual(['web no', 'api no']);
  });

  it('carries action records in the first seeded row and refuses when they do not fit', () => {
    const edited = recordSeed(seedPlan.reserved, taskOf(seedPlan, ['ran capture (1 of 1)']), {
      evidence: new Map([[2, 'capture; recorded']]),
    });
    expect(edited.rows[1]?.evidence).toBe('capture; recorded; ran capture (1 of 1)');
    expect(judge(seedPlan, edited, [], ['ran capture (1 of 1)']).kind).toBe('admitted');
    expect(
      refused(() =>
        recordSeed(seedPlan.reserved, taskOf(seedPlan, ['ran capture (1 of 1)']), {
          evidence: new Map([[1, 'c; r1; r2; r3']]),
        }),
      ),
    ).toBe('child.evidence');
  });

  it('refuses a seed with no evidence, a closure without evidence, a cut row and a row task', () => {
    const task = taskOf(seedPlan);
    expect(refused(() => recordSeed(seedPlan.reserved, task, { evidence: new Map() }))).toBe('child.seed');
    expect(
      refused(() =>
        recordSeed(seedPlan.reserved, task, { evidence: new Map([[1, 'c; r']]), closeOnBaseline: [2] }),
      ),
    ).toBe('child.seed');
    expect(refused(() => recordSeed(seedPlan.reserved, task, { evidence: new Map([[3, 'c; r']]) }))).toBe(
      'child.row-status',
    );
    expect(
      refused(() => recordSeed(rowPlan.reserved, taskOf(rowPlan), { evidence: new Map([[2, 'c; r']]) })),
    ).toBe('child.kind');
  });
});

describe('spendLine', () => {
  it('reserves the next spend, confirms it, and records a spent bound', () => {
    expect(spendLine([], 'reserve', 'capture', 2)).toBe('ran capture (1 of 2)');
    expect(spendLine(['ran capture (1 of 2)'], 'ran', 'capture', 2)).toBe('ran capture (1 of 2)');
    expect(spendLine(['ran capture (1 of 2)'], 'reserve', 'capture', 2)).toBe('ran capture (2 of 2)');
    expect(spendLine(['ran capture (1 of 2)', 'ran capture (2 of 2)'], 'spent', 'capture', 2)).toBe(
      'bound spent: capture (2 of 2)',
    );
  });

  it('refuses a spend past the bound, a changed bound, a ran without reservation, an early spent', () => {
    expect(refused(() => spendLine(['ran capture (1 of 1)'], 'reserve', 'capture', 1))).toBe('child.spend');
    expect(refused(() => spendLine(['ran capture (1 of 1)'], 'reserve', 'capture', 3))).toBe('child.spend');
    expect(refused(() => spendLine([], 'ran', 'capture', 1))).toBe('child.spend');
    expect(refused(() => spendLine(['ran capture (1 of 2)'], 'spent', 'capture', 2))).toBe('child.spend');
    expect(refused(() => spendLine([], 'reserve', 'a (b)', 1))).toBe('child.spend');
  });

  it('lists only the records a ledger does not carry yet', () => {
    expect(recordsToRepeat(['ran capture (1 of 1)', 'ran deploy (1 of 3)'], afterSeed)).toEqual([
      'ran capture (1 of 1)',
      'ran deploy (1 of 3)',
    ]);
    const carrying = {
      ...afterSeed,
      decisions: [...afterSeed.decisions, 'row 2 done | ran capture (1 of 1). ok | go'],
    };
    expect(recordsToRepeat(['ran capture (1 of 1)'], carrying)).toEqual([]);
  });
});
