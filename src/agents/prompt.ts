/**
 * The instruction text a coding agent gets for one dispatch (`loopchart prompt`, docs/agents.md).
 * Pure: the caller reads the task, the ledger and the spec; this module only writes text.
 *
 * The prompt is self-sufficient: the goal of this dispatch, the evidence rule, the tool commands in
 * the order to run them, the blocking-call contract and what never to do. Every command the agent
 * is meant to run sits on its own line starting with `$ `, in the order to run it; `<...>` marks
 * the words the agent chooses (`<done|failed>`: one of the alternatives). A user template replaces
 * the layout with `{{variable}}` placeholders (see {@link PROMPT_VARIABLES}).
 */
import { InputError } from '../common/errors.js';
import { neutralizeText } from '../common/terminal-text.js';
import type { ChildTask } from '../gauntlet/dispatch.js';
import { criterionOfRow } from '../gauntlet/leg-amendments.js';
import type { ReviewTask } from '../gauntlet/review.js';
import type { Ledger, SpecRow } from '../gauntlet/types.js';
import { dispatchRows, renderTaskSummary } from './task-summary.js';

/** The roles a prompt is rendered for. */
export const PROMPT_ROLES = [
  'child',
  'verify-repair',
  'implementer',
  'validator',
  'patcher',
  'reviewer',
] as const;

/** One role. */
export type PromptRole = (typeof PROMPT_ROLES)[number];

/** What an RPI or crank command sees in its environment (docs/rpi.md). */
export interface RpiContext {
  /** `LOOPCHART_ROUND`: 0 for the build and the first validation, n for repair round n. */
  readonly round: number;
  /** `LOOPCHART_FINDINGS` (implementer): the open findings file. */
  readonly findingsFile: string | null;
  /** `LOOPCHART_INTENT`: the intent file, when there is one. */
  readonly intentFile: string | null;
  /** `LOOPCHART_SUBJECT_DIGEST` (validators): the digest the verdict must name. */
  readonly subjectDigest: string | null;
  /** `LOOPCHART_LEG` (validators): `fresh` or `cross-family`. */
  readonly leg: string | null;
}

/** The parts of a cybernetic patcher's task the prompt names (src/host/cybernetic-runner.ts). */
export interface PatcherTask {
  readonly attempt: number;
  readonly invariant: { readonly statement: string };
  readonly target: unknown;
  readonly failingChecks: readonly { readonly name: string; readonly outputTail?: string }[];
  readonly checks: readonly { readonly name: string; readonly commandText: string }[];
  readonly scope: readonly string[];
  readonly returnFile: string;
}

/** What {@link renderPrompt} reads. */
export interface PromptInput {
  readonly role: PromptRole;
  /** How the agent calls loopchart, e.g. `loopchart` or `node /opt/loopchart/dist/cli.js`. */
  readonly tool: string;
  /** The loop child task (roles `child` and `verify-repair`). */
  readonly task?: ChildTask;
  /** The ledger on disk. */
  readonly ledger?: Ledger | null;
  /**
   * Child roles: the row texts by ledger row (a coordinated row carries its criterion's text, see
   * `ledgerRowTexts`); reviewer: the spec's acceptance rows.
   */
  readonly specRows?: readonly SpecRow[];
  /** Action records already in the jobs file. */
  readonly spent?: readonly string[];
  /** Roles `implementer` and `validator`. */
  readonly rpi?: RpiContext;
  /** Role `patcher`. */
  readonly patcher?: PatcherTask;
  /** Role `reviewer`: the review task (docs/review-contract.md); `specRows` lists the rows to audit. */
  readonly review?: ReviewTask;
  /** A user template with `{{variable}}` placeholders, replacing the default layout. */
  readonly template?: string;
}

/** The variables a template may use, with what each holds. */
export const PROMPT_VARIABLES: Readonly<Record<string, string>> = {
  role: 'the role: child, verify-repair, implementer, validator, patcher or reviewer',
  tool: 'how to call loopchart (e.g. `loopchart`)',
  goal: 'the goal of this dispatch, one paragraph',
  task: 'the task in plain words (what `loopchart child show` prints)',
  evidence: 'the evidence rule',
  steps: 'the commands to run, in order, one `$ ` line each, with the prose between them',
  spend: 'how to record paid or external actions',
  blocking: 'the blocking-call contract (bounded commands, background work)',
  never: 'what never to do',
  default: 'the whole default prompt',
  kind: 'the task kind (row, seed, verify), empty outside the loop',
  target: 'the target (a row number, seed or verify), empty outside the loop',
  worktree: 'the worktree path, empty when unknown',
  ledger: 'the repository-relative ledger path, empty outside the loop',
  spec: 'the repository-relative spec path, empty outside the loop',
  hint: 'the task hint, empty when none',
  model: 'the model named by the task, empty when none',
};

