/**
 * Entry point of the `loopchart` executable. Commands are registered in ./registry.ts and loaded
 * only when they run; `runCli` (./commands.ts) reports a command's failure and returns the exit
 * code (docs/cli.md): 0 finished, 3 stopped for a human, 2 invalid input or configuration,
 * 1 internal error.
 */
import { reportCommandFailure } from './command-failure.js';
import { runCli } from './commands.js';

const io = { stdout: process.stdout, stderr: process.stderr, env: process.env };
runCli(process.argv.slice(2), io).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.exitCode = reportCommandFailure(io, 'loopchart', false, error);
  },
);
