/**
 * A test-only entry point for `loopchart rpi` and `loopchart crank`, bundled by cli-bundle.ts into
 * one file that crash tests run as a real process (and kill with SIGKILL). It reports a command's
 * failure as `runCli` does.
 */
import type { CliCommand } from '../../src/cli/command.js';
import { reportCommandFailure } from '../../src/cli/command-failure.js';
import { crankCommand } from '../../src/cli/crank.js';
import { rpiCommand } from '../../src/cli/rpi.js';

const commands: readonly CliCommand[] = [rpiCommand, crankCommand];
const [name, ...rest] = process.argv.slice(2);
const command = commands.find((c) => c.name === name);
const io = { stdout: process.stdout, stderr: process.stderr };
if (command === undefined) {
  process.stderr.write(`loopchart: unknown command "${name ?? ''}"\n`);
  process.exitCode = 2;
} else {
  command.run(rest, io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.exitCode = reportCommandFailure(io, command.name, rest.includes('--json'), error);
    },
  );
}
