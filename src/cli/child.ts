/**
 * `loopchart child show|record|seed|spend|check|commit|return|verdict|review`: the child tools
 * (docs/agents.md).
 * A child (a coding agent, a script) calls them inside a loop dispatch; they read the dispatch
 * from `LOOPCHART_TASK`, do the contract's mechanics (ledger edits, action records, the commit and
 * the return) and refuse, with a named error (exit 2), anything the contract forbids.
 */
import { renderTaskSummary } from '../agents/task-summary.js';
import { InputError, UsageError } from '../common/errors.js';
import { validationLegSchema } from '../convergence/schemas.js';
import { writeFileAtomic } from '../effects/files.js';
import {
  type ExtraClosure,
  recordRowOutcome,
  recordSeed,
  type SpendStep,
  spendLine,
} from '../gauntlet/child-edits.js';
import { legRows } from '../gauntlet/companion.js';
import { type ChildTask, taskFilePath } from '../gauntlet/dispatch.js';
import { conformanceReturnSchema, wholeDiffReturnSchema } from '../gauntlet/review.js';
import type { Ledger } from '../gauntlet/types.js';
import {
  appendSpend,
  ChildCheckError,
  checkChildReturn,
  commitChild,
  diskLedger,
  editableLedger,
  loadChildDispatch,
  patcherReturnFile,
  specRows,
  writeChildReturn,
  writeLedger,
  writePatcherReturn,
} from '../host/child-tools.js';
import { configuredReservationPrefix, reserveDurably } from '../host/spend-reservations.js';
import { integerOption, parseCommandArgs } from './args.js';
import type { CliCommand, CliIo } from './command.js';
import { jsonResult } from './json-result.js';

const HELP = `usage: loopchart child <tool> [options]

The child tools. Run them inside a loop dispatch (they read LOOPCHART_TASK); each refuses what the
child contract forbids with a named error and exit code 2, before anything is written.

  show [--field <name>]         print this dispatch's task in plain words, or one field: kind,
                                target, iteration, ledger, spec, worktree, open-rows,
                                previous-decision, hint
  record --status done|failed --evidence "<check>; <result>" --summary "<what happened>"
         --next "<next step>" [--extra <row>="<check>; <result>"]...
                                record the target row's outcome (row dispatches)
  seed --evidence <row>="<check>; <result>"... [--close <row>]... [--first-row "row <n>"]
                                give rows baseline evidence, close rows that already pass (the seed)
  spend reserve|ran|spent <action> --bound <n>
                                record a paid or external action in the jobs file: reserve before
                                launching it, ran once it ran, spent when its bound is used up;
                                on a fleet worker reserve fails with child.spend-reserved when an
                                earlier attempt of the dispatch reserved it: do not launch it
  check [--subject "<s>"] [--body "<b>"]
                                run the loop's own return validation on the working tree and print
                                the validation miss the loop would record (exit 2), or "admitted"
  commit                        check, then make the dispatch's one commit (all changes, the
                                subject and attribution lines from the task; on a companion
                                checkout the rows and decisions go into the body, never into the
                                home ledger)
  return DONE|<STATUS> [--summary "<text>"]
                                write the return file (DONE only after the commit, on a clean tree;
                                a cybernetic patcher's return is written as it is)

  verdict --status PASS|FAIL [--finding "<id>: <summary>"]... [--checked "<what you ran>"]...
          [--not-checked "<what you could not check>"]... [--family "<model family>"]
                                an RPI or crank validator: print the verdict record over the
                                subject digest in LOOPCHART_SUBJECT_DIGEST (a FAIL needs a finding)
  review --verdict SHIP|REVISE|CONFORMS|GAPS [--minor "<line>"]... [--fix-task "<line>"]...
         [--gap "G<n>: <text>"]... [--gap-verdict G<n>=PARTIAL|MISSING|DRIFTED|UNAUTHORIZED]...
         [--gap-recommended G<n>=fix|accept|rescope]... [--happy-path "<what ran>"]
                                a verify reviewer: write the review return to
                                LOOPCHART_REVIEW_RETURN for the role in LOOPCHART_ROLE
                                (docs/review-contract.md); refuses what the loop would refuse

Every tool takes --json for a machine-readable result (schemas/cli-result.v1.json).

examples:
  loopchart child show
  loopchart child record --status done --evidence "npm test -- parser; 12 passed" \\
    --summary "parser accepts empty input" --next "row 3"
  loopchart child commit && loopchart child return DONE
`;

function writeResult(io: CliIo, json: boolean, result: Record<string, unknown>, text: string): void {
  io.stdout.write(
    json ? jsonResult({ command: 'child', status: 'finished', exitCode: 0, ...result }) : `${text}\n`,
  );
}