/** A prompt that cannot be rendered: wrong role for the task, missing input, or a bad template. */
export class PromptError extends InputError {
  /**
   * @param code `prompt.role`, `prompt.input` or `prompt.template`
   * @param message what is wrong
   */
  constructor(code: 'prompt.role' | 'prompt.input' | 'prompt.template', message: string) {
    super(code, message);
  }
}

/** Untrusted text (spec rows, hints, decisions) made safe to paste into a prompt. */
function safe(text: string): string {
  return neutralizeText(text);
}

const EVIDENCE_RULE = `Evidence is what you ran and what it printed, never what you meant to do. Run the check (a test, a build, a command, or a look at a file), then write one line: the check's name, then at most three short result lines, separated by "; ", for example "npm test -- csv.test.ts; 14 passed; quotes escaped". No line breaks, no angle-bracket markup; the tools escape a literal pipe for you. A row that cannot be done in this checkout is failed with the first result "unreachable: <what> - <where>" (the loop then proposes to cut it). A row blocked because a paid or external action has used up its bound is failed with the first result "bound spent: <action> (<k> of <bound>)" (the loop then asks a person). A row the spec gets wrong (you observed a fact that falsifies its text) is failed with the first result "amend: <the corrected fact> - <what you observed>" (the loop amends the spec or asks a person, then the row is tried again); a row whose problem itself changed is failed with "redraw: <why>" (a person decides).`;

function blockingRule(tool: string): string {
  return `Every command you run must end on its own. Bound any command that could wait forever: \`timeout -k 30 600 <command>\`. Never start a server, a watcher or an interactive program in the foreground, and never wait for input: stdin is closed. The loop kills you after a long silence, so print a progress line now and then during long work. Background work (a server a test needs) is started in its own process group and recorded right after launch, so the loop can end it: \`setsid <command> >server.log 2>&1 & echo "$! $(cat /proc/sys/kernel/random/boot_id):$(sed 's/.*) //' /proc/$!/stat | cut -d' ' -f20) $(tr '\\0' ' ' < /proc/$!/cmdline)" >> "$LOOPCHART_JOBS"\`. Stop it before you finish when you can. If you cannot go on (a question only a person can answer), run \`${tool} child return BLOCKED --summary "<why>"\` and exit: the attempt is spent, nothing else is lost.`;
}

function spendRule(tool: string): string {
  return `Paid or external actions (a deploy, a paid API call, a capture against a real service) are counted against a bound. Before launching one, run \`${tool} child spend reserve <action> --bound <n>\`; once it ran, \`${tool} child spend ran <action> --bound <n>\`. When the bound is used up, do not run it again: run \`${tool} child spend spent <action> --bound <n>\` and fail the row with "bound spent: ..." as its first result. The tools copy every spend, and every one the task carries, into the ledger and the commit for you.`;
}

const NEVER_LOOP = [
  'Never edit the ledger by hand: not its headers (iterations, allowance, base, pending, verification), not its table, not earlier decision lines. The tools make every ledger edit.',
  'Never change rows other than the one you were given (the seed: only the rows you checked), never mark another row failed, never touch done or cut rows.',
  'Never run destructive git: no reset, checkout of other commits, rebase, amend, stash, clean, push, or branch switching. Make exactly one commit, with the commit tool.',
  'Never clear the environment of background work (no `env -i`, no unsetting LOOPCHART_* variables): the loop finds your processes through it.',
  'Never leave changes uncommitted or untracked files behind; never add, weaken or delete a test or a check to make it pass.',
];

