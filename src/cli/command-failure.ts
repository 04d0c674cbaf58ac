import { InputError, LoopchartError } from '../common/errors.js';
import type { CliIo } from './commands.js';

/**
 * Reports a command's failure the way docs/cli.md says: `loopchart: <message>` on stderr and, with
 * `--json`, one JSON object on stdout. Errors that are not loopchart's own are rethrown so the
 * executable reports them as internal errors.
 *
 * @returns the exit code: 2 for invalid input, 1 otherwise
 */
export function reportCommandFailure(io: CliIo, command: string, json: boolean, error: unknown): number {
  if (!(error instanceof LoopchartError)) throw error;
  const exitCode = error instanceof InputError ? 2 : 1;
  if (json)
    io.stdout.write(
      `${JSON.stringify(
        {
          command,
          status: exitCode === 2 ? 'invalid' : 'failed',
          exitCode,
          error: { code: error.code, message: error.message, findings: error.findings },
        },
        null,
        2,
      )}\n`,
    );
  io.stderr.write(`loopchart: ${error.message}\n`);
  return exitCode;
}
