/**
 * The script of the scripted child (`loopchart scripted-child <script.json>`): for each target
 * (`seed`, `verify` or a row number), the behaviours of its successive dispatches. Scripts are
 * validated with {@link scriptSchema}, so a bad script fails with a named error that points at the
 * offending entry.
 */
import { z } from 'zod';
import { InputError } from '../common/errors.js';

/** The contract violations a `miss` behaviour commits, each breaking exactly one rule. */
export const CONTRACT_VIOLATIONS = [
  /** Changes the `allowance:` header (V9). */
  'header-change',
  /** Writes a decision whose middle cell is 201 characters (V7). */
  'malformed-decision',
  /** Writes four result lines in the target's evidence (V11). */
  'four-result-lines',
  /** Commits the ledger with the pending tuple still in it. */
  'keep-pending',
  /** Leaves the target's attempts unchanged. */
  'no-attempt',
  /** Marks another open row `failed` beside the target (V3 for a seed). */
  'failed-extra',
  /** Appends no decision line for the target. */
  'missing-decision',
  /** Commits with a subject naming the other status (A18). */
  'wrong-subject',
  /** Removes the last prior decision line. */
  'removed-decision',
  /** A seed decision that counts one more seeded row than the return gave evidence to. */
  'seed-miscount',
  /** Records its `spend` in the jobs file but leaves the records out of the returned ledger (§3.19). */
  'dropped-spend',
] as const;

/** One named contract violation. */
export type ScriptedViolation = (typeof CONTRACT_VIOLATIONS)[number];

const options = {
  /** Middle cell of the decision line (default: the attempt and the first result). */
  summary: z.string().min(1).max(200).optional(),
  /** Last cell of the decision line. */
  next: z.string().min(1).max(200).optional(),
  /** Files the child writes (repo-relative path to content) and commits with the ledger. */
  files: z.record(z.string().min(1), z.string()).optional(),
  /** `one` commit (default), `none` (leave the changes uncommitted), `extra` (a second commit). */
  commit: z.enum(['one', 'none', 'extra']).optional(),
  /** A file written after the commit and left untracked (a dirty tree). */
  leaveUntracked: z.string().min(1).optional(),
  /** The return status (default `DONE`). */
  status: z.string().min(1).optional(),
  /** Whether to write the return file at all (default true). */
  writeReturn: z.boolean().optional(),
  /** Exit code of the child (default 0). */
  exitCode: z.number().int().min(0).max(255).optional(),
  /** Start a background job in a group of its own and record it in the jobs file first. */
  background: z.boolean().optional(),
  /** Action records (`ran <action> (<k> of <bound>)`) appended to the jobs file before the work. */
  spend: z.array(z.string().min(1)).optional(),
  /** Commit body attribution: `exact` (default), `wrong-iteration`, or `missing` lines. */
  attribution: z.enum(['exact', 'wrong-iteration', 'missing']).optional(),
};

const extra = z.object({ row: z.number().int().positive(), evidence: z.string().min(1) });

/** One dispatch's behaviour. `do` names what the child does. */
export const behaviourSchema = z.discriminatedUnion('do', [
  z
    .object({
      do: z.literal('done'),
      evidence: z.string().min(1),
      extras: z.array(extra).optional(),
      ...options,
    })
    .describe('close the target row with this evidence'),
  z
    .object({
      do: z.literal('failed'),
      evidence: z.string().min(1),
      extras: z.array(extra).optional(),
      ...options,
    })
    .describe(
      'record a failed attempt; evidence may start its first result with unreachable: or bound spent:',
    ),
  z
    .object({
      do: z.literal('seed'),
      evidence: z.record(z.string().regex(/^[1-9]\d*$/, 'a row number'), z.string().min(1)),
      closeOnBaseline: z.array(z.number().int().positive()).optional(),
      firstRow: z.string().min(1).optional(),
      ...options,
    })
    .describe('give rows evidence and close the listed ones on the baseline'),
  z
    .object({
      do: z.literal('miss'),
      violation: z.enum(CONTRACT_VIOLATIONS),
      evidence: z.string().optional(),
      ...options,
    })
    .describe('a clean one-commit return that breaks one named rule'),
  z
    .object({ do: z.literal('verify-fix'), ...options })
    .describe('a verification repair: write files and commit them with the ledger as it is'),
  z.object({ do: z.literal('nothing'), ...options }).describe('change nothing'),
  z.object({ do: z.literal('silence') }).describe('print nothing and sleep until killed'),
  z
    .object({ do: z.literal('crash'), exitCode: z.number().int().min(1).max(255).optional() })
    .describe('exit with a non-zero code without a return'),
]);