function loopGoal(task: ChildTask, specRows: readonly SpecRow[], ledger: Ledger | null): string {
  if (task.kind === 'seed')
    return 'Measure the baseline of this change. Do not change any code. For each open row, run the check that shows whether the row holds today and record what it printed; rows that already pass are closed on the baseline. Give evidence to at least one row.';
  if (task.kind === 'verify')
    return 'Every row is closed, but a gate of the final verification fails. Read its log, fix the code so the gate passes, and commit the fix. Do not change the ledger: the commit tool commits it as it is.';
  const text = specRows.find((r) => r.row === task.target)?.text;
  // A coordinated ledger row stands for a criterion of the spec (`## Leg mapping`).
  const ac = ledger?.legs === undefined ? null : criterionOfRow(ledger, task.target as number);
  const what =
    ac === null
      ? `row ${String(task.target)} of the spec`
      : `row ${String(task.target)} (criterion ${ac} of the spec${task.leg === undefined ? '' : `, leg ${task.leg.member}`})`;
  return `Make ${what} hold${text === undefined ? '' : ` ("${safe(text)}")`}, prove it with a check, and record the attempt: done when the check passes, failed when it does not. An honest failed attempt is a good outcome; the loop decides what comes next.`;
}

function loopSteps(task: ChildTask, ledger: Ledger | null, tool: string): string {
  const companion = task.leg?.companion === true;
  const check = `$ ${tool} child check`;
  const commit = `$ ${tool} child commit`;
  const done = `$ ${tool} child return DONE`;
  if (task.kind === 'seed') {
    const open = dispatchRows(ledger, task)
      .filter((r) => r.status === 'open')
      .map((r) => r.row);
    const evidence = (open.length > 0 ? open : [1])
      .map((n) => `--evidence ${n}="<check>; <result>"`)
      .join(' ');
    return [
      '1. Read the task:',
      `$ ${tool} child show`,
      "2. Run each open row's check on the code as it is. Record the evidence of every row you checked (drop the rows you could not check; keep at least one), and add `--close <row>` for each row that already passes:",
      `$ ${tool} child seed ${evidence}`,
      '3. Ask the loop\'s own validation whether it would accept the return; fix what it names and run it again until it says "admitted":',
      check,
      '4. Commit (the tool writes the subject and the attribution lines):',
      commit,
      '5. Return, then exit:',
      done,
    ].join('\n');
  }
  if (task.kind === 'verify')
    return [
      '1. Read the task (it names the failing gate and its log):',
      `$ ${tool} child show`,
      "2. Fix the code. Run the failing gate's command yourself, bounded with `timeout`, until it passes.",
      "3. Ask the loop's own validation whether it would accept the return:",
      check,
      '4. Commit the fix (the tool keeps the ledger as it is):',
      commit,
      '5. Return, then exit:',
      done,
    ].join('\n');
  return [
    '1. Read the task:',
    `$ ${tool} child show`,
    "2. Do the work: change the code, run the row's check, keep its output short.",
    `3. Record the outcome. Add \`--extra <row>="<check>; <result>"\` for another open row your change made pass too. Say what happened in the summary and what should happen next:`,
    `$ ${tool} child record --status <done|failed> --evidence "<check>; <result>" --summary "<what happened>" --next "<next step>"`,
    companion
      ? '4. Ask the loop\'s own validation whether it would accept the return; fix what it names (running the record tool again replaces the recorded outcome) until it says "admitted":'
      : '4. Ask the loop\'s own validation whether it would accept the return; fix what it names (re-run the record tool after `git checkout -- <ledger>` if you must redo it) until it says "admitted":',
    check,
    companion
      ? '5. Commit the code (the tool writes the subject, the attribution lines, and your row and decision lines into the body; the home ledger stays as it is):'
      : '5. Commit the code and the ledger together (the tool writes the subject and the attribution lines):',
    commit,
    '6. Return, then exit:',
    done,
  ].join('\n');
}

interface Sections {
  readonly goal: string;
  readonly task: string;
  readonly evidence: string;
  readonly steps: string;
  readonly spend: string;
  readonly blocking: string;
  readonly never: string;
  readonly intro: string;
}

