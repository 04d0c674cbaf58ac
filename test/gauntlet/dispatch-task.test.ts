/**
 * The task a child receives (docs/child-contract.md, gauntlet-protocol §3.9 and §3.18): its kind,
 * commit subject and body lines, the evidence contract and the blocking-call contract, the carried
 * spend history and the leg; and the absolute ledger and spec paths `child show` prints
 * (docs/decisions/legs.md L23). Every expected value is written by hand from those texts.
 */
import { describe, expect, it } from 'vitest';
import {
  BLOCKING_CALL_CONTRACT,
  type ChildTaskLeg,
  childTask,
  type DispatchPlan,
  EVIDENCE_CONTRACT,
  taskFilePath,
} from '../../src/gauntlet/dispatch.js';
import type { Ledger, Target } from '../../src/gauntlet/types.js';

const HEAD = '9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b';
const PREVIOUS = 'row 3 failed | stub endpoint rejected multipart upload | human decision needed';

const LEDGER: Ledger = {
  discriminant: '# Loop ledger',
  spec: 'doc/specs/2026-11-02-csv-export.md',
  base: 'b'.repeat(40),
  verification: 'npm test',
  checks: 'commands',
  iterations: 6,
  allowance: 4,
  pending: null,
  rows: [{ row: 3, status: 'failed', attempts: 2, evidence: 'csv-test; 1 failing' }],
  decisions: [PREVIOUS],
};

/** A plan at pre-bump iteration 6, written out by hand (no call to planDispatch). */
function planOf(target: Target, extra: Partial<DispatchPlan> = {}): DispatchPlan {
  const pending = { target, repo: 'home', head: HEAD };
  return {
    target,
    iteration: 6,
    pending,
    saved: LEDGER,
    reserved: { ...LEDGER, iterations: 7, pending },
    hint: null,
    previousDecision: 'none',
    model: null,
    actionRecords: [],
    ...extra,
  };
}

const PATHS = {
  worktree: '/home/me/csv-export',
  ledger: 'doc/plans/2026-11-02-csv-export.md',
  spec: 'doc/specs/2026-11-02-csv-export.md',
  returnFile: '/tmp/loopchart-return-Xa81/return.json',
  jobsFile: '/tmp/loop-3f9c2d1e6b0a47c58f1d2e3a4b5c6d7e8f901234-6-5d0c9e41a7b3f268.jobs',
};

/** The `evidence` object of the documented example task. */
const DOCUMENTED_EVIDENCE = {
  evidenceFormat: '<check name>; <result 1>[; <result 2>[; <result 3>]]',
  maxResultLines: 3,
  decisionPattern: '^row <n> <done|failed> \\| .{1,200} \\| .{1,200}$',
  maxDecisionCell: 200,
  seedDecision: 'row 0 done | seeded <k> rows, closed <m> on baseline | <first row to take>',
};

