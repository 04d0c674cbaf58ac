/**
 * Validates a command's `--json` output against the published envelope schema,
 * schemas/cli-result.v1.json, with an independent JSON Schema validator (ajv), and returns it.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Ajv2020 } from 'ajv/dist/2020.js';
import { expect } from 'vitest';

const schema = JSON.parse(
  readFileSync(join(import.meta.dirname, '..', '..', 'schemas', 'cli-result.v1.json'), 'utf8'),
) as object;
const validate = new Ajv2020({ strict: false, allErrors: true }).compile(schema);

/** The one JSON object `stdout` holds, after checking it against schemas/cli-result.v1.json. */
// biome-ignore lint/suspicious/noExplicitAny: each test reads its command's own fields
export function parseCliResult(stdout: string): any {
  const value = JSON.parse(stdout) as unknown;
  const valid = validate(value);
  expect(validate.errors ?? [], `--json output does not match schemas/cli-result.v1.json: ${stdout}`).toEqual(
    [],
  );
  expect(valid).toBe(true);
  return value;
}
