/**
 * `loopchart run`: runs the loop engine on a worktree, fresh or resumed (the same command), until
 * it finishes (exit 0) or stops for a human (exit 3, the stop text on stdout). Verify finishes on
 * a CONFORMS closure, or unaudited only when the caller waives the audit (`--no-conformance-review`).
 */
import { resolve } from 'node:path';
import { createInterface } from 'node:readline/promises';
import { loopImplementationMachine } from '../../machines/loop-implementation/index.js';
import { InputError, UsageError } from '../common/errors.js';
import { formatFindings } from '../common/finding.js';
import type { HumanReplyRejection } from '../gauntlet/human-stop.js';
import { WAIVED_STATUS } from '../gauntlet/review.js';
import { crashAtHookFromEnvironment, crashHookFromEnvironment } from '../host/crash-hook.js';
import {
  createRunner,
  type LoopRunnerOptions,
  type LoopRunResult,
  UNRESOLVED_STATE,
} from '../host/runner.js';
import { AGENT_OPTIONS, agentChoice, presetHelp } from './agent-options.js';
import { integerOption, parseCommandArgs } from './args.js';
import type { CliCommand, CliIo } from './command.js';
import { CLI_RESULT_SCHEMA_ID } from './json-result.js';
import { terminalSafeIo } from './terminal-safe-io.js';

/** Environment variable read for `--impl-model` when the option is absent. */
export const IMPL_MODEL_VARIABLE = 'LOOPCHART_IMPL_MODEL';
/** Environment variable read for `--main-model` when the option is absent. */
export const MAIN_MODEL_VARIABLE = 'LOOPCHART_MAIN_MODEL';

const OPTIONS = {
  worktree: { type: 'string' },
  spec: { type: 'string' },
  ledger: { type: 'string' },
  child: { type: 'string' },
  'child-agent': { type: 'string' },
  ...AGENT_OPTIONS,
  gate: { type: 'string', multiple: true },
  leg: { type: 'string', multiple: true },
  'leg-gate': { type: 'string', multiple: true },
  verification: { type: 'string' },
  overrides: { type: 'string' },
  allowance: { type: 'string' },
  'escalate-after': { type: 'string' },
  'impl-model': { type: 'string' },
  'main-model': { type: 'string' },
  reviewer: { type: 'string' },
  'conformance-reviewer': { type: 'string' },
  'reviewer-agent': { type: 'string' },
  'conformance-reviewer-agent': { type: 'string' },
  'no-conformance-review': { type: 'boolean', default: false },
  'max-fix-rounds': { type: 'string' },
  'silence-timeout': { type: 'string' },
  timeout: { type: 'string' },
  transcript: { type: 'string' },
  answer: { type: 'string' },
  inspect: { type: 'boolean', default: false },
  'inspect-port': { type: 'string' },
  'inspect-wait': { type: 'boolean', default: false },
} as const;

