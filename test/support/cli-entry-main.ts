/**
 * The shared body of the test-only CLI entry points (loop, rpi, cyber, loop command, fleet): runs
 * the command named by `process.argv[2]` among `commands`, and reports an unknown name or a
 * command's failure as `runCli` does (exit 2, `reportCommandFailure`).
 */
import type { CliCommand } from '../../src/cli/command.js';
import { reportCommandFailure } from '../../src/cli/command-failure.js';

export function runEntryCommand(commands: readonly CliCommand[]): void {
  runLazyEntryCommand(Object.fromEntries(commands.map((command) => [command.name, async () => command])));
}

/**
 * {@link runEntryCommand} with each command behind a loader (a dynamic import of its module), as
 * src/cli/registry.ts registers them: a process loads and evaluates only the command it runs.
 */
export function runLazyEntryCommand(loaders: Readonly<Record<string, () => Promise<CliCommand>>>): void {
  const [name, ...rest] = process.argv.slice(2);
  const load = name !== undefined && Object.hasOwn(loaders, name) ? loaders[name] : undefined;
  const io = { stdout: process.stdout, stderr: process.stderr };
  if (name === undefined || load === undefined) {
    process.stderr.write(`loopchart: unknown command "${name ?? ''}"\n`);
    process.exitCode = 2;
    return;
  }
  load()
    .then((command) => command.run(rest, io))
    .then(
      (code) => {
        process.exitCode = code;
      },
      (error: unknown) => {
        process.exitCode = reportCommandFailure(io, name, rest.includes('--json'), error);
      },
    );
}
