/**
 * Agent presets (`--child-agent claude|codex|gemini|opencode|pi|aider`, docs/agents.md): each
 * expands to the command line its CLI documents for one non-interactive run with the rendered
 * prompt, in the worktree, with the model from `LOOPCHART_MODEL` when the loop sets it. Pure: a
 * table and string building.
 *
 * The expansion is a `/bin/sh -c` command: it renders the prompt for this dispatch with
 * `<tool> prompt`, then runs the agent with it. No preset passes a flag that turns off the agent's
 * sandbox or permission prompts; `unsafe` (the user's documented `--agent-unsafe`) adds the CLI's
 * own bypass flag, for a checkout that is itself sandboxed.
 */
import { InputError } from '../common/errors.js';
import type { PromptRole } from './prompt.js';

/** The agents with a preset. */
export const AGENT_NAMES = ['claude', 'codex', 'gemini', 'opencode', 'pi', 'aider'] as const;

/** One agent name. */
export type AgentName = (typeof AGENT_NAMES)[number];

/** How one agent CLI is run for a dispatch. */
export interface AgentPreset {
  readonly name: AgentName;
  /** The executable. */
  readonly program: string;
  /** Words before the prompt (subcommand and fixed flags). */
  readonly fixed: readonly string[];
  /** The flag that names the model (followed by its value). */
  readonly modelFlag: string;
  /** The flag that passes the prompt, or `null` when the prompt is a positional argument. */
  readonly promptFlag: string | null;
  /**
   * The prompt goes right after the fixed words instead of last (claude: `--allowedTools` takes
   * several values and would read a trailing prompt as one more tool).
   */
  readonly promptFirst?: boolean;
  /** Extra fixed flags for tool permissions, with `{tool}` standing for the loopchart command. */
  readonly permissionFlags: readonly string[];
  /**
   * The CLI's own flags that bypass its sandbox or permission prompts; with `unsafe` they replace
   * {@link AgentPreset.permissionFlags}.
   */
  readonly unsafeFlags: readonly string[];
  /** The package the flags were checked against, and its version (docs/agents.md). */
  readonly checkedAgainst: string;
  /**
   * The roles the agent can play, or all when absent. An agent that cannot run shell commands
   * unattended cannot call the child tools, so it cannot be a loop child.
   */
  readonly roles?: readonly PromptRole[];
}

/** The preset table. Flags checked against each CLI's `--help` (test/fixtures/agent-help/). */
export const AGENT_PRESETS: Readonly<Record<AgentName, AgentPreset>> = {
  claude: {
    name: 'claude',
    program: 'claude',
    fixed: ['-p'],
    modelFlag: '--model',
    promptFlag: null,
    promptFirst: true,
    // Edits without a prompt, and the child tools as the one pre-approved shell command; any other
    // command follows the user's own permission settings.
    permissionFlags: ['--permission-mode', 'acceptEdits', '--allowedTools', 'Bash({tool} child *)'],
    unsafeFlags: ['--dangerously-skip-permissions'],
    checkedAgainst: '@anthropic-ai/claude-code 2.1.332',
  },
  codex: {
    name: 'codex',
    program: 'codex',
    fixed: ['exec'],
    modelFlag: '--model',
    promptFlag: null,
    permissionFlags: ['--sandbox', 'workspace-write'],
    unsafeFlags: ['--dangerously-bypass-approvals-and-sandbox'],
    checkedAgainst: '@openai/codex 0.171.0',
  },
  gemini: {
    name: 'gemini',
    program: 'gemini',
    fixed: [],
    modelFlag: '--model',
    promptFlag: '--prompt',
    permissionFlags: ['--approval-mode', 'auto_edit'],
    unsafeFlags: ['--approval-mode', 'yolo'],
    checkedAgainst: '@google/gemini-cli 0.61.0',
  },
  opencode: {
    name: 'opencode',
    program: 'opencode',
    fixed: ['run'],
    modelFlag: '--model',
    promptFlag: null,
    permissionFlags: [],
    unsafeFlags: ['--auto'],
    checkedAgainst: 'opencode-ai 1.18.33',
  },
  pi: {
    name: 'pi',
    program: 'pi',
    fixed: ['--print'],
    modelFlag: '--model',
    promptFlag: null,
    permissionFlags: [],
    unsafeFlags: [],
    checkedAgainst: '@mariozechner/pi-coding-agent 0.73.1',
  },
  aider: {
    name: 'aider',
    program: 'aider',
    fixed: ['--no-auto-commits'],
    modelFlag: '--model',
    promptFlag: '--message',
    permissionFlags: [],
    unsafeFlags: ['--yes-always'],
    checkedAgainst: 'aider options reference, aider 0.86 (not installed: PyPI unreachable here)',
    // aider asks a person before every shell command, even with --yes-always: it can build a change
    // (the RPI implementer, whose exit code alone is read) but cannot call the child tools.
    roles: ['implementer'],
  },
};

