/**
 * A test-only entry point for `loopchart cyber`, bundled by cli-bundle.ts into one file that tests
 * run as a real process (to send it real signals). Maps errors to exit codes as src/cli/main.ts.
 */
import { cyberCommand } from '../../src/cli/cyber.js';
import { InputError } from '../../src/common/errors.js';

const [name, ...rest] = process.argv.slice(2);
if (name !== 'cyber') {
  process.stderr.write(`loopchart: unknown command "${name ?? ''}"\n`);
  process.exitCode = 2;
} else {
  cyberCommand.run(rest, { stdout: process.stdout, stderr: process.stderr }).then(
    (code) => {
      process.exitCode = code;
    },
    (error: unknown) => {
      process.stderr.write(`loopchart: ${error instanceof Error ? error.message : String(error)}\n`);
      process.exitCode = error instanceof InputError ? 2 : 1;
    },
  );
}