const HELP = `usage: loopchart run --spec <path> (--child "<command>" | --child-agent <agent>) [options]

Runs the loop engine on a worktree, fresh or resumed (the same command).

  --worktree <dir>          the worktree (default: the current directory)
  --spec <path>             the spec (optional on resume when --ledger names the ledger)
  --ledger <path>           the ledger (default: <spec dir>/../plans/<spec file name>)
  --child "<command>"       the child command, run with /bin/sh -c in the worktree
  --child-agent <agent>     run a coding agent as the child (presets below)
  --gate "<command>"        an extra gate after the ledger's verification command (repeatable)
  --leg <member>=<path>     the checkout of a companion member of the spec's ## Legs
                            (repeatable; one per member other than home, whose checkout
                            is the worktree; a relative path resolves from this directory)
  --leg-gate <member>="<command>"
                            a gate command run in a companion leg's checkout at verify
                            (repeatable, in order; default: the ledger's verification command)
  --verification "<cmd>"    the verification command of a fresh ledger (default: the overrides
                            file's command, else discovered: npm test / make test)
  --overrides <path>        the overrides file; its ## verification-before-completion section holds
                            exactly one backticked command (default: .loopchart/overrides.md if present)
  --allowance <n>           allowance of a fresh ledger (default 4)
  --escalate-after <n>      loopEngine.escalateAfter (default 2)
  --impl-model <model>      escalationLoop.implModel (default: $LOOPCHART_IMPL_MODEL)
  --main-model <model>      the main-loop model, used when no impl model is set
                            (default: $LOOPCHART_MAIN_MODEL)
  --reviewer "<command>"    verify step 2 whole-diff reviewer (docs/review-contract.md)
  --conformance-reviewer "<command>"
                            verify step 3 conformance reviewer; verify then finishes only
                            on CONFORMS, printing the closure block (GAPS never exits 0).
                            Without it the run stops (exit 3): closure not audited
  --no-conformance-review   waive the conformance audit: with no conformance reviewer, finish
                            (exit 0) with a closure block that records the waiver
  --reviewer-agent <agent>, --conformance-reviewer-agent <agent>
                            run a coding agent as that reviewer (presets below; the same
                            --agent-args, --agent-unsafe and --prompt-template)
  --max-fix-rounds <n>      closureReview.maxFixRounds (default 5; negatives count as 0)
  --silence-timeout <s>     kill a child silent this long (default 600)
  --timeout <s>             kill a child running this long (default 3600)
  --transcript <path>       the run transcript (default: <git dir>/loopchart/transcript.jsonl)
  --answer "<reply>"        the reply to the stop the run reaches
  --inspect                 watch the run live: serve the explorer on http://127.0.0.1 (URL on
                            stderr) and stream the actor's inspection events to it; a page
                            opened late replays the run so far. The transcript stays the record
  --inspect-port <n>        the port for --inspect (default: a free one)
  --inspect-wait            with --inspect: start the run only once a page is connected
  --json                    print one JSON object with the result

Exit codes: 0 finished, 3 stopped for a human, 2 invalid input, 1 internal error, 130 interrupted
(Ctrl-C or SIGTERM: the child is stopped and its dispatch recovered before the run ends).

${presetHelp('--child-agent')}

short flags: -w --worktree, -s --spec, -l --ledger, -c --child, -g --gate, -t --transcript,
-h --help

examples:
  loopchart run --spec docs/specs/feature.md --child-agent claude
  loopchart run -s docs/specs/feature.md -c "./agent.sh" -g "npm run lint"
  loopchart run -l docs/plans/feature.md -c "./agent.sh" --answer "cut row 3"
  loopchart run -s docs/specs/feature.md -c "./agent.sh" --leg api=../api
  loopchart run -s docs/specs/feature.md -c "./agent.sh" --inspect --inspect-wait
`;

