/**
 * The agent preset options shared by `run`, `rpi`, `crank` and `cyber` (docs/agents.md):
 * `--<role>-agent <name>` expands to the agent's one-shot command line with the rendered prompt,
 * `--agent-args` appends the user's own arguments, `--agent-unsafe` adds the agent's documented
 * sandbox/permission bypass, `--prompt-template` replaces the prompt's layout.
 */

import { AGENT_NAMES, AGENT_PRESETS, agentPreset, expandPreset, shellQuote } from '../agents/presets.js';
import type { PromptRole } from '../agents/prompt.js';
import { UsageError } from '../common/errors.js';

/** Environment variable naming how a child calls loopchart (set for every preset child). */
export const TOOL_VARIABLE = 'LOOPCHART_CLI';

/** The parseArgs options of the agent presets, besides the per-role `--<role>-agent`. */
export const AGENT_OPTIONS = {
  'agent-args': { type: 'string' },
  'agent-unsafe': { type: 'boolean', default: false },
  'prompt-template': { type: 'string' },
} as const;

/**
 * How a child's shell calls this loopchart: `$LOOPCHART_CLI` when set, else this process's node
 * and script, quoted.
 */
export function toolCommand(env: Readonly<Record<string, string | undefined>> = process.env): string {
  const set = env[TOOL_VARIABLE];
  if (set !== undefined && set.trim() !== '') return set;
  const script = process.argv[1];
  return script === undefined ? 'loopchart' : `${shellQuote(process.execPath)} ${shellQuote(script)}`;
}

/** Help lines describing the presets, for a command's `--help`. */
export function presetHelp(option: string): string {
  const width = Math.max(...AGENT_NAMES.map((n) => n.length));
  return [
    `Agent presets for ${option} (docs/agents.md); each runs the agent once per dispatch with the`,
    'prompt of `loopchart prompt`, and the model from LOOPCHART_MODEL when the loop sets it:',
    ...AGENT_NAMES.map((name) =>
      `  ${name.padEnd(width)}  ${AGENT_PRESETS[name].program} ${AGENT_PRESETS[name].fixed.join(' ')}`.trimEnd(),
    ),
    '  --agent-args "<args>"     extra arguments for the agent (shell text, appended)',
    "  --agent-unsafe            add the agent's own sandbox/permission bypass flag (only in a sandboxed checkout)",
    '  --prompt-template <file>  a prompt template with {{variables}} (docs/agents.md)',
  ].join('\n');
}

/** Parsed agent options of one role. */
export interface AgentChoice {
  /** The shell command to run. */
  readonly command: string;
  /** Environment the command needs (how to call loopchart). */
  readonly env: Readonly<Record<string, string>>;
}

/**
 * Expands `--<option> <agent>` for `role`, or returns `null` when the option is absent.
 *
 * @param command the command name, for messages
 * @param option the option's name, e.g. `child-agent`
 * @param values the parsed values
 * @param role the prompt role
 * @param given the explicit command option (`--child`), which excludes a preset
 * @throws UsageError when both a command and a preset are given, InputError for an unknown agent
 */
export function agentChoice(
  command: string,
  option: string,
  values: {
    readonly agent: string | undefined;
    readonly 'agent-args'?: string | undefined;
    readonly 'agent-unsafe'?: boolean | undefined;
    readonly 'prompt-template'?: string | undefined;
  },
  role: PromptRole,
  given: string | undefined,
  env: Readonly<Record<string, string | undefined>> = process.env,
): AgentChoice | null {
  if (values.agent === undefined) return null;
  if (given !== undefined) throw new UsageError(`${command}: give either a command or --${option}, not both`);
  const tool = toolCommand(env);
  const expanded = expandPreset(agentPreset(values.agent), {
    role,
    tool,
    ...(role === 'child' || role === 'verify-repair' || role === 'patcher'
      ? { taskExpression: '"$LOOPCHART_TASK"' }
      : role === 'reviewer'
        ? { taskExpression: '"$LOOPCHART_REVIEW_TASK"' }
        : {}),
    ...(values['prompt-template'] === undefined ? {} : { template: values['prompt-template'] }),
    ...(values['agent-args'] === undefined ? {} : { extraArgs: values['agent-args'] }),
    unsafe: values['agent-unsafe'] === true,
  });
  return { command: expanded, env: { [TOOL_VARIABLE]: tool } };
}

/** The parseArgs options of `--implementer-agent` and `--validator-agent` (rpi, crank). */
export const RPI_AGENT_OPTIONS = {
  'implementer-agent': { type: 'string' },
  'validator-agent': { type: 'string' },
  ...AGENT_OPTIONS,
} as const;

/**
 * Resolves the implementer and validator commands of `rpi` and `crank`: the explicit command, or
 * the expansion of `--implementer-agent` / `--validator-agent`. A preset's children find loopchart
 * through `LOOPCHART_CLI`, set here for the commands this process starts.
 *
 * @throws UsageError when a role is given twice or not at all
 */
export function rpiCommands(
  command: string,
  values: {
    readonly implementer?: string | undefined;
    readonly validator?: string | undefined;
    readonly 'implementer-agent'?: string | undefined;
    readonly 'validator-agent'?: string | undefined;
    readonly 'agent-args'?: string | undefined;
    readonly 'agent-unsafe'?: boolean | undefined;
    readonly 'prompt-template'?: string | undefined;
  },
): { implementer: string; validator: string } {
  const resolved = { implementer: values.implementer, validator: values.validator };
  for (const role of ['implementer', 'validator'] as const) {
    const choice = agentChoice(
      command,
      `${role}-agent`,
      { ...values, agent: values[`${role}-agent`] },
      role,
      values[role],
    );
    if (choice !== null) {
      resolved[role] = choice.command;
      useToolVariable(choice);
    }
    if (resolved[role] === undefined)
      throw new UsageError(`${command}: --${role} "<cmd>" or --${role}-agent <agent> is required`);
  }
  return resolved as { implementer: string; validator: string };
}

/** Puts a preset's `LOOPCHART_CLI` into this process's environment, which its commands inherit. */
export function useToolVariable(choice: AgentChoice): void {
  const tool = choice.env[TOOL_VARIABLE];
  if (tool !== undefined && (process.env[TOOL_VARIABLE] ?? '') === '') process.env[TOOL_VARIABLE] = tool;
}
