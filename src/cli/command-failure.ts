import { InputError, LoopchartError } from '../common/errors.js';
import { paletteFor } from './colour.js';
import type { CliIo } from './command.js';
import { jsonResult } from './json-result.js';
import { terminalSafeIo } from './terminal-safe-io.js';

/**
 * Reports how a command failed, the one way docs/cli.md describes for every command:
 * `loopchart: <message>` on stderr and, with `--json`, one JSON object on stdout
 * (`{ schema, command, status: "invalid" | "failed", exitCode, error: { code, message, findings } }`).
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
      jsonResult(
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
        true,
      ),
    );
  // The prefix is loopchart's own text (its colour escape must reach the terminal as is); the
  // message may quote what a child wrote, so it goes through the safe stream.
  rawIo.stderr.write(`${paletteFor(rawIo.stderr, rawIo.env ?? process.env).red('loopchart:')} `);
  io.stderr.write(
    known
      ? `${message}\n`
      : `internal error: ${error instanceof Error ? (error.stack ?? message) : message}\n`,
  );
  return exitCode;
}