describe('childTask', () => {
  it('builds the documented example row task', () => {
    const plan = planOf(3, {
      hint: 'use the local MinIO fixture',
      previousDecision: PREVIOUS,
      actionRecords: ['ran capture (1 of 1)'],
    });
    expect(childTask(plan, PATHS)).toStrictEqual({
      version: 1,
      kind: 'row',
      target: 3,
      iteration: 6,
      commitBody: [`pending: 3 | home | ${HEAD}`, 'iteration: 7'],
      worktree: '/home/me/csv-export',
      ledger: 'doc/plans/2026-11-02-csv-export.md',
      spec: 'doc/specs/2026-11-02-csv-export.md',
      previousDecision: PREVIOUS,
      hint: 'use the local MinIO fixture',
      model: null,
      commitSubject: 'loop: row 3 <done|failed>',
      evidence: DOCUMENTED_EVIDENCE,
      actionRecords: ['ran capture (1 of 1)'],
      returnFile: '/tmp/loopchart-return-Xa81/return.json',
      jobsFile: '/tmp/loop-3f9c2d1e6b0a47c58f1d2e3a4b5c6d7e8f901234-6-5d0c9e41a7b3f268.jobs',
      verification: null,
    });
  });

  it('gives a seed task kind seed and the subject loop: seed evidence', () => {
    const task = childTask(planOf('seed'), PATHS);
    expect(task.kind).toBe('seed');
    expect(task.commitSubject).toBe('loop: seed evidence');
    expect(task.commitBody).toStrictEqual([`pending: seed | home | ${HEAD}`, 'iteration: 7']);
  });

  it('gives a verification repair kind verify, the subject loop: verification fix and the blocking-call contract', () => {
    const failure = { gate: 2, command: 'npm run lint', exitCode: 1, logPath: '/tmp/loop-logs/gate-2.log' };
    const task = childTask(planOf('verify', { model: 'impl-model' }), PATHS, { verification: failure });
    expect(task.kind).toBe('verify');
    expect(task.commitSubject).toBe('loop: verification fix');
    expect(task.model).toBe('impl-model');
    expect(task.commitBody).toStrictEqual([`pending: verify | home | ${HEAD}`, 'iteration: 7']);
    expect(task.verification).toStrictEqual({
      gate: 2,
      command: 'npm run lint',
      exitCode: 1,
      logPath: '/tmp/loop-logs/gate-2.log',
      blockingCalls:
        'bound every blocking command with `timeout -k 30 <n>`, n <= 600; background and poll longer work',
    });
    expect(childTask(planOf('verify'), PATHS, { verification: null }).verification).toBeNull();
  });

  it("carries the plan's spend history unless records are given, then those in the parenthesised spelling", () => {
    const plan = planOf(3, { actionRecords: ['ran capture (1 of 1)', 'bound spent: deploy (2 of 2)'] });
    expect(childTask(plan, PATHS).actionRecords).toStrictEqual([
      'ran capture (1 of 1)',
      'bound spent: deploy (2 of 2)',
    ]);
    expect(childTask(plan, PATHS, {}).actionRecords).toStrictEqual([
      'ran capture (1 of 1)',
      'bound spent: deploy (2 of 2)',
    ]);
    const given = [
      { kind: 'ran', action: 'capture', k: 1, bound: 1, text: 'ran capture 1 of 1' },
      { kind: 'bound-spent', action: 'deploy', k: 2, bound: 2, text: 'bound spent: deploy 2 of 2' },
    ] as const;
    expect(childTask(planOf(3), PATHS, { actionRecords: given }).actionRecords).toStrictEqual([
      'ran capture (1 of 1)',
      'bound spent: deploy (2 of 2)',
    ]);
  });

  it('carries the leg of a coordinated run, and no leg key on a single-leg run', () => {
    const leg: ChildTaskLeg = {
      member: 'api',
      companion: true,
      home: '/home/me/web',
      homeLedger: '/home/me/web/doc/plans/x.md',
      homeSpec: '/home/me/web/doc/specs/x.md',
      homeHead: 'c'.repeat(40),
    };
    expect(childTask(planOf(3), PATHS, { leg }).leg).toStrictEqual({ ...leg });
    expect('leg' in childTask(planOf(3), PATHS)).toBe(false);
    expect('leg' in childTask(planOf(3), PATHS, {})).toBe(false);
  });
});

describe('the contracts every task repeats', () => {
  it('the evidence contract is the documented one (§1.4, §1.5)', () => {
    expect(EVIDENCE_CONTRACT).toStrictEqual(DOCUMENTED_EVIDENCE);
  });

  it('the decision pattern accepts a conforming row line and refuses a 201-character cell', () => {
    const pattern = new RegExp(
      EVIDENCE_CONTRACT.decisionPattern.replace('<n>', '3').replace('<done|failed>', '(done|failed)'),
    );
    expect(pattern.test('row 3 done | escaped commas | take row 4')).toBe(true);
    expect(pattern.test(`row 3 done | ${'x'.repeat(201)} | take row 4`)).toBe(false);
  });

  it('the blocking-call contract is §3.18 verbatim', () => {
    expect(BLOCKING_CALL_CONTRACT).toBe(
      'bound every blocking command with `timeout -k 30 <n>`, n <= 600; background and poll longer work',
    );
  });
});

describe('taskFilePath', () => {
  const single = { worktree: '/home/me/csv-export', ledger: 'doc/plans/x.md', spec: 'doc/specs/x.md' };

  it('joins the worktree and the repository-relative path on a single-leg run (L23)', () => {
    expect(taskFilePath(single, 'ledger')).toBe('/home/me/csv-export/doc/plans/x.md');
    expect(taskFilePath(single, 'spec')).toBe('/home/me/csv-export/doc/specs/x.md');
  });

  it('joins with one slash whatever trailing slashes the worktree has', () => {
    expect(taskFilePath({ ...single, worktree: '/home/me/csv-export/' }, 'ledger')).toBe(
      '/home/me/csv-export/doc/plans/x.md',
    );
    expect(taskFilePath({ ...single, worktree: '/home/me/csv-export//' }, 'spec')).toBe(
      '/home/me/csv-export/doc/specs/x.md',
    );
  });

  it("gives home's ledger and spec on a coordinated run, from any checkout (L23)", () => {
    const leg: ChildTaskLeg = {
      member: 'api',
      companion: true,
      home: '/home/me/web',
      homeLedger: '/home/me/web/doc/plans/x.md',
      homeSpec: '/home/me/web/doc/specs/x.md',
    };
    const companion = { ...single, worktree: '/home/me/api', leg };
    expect(taskFilePath(companion, 'ledger')).toBe('/home/me/web/doc/plans/x.md');
    expect(taskFilePath(companion, 'spec')).toBe('/home/me/web/doc/specs/x.md');
  });
});