function rowNumber(text: string, what: string): number {
  if (!/^[1-9]\d*$/.test(text)) throw new UsageError(`child: ${what} must be a row number, got "${text}"`);
  return Number(text);
}

/** Splits `<row>=<evidence>`. */
function rowAssignment(text: string, option: string): [number, string] {
  const at = text.indexOf('=');
  if (at < 1) throw new UsageError(`child: --${option} takes <row>="<check>; <result>", got "${text}"`);
  return [rowNumber(text.slice(0, at).trim(), `--${option}`), text.slice(at + 1)];
}

/** The task fields `child show --field` prints, for shell children. */
const FIELDS = [
  'kind',
  'target',
  'iteration',
  'ledger',
  'spec',
  'worktree',
  'open-rows',
  'previous-decision',
  'hint',
] as const;

/** The open rows of the dispatch: on a coordinated run, only those of its leg (`## Leg mapping`). */
function openRows(ledger: Ledger, task: ChildTask): number[] {
  const rows = task.leg === undefined ? ledger.rows : legRows(ledger, task.leg.member);
  return rows.filter((r) => r.status === 'open').map((r) => r.row);
}

async function show(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('child show', args, { field: { type: 'string' } });
  const dispatch = await loadChildDispatch();
  if (values.field !== undefined) {
    const { task } = dispatch;
    const field = values.field as (typeof FIELDS)[number];
    const value: Record<(typeof FIELDS)[number], string> = {
      kind: task.kind,
      target: String(task.target),
      iteration: String(task.iteration),
      // Paths the child can open wherever it runs, absolute as the worktree is (legs.md L23).
      ledger: taskFilePath(task, 'ledger'),
      spec: taskFilePath(task, 'spec'),
      worktree: task.worktree,
      'open-rows': openRows(diskLedger(dispatch), task).join(' '),
      'previous-decision': task.previousDecision,
      hint: task.hint ?? '',
    };
    if (!FIELDS.includes(field))
      throw new UsageError(`child show: --field must be one of ${FIELDS.join(', ')}, got "${values.field}"`);
    io.stdout.write(`${value[field]}\n`);
    return 0;
  }
  if (values.json === true) {
    writeResult(io, true, { task: dispatch.task, spent: dispatch.spent }, '');
    return 0;
  }
  const ledger = diskLedger(dispatch);
  io.stdout.write(
    renderTaskSummary({
      task: dispatch.task,
      ledger,
      specRows: await specRows(dispatch),
      spent: dispatch.spent,
    }),
  );
  return 0;
}

async function record(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('child record', args, {
    status: { type: 'string' },
    evidence: { type: 'string' },
    summary: { type: 'string' },
    next: { type: 'string' },
    extra: { type: 'string', multiple: true },
  });
  const status = values.status;
  if (status !== 'done' && status !== 'failed')
    throw new UsageError('child record: --status must be done or failed');
  for (const name of ['evidence', 'summary', 'next'] as const)
    if (values[name] === undefined) throw new UsageError(`child record: --${name} is required`);
  const extras: ExtraClosure[] = (values.extra ?? []).map((text) => {
    const [row, evidence] = rowAssignment(text, 'extra');
    return { row, evidence };
  });
  const dispatch = await loadChildDispatch();
  const base = editableLedger(dispatch);
  const ledger = recordRowOutcome(
    base,
    dispatch.task,
    {
      status,
      evidence: values.evidence as string,
      summary: values.summary as string,
      next: values.next as string,
      extras,
    },
    dispatch.spent,
  );
  await writeLedger(dispatch, ledger);
  const decisions = ledger.decisions.slice(base.decisions.length);
  writeResult(
    io,
    values.json === true,
    { recorded: dispatch.task.target, status, decisions },
    `recorded row ${String(dispatch.task.target)} ${status}; decisions:\n${decisions.map((d) => `  ${d}`).join('\n')}\nnext: loopchart child check, then loopchart child commit`,
  );
  return 0;
}

async function seed(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('child seed', args, {
    evidence: { type: 'string', multiple: true },
    close: { type: 'string', multiple: true },
    'first-row': { type: 'string' },
  });
  const evidence = new Map<number, string>();
  for (const text of values.evidence ?? []) {
    const [row, cell] = rowAssignment(text, 'evidence');
    if (evidence.has(row)) throw new UsageError(`child seed: row ${row} is given evidence twice`);
    evidence.set(row, cell);
  }
  const close = (values.close ?? []).map((text) => rowNumber(text, '--close'));
  const dispatch = await loadChildDispatch();
  const ledger = recordSeed(
    editableLedger(dispatch),
    dispatch.task,
    {
      evidence,
      closeOnBaseline: close,
      ...(values['first-row'] === undefined ? {} : { firstRow: values['first-row'] }),
    },
    dispatch.spent,
  );
  await writeLedger(dispatch, ledger);
  const decision = ledger.decisions[ledger.decisions.length - 1] as string;
  writeResult(
    io,
    values.json === true,
    { seeded: [...evidence.keys()], closed: close, decision },
    `seeded rows ${[...evidence.keys()].join(', ')}; decision:\n  ${decision}\nnext: loopchart child check, then loopchart child commit`,
  );
  return 0;
}

