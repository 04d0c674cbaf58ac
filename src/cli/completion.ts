/**
 * `loopchart completion bash|zsh|fish`: a completion script for the shell. Command names come from
 * the registry (written into the script); a command's options are read at completion time from
 * `loopchart <command> --help`, so the script never goes stale when a command gains an option.
 */
import type { CommandEntry } from './registry.js';

/** Shells `loopchart completion` writes a script for. */
export const SHELLS = ['bash', 'zsh', 'fish'] as const;
export type Shell = (typeof SHELLS)[number];

/** Words completed after `loopchart` that are not registered commands. */
const BUILT_INS = ['help', 'version', 'completion'] as const;

function singleQuoted(text: string): string {
  return `'${text.replaceAll("'", `'\\''`)}'`;
}

const OPTIONS_OF = `loopchart "$cmd" --help 2>/dev/null | grep -oE -- '--[a-z][a-z0-9-]*' | sort -u`;

function bash(entries: readonly CommandEntry[]): string {
  const names = [...entries.map((e) => e.name), ...BUILT_INS].join(' ');
  return `# loopchart completion for bash. Load it with: eval "$(loopchart completion bash)"
_loopchart() {
  local cur=\${COMP_WORDS[COMP_CWORD]}
  COMPREPLY=()
  if [ "$COMP_CWORD" -eq 1 ]; then
    COMPREPLY=( $(compgen -W ${singleQuoted(names)} -- "$cur") )
    return 0
  fi
  local cmd=\${COMP_WORDS[1]}
  case "$cmd" in
    help) [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=( $(compgen -W ${singleQuoted(entries.map((e) => e.name).join(' '))} -- "$cur") ); return 0 ;;
    completion) [ "$COMP_CWORD" -eq 2 ] && COMPREPLY=( $(compgen -W ${singleQuoted(SHELLS.join(' '))} -- "$cur") ); return 0 ;;
    version) return 0 ;;
  esac
  case "$cur" in
    -*) COMPREPLY=( $(compgen -W "$(${OPTIONS_OF})" -- "$cur") ) ;;
  esac
  return 0
}
complete -o default -F _loopchart loopchart
`;
}

function zsh(entries: readonly CommandEntry[]): string {
  const described = [
    ...entries.map((e) => `${e.name}:${e.summary}`),
    'help:show the commands, or one command with its options and examples',
    'version:print the version',
    'completion:print a completion script for bash, zsh or fish',
  ]
    .map((line) => `    ${singleQuoted(line)}`)
    .join('\n');
  return `#compdef loopchart
# loopchart completion for zsh. Load it with: eval "$(loopchart completion zsh)"
_loopchart() {
  local -a commands
  commands=(
${described}
  )
  if (( CURRENT == 2 )); then
    _describe 'command' commands
    return
  fi
  local cmd=$words[2]
  case $cmd in
    help) (( CURRENT == 3 )) && _describe 'command' commands ;;
    completion) (( CURRENT == 3 )) && compadd ${SHELLS.join(' ')} ;;
    version) ;;
    *)
      if [[ $PREFIX == -* ]]; then
        local -a opts
        opts=( \${(f)"$(${OPTIONS_OF})"} )
        compadd -a opts
      else
        _files
      fi
      ;;
  esac
}
compdef _loopchart loopchart
`;
}

function fish(entries: readonly CommandEntry[]): string {
  const lines = [
    '# loopchart completion for fish. Load it with: loopchart completion fish | source',
    'function __loopchart_options',
    '    set -l cmd (commandline -opc)[2]',
    "    loopchart $cmd --help 2>/dev/null | string match -r -a -- '--[a-z][a-z0-9-]*' | sort -u",
    'end',
    ...entries.map(
      (e) => `complete -c loopchart -n __fish_use_subcommand -f -a ${e.name} -d ${singleQuoted(e.summary)}`,
    ),
    "complete -c loopchart -n __fish_use_subcommand -f -a help -d 'show the commands, or one command'",
    "complete -c loopchart -n __fish_use_subcommand -f -a version -d 'print the version'",
    "complete -c loopchart -n __fish_use_subcommand -f -a completion -d 'print a completion script'",
    `complete -c loopchart -n '__fish_seen_subcommand_from help' -f -a ${singleQuoted(entries.map((e) => e.name).join(' '))}`,
    `complete -c loopchart -n '__fish_seen_subcommand_from completion' -f -a ${singleQuoted(SHELLS.join(' '))}`,
    "complete -c loopchart -n 'not __fish_use_subcommand; and string match -q -- \"-*\" (commandline -ct)' -f -a '(__loopchart_options)'",
  ];
  return `${lines.join('\n')}\n`;
}

/** The completion script for `shell`, completing the commands in `entries`. */
export function completionScript(shell: Shell, entries: readonly CommandEntry[]): string {
  if (shell === 'bash') return bash(entries);
  if (shell === 'zsh') return zsh(entries);
  return fish(entries);
}
