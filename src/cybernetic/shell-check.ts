import type { CheckCommand } from './check-command.js';

/**
 * The program and flag that run a user's shell command string. The CLI takes checks as the
 * strings people write (`--check "npm test && npm run lint"`), and docs/cli.md runs such strings
 * with `/bin/sh -c`. Freezing the check as this exact argument vector keeps the pure model's
 * promise (the vector is what runs, byte for byte) while honouring the CLI convention.
 */
export const SHELL_CHECK_PREFIX = ['/bin/sh', '-c'] as const;

/**
 * Exit codes a POSIX shell uses to say that the command itself could not be run: 126 (found but
 * not executable) and 127 (not found). For a shell check they mean "not executed", not "failed".
 */
export const SHELL_NOT_EXECUTED_EXIT_CODES: readonly number[] = [126, 127];

/**
 * Wraps a user's shell command string as the exact argument vector that runs it.
 *
 * @param text the command as the user wrote it, e.g. `npm test -- --grep "index"`
 * @returns `['/bin/sh', '-c', text]`, or null when the text is empty or only whitespace
 */
export function shellCheckCommand(text: string): CheckCommand | null {
  if (text.trim() === '') return null;
  return [...SHELL_CHECK_PREFIX, text];
}

/**
 * Whether a frozen command is a shell check made by {@link shellCheckCommand}.
 *
 * @param command a frozen check's argument vector
 */
export function isShellCheckCommand(command: readonly string[]): boolean {
  return command.length === 3 && command[0] === SHELL_CHECK_PREFIX[0] && command[1] === SHELL_CHECK_PREFIX[1];
}
