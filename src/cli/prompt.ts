/**
 * `loopchart prompt --role <role> [--task <file>]`: renders the instruction text an agent gets for
 * one dispatch (src/agents/prompt.ts, docs/agents.md). The agent presets call it inside the
 * dispatch; a person calls it to read what the agent is told.
 */
import { join, resolve } from 'node:path';
import {
  type PatcherTask,
  PROMPT_ROLES,
  PROMPT_VARIABLES,
  type PromptRole,
  renderPrompt,
} from '../agents/prompt.js';
import { InputError, UsageError } from '../common/errors.js';
import { readFileIfExists } from '../effects/files.js';
import type { ReviewTask } from '../gauntlet/review.js';
import { parseSpec } from '../gauntlet/spec.js';
import { diskLedger, loadChildDispatch, specRows } from '../host/child-tools.js';
import { TOOL_VARIABLE, toolCommand } from './agent-options.js';
import { parseCommandArgs } from './args.js';
import type { CliCommand } from './command.js';
import { jsonResult } from './json-result.js';

const HELP = `usage: loopchart prompt [--role <role>] [--task <file>] [--template <file>] [--tool "<cmd>"]

Prints the prompt an agent gets for one dispatch: the goal, the task in plain words, the evidence
rule, the tool commands in order ("$ " lines), the blocking-call contract and what never to do.

  --role <role>        child (default; a seed, row or verification task), verify-repair,
                       implementer, validator (RPI and crank), patcher (cybernetic loop) or
                       reviewer (verify's whole-diff or conformance review)
  --task <file>        the task file (default: $LOOPCHART_TASK; the reviewer's default is
                       $LOOPCHART_REVIEW_TASK); RPI roles read LOOPCHART_ROUND,
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

/** Reads a review task (docs/review-contract.md), refusing a file that is not one. */
async function readReviewTask(path: string): Promise<ReviewTask> {
  const raw = await readFileIfExists(resolve(path));
  if (raw === null) throw new InputError('prompt.input', `the task file ${path} does not exist`);
  let task: Partial<ReviewTask>;
  try {
    task = JSON.parse(raw) as Partial<ReviewTask>;
  } catch {
    throw new InputError('prompt.input', `the task file ${path} is not JSON`);
  }
  if (
    task.version !== 1 ||
    (task.role !== 'whole-diff' && task.role !== 'conformance') ||
    typeof task.worktree !== 'string' ||
    typeof task.spec !== 'string' ||
    typeof task.base !== 'string' ||
    typeof task.head !== 'string'
  )
    throw new InputError('prompt.input', `the task file ${path} is not a review task`);
  return task as ReviewTask;
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
    const taskFile =
      values.task ?? (role === 'reviewer' ? process.env.LOOPCHART_REVIEW_TASK : process.env.LOOPCHART_TASK);
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
    } else if (role === 'reviewer') {
      if (taskFile === undefined) throw new UsageError('prompt: the reviewer role needs --task <file>');
      const review = await readReviewTask(taskFile);
      const spec =
        review.role === 'conformance' ? await readFileIfExists(join(review.worktree, review.spec)) : null;
      text = renderPrompt({ ...base, review, specRows: spec === null ? [] : parseSpec(spec).spec.rows });
    } else {
      text = renderPrompt({ ...base, rpi: rpiContext(process.env) });
    }
    if (values.json === true)
      io.stdout.write(jsonResult({ command: 'prompt', status: 'finished', exitCode: 0, role, prompt: text }));
    else io.stdout.write(text);
    return 0;
  },
};
