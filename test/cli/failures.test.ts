/**
 * How every command reports a failure (docs/cli.md): one `loopchart:` line on stderr, and with
 * `--json` exactly one JSON object on stdout, exit 2 for invalid input and 1 for an internal error.
 */
import { describe, expect, it } from 'vitest';
import { reportCommandFailure } from '../../src/cli/command-failure.js';
import { runCli } from '../../src/cli/commands.js';
import { COMMANDS } from '../../src/cli/registry.js';
import { LoopchartError } from '../../src/common/errors.js';
import { parseCliResult } from '../support/cli-result.js';
import { stringSinks } from '../support/string-sinks.js';

describe('a usage error, for every registered command', () => {
  for (const command of COMMANDS) {
    it(`${command.name} --json: one JSON object naming the unknown option, exit 2`, async () => {
      const { io, out } = stringSinks();
      expect(await runCli([command.name, '--no-such-option', '--json'], io)).toBe(2);
      expect(parseCliResult(out.stdout)).toEqual({
        schema: 'cli-result.v1',
        command: command.name,
        status: 'invalid',
        exitCode: 2,
        error: { code: 'cli.usage', message: expect.stringContaining('--no-such-option'), findings: [] },
      });
      expect(out.stderr).toMatch(/^loopchart: .*--no-such-option/);
    });

    it(`${command.name}: the error on stderr only, exit 2`, async () => {
      const { io, out } = stringSinks();
      expect(await runCli([command.name, '--no-such-option'], io)).toBe(2);
      expect(out.stdout).toBe('');
      expect(out.stderr).toMatch(/^loopchart: .*--no-such-option/);
    });
  }
});

describe('outside a command', () => {
  it('an unknown command is a usage error that names it', async () => {
    const { io, out } = stringSinks();
    expect(await runCli(['frobnicate', '--json'], io)).toBe(2);
    expect(parseCliResult(out.stdout)).toMatchObject({
      command: 'frobnicate',
      status: 'invalid',
      exitCode: 2,
      error: { code: 'cli.usage' },
    });
    expect(out.stderr).toMatch(/^loopchart: unknown command "frobnicate"/);
  });

  it("a loopchart error that is not the user's input fails with exit 1 and its code", () => {
    const { io, out } = stringSinks();
    expect(reportCommandFailure(io, 'rpi', true, new LoopchartError('git.failed', 'git broke'))).toBe(1);
    expect(parseCliResult(out.stdout)).toEqual({
      schema: 'cli-result.v1',
      command: 'rpi',
      status: 'failed',
      exitCode: 1,
      error: { code: 'git.failed', message: 'git broke', findings: [] },
    });
    expect(out.stderr).toBe('loopchart: git broke\n');
  });

  it('any other error is an internal error: code internal, its stack on stderr, exit 1', () => {
    const { io, out } = stringSinks();
    expect(reportCommandFailure(io, 'view', true, new TypeError('boom'))).toBe(1);
    expect(parseCliResult(out.stdout)).toMatchObject({
      command: 'view',
      status: 'failed',
      exitCode: 1,
      error: { code: 'internal', message: 'boom' },
    });
    expect(out.stderr).toMatch(/^loopchart: internal error: TypeError: boom\n\s+at /);
  });
});