/** One dispatch's behaviour. */
export type Behaviour = z.infer<typeof behaviourSchema>;

/** `seed`, `seed <member>` (a coordinated leg's seed), `verify` or a row number. */
const TARGET_KEY = /^(seed|seed [a-z0-9][a-z0-9._-]*|verify|[1-9]\d*)$/;

/**
 * One scripted review return: the JSON the reviewer writes (docs/review-contract.md), or `raw`
 * text written as is (to play a malformed return).
 */
export const scriptedReviewSchema = z.union([
  z.object({ raw: z.string() }).strict().describe('write this text as the return, unvalidated'),
  z
    .object({
      verdict: z.enum(['SHIP', 'REVISE', 'CONFORMS', 'GAPS']),
      minors: z.array(z.string()).optional(),
      fixTasks: z.array(z.string()).optional(),
      openGaps: z
        .array(
          z.object({
            id: z.string(),
            text: z.string(),
            verdict: z.enum(['PARTIAL', 'MISSING', 'DRIFTED', 'UNAUTHORIZED']).optional(),
            recommended: z.enum(['fix', 'accept', 'rescope']).optional(),
          }),
        )
        .optional(),
      happyPath: z.string().optional(),
    })
    .strict()
    .describe('a review return; the role is added from the task'),
]);

/** One scripted fix round: files to write and commit (default: one note file per round). */
export const scriptedFixSchema = z
  .object({ files: z.record(z.string(), z.string()).optional() })
  .strict()
  .describe('a fix round: write these files and commit them');

/** Schema of a scripted child's script file. */
export const scriptSchema = z
  .object({
    version: z.literal(1),
    /**
     * Behaviours per target, in dispatch order. Entry k is used for the target's k-th dispatch
     * (0-based), counted from durable state: a row's attempts before the dispatch, the number of
     * `loop: repair seed` commits for the seed, of `loop: repair verification` commits for verify.
     * The last entry repeats. In a coordinated run `seed <member>` scripts that leg's seed (it
     * falls back to `seed`).
     */
    targets: z.record(z.string(), z.array(behaviourSchema).min(1)).superRefine((targets, context) => {
      for (const key of Object.keys(targets))
        if (!TARGET_KEY.test(key))
          context.addIssue({
            code: 'custom',
            path: [key],
            message: `"${key}" is not a target: use seed, verify or a row number`,
          });
    }),
    /**
     * Review returns per reviewer role (`whole-diff`, `conformance`), in order. Entry k answers the
     * review after k fix rounds of that role (read from the task, i.e. from branch history); the
     * last entry repeats. A role without entries makes the reviewer fail (a named review miss).
     */
    reviews: z
      .object({
        'whole-diff': z.array(scriptedReviewSchema).min(1).optional(),
        conformance: z.array(scriptedReviewSchema).min(1).optional(),
      })
      .strict()
      .optional(),
    /** Fix rounds per role, in round order; the last entry repeats. */
    fixes: z
      .object({
        'whole-diff': z.array(scriptedFixSchema).min(1).optional(),
        conformance: z.array(scriptedFixSchema).min(1).optional(),
      })
      .strict()
      .optional(),
  })
  .describe('loopchart scripted child script');

/** A scripted child's script. */
export type ChildScript = z.infer<typeof scriptSchema>;

/**
 * Parses a script's JSON text.
 *
 * @param text the file's content
 * @param path the file, for messages
 * @throws InputError (`script.invalid`) naming every problem with its path in the script
 */
export function parseChildScript(text: string, path = 'script'): ChildScript {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputError('script.invalid', `${path} is not JSON: ${(error as Error).message}`);
  }
  const parsed = scriptSchema.safeParse(value);
  if (parsed.success) return parsed.data;
  const problems = parsed.error.issues.map(
    (issue) => `${issue.path.length === 0 ? '(root)' : issue.path.join('.')}: ${issue.message}`,
  );
  // Refinements do not run while a behaviour is malformed: name bad target keys in any case.
  const targets = (value as { targets?: unknown } | null)?.targets;
  if (targets !== null && typeof targets === 'object')
    for (const key of Object.keys(targets))
      if (!TARGET_KEY.test(key)) {
        const problem = `targets.${key}: "${key}" is not a target: use seed, verify or a row number`;
        if (!problems.includes(problem)) problems.push(problem);
      }
  throw new InputError('script.invalid', `${path} is not a valid child script:\n${problems.join('\n')}`);
}