async function spend(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs('child spend', args, { bound: { type: 'string' } }, true);
  const [step, action, ...rest] = positionals;
  if (step !== 'reserve' && step !== 'ran' && step !== 'spent')
    throw new UsageError('child spend: give reserve, ran or spent, then the action');
  if (action === undefined || rest.length > 0)
    throw new UsageError('child spend: give exactly one action name (quote it when it has spaces)');
  if (values.bound === undefined) throw new UsageError('child spend: --bound <n> is required');
  const bound = integerOption('child spend', 'bound', values.bound, 0, 1);
  const dispatch = await loadChildDispatch();
  const line = spendLine(
    [...dispatch.task.actionRecords, ...dispatch.spent],
    step as SpendStep,
    action,
    bound,
  );
  // On a fleet worker the reservation is first made durable on the run's remote (F11): a retried
  // dispatch on another worker finds it there and must not launch the action again.
  const prefix = step === 'reserve' ? await configuredReservationPrefix(dispatch.task.worktree) : null;
  const durable = prefix === null ? null : await reserveDurably(dispatch.task.worktree, prefix, line);
  await appendSpend(dispatch, line);
  if (durable === 'already')
    throw new InputError(
      'child.spend-reserved',
      `${line} was reserved by an earlier attempt of this dispatch (a worker that died before its push): it may have run, so do not launch it again; the record is kept in the jobs file, carry it in the return as usual`,
    );
  writeResult(io, values.json === true, { recorded: line }, `recorded in the jobs file: ${line}`);
  return 0;
}

async function check(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('child check', args, {
    subject: { type: 'string' },
    body: { type: 'string' },
  });
  const dispatch = await loadChildDispatch();
  const outcome = await checkChildReturn(dispatch, {
    ...(values.subject === undefined ? {} : { subject: values.subject }),
    ...(values.body === undefined ? {} : { body: values.body }),
  });
  if (outcome.kind !== 'admitted') throw new ChildCheckError(outcome);
  writeResult(
    io,
    values.json === true,
    { admitted: true, subject: outcome.subject },
    `admitted: the loop would accept this return (commit subject "${outcome.subject}")`,
  );
  return 0;
}

async function commit(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('child commit', args, {});
  const dispatch = await loadChildDispatch();
  const made = await commitChild(dispatch);
  writeResult(
    io,
    values.json === true,
    made,
    `committed ${made.sha.slice(0, 12)} "${made.subject}"\nnext: loopchart child return DONE`,
  );
  return 0;
}

async function returnTool(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'child return',
    args,
    { summary: { type: 'string' } },
    true,
  );
  const [status, ...rest] = positionals;
  if (status === undefined || rest.length > 0)
    throw new UsageError('child return: give exactly one status (DONE, BLOCKED, NEEDS_INPUT, …)');
  const patcher = await patcherReturnFile();
  if (patcher !== null) await writePatcherReturn(patcher, status, values.summary);
  else await writeChildReturn(await loadChildDispatch(), status, values.summary);
  writeResult(io, values.json === true, { returned: status }, `returned ${status}; exit now`);
  return 0;
}

