/**
 * The zod schema of the `--json` result envelope (src/cli/json-result.ts), published as
 * schemas/cli-result.v1.json by `loopchart generate`. It fixes the fields every command shares
 * and leaves each command's own fields open.
 */
import { z } from 'zod';
import { CLI_RESULT_SCHEMA_ID } from './json-result.js';

const findingSchema = z.object({
  code: z.string(),
  line: z.number().int().min(0),
  reason: z.string(),
});

/** The failure a command reports with `status` `invalid` or `failed` (src/cli/command-failure.ts). */
export const cliErrorSchema = z.object({
  code: z.string().min(1).describe('stable name of the failure, e.g. cli.usage; internal for a bug'),
  message: z.string(),
  findings: z.array(findingSchema),
});

/** One `loopchart <command> --json` result. */
export const cliResultSchema = z
  .looseObject({
    schema: z.literal(CLI_RESULT_SCHEMA_ID).describe('the envelope version'),
    command: z.string().min(1).describe('the command that printed this result'),
    status: z.enum(['finished', 'stopped', 'invalid', 'failed']),
    exitCode: z.number().int().min(0).max(255).describe('the exit code the command returned'),
    error: cliErrorSchema.optional(),
  })
  .meta({ title: 'loopchart --json result (cli-result.v1)' });
