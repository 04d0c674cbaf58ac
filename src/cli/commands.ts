import { UsageError } from '../common/errors.js';

/** Where a command writes. Tests pass string sinks; the executable passes the process streams. */
export interface CliIo {
  readonly stdout: { write(chunk: string): unknown };
  readonly stderr: { write(chunk: string): unknown };
}

/** One `loopchart <name>` command. */
export interface CliCommand {
  readonly name: string;
  /** One line for `loopchart help`. */
  readonly summary: string;
  /**
   * Runs the command and returns its exit code. A failure is thrown as a named error (InputError
   * for bad input); `runCli` reports it, so a command never formats its own failure.
   */
  run(args: readonly string[], io: CliIo): Promise<number>;
}

import { reportCommandFailure } from './command-failure.js';
import { COMMANDS as commands } from './registry.js';

function usage(): string {
  const width = Math.max(0, ...commands.map((c) => c.name.length));
  const lines = commands.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
  return [
    'usage: loopchart <command> [options]',
    '',
    'commands:',
    ...lines,
    '',
    'Run `loopchart <command> --help` for the options of one command.',
    '',
  ].join('\n');
}

/**
 * Runs the CLI with `args` (without node and the script path) and returns the exit code. A
 * command's failure is reported here, once for every command (see reportCommandFailure).
 */
export async function runCli(args: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = args;
  if (name === undefined || name === 'help' || name === '--help' || name === '-h') {
    io.stdout.write(usage());
    return name === undefined ? 2 : 0;
  }
  if (name === '--version' || name === '-v') {
    io.stdout.write(`${VERSION}\n`);
    return 0;
  }
  const command = commands.find((c) => c.name === name);
  const json = rest.includes('--json');
  if (!command)
    return reportCommandFailure(
      io,
      name,
      json,
      new UsageError(`unknown command "${name}"; run \`loopchart help\``),
    );
  try {
    return await command.run(rest, io);
  } catch (error) {
    return reportCommandFailure(io, command.name, json, error);
  }
}

declare const __LOOPCHART_VERSION__: string | undefined;
/** The package version, injected at build time. */
export const VERSION: string =
  typeof __LOOPCHART_VERSION__ === 'string' ? __LOOPCHART_VERSION__ : '0.0.0-dev';
