import { LoopchartError } from '../common/errors.js';

/** What an effect observed when a command it ran did not succeed. */
export interface CommandFailure {
  /** The command as a person would type it, e.g. `git status --porcelain`. */
  readonly command: string;
  /** Exit code, or `null` when the process did not exit normally (signal, timeout, spawn failure). */
  readonly exitCode: number | null;
  /** Terminating signal name, or `null`. */
  readonly signal: string | null;
  /** The last lines of the command's output (stderr first, then stdout), for a person to read. */
  readonly outputTail: string;
}

/**
 * A command run by an effect failed. Like execa's errors it carries the command, the exit code and
 * the tail of the output, so the failure can be reported without rerunning anything.
 *
 * `code` names the effect: `git.failed` for a git command, `effects.command-failed` otherwise.
 */
export class CommandFailedError extends LoopchartError implements CommandFailure {
  readonly command: string;
  readonly exitCode: number | null;
  readonly signal: string | null;
  readonly outputTail: string;

  /**
   * @param code stable failure name (see class doc)
   * @param failure what was run and what it printed
   * @param detail optional short reason that replaces the exit-code phrase (e.g. `timed out after 60000 ms`)
   */
  constructor(code: string, failure: CommandFailure, detail?: string) {
    const how =
      detail ??
      (failure.exitCode !== null
        ? `exit code ${failure.exitCode}`
        : failure.signal !== null
          ? `signal ${failure.signal}`
          : 'no exit code');
    const tail = failure.outputTail.length > 0 ? `\n${failure.outputTail}` : '';
    super(code, `${failure.command} failed (${how})${tail}`);
    this.command = failure.command;
    this.exitCode = failure.exitCode;
    this.signal = failure.signal;
    this.outputTail = failure.outputTail;
  }
}
