/**
 * A test-only entry point for `loopchart loop`, bundled by cli-bundle.ts into one file that tests
 * run as a real process (to kill it with SIGKILL mid-cycle). Reports a failure as `runCli` does.
 */

import { reportCommandFailure } from '../../src/cli/command-failure.js';
import { loopCommand } from '../../src/cli/loop.js';

const [name, ...rest] = process.argv.slice(2);
if (name !== 'loop') {
  process.stderr.write(`loopchart: unknown command "${name ?? ''}"\n`);
  process.exitCode = 2;
} else {
  const io = { stdout: process.stdout, stderr: process.stderr };
  loopCommand.run(rest, io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.exitCode = reportCommandFailure(io, 'loop', rest.includes('--json'), error);
    },
  );
}
