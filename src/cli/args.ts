/**
 * Argument parsing shared by every command: `node:util` parseArgs in strict mode, with every
 * problem turned into a {@link UsageError} (exit code 2) that names the option.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from '../common/errors.js';

/** Options every reporting command accepts. */
export const COMMON_OPTIONS = {
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

/**
 * Parses `args` for one command.
 *
 * @param command the command name, for messages
 * @param args the arguments after the command name
 * @param options the command's options (merged with {@link COMMON_OPTIONS})
 * @param allowPositionals whether positionals are accepted
 * @throws UsageError for an unknown option, a missing value or an unexpected positional
 */
export function parseCommandArgs<const O extends NonNullable<ParseArgsConfig['options']>>(
  command: string,
  args: readonly string[],
  options: O,
  allowPositionals = false,
) {
  try {
    return parseArgs({
      args: [...args],
      options: { ...COMMON_OPTIONS, ...options },
      strict: true,
      allowPositionals,
    });
  } catch (error) {
    throw new UsageError(
      `${command}: ${(error as Error).message.replace(/\. To specify a positional.*$/s, '')}`,
    );
  }
}

/**
 * Parses a non-negative integer option value.
 *
 * @throws UsageError when the value is not a whole number >= `min`
 */
export function integerOption(
  command: string,
  name: string,
  value: string | undefined,
  fallback: number,
  min = 0,
): number {
  if (value === undefined) return fallback;
  if (!/^\d+$/.test(value) || Number(value) < min)
    throw new UsageError(`${command}: --${name} must be a whole number >= ${min}, got "${value}"`);
  return Number(value);
}
