/**
 * Entry point of the `loopchart` executable. Commands are registered in ./commands.ts as they
 * land; this file only maps errors to exit codes (docs/cli.md):
 * 0 finished, 3 stopped for a human, 2 invalid input or configuration, 1 internal error.
 */
import { InputError, LoopchartError } from '../common/errors.js';
import { runCli } from './commands.js';

runCli(process.argv.slice(2), { stdout: process.stdout, stderr: process.stderr }).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    if (error instanceof InputError) {
      process.stderr.write(`loopchart: ${error.message}\n`);
      process.exitCode = 2;
    } else if (error instanceof LoopchartError) {
      process.stderr.write(`loopchart: ${error.message}\n`);
      process.exitCode = 1;
    } else {
      process.stderr.write(
        `loopchart: internal error: ${error instanceof Error ? (error.stack ?? error.message) : String(error)}\n`,
      );
      process.exitCode = 1;
    }
  },
);
