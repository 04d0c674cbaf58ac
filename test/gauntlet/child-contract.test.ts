// The child contract's boundary shapes (docs/child-contract.md, src/gauntlet/child-contract.ts):
// which tasks the task schema accepts, the descriptions a child reads in the published
// schemas/child-task.json and schemas/child-return.json, and how a return file is read. Every
// expected value is written by hand from docs/child-contract.md and docs/decisions/legs.md (L22).
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { childReturnSchema, childTaskSchema, readChildReturn } from '../../src/gauntlet/child-contract.js';

const HOME_HEAD = '3f9c2d1e6b0a47c58f1d2e3a4b5c6d7e8f901234';

/** The example task of docs/child-contract.md ("The task"), copied by hand. */
const TASK = {
  version: 1,
  kind: 'row',
  target: 3,
  iteration: 6,
  commitBody: ['pending: 3 | home | 9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b', 'iteration: 7'],
  worktree: '/home/me/csv-export',
  ledger: 'doc/plans/2026-11-02-csv-export.md',
  spec: 'doc/specs/2026-11-02-csv-export.md',
  previousDecision: 'row 3 failed | stub endpoint rejected multipart upload | human decision needed',
  hint: 'use the local MinIO fixture',
  model: null,
  commitSubject: 'loop: row 3 <done|failed>',
  evidence: {
    evidenceFormat: '<check name>; <result 1>[; <result 2>[; <result 3>]]',
    maxResultLines: 3,
    decisionPattern: '^row <n> <done|failed> \\| .{1,200} \\| .{1,200}$',
    maxDecisionCell: 200,
    seedDecision: 'row 0 done | seeded <k> rows, closed <m> on baseline | <first row to take>',
  },
  actionRecords: ['ran capture (1 of 1)'],
  returnFile: '/tmp/loopchart-return-Xa81/return.json',
  jobsFile: '/tmp/loop-3f9c2d1e6b0a47c58f1d2e3a4b5c6d7e8f901234-6-5d0c9e41a7b3f268.jobs',
  verification: null,
};

/** A companion's task for row 3 of leg api (docs/child-contract.md, "A coordinated run"). */
function companionTask(homeHead: string) {
  return {
    ...TASK,
    leg: {
      member: 'api',
      companion: true,
      home: '/home/me/web',
      homeLedger: '/home/me/web/doc/plans/2026-11-02-csv-export.md',
      homeSpec: '/home/me/web/doc/specs/2026-11-02-csv-export.md',
      homeHead,
    },
  };
}

type JsonSchema = {
  description?: string;
  properties: Record<
    string,
    { description?: string; anyOf?: JsonSchema[]; properties?: JsonSchema['properties'] }
  >;
};

function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  return z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as unknown as JsonSchema;
}

describe('the task schema', () => {
  it('accepts the documented example task, and its seed and verify forms', () => {
    expect(childTaskSchema.safeParse(TASK).success).toBe(true);
    expect(childTaskSchema.safeParse({ ...TASK, kind: 'seed', target: 'seed' }).success).toBe(true);
    const verification = {
      gate: 1,
      command: 'npm test',
      exitCode: 1,
      logPath: '/tmp/loop-logs/gate-1.log',
      blockingCalls: 'bound every blocking command with timeout -k 30 <n>, n <= 600',
    };
    expect(
      childTaskSchema.safeParse({ ...TASK, kind: 'verify', target: 'verify', verification }).success,
    ).toBe(true);
  });

  it('refuses a kind or a target outside row/seed/verify', () => {
    expect(childTaskSchema.safeParse({ ...TASK, kind: 'repair' }).success).toBe(false);
    expect(childTaskSchema.safeParse({ ...TASK, target: 0 }).success).toBe(false);
    expect(childTaskSchema.safeParse({ ...TASK, target: 'row' }).success).toBe(false);
  });

  it("takes a companion's homeHead only as a full lowercase 40-hex SHA (L22)", () => {
    expect(childTaskSchema.safeParse(companionTask(HOME_HEAD)).success).toBe(true);
    for (const head of [
      `x${HOME_HEAD}`, // a SHA behind a stray prefix
      `${HOME_HEAD}x`, // a SHA before a stray suffix
      HOME_HEAD.slice(0, 39),
      'g'.repeat(40),
    ])
      expect(childTaskSchema.safeParse(companionTask(head)).success, head).toBe(false);
  });

  it('carries the descriptions schemas/child-task.json publishes', () => {
    const schema = jsonSchemaOf(childTaskSchema);
    expect(schema.description).toBe('loopchart child task (LOOPCHART_TASK)');
    expect(schema.properties.iteration?.description).toBe('pre-bump iteration i (the task line)');
    expect(schema.properties.commitBody?.description).toBe(
      'the exact first two lines of the child commit body: the pending tuple and iteration: <i+1>',
    );
    expect(schema.properties.ledger?.description).toBe('repo-relative ledger path');
    expect(schema.properties.spec?.description).toBe('repo-relative spec path');
    expect(schema.properties.verification?.anyOf?.[0]?.properties?.blockingCalls?.description).toBe(
      'the blocking-call contract: bound every blocking command with timeout -k 30 <n>, n <= 600',
    );
    expect(schema.properties.leg?.description).toBe(
      'coordinated runs: the member worked on; a companion reads the home ledger and returns its rows and decisions in its commit body',
    );
    expect(schema.properties.leg?.properties?.homeHead?.description).toBe(
      "a companion's task: home's HEAD when the dispatch was reserved",
    );
  });
});

describe('the return schema and reading a return file', () => {
  it('carries the descriptions schemas/child-return.json publishes', () => {
    const schema = jsonSchemaOf(childReturnSchema);
    expect(schema.description).toBe('loopchart child return (LOOPCHART_RETURN)');
    expect(schema.properties.status?.description).toBe(
      'DONE when the child finished its task; anything else is non-DONE',
    );
  });

  it('reads the status of a return, DONE or another, keeping unknown keys out of the way', () => {
    expect(
      readChildReturn('{ "status": "DONE", "summary": "escaped commas and quotes; 14 tests pass" }'),
    ).toEqual({
      returned: 'DONE',
      problem: null,
    });
    expect(readChildReturn('{ "status": "BLOCKED", "why": "needs a token" }')).toEqual({
      returned: 'BLOCKED',
      problem: null,
    });
    // A one-letter status is still a status (non-empty is the only bound).
    expect(readChildReturn('{ "status": "X" }')).toEqual({ returned: 'X', problem: null });
  });

  it('a missing file is no return at all', () => {
    expect(readChildReturn(null)).toEqual({ returned: null, problem: null });
  });

  it('a file that is not JSON is a malformed return naming the parse problem', () => {
    const read = readChildReturn('DONE');
    expect(read.returned).toBe('malformed return');
    expect(read.problem).toMatch(/^return file is not JSON: \S/);
  });

  it('an object without a non-empty status is a malformed return listing every problem', () => {
    const empty = readChildReturn('{ "status": "" }');
    expect(empty.returned).toBe('malformed return');
    expect(empty.problem).toMatch(/^return file has no status: \S/);
    // Two problems (an empty status and a summary that is not text), joined by "; ".
    const two = readChildReturn('{ "status": "", "summary": 3 }');
    expect(two.returned).toBe('malformed return');
    expect(two.problem).toMatch(/^return file has no status: [^;]*\S[^;]*; [^;]*\S[^;]*$/);
    expect(readChildReturn('[]').returned).toBe('malformed return');
  });
});