function loopSections(input: PromptInput, task: ChildTask): Sections {
  const tool = input.tool;
  const specRows = input.specRows ?? [];
  return {
    intro: `You are working inside a loopchart loop, in the git checkout ${task.worktree}. This is one dispatch: one bounded unit of work that ends with exactly one commit and a return. The loop checks your commit against its contract; the tools below do the contract's mechanics, so you only decide.`,
    goal: loopGoal(task, specRows, input.ledger ?? null),
    task: safe(
      renderTaskSummary({
        task,
        ledger: input.ledger ?? null,
        specRows,
        ...(input.spent === undefined ? {} : { spent: input.spent }),
      }).trimEnd(),
    ),
    evidence:
      task.kind === 'verify'
        ? 'A verification repair writes no evidence: the gate run after your commit is the proof.'
        : EVIDENCE_RULE,
    steps: loopSteps(task, input.ledger ?? null, tool),
    spend: spendRule(tool),
    // A verification repair carries the protocol's blocking-call contract in its task: quote it.
    blocking:
      task.verification === null
        ? blockingRule(tool)
        : `This repair's contract: ${safe(task.verification.blockingCalls)}. ${blockingRule(tool)}`,
    never: NEVER_LOOP.map((line) => `- ${line}`).join('\n'),
  };
}

function rpiSections(input: PromptInput, role: 'implementer' | 'validator'): Sections {
  const rpi = input.rpi;
  if (rpi === undefined) throw new PromptError('prompt.input', `the ${role} prompt needs the RPI context`);
  const intent =
    rpi.intentFile === null ? 'the change the caller asked for' : `the intent in ${rpi.intentFile}`;
  const never = [
    'Never commit, reset, stash, clean or switch branches: the run measures the working tree as you leave it.',
    'Never add, weaken or delete a test or a check to make a finding go away.',
    'Never wait for input: stdin is closed.',
  ];
  if (role === 'implementer') {
    const findings =
      rpi.round === 0 || rpi.findingsFile === null
        ? `This is round 0: build ${intent}.`
        : `This is repair round ${rpi.round}: repair exactly the open findings listed in ${rpi.findingsFile} (a JSON list of {id, summary}); change nothing else.`;
    return {
      intro: 'You are the implementer of an RPI run (Plan, Implement, Validate, bounded repair).',
      goal: findings,
      task: findings,
      evidence:
        'Only your exit code is read: exit 0 when the change is built, non-zero when you could not build it.',
      steps: [
        '1. See where the working tree stands:',
        '$ git status --short',
        `2. Read ${rpi.intentFile === null ? 'the intent' : rpi.intentFile}${rpi.round > 0 && rpi.findingsFile !== null ? ` and the open findings in ${rpi.findingsFile}` : ''}.`,
        '3. Change the code in the working tree; run the relevant tests, bounded with `timeout`. Leave the changes uncommitted.',
        '4. Exit 0 when the change is built, non-zero when you could not build it.',
      ].join('\n'),
      spend: '',
      blocking: blockingRule(input.tool).replace(/ If you cannot go on.*$/, ''),
      never: never.map((line) => `- ${line}`).join('\n'),
    };
  }
  const digest = rpi.subjectDigest ?? '<the LOOPCHART_SUBJECT_DIGEST value>';
  return {
    intro: `You are the ${rpi.leg ?? 'fresh'} validator of an RPI run: judge the working tree against ${intent}, without changing it.`,
    goal: `Judge whether the working tree implements ${intent}, and print one verdict record.`,
    task: `Round ${rpi.round}; subject digest ${digest} (the verdict tool names it for you).`,
    evidence:
      'Every finding names something you checked: a test you ran, a file you read. List what you checked and what you did not.',
    steps: [
      '1. Read the intent and the change (`git diff`, `git status`); run the tests, bounded with `timeout`.',
      `2. Print the verdict record with the tool, as the last thing you print: PASS when nothing is wrong; FAIL with one \`--finding "<area>-<short-name>: <what is wrong>"\` per problem (keep a finding's id the same across rounds); add \`--not-checked "<what>"\` for what you could not check:`,
      `$ ${input.tool} child verdict --status <PASS|FAIL> --checked "<what you ran>" --family "<your model family>"`,
      '3. End your reply with exactly the one JSON line the tool printed, and nothing after it: the run reads the last line of your output.',
    ].join('\n'),
    spend: '',
    blocking: blockingRule(input.tool).replace(/ If you cannot go on.*$/, ''),
    never: ['Never change a file: a validator only reads and runs.', ...never.slice(2)]
      .map((l) => `- ${l}`)
      .join('\n'),
  };
}