/** Parsed `run` arguments, as runner options. */
export function runOptionsFromArgs(
  args: readonly string[],
  env = process.env,
): LoopRunnerOptions & { json: boolean; help: boolean; live: LiveInspection | null } {
  const { values } = parseCommandArgs('run', args, OPTIONS);
  const seconds = (name: 'silence-timeout' | 'timeout', value: string | undefined) =>
    value === undefined ? undefined : integerOption('run', name, value, 0, 1) * 1000;
  const implModel = values['impl-model'] ?? env[IMPL_MODEL_VARIABLE] ?? null;
  const mainModel = values['main-model'] ?? env[MAIN_MODEL_VARIABLE] ?? null;
  const maxFixRounds =
    values['max-fix-rounds'] === undefined
      ? undefined
      : integerOption('run', 'max-fix-rounds', values['max-fix-rounds'], 0, 0);
  const agent = values.help
    ? null
    : agentChoice(
        'run',
        'child-agent',
        { ...values, agent: values['child-agent'] },
        'child',
        values.child,
        env,
      );
  const child = agent?.command ?? values.child;
  // The reviewers expand through the same preset table, with the reviewer prompt.
  const reviewerAgent = (option: 'reviewer' | 'conformance-reviewer') =>
    values.help
      ? null
      : agentChoice(
          'run',
          `${option}-agent`,
          { ...values, agent: values[`${option}-agent`] },
          'reviewer',
          values[option],
          env,
        );
  const wholeDiff = reviewerAgent('reviewer');
  const conformance = reviewerAgent('conformance-reviewer');
  const reviewer = wholeDiff?.command ?? values.reviewer;
  const conformanceReviewer = conformance?.command ?? values['conformance-reviewer'];
  const waiveConformanceReview = values['no-conformance-review'] === true;
  if (waiveConformanceReview && conformanceReviewer !== undefined)
    throw new UsageError(
      'run: --no-conformance-review waives the conformance audit that --conformance-reviewer asks for; give one of them',
    );
  const childEnv = { ...agent?.env, ...wholeDiff?.env, ...conformance?.env };
  const silenceTimeoutMs = seconds('silence-timeout', values['silence-timeout']);
  const timeoutMs = seconds('timeout', values.timeout);
  const allowance =
    values.allowance === undefined ? undefined : integerOption('run', 'allowance', values.allowance, 0, 1);
  const escalateAfter =
    values['escalate-after'] === undefined
      ? undefined
      : integerOption('run', 'escalate-after', values['escalate-after'], 0, 0);
  if (values.inspect !== true && (values['inspect-port'] !== undefined || values['inspect-wait'] === true))
    throw new UsageError('run: --inspect-port and --inspect-wait go with --inspect');
  const legs = legOptions(values.leg ?? []);
  const legGates = legGateOptions(values['leg-gate'] ?? []);
  const inspectPort = integerOption('run', 'inspect-port', values['inspect-port'], 0);
  if (inspectPort > 65535)
    throw new UsageError(`run: --inspect-port must be at most 65535, got "${inspectPort}"`);
  return {
    json: values.json === true,
    help: values.help === true,
    live: values.inspect === true ? { port: inspectPort, wait: values['inspect-wait'] === true } : null,
    worktree: values.worktree ?? process.cwd(),
    ...(values.spec === undefined ? {} : { spec: values.spec }),
    ...(values.ledger === undefined ? {} : { ledger: values.ledger }),
    ...(child === undefined ? {} : { child }),
    ...(Object.keys(childEnv).length === 0 ? {} : { childEnv }),
    gates: values.gate ?? [],
    ...(legs === undefined ? {} : { legs }),
    ...(legGates === undefined ? {} : { legGates }),
    ...(values.verification === undefined ? {} : { verification: values.verification }),
    ...(values.overrides === undefined ? {} : { overrides: values.overrides }),
    ...(values.transcript === undefined ? {} : { transcript: values.transcript }),
    ...(values.answer === undefined ? {} : { answer: values.answer }),
    ...(reviewer === undefined ? {} : { reviewer }),
    ...(conformanceReviewer === undefined ? {} : { conformanceReviewer }),
    ...(waiveConformanceReview ? { waiveConformanceReview } : {}),
    settings: {
      implModel,
      mainModel,
      ...(maxFixRounds === undefined ? {} : { maxFixRounds }),
      ...(allowance === undefined ? {} : { allowance }),
      ...(escalateAfter === undefined ? {} : { escalateAfter }),
      ...(silenceTimeoutMs === undefined ? {} : { silenceTimeoutMs }),
      ...(timeoutMs === undefined ? {} : { timeoutMs }),
    },
  };
}

/**
 * `--leg <member>=<path>` values as the runner's `legs` option (member -> absolute path, resolved
 * from the current directory), or `undefined` when none was given.
 *
 * @throws UsageError for a value without `=`, an empty member or path, or a member given twice
 */
export function legOptions(values: readonly string[]): Record<string, string> | undefined {
  if (values.length === 0) return undefined;
  const legs: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf('=');
    const member = at < 0 ? '' : value.slice(0, at).trim();
    const path = at < 0 ? '' : value.slice(at + 1);
    if (member === '' || path === '')
      throw new UsageError(`run: --leg reads <member>=<path> (e.g. --leg api=../api), got "${value}"`);
    if (Object.hasOwn(legs, member))
      throw new UsageError(`run: --leg ${member} is given twice; give each member one checkout`);
    legs[member] = resolve(path);
  }
  return legs;
}

/**
 * `--leg-gate <member>=<command>` values as the runner's `legGates` option (member -> commands in
 * the order given), or `undefined` when none was given.
 *
 * @throws UsageError for a value without `=`, or an empty member or command
 */
export function legGateOptions(values: readonly string[]): Record<string, string[]> | undefined {
  if (values.length === 0) return undefined;
  const gates: Record<string, string[]> = {};
  for (const value of values) {
    const at = value.indexOf('=');
    const member = at < 0 ? '' : value.slice(0, at).trim();
    const command = at < 0 ? '' : value.slice(at + 1).trim();
    if (member === '' || command === '')
      throw new UsageError(
        `run: --leg-gate reads <member>=<command> (e.g. --leg-gate api="make test"), got "${value}"`,
      );
    gates[member] = [...(gates[member] ?? []), command];
  }
  return gates;
}

function isTty(stream: unknown): boolean {
  return (stream as { isTTY?: boolean }).isTTY === true;
}

