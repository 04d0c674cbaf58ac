/**
 * Every command's `--json` output matches the published envelope, schemas/cli-result.v1.json.
 * The commands whose runs need a repository, a child or a transcript are validated where their
 * end-to-end tests run them (through parseCliResult); the table below names that test for each
 * registered command, and fails when a command is registered without one.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/commands.js';
import { COMMANDS } from '../../src/cli/registry.js';
import { parseCliResult } from '../support/cli-result.js';
import { stringSinks } from '../support/string-sinks.js';

const root = join(import.meta.dirname, '..', '..');
const scratch = mkdtempSync(join(tmpdir(), 'loopchart-json-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

/** Where each command's successful `--json` output is validated. */
const VALIDATED_IN: Record<string, string> = {
  run: 'test/e2e/loop-cli.test.ts',
  status: 'test/e2e/loop-cli.test.ts',
  check: 'test/e2e/loop-cli.test.ts',
  demo: 'test/cli/json-results.test.ts',
  generate: 'test/cli/json-results.test.ts',
  cyber: 'test/e2e/cyber.test.ts',
  report: 'test/e2e/report.test.ts',
  rpi: 'test/e2e/rpi.test.ts',
  crank: 'test/e2e/crank.test.ts',
  viz: 'test/cli/viz.test.ts',
  paths: 'test/cli/paths.test.ts',
  view: 'test/cli/view.test.ts',
  explore: 'test/cli/explore.test.ts',
  child: 'test/host/child-tools.test.ts',
  prompt: 'test/cli/json-results.test.ts',
  loop: 'test/e2e/loop-command.test.ts',
  serve: 'test/e2e/fleet.test.ts',
  submit: 'test/e2e/fleet.test.ts',
  answer: 'test/e2e/fleet.test.ts',
  runs: 'test/e2e/fleet.test.ts',
  reserve: 'test/cli/reserve.test.ts',
};
/** Commands without `--json`: the scripted child's stdout is the child protocol, not a result. */
const NO_JSON = new Set(['scripted-child']);

describe('--json results', () => {
  it('every registered command is validated somewhere (or has no --json)', () => {
    const registered = COMMANDS.map((c) => c.name).filter((name) => !NO_JSON.has(name));
    expect(Object.keys(VALIDATED_IN).sort()).toEqual(registered.sort());
    for (const [name, file] of Object.entries(VALIDATED_IN)) {
      const text = readFileSync(join(root, file), 'utf8');
      expect(text, `${file} validates ${name}`).toContain('parseCliResult(');
      expect(text, `${file} runs ${name}`).toContain(`'${name}'`);
      expect(text, `${file} passes --json`).toContain("'--json'");
    }
  });

  it('demo --prepare-only --json', async () => {
    const { io, out } = stringSinks();
    const dir = join(scratch, 'demo');
    expect(await runCli(['demo', '--dir', dir, '--prepare-only', '--json'], io)).toBe(0);
    expect(parseCliResult(out.stdout)).toMatchObject({
      command: 'demo',
      status: 'finished',
      exitCode: 0,
      dir,
    });
  });

  it('prompt --role validator --json: the prompt inside the envelope', async () => {
    const { io, out } = stringSinks();
    expect(await runCli(['prompt', '--role', 'validator', '--json'], io)).toBe(0);
    const result = parseCliResult(out.stdout);
    expect(result).toMatchObject({ command: 'prompt', status: 'finished', exitCode: 0, role: 'validator' });
    expect(result.prompt.length).toBeGreaterThan(100);
  });

  it('generate --check --json into an empty folder: every file stale, failed, exit 1', async () => {
    const { io, out } = stringSinks();
    expect(await runCli(['generate', '--check', '--root', scratch, '--json'], io)).toBe(1);
    const result = parseCliResult(out.stdout);
    expect(result).toMatchObject({ command: 'generate', status: 'failed', exitCode: 1 });
    expect(result.stale).toContain('schemas/cli-result.v1.json');
    expect(result.stale).toContain('visualizations/rpi.svg');
  });

  it('a failure of any kind is the same envelope (the schema rejects a result without its tag)', async () => {
    const { io, out } = stringSinks();
    expect(await runCli(['status', '--bogus', '--json'], io)).toBe(2);
    const result = parseCliResult(out.stdout);
    expect(result.error.code).toBe('cli.usage');
    expect(() => parseCliResult(JSON.stringify({ ...result, schema: 'cli-result.v0' }))).toThrow();
    expect(() =>
      parseCliResult(JSON.stringify({ command: 'status', status: 'done', exitCode: 0 })),
    ).toThrow();
  });
});
