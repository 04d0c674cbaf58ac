/**
 * `runCli`: dispatches `loopchart <command>` to the registered command, loading only that
 * command's module, and answers the built-ins (`help [command]`, `version`, `completion <shell>`)
 * without loading any command. Commands register in ./registry.ts; their types live in
 * ./command.ts, so this file is the only one that imports the registry (no import cycle).
 */
import { UsageError } from '../common/errors.js';
import { paletteFor } from './colour.js';
import type { CliCommand, CliIo } from './command.js';
import { reportCommandFailure } from './command-failure.js';
import { completionScript, SHELLS, type Shell } from './completion.js';
import { CLI_RESULT_SCHEMA_ID } from './json-result.js';
import { COMMANDS, type CommandEntry } from './registry.js';
import { closest } from './suggest.js';

export type { CliCommand, CliIo } from './command.js';

declare const __LOOPCHART_VERSION__: string | undefined;
/** The package version, injected at build time. */
export const VERSION: string =
  typeof __LOOPCHART_VERSION__ === 'string' ? __LOOPCHART_VERSION__ : '0.0.0-dev';

const HELP_WORDS = new Set(['help', '--help', '-h']);
const VERSION_WORDS = new Set(['version', '--version', '-V', '-v']);

function usage(io: CliIo): string {
  const { bold } = paletteFor(io.stdout, io.env ?? process.env);
  const rows: [string, string][] = [
    ...COMMANDS.map((c): [string, string] => [c.name, c.summary]),
    ['help [command]', 'this list, or one command with its options and examples'],
    ['version', 'print the version (also -V, --version)'],
    ['completion <shell>', 'print a completion script for bash, zsh or fish'],
  ];
  const width = Math.max(...rows.map(([name]) => name.length));
  return [
    `${bold('usage:')} loopchart <command> [options]`,
    '',
    bold('commands:'),
    ...rows.map(([name, summary]) => `  ${name.padEnd(width)}  ${summary}`),
    '',
    'Run `loopchart help <command>` (or `loopchart <command> --help`) for its options and examples.',
    '',
    bold('examples:'),
    '  loopchart demo --dir /tmp/loopchart-demo',
    '  loopchart status --spec docs/spec.md',
    '  loopchart help run',
    '  eval "$(loopchart completion bash)"',
    '',
  ].join('\n');
}

/** `unknown command "rnu"; did you mean "run"?` plus how to list the commands. */
function unknownCommand(name: string): UsageError {
  const names = [...COMMANDS.map((c) => c.name), 'help', 'version', 'completion'];
  const guess = closest(name, names);
  return new UsageError(
    `unknown command "${name}"${guess === null ? '' : `; did you mean "${guess}"?`} Run \`loopchart help\` for the list`,
  );
}

function entryOf(name: string): CommandEntry | undefined {
  return COMMANDS.find((c) => c.name === name);
}

async function runCommand(entry: CommandEntry, args: readonly string[], io: CliIo, json: boolean) {
  let command: CliCommand;
  try {
    command = await entry.load();
    return await command.run(args, io);
  } catch (error) {
    return reportCommandFailure(io, entry.name, json, error);
  }
}

/**
 * Runs the CLI with `args` (without node and the script path) and returns the exit code. A
 * command's failure is reported here, once for every command (see reportCommandFailure).
 */
export async function runCli(args: readonly string[], io: CliIo): Promise<number> {
  const [name, ...rest] = args;
  const json = rest.includes('--json');
  if (name === undefined) {
    io.stdout.write(usage(io));
    return 2;
  }
  if (HELP_WORDS.has(name)) {
    const [topic, ...extra] = rest;
    if (topic === undefined) {
      io.stdout.write(usage(io));
      return 0;
    }
    if (extra.length > 0)
      return reportCommandFailure(io, 'help', false, new UsageError('help: name at most one command'));
    const entry = entryOf(topic);
    if (entry === undefined) return reportCommandFailure(io, 'help', false, unknownCommand(topic));
    return runCommand(entry, ['--help'], io, false);
  }
  if (VERSION_WORDS.has(name)) {
    if (rest.length > 0 && !(rest.length === 1 && json))
      return reportCommandFailure(io, 'version', json, new UsageError('version: takes no arguments'));
    io.stdout.write(
      json
        ? `${JSON.stringify({ schema: CLI_RESULT_SCHEMA_ID, command: 'version', status: 'finished', exitCode: 0, version: VERSION })}\n`
        : `${VERSION}\n`,
    );
    return 0;
  }
  if (name === 'completion') {
    const [shell, ...extra] = rest;
    if (shell === '--help' || shell === '-h') {
      io.stdout.write(COMPLETION_HELP);
      return 0;
    }
    if (shell === undefined || extra.length > 0 || !(SHELLS as readonly string[]).includes(shell))
      return reportCommandFailure(
        io,
        'completion',
        false,
        new UsageError(
          `completion: name one shell: ${SHELLS.join(', ')}${shell === undefined ? '' : ` (got "${shell}")`}`,
        ),
      );
    io.stdout.write(completionScript(shell as Shell, COMMANDS));
    return 0;
  }
  const entry = entryOf(name);
  if (entry === undefined) return reportCommandFailure(io, name, json, unknownCommand(name));
  return runCommand(entry, rest, io, json);
}

const COMPLETION_HELP = `usage: loopchart completion bash|zsh|fish

Prints a completion script for the shell: command names, and each command's options (read from
its --help when you press tab).

examples:
  eval "$(loopchart completion bash)"          # in ~/.bashrc
  eval "$(loopchart completion zsh)"           # in ~/.zshrc, after compinit
  loopchart completion fish | source           # in ~/.config/fish/config.fish
`;