/** A terminal prompt for replies at a stop. */
function terminalAsk(io: CliIo): LoopRunnerOptions['ask'] {
  return async (stopText: string, rejection: HumanReplyRejection | null) => {
    if (rejection === null) io.stdout.write(stopText);
    else io.stderr.write(`loopchart: ${rejection.reason}\n`);
    const prompt = createInterface({ input: process.stdin, output: process.stderr });
    try {
      const line = await prompt.question('reply> ');
      return line.trim() === '' ? null : line;
    } finally {
      prompt.close();
    }
  };
}

/** The JSON form of a run result (`--json`). */
export function runResultJson(command: string, result: LoopRunResult): Record<string, unknown> {
  return {
    schema: CLI_RESULT_SCHEMA_ID,
    command,
    status: result.status,
    exitCode: result.exitCode,
    state: result.state,
    ...(result.stopText === undefined ? {} : { stop: result.stopText }),
    ...(result.message === undefined ? {} : { message: result.message }),
    findings: result.findings,
    worktree: result.worktree,
    ledgerPath: result.ledgerPath,
    specPath: result.specPath,
    transcript: result.transcriptPath,
    ledger:
      result.ledger === null
        ? null
        : {
            iterations: result.ledger.iterations,
            allowance: result.ledger.allowance,
            pending: result.ledger.pending,
            rows: result.ledger.rows,
            decisions: result.ledger.decisions,
          },
    notices: result.notices,
    ...(result.closure === undefined ? {} : { closure: result.closure }),
    ...(result.answered === undefined ? {} : { answered: result.answered }),
    ...(result.unusedAnswer === undefined ? {} : { unusedAnswer: result.unusedAnswer }),
  };
}

/** Writes a run result for a person (stdout) or as JSON. */
export function reportRun(io: CliIo, result: LoopRunResult, json: boolean): void {
  if (json) {
    io.stdout.write(`${JSON.stringify(runResultJson('run', result))}\n`);
    return;
  }
  if (result.unusedAnswer !== undefined)
    io.stderr.write(
      `loopchart: --answer ${JSON.stringify(result.unusedAnswer)} was not used: the run reached no stop to answer\n`,
    );
  if (result.status === 'stopped' && result.stopText !== undefined) io.stdout.write(result.stopText);
  else if (result.status === 'finished') {
    const rows = result.ledger?.rows ?? [];
    const count = (status: string) => rows.filter((row) => row.status === status).length;
    io.stdout.write(
      `finished: ${count('done')} rows done, ${count('cut')} cut, ${result.ledger?.iterations ?? 0} iterations; verification passed${result.closure?.includes(`\n${WAIVED_STATUS}\n`) === true ? '; closure not audited (waived)' : ''}\n`,
    );
    if (result.closure !== undefined) io.stdout.write(result.closure);
  } else {
    if (result.stopText !== undefined) io.stdout.write(result.stopText);
    io.stderr.write(`loopchart: ${result.message ?? result.status}\n`);
    if (result.findings.length > 0) io.stderr.write(`${formatFindings(result.findings)}\n`);
  }
}

/** Runs `run` with parsed options; the demo reuses it. */
export async function executeRun(
  io: CliIo,
  options: LoopRunnerOptions,
  json: boolean,
): Promise<LoopRunResult> {
  const interactive = !json && options.ask === undefined && isTty(process.stdin) && isTty(io.stderr);
  const tty = isTty(io.stderr);
  const runner = createRunner({
    ...options,
    onNotice: (text) => io.stderr.write(`${text}\n`),
    ...(tty ? { onProgress: (line: string) => io.stderr.write(`${line}\n`) } : {}),
    ...(interactive ? { ask: terminalAsk(io) } : {}),
  });
  const result = await runner.run();
  // Input the run could not start from is reported like every other command's usage problem.
  if (result.state === UNRESOLVED_STATE)
    throw new InputError(
      result.code ?? 'run.input',
      result.message ?? 'the run could not start',
      result.findings,
    );
  return result;
}

