/**
 * `loopchart prompt --role <role> [--task <file>]`: renders the instruction text an agent gets for
 * one dispatch (src/agents/prompt.ts, docs/agents.md). The agent presets call it inside the
 * dispatch; a person calls it to read what the agent is told.
 */
import { resolve } from 'node:path';
import {
  type PatcherTask,
  PROMPT_ROLES,
  PROMPT_VARIABLES,
  type PromptRole,
  renderPrompt,
} from '../agents/prompt.js';
import { InputError, UsageError } from '../common/errors.js';
import { readFileIfExists } from '../effects/files.js';
import { diskLedger, loadChildDispatch, specRows } from '../host/child-tools.js';
import { TOOL_VARIABLE, toolCommand } from './agent-options.js';
import { parseCommandArgs } from './args.js';
import type { CliCommand } from './command.js';
import { jsonResult } from './json-result.js';

const HELP = `usage: loopchart prompt [--role <role>] [--task <file>] [--template <file>] [--tool "<cmd>"]

Prints the prompt an agent gets for one dispatch: the goal, the task in plain words, the evidence
rule, the tool commands in order ("$ " lines), the blocking-call contract and what never to do.

  --role <role>        child (default; a seed, row or verification task), verify-repair,
                       implementer, validator (RPI and crank) or patcher (cybernetic loop)
  --task <file>        the task file (default: $LOOPCHART_TASK); RPI roles read LOOPCHART_ROUND,
                       LOOPCHART_FINDINGS, LOOPCHART_INTENT, LOOPCHART_SUBJECT_DIGEST, LOOPCHART_LEG
  --template <file>    replace the layout with a template; {{variable}} placeholders:
${Object.entries(PROMPT_VARIABLES)
  .map(([name, what]) => `                         {{${name}}}  ${what}`)
  .join('\n')}
  --tool "<cmd>"       how the agent calls loopchart (default: $${TOOL_VARIABLE}, else this loopchart)
  --json               print one JSON object whose \`prompt\` is the text

examples:
  loopchart prompt --task "$LOOPCHART_TASK"
  loopchart prompt --role validator --json
`;

async function readTemplate(path: string | undefined): Promise<string | undefined> {
  if (path === undefined) return undefined;
  const text = await readFileIfExists(resolve(path));
  if (text === null) throw new InputError('prompt.template', `the template ${path} does not exist`);
  return text;
}

function rpiContext(env: NodeJS.ProcessEnv) {
  const round = env.LOOPCHART_ROUND;
  return {
    round: round !== undefined && /^\d+$/.test(round) ? Number(round) : 0,
    findingsFile: env.LOOPCHART_FINDINGS ?? null,
    intentFile: env.LOOPCHART_INTENT ?? null,
    subjectDigest: env.LOOPCHART_SUBJECT_DIGEST ?? null,
    leg: env.LOOPCHART_LEG ?? null,
  };
}

/** `loopchart prompt`. */
export const promptCommand: CliCommand = {
  name: 'prompt',
  summary: 'print the prompt an agent gets for a dispatch (role, task, tools, rules)',
  async run(args, io) {
    const { values } = parseCommandArgs('prompt', args, {
      role: { type: 'string' },
      task: { type: 'string' },
      template: { type: 'string' },
      tool: { type: 'string' },
    });
    if (values.help === true) {
      io.stdout.write(HELP);
      return 0;
    }
    const role = (values.role ?? 'child') as PromptRole;
    if (!PROMPT_ROLES.includes(role))
      throw new UsageError(`prompt: --role must be one of ${PROMPT_ROLES.join(', ')}, got "${values.role}"`);
    const tool = values.tool ?? toolCommand();
    const template = await readTemplate(values.template);
    const base = { role, tool, ...(template === undefined ? {} : { template }) };
    const taskFile = values.task ?? process.env.LOOPCHART_TASK;
    let text: string;
    if (role === 'child' || role === 'verify-repair') {
      if (taskFile === undefined) throw new UsageError(`prompt: the ${role} role needs --task <file>`);
      const dispatch = await loadChildDispatch({ LOOPCHART_TASK: resolve(taskFile) });
      text = renderPrompt({
        ...base,
        task: dispatch.task,
        ledger: diskLedger(dispatch),
        specRows: await specRows(dispatch),
        spent: dispatch.spent,
      });
    } else if (role === 'patcher') {
      if (taskFile === undefined) throw new UsageError('prompt: the patcher role needs --task <file>');
      const raw = await readFileIfExists(resolve(taskFile));
      if (raw === null) throw new InputError('prompt.input', `the task file ${taskFile} does not exist`);
      const task = JSON.parse(raw) as PatcherTask & { protocol?: string };
      if (task.protocol !== 'cybernetic-loop')
        throw new InputError('prompt.input', `the task file ${taskFile} is not a cybernetic patcher task`);
      text = renderPrompt({ ...base, patcher: task });
    } else {
      text = renderPrompt({ ...base, rpi: rpiContext(process.env) });
    }
    if (values.json === true)
      io.stdout.write(jsonResult({ command: 'prompt', status: 'finished', exitCode: 0, role, prompt: text }));
    else io.stdout.write(text);
    return 0;
  },
};