async function verdict(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('child verdict', args, {
    status: { type: 'string' },
    finding: { type: 'string', multiple: true },
    checked: { type: 'string', multiple: true },
    'not-checked': { type: 'string', multiple: true },
    family: { type: 'string' },
  });
  const digest = process.env.LOOPCHART_SUBJECT_DIGEST;
  if (digest === undefined || digest === '')
    throw new InputError(
      'child.environment',
      'LOOPCHART_SUBJECT_DIGEST is not set: a verdict is printed by a validator that loopchart rpi or crank runs',
    );
  const findings = (values.finding ?? []).map((text) => {
    const at = text.indexOf(':');
    if (at < 1) throw new UsageError(`child verdict: --finding takes "<id>: <summary>", got "${text}"`);
    return { id: text.slice(0, at).trim(), summary: text.slice(at + 1).trim() };
  });
  const record = {
    status: values.status,
    findings,
    subject_digest: digest,
    evidence_refs: [],
    ...(values.family === undefined ? {} : { validator_family: values.family }),
    checked: values.checked ?? [],
    not_checked: values['not-checked'] ?? [],
  };
  const parsed = validationLegSchema.safeParse(record);
  if (!parsed.success)
    throw new InputError(
      'child.verdict',
      `not a verdict record: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(record)'}: ${i.message}`).join('; ')}`,
    );
  io.stdout.write(`${JSON.stringify(record)}\n`);
  return 0;
}

/**
 * Reads `--gap-verdict` / `--gap-recommended` values (`G<n>=<value>`) into a map by gap id. The value
 * itself is checked by the return schema afterwards (a bad one is `child.review`); the form, an id
 * given twice and an id that names no `--gap` are usage errors here.
 */
function gapFields(
  option: string,
  texts: readonly string[] | undefined,
  gaps: readonly { readonly id: string }[],
): Map<string, string> {
  const fields = new Map<string, string>();
  for (const text of texts ?? []) {
    const at = text.indexOf('=');
    if (at < 1) throw new UsageError(`child review: ${option} takes "G<n>=<value>", got "${text}"`);
    const id = text.slice(0, at).trim();
    if (!gaps.some((gap) => gap.id === id))
      throw new UsageError(`child review: ${option} names ${id}, which no --gap gives`);
    if (fields.has(id)) throw new UsageError(`child review: ${option} gives ${id} twice`);
    fields.set(id, text.slice(at + 1).trim());
  }
  return fields;
}

async function review(args: readonly string[], io: CliIo): Promise<number> {
  const { values } = parseCommandArgs('child review', args, {
    verdict: { type: 'string' },
    minor: { type: 'string', multiple: true },
    'fix-task': { type: 'string', multiple: true },
    gap: { type: 'string', multiple: true },
    'gap-verdict': { type: 'string', multiple: true },
    'gap-recommended': { type: 'string', multiple: true },
    'happy-path': { type: 'string' },
  });
  const role = process.env.LOOPCHART_ROLE;
  const file = process.env.LOOPCHART_REVIEW_RETURN;
  if ((role !== 'whole-diff' && role !== 'conformance') || file === undefined || file === '')
    throw new InputError(
      'child.environment',
      'LOOPCHART_ROLE is not whole-diff or conformance, or LOOPCHART_REVIEW_RETURN is not set: a review is written by a reviewer that loopchart run dispatches',
    );
  const gaps = (values.gap ?? []).map((text) => {
    const at = text.indexOf(':');
    if (at < 1) throw new UsageError(`child review: --gap takes "G<n>: <text>", got "${text}"`);
    return { id: text.slice(0, at).trim(), text: text.slice(at + 1).trim() };
  });
  const verdicts = gapFields('--gap-verdict', values['gap-verdict'], gaps);
  const recommendations = gapFields('--gap-recommended', values['gap-recommended'], gaps);
  const openGaps = gaps.map((gap) => ({
    ...gap,
    ...(verdicts.has(gap.id) ? { verdict: verdicts.get(gap.id) } : {}),
    ...(recommendations.has(gap.id) ? { recommended: recommendations.get(gap.id) } : {}),
  }));
  // Only the fields given: the strict schema then names a field the role does not have.
  const record = {
    role,
    verdict: values.verdict,
    ...(values.minor === undefined ? {} : { minors: values.minor }),
    ...(values['fix-task'] === undefined ? {} : { fixTasks: values['fix-task'] }),
    ...(values.gap === undefined ? {} : { openGaps }),
    ...(values['happy-path'] === undefined ? {} : { happyPath: values['happy-path'] }),
  };
  const parsed = (role === 'whole-diff' ? wholeDiffReturnSchema : conformanceReturnSchema).safeParse(record);
  if (!parsed.success)
    throw new InputError(
      'child.review',
      `not a ${role} review return: ${parsed.error.issues.map((i) => `${i.path.join('.') || '(return)'}: ${i.message}`).join('; ')}`,
    );
  await writeFileAtomic(file, `${JSON.stringify(record)}\n`);
  writeResult(
    io,
    values.json === true,
    { review: record },
    `wrote the ${role} review: ${String(values.verdict)}; exit 0 now`,
  );
  return 0;
}

const TOOLS: Record<string, (args: readonly string[], io: CliIo) => Promise<number>> = {
  show,
  record,
  seed,
  spend,
  check,
  commit,
  return: returnTool,
  verdict,
  review,
};

/** `loopchart child`. */
export const childCommand: CliCommand = {
  name: 'child',
  summary:
    'child tools an agent calls inside a dispatch: show, record, seed, spend, check, commit, return, verdict, review',
  async run(args, io) {
    const [tool, ...rest] = args;
    if (tool === undefined || tool === '--help' || tool === '-h' || tool === 'help') {
      io.stdout.write(HELP);
      return tool === undefined ? 2 : 0;
    }
    const run = TOOLS[tool];
    if (run === undefined)
      throw new InputError('cli.usage', `child: unknown tool "${tool}"; run \`loopchart child --help\``);
    if (rest.includes('--help') || rest.includes('-h')) {
      io.stdout.write(HELP);
      return 0;
    }
    return run(rest, io);
  },
};