function patcherSections(input: PromptInput): Sections {
  const task = input.patcher;
  if (task === undefined)
    throw new PromptError('prompt.input', 'the patcher prompt needs the cybernetic task');
  const failing = task.failingChecks.map(
    (c) =>
      `  ${safe(c.name)}${
        c.outputTail
          ? `:\n${safe(c.outputTail)
              .split('\n')
              .map((l) => `    ${l}`)
              .join('\n')}`
          : ''
      }`,
  );
  const checks = task.checks.map((c) => `  ${safe(c.name)}: ${safe(c.commandText)}`);
  const summary = [
    `Attempt ${task.attempt}. Invariant: ${safe(task.invariant.statement)}`,
    'Failing checks:',
    ...failing,
    'Checks of the contract:',
    ...checks,
    `Scope (change only these paths): ${task.scope.join(', ')}`,
  ].join('\n');
  return {
    intro:
      'You are the patcher of a cybernetic loop: propose one candidate patch; the loop runs the checks and keeps or restores it.',
    goal: 'Make the one smallest change inside the scope that could make the failing target check pass.',
    task: summary,
    evidence:
      'The loop runs the checks itself after you return; you may run them too, bounded with `timeout`.',
    steps: [
      '1. Read the failing checks and the scope above.',
      '2. Edit files inside the scope only.',
      '3. Return, then exit:',
      `$ ${input.tool} child return DONE --summary "<one line: what the patch changes>"`,
    ].join('\n'),
    spend: '',
    blocking: blockingRule(input.tool),
    never: [
      'Never change a path outside the scope: the run stops as scope-widening.',
      'Never commit, reset, stash or clean; never add, remove or weaken a check.',
    ]
      .map((l) => `- ${l}`)
      .join('\n'),
  };
}

function reviewerSections(input: PromptInput): Sections {
  const task = input.review;
  if (task === undefined)
    throw new PromptError('prompt.input', 'the reviewer prompt needs the review task (--task <file>)');
  const sha = /^[0-9a-f]{7,64}$/;
  if (!sha.test(task.base) || !sha.test(task.head))
    throw new PromptError('prompt.input', 'the review task names no valid base and head commits');
  const range = `${task.base}..${task.head}`;
  const tool = input.tool;
  const conformance = task.role === 'conformance';
  const rows = (input.specRows ?? []).map((r) => `  row ${r.row}: ${safe(r.text)}`);
  const summary = [
    conformance
      ? `Conformance review of the branch: does it do what its spec's acceptance rows ask? Commits under review: ${range}.`
      : `Whole-diff review of the branch: the change ${range} read as one piece.`,
    ...(conformance
      ? [rows.length === 0 ? 'Acceptance rows: read them in the spec.' : 'Acceptance rows:', ...rows]
      : []),
    `Worktree: ${task.worktree}`,
    `Spec: ${task.spec}`,
    `Ledger: ${task.ledger} (each row's status and evidence)`,
    `Fix rounds of this review used: ${task.fixRoundsUsed} of ${task.fixRoundCap}`,
  ].join('\n');
  const write = conformance
    ? `$ ${tool} child review --verdict <CONFORMS|GAPS>`
    : `$ ${tool} child review --verdict <SHIP|REVISE>`;
  const options = conformance
    ? 'CONFORMS when every acceptance row is met; GAPS otherwise, with one `--gap "G<n>: <what is missing>"` per open gap (ids G1, G2, ... each once) and one `--fix-task "<one line>"` per change that would close them. A gap that is behaviour nobody asked for takes `--gap-verdict G<n>=UNAUTHORIZED`; one the loop should not fix takes `--gap-recommended G<n>=accept` (keep it) or `G<n>=rescope` (the requirement should change). Add `--happy-path "<what you ran>"` only when you ran the feature end to end.'
    : 'SHIP when the change can merge as it is, with one `--minor "<one line>"` per small remark that does not block it; REVISE when it cannot, with at least one `--fix-task "<one line>"` naming a change to make.';
  return {
    intro: `You are the ${task.role} reviewer of a loop's final verification: you read and judge, you change nothing.`,
    goal: conformance
      ? "Check each acceptance row of the spec against the code, the tests and the ledger's evidence, and say whether the branch conforms (CONFORMS) or which gaps are open (GAPS)."
      : 'Review the whole diff for correctness, clarity and risk, and say whether it can ship (SHIP) or must be revised (REVISE).',
    task: summary,
    evidence:
      'Judge from what you read and ran: the diff, the files, the tests (bounded with `timeout`). A gap or fix task names the row, file or behaviour it is about.',
    steps: [
      `1. Read the change${conformance ? ', the spec and the ledger' : ''}:`,
      `$ git --no-pager diff --stat ${range}`,
      `   then \`git diff ${range}\` and any file you need.`,
      `2. Write your verdict with the tool (it checks the return and writes it where the loop reads it). ${options}`,
      write,
      '3. Exit 0. The loop reads the return file; anything you print is only logged.',
    ].join('\n'),
    spend: '',
    blocking: blockingRule(tool).replace(/ If you cannot go on.*$/, ''),
    never: [
      'Never edit, create or delete a file in the checkout, and never commit, stash, reset or clean: a reviewer that changes the checkout or leaves it dirty is a review miss, and the run stops.',
      'Never write the return file by hand: use the tool, which refuses a return the loop would refuse.',
      'Never wait for input: stdin is closed.',
    ]
      .map((l) => `- ${l}`)
      .join('\n'),
  };
}

