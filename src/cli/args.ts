/**
 * Argument parsing shared by every command: `node:util` parseArgs in strict mode, with every
 * problem turned into a {@link UsageError} (exit code 2) that names the option.
 */
import { type ParseArgsConfig, parseArgs } from 'node:util';
import { UsageError } from '../common/errors.js';
import { closest } from './suggest.js';

/** Options every reporting command accepts. */
export const COMMON_OPTIONS = {
  json: { type: 'boolean', default: false },
  help: { type: 'boolean', short: 'h', default: false },
} as const satisfies ParseArgsConfig['options'];

/**
 * Short flags every command gets for the options it has, so one letter means the same thing in
 * every command (`-w` is always `--worktree`). A command may still declare its own `short`.
 */
export const CONVENTIONAL_SHORTS: Readonly<Record<string, string>> = {
  worktree: 'w',
  spec: 's',
  ledger: 'l',
  child: 'c',
  gate: 'g',
  transcript: 't',
  out: 'o',
  format: 'f',
  repo: 'r',
  machine: 'm',
  dir: 'd',
};

type Options = NonNullable<ParseArgsConfig['options']>;

function withConventionalShorts(options: Options): Options {
  const taken = new Set(Object.values(options).flatMap((o) => (o.short === undefined ? [] : [o.short])));
  const result: Options = {};
  for (const [name, option] of Object.entries(options)) {
    const short = CONVENTIONAL_SHORTS[name];
    if (option.short === undefined && short !== undefined && !taken.has(short)) {
      taken.add(short);
      result[name] = { ...option, short };
    } else result[name] = option;
  }
  return result;
}

/** The parseArgs message, trimmed, with a did-you-mean for an unknown long option. */
function usageMessage(error: Error & { code?: string }, options: Options): string {
  const message = error.message.replace(/\. To specify a positional.*$/s, '');
  if (error.code !== 'ERR_PARSE_ARGS_UNKNOWN_OPTION') return message;
  const typed = /'--([^'=]+)/.exec(message)?.[1];
  const guess = typed === undefined ? null : closest(typed, Object.keys(options));
  return guess === null ? message : `${message}; did you mean --${guess}?`;
}

/**
 * Parses `args` for one command.
 *
 * @param command the command name, for messages
 * @param args the arguments after the command name
 * @param options the command's options (merged with {@link COMMON_OPTIONS})
 * @param allowPositionals whether positionals are accepted
 * @throws UsageError for an unknown option (with a did-you-mean when one option is close), a
 *   missing value or an unexpected positional
 */
export function parseCommandArgs<const O extends NonNullable<ParseArgsConfig['options']>>(
  command: string,
  args: readonly string[],
  options: O,
  allowPositionals = false,
): CommandArgs<O> {
  const all = { ...COMMON_OPTIONS, ...options };
  try {
    return parseArgs({
      args: [...args],
      options: withConventionalShorts(all) as typeof all,
      strict: true,
      allowPositionals,
    });
  } catch (error) {
    throw new UsageError(`${command}: ${usageMessage(error as Error, all)}`);
  }
}

/**
 * What {@link parseCommandArgs} returns for the options `O`: `parseArgs`'s result for the common
 * options plus `O`. Written out so the published declarations can name it (node's own name for an
 * options table is not exported).
 */
export type CommandArgs<O extends NonNullable<ParseArgsConfig['options']>> = ReturnType<
  typeof parseArgs<{
    args: string[];
    options: typeof COMMON_OPTIONS & O;
    strict: true;
    allowPositionals: boolean;
  }>
>;

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
