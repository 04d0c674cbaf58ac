/**
 * The shape of one `loopchart` command and of the streams it writes to. Command modules import
 * these types from here (never from ./commands.ts, which loads the registry), so src/cli has no
 * import cycle and a command module loads nothing but its own dependencies.
 */

/** A stream a command writes to; `isTTY` is read to decide on progress lines and colour. */
export interface CliStream {
  write(chunk: string): unknown;
  readonly isTTY?: boolean;
}

/** Where a command writes. Tests pass string sinks; the executable passes the process streams. */
export interface CliIo {
  readonly stdout: CliStream;
  readonly stderr: CliStream;
  /** The environment read for `NO_COLOR`; `process.env` when absent. */
  readonly env?: Readonly<Record<string, string | undefined>>;
}

/** One `loopchart <name>` command. */
export interface CliCommand {
  readonly name: string;
  /** One line for `loopchart help` (the registry repeats it; a test checks they match). */
  readonly summary: string;
  /**
   * Runs the command and returns its exit code. A failure is thrown as a named error (InputError
   * for bad input); `runCli` reports it, so a command never formats its own failure. `--help`
   * prints the command's usage, its options and at least one example.
   */
  run(args: readonly string[], io: CliIo): Promise<number>;
}