/** `loopchart run`. */
export const runCommand: CliCommand = {
  name: 'run',
  summary: 'run the loop on a worktree (fresh or resumed) until it finishes or stops for a human',
  async run(args, rawIo) {
    const io = terminalSafeIo(rawIo);
    const options = runOptionsFromArgs(args);
    if (options.help) {
      io.stdout.write(HELP);
      const preset = presetOf(args);
      if (preset !== null)
        io.stdout.write(`\n--child-agent ${preset.name} runs, per dispatch:\n  ${preset.command}\n`);
      return 0;
    }
    if (options.child === undefined)
      throw new UsageError('run: give the child with --child "<command>" or --child-agent <agent>');
    if (options.child.trim() === '')
      throw new UsageError('run: --child is empty; give the command that runs one child dispatch');
    // The test hooks (LOOPCHART_CRASH_AFTER, LOOPCHART_CRASH_AT): kill after a side effect.
    const hooks = [crashHookFromEnvironment(), crashAtHookFromEnvironment()].filter(
      (hook) => hook !== undefined,
    );
    const crash =
      hooks.length === 0
        ? undefined
        : (name: string, count: number) => {
            for (const hook of hooks) hook(name, count);
          };
    // Ctrl-C or SIGTERM stops a running child or gate (its whole process group), lets the
    // interrupted dispatch be recovered and repaired, and ends the run before the next one (130).
    const interruption = new AbortController();
    const onSignal = (name: NodeJS.Signals) => {
      if (interruption.signal.aborted) return;
      io.stderr.write(`loopchart: ${name}: stopping the child; the run ends once its return is recorded\n`);
      interruption.abort(name);
    };
    process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
    const { live, json, help, ...runner } = options;
    const inspection = live === null ? null : await startLiveInspection(io, live, interruption.signal);
    if (inspection !== null && interruption.signal.aborted) {
      // Ctrl-C while --inspect-wait waited for a page: nothing ran.
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
      await inspection.server.close();
      return INTERRUPTED_EXIT_CODE;
    }
    let ended: { status: string; state: string; text?: string } = { status: 'failed', state: 'unknown' };
    try {
      const result = await executeRun(
        io,
        {
          ...runner,
          ...(crash === undefined ? {} : { onSideEffect: crash }),
          ...(inspection === null ? {} : { inspect: inspection.hub.inspect }),
          interrupt: interruption.signal,
        },
        json,
      );
      ended = {
        status: result.status,
        state: result.state,
        ...(result.stopText === undefined ? {} : { text: result.stopText }),
      };
      reportRun(io, result, json);
      return interruption.signal.aborted ? INTERRUPTED_EXIT_CODE : result.exitCode;
    } catch (error) {
      ended = {
        status: 'failed',
        state: 'unknown',
        text: error instanceof Error ? error.message : String(error),
      };
      throw error;
    } finally {
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
      if (inspection !== null) {
        inspection.hub.end(ended);
        await inspection.server.close();
      }
    }
  },
};

/** With `--help`, the expansion of the `--child-agent` given beside it, or `null`. */
function presetOf(args: readonly string[]): { name: string; command: string } | null {
  const { values } = parseCommandArgs('run', args, OPTIONS);
  const name = values['child-agent'];
  if (name === undefined) return null;
  const choice = agentChoice('run', 'child-agent', { ...values, agent: name }, 'child', undefined);
  return choice === null ? null : { name, command: choice.command };
}

/** `--inspect`: where to serve the live explorer, and whether the run waits for a page. */
export interface LiveInspection {
  readonly port: number;
  readonly wait: boolean;
}

/**
 * Starts the live explorer for `--inspect`: a hub that turns the actor's inspection events into
 * steps, served on 127.0.0.1. Loaded only when asked for (it loads the viz and the loop model).
 */
async function startLiveInspection(io: CliIo, live: LiveInspection, interrupt: AbortSignal) {
  const [{ createLiveHub }, { serveExplorer }, { models }] = await Promise.all([
    import('../viz/explorer/live.js'),
    import('../viz/explorer/server.js'),
    import('../graph/models/index.js'),
  ]);
  const hub = createLiveHub('loop-implementation', loopImplementationMachine, models['loop-implementation']);
  const server = await serveExplorer({ targets: [], live: hub, port: live.port });
  io.stderr.write(`loopchart: inspect: ${server.url}\n`);
  if (live.wait) {
    io.stderr.write('loopchart: inspect: the run starts once a page is open\n');
    await Promise.race([
      hub.attached(),
      new Promise<void>((resolve) => {
        if (interrupt.aborted) resolve();
        else interrupt.addEventListener('abort', () => resolve(), { once: true });
      }),
    ]);
  }
  return { hub, server };
}

/** Exit code of a run interrupted by SIGINT or SIGTERM (128 + SIGINT, the shell's convention). */
export const INTERRUPTED_EXIT_CODE = 130;
