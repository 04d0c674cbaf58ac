/**
 * zod schemas of the loop engine's structures that cross a boundary: the parsed ledger and spec
 * (what `loopchart check --json` and `status --json` print and what a host may store), the child
 * task and return, the human stop and reply choice, and the host settings. Each is published as
 * JSON Schema under schemas/ by the generate command.
 */
import { z } from 'zod';
import { childReturnSchema, childTaskSchema } from './child-contract.js';

const fullSha = z.string().regex(/^[0-9a-f]{40}$/);
const target = z.union([z.number().int().positive(), z.literal('seed'), z.literal('verify')]);

/** A pending dispatch tuple. */
export const pendingTupleSchema = z
  .object({ target, repo: z.string().min(1), head: fullSha })
  .describe('pending: <target> | <repo> | <HEAD sha>');

/** A ledger row. */
export const ledgerRowSchema = z.object({
  row: z.number().int().positive(),
  status: z.enum(['open', 'done', 'failed', 'cut']),
  attempts: z.number().int().nonnegative(),
  evidence: z.string().describe('the evidence cell as written: `;`-separated, pipes escaped'),
});

/** A parsed ledger (without the parser's private layout). */
export const ledgerSchema = z
  .object({
    discriminant: z.string(),
    spec: z.string(),
    base: fullSha,
    verification: z.string(),
    checks: z.string(),
    iterations: z.number().int().nonnegative(),
    allowance: z.number().int().nonnegative(),
    pending: pendingTupleSchema.nullable(),
    rows: z.array(ledgerRowSchema),
    decisions: z.array(z.string()),
  })
  .describe('loopchart loop ledger (parsed)');

const disposition = z.discriminatedUnion('kind', [
  z.object({ kind: z.literal('in-scope'), explicit: z.boolean() }),
  z.object({ kind: z.literal('deviates'), why: z.string(), text: z.string() }),
  z.object({ kind: z.literal('deferred'), where: z.string(), text: z.string() }),
  z.object({ kind: z.literal('venue'), env: z.string(), observation: z.string(), text: z.string() }),
  z.object({ kind: z.literal('elsewhere'), repo: z.string(), text: z.string() }),
]);

/** A parsed spec: its acceptance criteria and amend grant. */
export const specSchema = z
  .object({
    title: z.string().nullable(),
    rows: z.array(
      z.object({
        row: z.number().int().positive(),
        text: z.string(),
        line: z.number().int().positive(),
        disposition,
      }),
    ),
    amendGrant: z.discriminatedUnion('kind', [
      z.object({ kind: z.literal('none') }),
      z.object({ kind: z.literal('active'), sentence: z.string() }),
      z.object({
        kind: z.literal('malformed'),
        lines: z.array(z.object({ line: z.number().int(), text: z.string() })),
      }),
    ]),
  })
  .describe('loopchart spec (parsed)');

/** A finding, as every `--json` report lists it. */
export const findingSchema = z.object({
  code: z.string(),
  line: z.number().int().nonnegative(),
  reason: z.string(),
});

/** Every loop-engine schema by the name its JSON Schema file takes. */
export const loopEngineSchemas = {
  ledger: ledgerSchema,
  spec: specSchema,
  finding: findingSchema,
  'child-task': childTaskSchema,
  'child-return': childReturnSchema,
} as const;
