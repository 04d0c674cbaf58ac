import { InputError, LoopchartError } from '../common/errors.js';
import type { CliIo } from './commands.js';
import { terminalSafeIo } from './terminal-safe-io.js';

/**
 * Reports how a command failed, the one way docs/cli.md describes for every command:
 * `loopchart: <message>` on stderr and, with `--json`, one JSON object on stdout
 * (`{ command, status: "invalid" | "failed", exitCode, error: { code, message, findings } }`).
 * An error that is not loopchart's own is an internal error: its stack goes to stderr and its
 * code is `internal`.
 *
 * @returns the exit code: 2 for invalid input, 1 otherwise
 */
export function reportCommandFailure(rawIo: CliIo, command: string, json: boolean, error: unknown): number {
  const io = terminalSafeIo(rawIo);
  const known = error instanceof LoopchartError;
  const exitCode = error instanceof InputError ? 2 : 1;
  const message = error instanceof Error ? error.message : String(error);
  if (json)
    io.stdout.write(
      `${JSON.stringify(
        {
          command,
          status: exitCode === 2 ? 'invalid' : 'failed',
          exitCode,
          error: {
            code: known ? error.code : 'internal',
            message,
            findings: known ? error.findings : [],
          },
        },
        null,
        2,
      )}\n`,
    );
  io.stderr.write(
    known
      ? `loopchart: ${message}\n`
      : `loopchart: internal error: ${error instanceof Error ? (error.stack ?? message) : message}\n`,
  );
  return exitCode;
}
