/**
 * The `--json` result envelope every command prints (docs/cli.md): one JSON object on stdout,
 * `{ "schema": "cli-result.v1", "command", "status", "exitCode", ... }` plus the command's own
 * fields. Its JSON Schema is published as schemas/cli-result.v1.json (generated from
 * src/cli/json-result-schema.ts); `schema` changes only when a field the envelope promises
 * changes meaning or disappears.
 */
import type { CliIo } from './command.js';

/** The envelope's version tag, the value of its `schema` field. */
export const CLI_RESULT_SCHEMA_ID = 'cli-result.v1';

/** The fields every `--json` result carries. */
export interface CliResultEnvelope {
  readonly command: string;
  readonly status: 'finished' | 'stopped' | 'invalid' | 'failed';
  readonly exitCode: number;
}

/** The envelope with its `schema` tag first, as one JSON text (indented when `pretty`). */
export function jsonResult(result: CliResultEnvelope & Record<string, unknown>, pretty = false): string {
  return `${JSON.stringify({ schema: CLI_RESULT_SCHEMA_ID, ...result }, null, pretty ? 2 : undefined)}\n`;
}

/** Writes `result` as the command's one `--json` object on stdout. */
export function writeJsonResult(
  io: CliIo,
  result: CliResultEnvelope & Record<string, unknown>,
  pretty = false,
): void {
  io.stdout.write(jsonResult(result, pretty));
}
