/**
 * The exact command of a frozen check, as an argument vector. loopchart runs checks without a
 * shell (execa), so the vector is what runs: element 0 is the program, the rest are its
 * arguments, byte for byte.
 */
export type CheckCommand = readonly [string, ...string[]];

/** Characters a shell would interpret; a command string containing one must be given as a vector. */
const SHELL_SYNTAX = /["'`$\\|&;<>(){}[\]*?~#\n\r]/;

/** Arguments that read the same with or without shell quoting. */
const PLAIN_ARGUMENT = /^[A-Za-z0-9_@%+=:,./-]+$/;

/** Result of reading a command given by the caller. */
export type CheckCommandParse =
  | { readonly ok: true; readonly command: CheckCommand }
  | { readonly ok: false; readonly code: string; readonly reason: string };

/**
 * Reads a caller's command: either an argument vector (`["npm", "test"]`) or a plain string that
 * is split on whitespace (`"npm test"`). A string containing shell syntax (quotes, `$`, pipes,
 * globs, redirections...) is refused instead of guessed at, because no shell will interpret it.
 *
 * @param raw the caller's value
 * @returns the command, or a finding code (`cybernetic.check.command-*`) and a reason
 */
export function parseCheckCommand(raw: unknown): CheckCommandParse {
  if (typeof raw === 'string') {
    if (SHELL_SYNTAX.test(raw))
      return {
        ok: false,
        code: 'cybernetic.check.command-needs-argv',
        reason: `command "${raw}" contains shell syntax; checks run without a shell, so give it as an argument list`,
      };
    const words = raw.split(/[ \t]+/).filter((word) => word.length > 0);
    return toCommand(words);
  }
  if (Array.isArray(raw)) {
    if (!raw.every((word): word is string => typeof word === 'string'))
      return {
        ok: false,
        code: 'cybernetic.check.command-invalid',
        reason: 'every element of a command list must be a string',
      };
    return toCommand(raw);
  }
  return {
    ok: false,
    code: 'cybernetic.check.command-invalid',
    reason: 'a command is a string or a list of strings',
  };
}

function toCommand(words: readonly string[]): CheckCommandParse {
  const [program, ...args] = words;
  if (program === undefined || program.trim() === '')
    return {
      ok: false,
      code: 'cybernetic.check.command-empty',
      reason: 'the command names no program to run',
    };
  return { ok: true, command: [program, ...args] };
}

/**
 * Renders a command for people: plain arguments bare, anything else single-quoted POSIX style,
 * so that the echoed text is unambiguous about argument boundaries.
 *
 * @param command the argument vector
 * @returns one line, e.g. `npm test -- 'name with space'`
 */
export function renderCheckCommand(command: readonly string[]): string {
  return command
    .map((word) => (PLAIN_ARGUMENT.test(word) ? word : `'${word.replaceAll("'", `'\\''`)}'`))
    .join(' ');
}