/** Quotes one word for `/bin/sh` (single quotes; a single quote becomes `'\''`). */
export function shellQuote(word: string): string {
  return /^[A-Za-z0-9_@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** Options of {@link expandPreset}. */
export interface PresetOptions {
  /** The role whose prompt the agent gets. */
  readonly role: PromptRole;
  /** How the shell calls loopchart (already quoted), e.g. `loopchart` or `'/usr/bin/node' '/x/cli.js'`. */
  readonly tool: string;
  /** The shell expression naming the task file, e.g. `"$LOOPCHART_TASK"` (omitted for RPI roles). */
  readonly taskExpression?: string;
  /** A user prompt template file. */
  readonly template?: string;
  /** Extra arguments for the agent, as shell text the user wrote (`--agent-args`). */
  readonly extraArgs?: string;
  /** Add the CLI's own sandbox/permission bypass (`--agent-unsafe`). */
  readonly unsafe?: boolean;
}

/**
 * Looks a preset up by name.
 *
 * @throws InputError (`agent.unknown`) naming the presets
 */
export function agentPreset(name: string): AgentPreset {
  const preset = (AGENT_PRESETS as Record<string, AgentPreset | undefined>)[name];
  if (preset === undefined)
    throw new InputError('agent.unknown', `no agent preset "${name}"; presets: ${AGENT_NAMES.join(', ')}`);
  return preset;
}

/**
 * Expands a preset to the `/bin/sh -c` command line of one dispatch: render the prompt, then run
 * the agent with it (and with `--model "$LOOPCHART_MODEL"` when that is set).
 *
 * @param preset the agent
 * @param options role, tool command, task expression, template, extra arguments, unsafe
 * @returns the shell command
 * @throws InputError (`agent.unsafe`) when unsafe is asked of an agent without a bypass flag,
 *   (`agent.role`) for a role the agent cannot play
 */
export function expandPreset(preset: AgentPreset, options: PresetOptions): string {
  if (preset.roles !== undefined && !preset.roles.includes(options.role))
    throw new InputError(
      'agent.role',
      `${preset.name} cannot be the ${options.role}: it runs no shell command without a person's yes, so it cannot call the loopchart tools (it can be: ${preset.roles.join(', ')})`,
    );
  if (options.unsafe === true && preset.unsafeFlags.length === 0)
    throw new InputError(
      'agent.unsafe',
      `${preset.name} has no sandbox or permission prompts to turn off; drop --agent-unsafe`,
    );
  const render = [
    options.tool,
    'prompt',
    '--role',
    options.role,
    ...(options.taskExpression === undefined ? [] : ['--task', options.taskExpression]),
    ...(options.template === undefined ? [] : ['--template', shellQuote(options.template)]),
  ].join(' ');
  const permission = preset.permissionFlags.map((flag) =>
    shellQuote(flag.replaceAll('{tool}', options.tool)),
  );
  const prompt = [...(preset.promptFlag === null ? [] : [preset.promptFlag]), '"$prompt"'];
  const words = [
    preset.program,
    ...preset.fixed,
    ...(preset.promptFirst === true ? prompt : []),
    // The bypass replaces the permission flags: the CLIs refuse both at once.
    ...(options.unsafe === true ? preset.unsafeFlags : permission),
    `\${LOOPCHART_MODEL:+${preset.modelFlag} "$LOOPCHART_MODEL"}`,
    ...(options.extraArgs === undefined || options.extraArgs.trim() === '' ? [] : [options.extraArgs.trim()]),
    ...(preset.promptFirst === true ? [] : prompt),
  ];
  return `prompt=$(${render}) && ${words.join(' ')}`;
}
