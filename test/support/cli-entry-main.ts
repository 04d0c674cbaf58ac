/**
 * The shared body of the test-only CLI entry points (loop, rpi, cyber, loop command, fleet): runs
 * the command named by `process.argv[2]` among `commands`, and reports an unknown name or a
 * command's failure as `runCli` does (exit 2, `reportCommandFailure`).
 */
import type { CliCommand } from '../../src/cli/command.js';
import { reportCommandFailure } from '../../src/cli/command-failure.js';

export function runEntryCommand(commands: readonly CliCommand[]): void {
  const [name, ...rest] = process.argv.slice(2);
  const command = commands.find((c) => c.name === name);
  const io = { stdout: process.stdout, stderr: process.stderr };
  if (command === undefined) {
    process.stderr.write(`loopchart: unknown command "${name ?? ''}"\n`);
    process.exitCode = 2;
    return;
  }
  command.run(rest, io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.exitCode = reportCommandFailure(io, command.name, rest.includes('--json'), error);
    },
  );
}
