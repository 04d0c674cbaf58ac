/**
 * A test-only entry point for `loopchart cyber`, bundled by cli-bundle.ts into one file that tests
 * run as a real process (to send it real signals). Reports a failure as `runCli` does.
 */

import { reportCommandFailure } from '../../src/cli/command-failure.js';
import { cyberCommand } from '../../src/cli/cyber.js';

const [name, ...rest] = process.argv.slice(2);
if (name !== 'cyber') {
  process.stderr.write(`loopchart: unknown command "${name ?? ''}"\n`);
  process.exitCode = 2;
} else {
  const io = { stdout: process.stdout, stderr: process.stderr };
  cyberCommand.run(rest, io).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.exitCode = reportCommandFailure(io, 'cyber', rest.includes('--json'), error);
    },
  );
}