function sectionsOf(input: PromptInput): Sections {
  switch (input.role) {
    case 'child':
    case 'verify-repair': {
      const task = input.task;
      if (task === undefined)
        throw new PromptError('prompt.input', `the ${input.role} prompt needs the task (--task <file>)`);
      if (input.role === 'verify-repair' && task.kind !== 'verify')
        throw new PromptError(
          'prompt.role',
          `the task is a ${task.kind} dispatch, not a verification repair; use --role child`,
        );
      return loopSections(input, task);
    }
    case 'implementer':
    case 'validator':
      return rpiSections(input, input.role);
    case 'patcher':
      return patcherSections(input);
    case 'reviewer':
      return reviewerSections(input);
  }
}

function layout(s: Sections): string {
  const parts = [
    s.intro,
    `## Goal\n\n${s.goal}`,
    `## Task\n\n${s.task}`,
    `## Evidence\n\n${s.evidence}`,
    `## Steps\n\nRun the commands below (the lines starting with "$ "), in this order, in the checkout. Replace each <...> with your own words; <a|b> means one of a or b.\n\n${s.steps}`,
    ...(s.spend === '' ? [] : [`## Paid or external actions\n\n${s.spend}`]),
    `## Blocking calls\n\n${s.blocking}`,
    `## Never\n\n${s.never}`,
  ];
  return `${parts.join('\n\n')}\n`;
}

/**
 * Renders the prompt of one dispatch.
 *
 * @param input role, tool command, the role's task or context, and an optional user template
 * @returns the instruction text
 * @throws PromptError for a role that does not fit the task, a missing input, or a template that
 *   uses an unknown variable
 */
export function renderPrompt(input: PromptInput): string {
  const sections = sectionsOf(input);
  const whole = layout(sections);
  if (input.template === undefined) return whole;
  const task = input.task;
  const values: Record<string, string> = {
    role: input.role,
    tool: input.tool,
    goal: sections.goal,
    task: sections.task,
    evidence: sections.evidence,
    steps: sections.steps,
    spend: sections.spend,
    blocking: sections.blocking,
    never: sections.never,
    default: whole,
    kind: task?.kind ?? '',
    target: task === undefined ? '' : String(task.target),
    worktree: task?.worktree ?? '',
    ledger: task?.ledger ?? '',
    spec: task?.spec ?? '',
    hint: task?.hint === null || task?.hint === undefined ? '' : safe(task.hint),
    model: task?.model ?? '',
  };
  const unknown = new Set<string>();
  const text = input.template.replace(/\{\{\s*([A-Za-z_][\w-]*)\s*\}\}/g, (_, name: string) => {
    const value = values[name];
    if (value === undefined) unknown.add(name);
    return value ?? '';
  });
  if (unknown.size > 0)
    throw new PromptError(
      'prompt.template',
      `the template uses unknown variable${unknown.size === 1 ? '' : 's'} ${[...unknown].map((n) => `{{${n}}}`).join(', ')}; known: ${Object.keys(PROMPT_VARIABLES).join(', ')}`,
    );
  return text;
}
