/**
 * A test-only entry point of the fleet commands (`serve`, `submit`, `answer`, `runs`), bundled by
 * fleet.ts into one file that tests run as real processes (the Restate SDKs stay external).
 */
import { answerCommand } from '../../src/cli/answer.js';
import type { CliCommand } from '../../src/cli/command.js';
import { reportCommandFailure } from '../../src/cli/command-failure.js';
import { runsCommand } from '../../src/cli/runs.js';
import { serveCommand } from '../../src/cli/serve.js';
import { submitCommand } from '../../src/cli/submit.js';

const commands: readonly CliCommand[] = [serveCommand, submitCommand, answerCommand, runsCommand];
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
