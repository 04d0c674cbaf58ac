/**
 * The child contract's boundary shapes as zod schemas: the task a child reads and the return it
 * writes (docs/child-contract.md). The host validates a return once, here, and turns anything
 * malformed into a named non-DONE status instead of an exception.
 */
import { z } from 'zod';
import type { ChildTask } from './dispatch.js';

const target = z.union([z.number().int().positive(), z.literal('seed'), z.literal('verify')]);

/** Schema of the task JSON file named by `LOOPCHART_TASK`. */
export const childTaskSchema = z
  .object({
    version: z.literal(1),
    kind: z.enum(['row', 'seed', 'verify']),
    target,
    iteration: z.number().int().nonnegative().describe('pre-bump iteration i (the task line)'),
    commitBody: z
      .tuple([z.string(), z.string()])
      .describe('the exact first two lines of the child commit body: the pending tuple and iteration: <i+1>'),
    worktree: z.string(),
    ledger: z.string().describe('repo-relative ledger path'),
    spec: z.string().describe('repo-relative spec path'),
    previousDecision: z.string(),
    hint: z.string().nullable(),
    model: z.string().nullable(),
    commitSubject: z.string(),
    evidence: z.object({
      evidenceFormat: z.string(),
      maxResultLines: z.number().int(),
      decisionPattern: z.string(),
      maxDecisionCell: z.number().int(),
      seedDecision: z.string(),
    }),
    actionRecords: z.array(z.string()),
    returnFile: z.string(),
    jobsFile: z.string(),
    verification: z
      .object({
        gate: z.number().int(),
        command: z.string(),
        exitCode: z.number().int(),
        logPath: z.string(),
        blockingCalls: z
          .string()
          .describe(
            'the blocking-call contract: bound every blocking command with timeout -k 30 <n>, n <= 600',
          ),
      })
      .nullable(),
    leg: z
      .object({
        member: z.string(),
        companion: z.boolean(),
        home: z.string(),
        homeLedger: z.string(),
        homeSpec: z.string(),
        homeHead: z
          .string()
          .regex(/^[0-9a-f]{40}$/)
          .optional()
          .describe("a companion's task: home's HEAD when the dispatch was reserved"),
      })
      .optional()
      .describe(
        'coordinated runs: the member worked on; a companion reads the home ledger and returns its rows and decisions in its commit body',
      ),
  })
  .describe('loopchart child task (LOOPCHART_TASK)') satisfies z.ZodType<ChildTask>;

/** Schema of the return JSON a child writes to `LOOPCHART_RETURN`. Unknown keys are kept. */
export const childReturnSchema = z
  .looseObject({
    status: z.string().min(1).describe('DONE when the child finished its task; anything else is non-DONE'),
    summary: z.string().optional(),
  })
  .describe('loopchart child return (LOOPCHART_RETURN)');

/** A child return as the loop reads it. */
export interface ChildReturn {
  /** `DONE`, another status, or `null` when no return file was written. */
  readonly returned: string | null;
  /** Why the return file could not be read as a return, when it could not. */
  readonly problem: string | null;
}

/**
 * Reads a child's return file content. A missing file is no return; a file that is not a JSON
 * object with a non-empty `status` is reported as the status `malformed return` with the problem.
 *
 * @param text the file's content, or `null` when the file does not exist
 */
export function readChildReturn(text: string | null): ChildReturn {
  if (text === null) return { returned: null, problem: null };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return { returned: 'malformed return', problem: `return file is not JSON: ${(error as Error).message}` };
  }
  const parsed = childReturnSchema.safeParse(value);
  if (!parsed.success)
    return {
      returned: 'malformed return',
      problem: `return file has no status: ${parsed.error.issues.map((i) => i.message).join('; ')}`,
    };
  return { returned: parsed.data.status, problem: null };
}
