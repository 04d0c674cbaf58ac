/**
 * `loopchart cyber`: the cybernetic loop from a terminal. Prints the frozen run contract, the
 * baseline, each candidate's results and decision, and one terminal record. Exit codes (docs/cli.md
 * "cyber"): 0 already-holds or restored, 2 invalid input, 4 non-converged (the scope was restored
 * to the checkpoint), 5 recovery-failure (it was not), 1 internal error, 130 interrupted (the
 * running command is stopped and the scope restored to its checkpoint).
 */
import { resolve } from 'node:path';
import { UsageError } from '../common/errors.js';
import { renderRunContract } from '../cybernetic/render-run-contract.js';
import { renderTerminalRecord, terminalRecordToJson } from '../cybernetic/render-terminal-record.js';
import type { CheckRequest } from '../cybernetic/run-input.js';
import { shellCheckCommand } from '../cybernetic/shell-check.js';
import type { TerminalRecord } from '../cybernetic/terminal-record.js';
import { resolveWorktreeRoot } from '../effects/worktree-root.js';
import { crashAtHookFromEnvironment, crashHookFromEnvironment } from '../host/crash-hook.js';
import { runCyberneticLoop } from '../host/cybernetic-runner.js';
import { describeCheckResult } from '../host/cybernetic-transcript.js';
import { AGENT_OPTIONS, agentChoice, presetHelp, useToolVariable } from './agent-options.js';
import { parseCommandArgs } from './args.js';
import type { CliCommand, CliIo } from './command.js';
import { type CliResultEnvelope, writeJsonResult } from './json-result.js';
import { terminalSafeIo } from './terminal-safe-io.js';

/** Exit code of each terminal status; a CI job gates on these (docs/cli.md). */
export const CYBER_EXIT_CODES: Readonly<Record<TerminalRecord['status'], number>> = {
  'already-holds': 0,
  restored: 0,
  'invalid-input': 2,
  'non-converged': 4,
  'recovery-failure': 5,
};

const HELP = `usage: loopchart cyber --invariant "<cmd>" --off-happy-path "<situation>" --scope <paths>
                       --budget <n> --patcher "<cmd>" [--check "<cmd>"]... [options]

Restores one invariant through at most <n> candidate patches, or restores the scope to its
checkpoint and reports why it stopped.

  --invariant "<cmd>"        the check that falsifies the invariant (run with /bin/sh -c)
  --statement "<text>"       the invariant in words (default: "the invariant check passes: <cmd>")
  --off-happy-path "<text>"  the situation outside the happy path it covers (required)
  --check "<cmd>"            an existing check of the repository; repeat for more (check-1, check-2, ...)
  --scope <paths>            repository-relative paths the run may change; repeat or separate with commas
  --budget <n>               the patch budget: a finite positive whole number
  --patcher "<cmd>"          proposes one candidate per run (LOOPCHART_TASK, LOOPCHART_RETURN)
  --patcher-agent <agent>    run a coding agent as the patcher instead (presets below)
  --cwd <dir>                a directory inside the repository (default: the current one)
  --transcript <file>        where the run transcript goes (default: in the run directory)
  --check-timeout <s>        kill a check after <s> seconds (it fails)
  --patcher-timeout <s>      kill the patcher after <s> seconds
  --scope-reason "<text>"    why the scope may be wider than the files the failing checks name
  --json                     print one JSON object with the terminal record
Exit codes: 0 already-holds or restored, 2 invalid input, 4 non-converged, 5 recovery-failure,
1 internal error, 130 interrupted (Ctrl-C or SIGTERM: the scope is restored to its checkpoint).
After a crash, run the same command again: the run resumes from its journal in
<git dir>/loopchart/cyber/ and ends as it would have (--json says "resumed": true).

short flags: -t --transcript, -h --help

examples:
  loopchart cyber --invariant "npm test -- parser" --off-happy-path "empty input" \\
    --scope src/parser --budget 3 --patcher "./propose-patch.sh"

${presetHelp('--patcher-agent')}
`;

function seconds(name: string, value: string | undefined): number | undefined {
  if (value === undefined) return undefined;
  if (!/^\d+$/.test(value) || Number(value) < 1)
    throw new UsageError(`cyber: --${name} must be a whole number of seconds >= 1, got "${value}"`);
  return Number(value) * 1000;
}

function commandOf(text: string): CheckRequest['command'] {
  // An empty command is left as given so that validation names it (cybernetic.check.command-empty).
  return shellCheckCommand(text) ?? text;
}

/**
 * Builds the run request from the options. Everything the protocol validates (a missing
 * invariant, a bad budget, a bad scope path) is passed through as given, so that the run refuses
 * it as `invalid-input` with named findings instead of a usage error.
 */
function requestOf(values: {
  invariant?: string | undefined;
  statement?: string | undefined;
  'off-happy-path'?: string | undefined;
  check?: string[] | undefined;
  scope?: string[] | undefined;
  budget?: string | undefined;
}): unknown {
  const invariant = values.invariant;
  return {
    invariant: {
      statement:
        values.statement ??
        (invariant === undefined ? undefined : `the invariant check passes: ${invariant}`),
      offHappyPath: values['off-happy-path'],
      ...(invariant === undefined ? {} : { check: { command: commandOf(invariant) } }),
    },
    budget:
      values.budget === undefined
        ? undefined
        : values.budget.trim() === ''
          ? values.budget
          : Number(values.budget),
    scope: values.scope?.flatMap((value) => value.split(',').map((path) => path.trim())),
    existingChecks: (values.check ?? []).map((command, index) => ({
      name: `check-${index + 1}`,
      command: commandOf(command),
    })),
  };
}

/** Exit code of a run interrupted by SIGINT or SIGTERM (128 + SIGINT, the shell's convention). */
export const INTERRUPTED_EXIT_CODE = 130;

function writeJson(io: CliIo, value: CliResultEnvelope & Record<string, unknown>): void {
  writeJsonResult(io, value, true);
}

/** `loopchart cyber`. */
export const cyberCommand: CliCommand = {
  name: 'cyber',
  summary: 'restore one invariant with bounded candidate patches, or roll the scope back and say why',
  async run(args, raw) {
    // Everything printed may carry a child's, a check's or a transcript's bytes: neutralized once here.
    const io = terminalSafeIo(raw);
    const { values } = parseCommandArgs('cyber', args, {
      invariant: { type: 'string' },
      statement: { type: 'string' },
      'off-happy-path': { type: 'string' },
      check: { type: 'string', multiple: true },
      scope: { type: 'string', multiple: true },
      budget: { type: 'string' },
      patcher: { type: 'string' },
      cwd: { type: 'string' },
      transcript: { type: 'string' },
      'check-timeout': { type: 'string' },
      'patcher-timeout': { type: 'string' },
      'patcher-agent': { type: 'string' },
      ...AGENT_OPTIONS,
      'scope-reason': { type: 'string' },
    });
    if (values.help) {
      io.stdout.write(HELP);
      return 0;
    }
    const json = values.json;
    const agent = agentChoice(
      'cyber',
      'patcher-agent',
      { ...values, agent: values['patcher-agent'] },
      'patcher',
      values.patcher,
    );
    if (agent !== null) {
      values.patcher = agent.command;
      useToolVariable(agent);
    }
    if (values.patcher === undefined || values.patcher.trim() === '')
      throw new UsageError('cyber: --patcher "<cmd>" is required (it proposes the candidate patches)');
    const checkTimeoutMs = seconds('check-timeout', values['check-timeout']);
    const patcherTimeoutMs = seconds('patcher-timeout', values['patcher-timeout']);
    const worktree = await resolveWorktreeRoot(values.cwd ?? process.cwd());
    // Human-readable progress goes to stdout, or to stderr when stdout carries the JSON.
    const progress = json ? io.stderr : io.stdout;
    // Ctrl-C or a termination request ends the running check or patcher and restores the scope
    // to its checkpoint before the command exits (130): an interrupted run keeps no candidate.
    const interruption = new AbortController();
    const onSignal = (name: NodeJS.Signals) => {
      if (interruption.signal.aborted) return;
      io.stderr.write(`loopchart: ${name}: stopping the running command and restoring the scope\n`);
      interruption.abort(name);
    };
    process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
    // Test hooks (crash-hook.ts): a SIGKILL right after a counted or a named side effect.
    const crashAfter = crashHookFromEnvironment();
    const crashAt = crashAtHookFromEnvironment();
    let exitCode = 1;
    const crash =
      crashAfter === undefined && crashAt === undefined
        ? undefined
        : (name: string, count: number) => {
            crashAfter?.(name, count);
            crashAt?.(name, count);
          };
    await runCyberneticLoop({
      signal: interruption.signal,
      // The run is closed only once its record is printed: a kill before that lets a rerun print it.
      beforeClose: (ran) => {
        exitCode = report(io, json, interruption.signal, ran);
      },
      ...(crash === undefined ? {} : { onSideEffect: crash }),
      onResume: ({ runDir, steps, ended }) =>
        progress.write(
          ended
            ? `the run in ${runDir} had already ended; reporting its record again\n`
            : `resuming the interrupted run in ${runDir} after ${steps} recorded step${steps === 1 ? '' : 's'}\n`,
        ),
      worktree,
      request: requestOf(values),
      patcher: values.patcher,
      // The smallest scope is derived from what the failing checks print (cyber-scope.ts).
      ...(values.invariant === undefined
        ? {}
        : {
            scopeCheck: {
              checks: [
                { name: 'invariant', command: values.invariant },
                ...(values.check ?? []).map((command, index) => ({ name: `check-${index + 1}`, command })),
              ],
              reason: values['scope-reason'] ?? null,
            },
          }),
      ...(values.transcript === undefined ? {} : { transcriptPath: resolve(values.transcript) }),
      ...(checkTimeoutMs === undefined ? {} : { checkTimeoutMs }),
      ...(patcherTimeoutMs === undefined ? {} : { patcherTimeoutMs }),
      onContract: (contract) => progress.write(`${renderRunContract(contract)}\n`),
      onBaseline: (run) =>
        progress.write(`baseline (run 0): ${run.results.map(describeCheckResult).join('; ')}\n`),
      onCandidate: (attempt) => {
        const decision =
          attempt.decision.decision === 'keep'
            ? `kept (now passing: ${attempt.decision.newlyPassing.join(', ')})`
            : `reverted (candidate-regression, ${attempt.decision.cause})`;
        const verdict =
          attempt.verdict.kind === 'stop' ? `stop: ${attempt.verdict.stopClass}` : attempt.verdict.kind;
        progress.write(
          [
            `candidate ${attempt.attempt} [${attempt.patch.id}] aiming at ${attempt.patch.target}: ${attempt.patch.summary}`,
            `  changed: ${attempt.patch.paths.join(', ') || '(nothing)'}`,
            `  results (run ${attempt.run.run}): ${attempt.run.results.map(describeCheckResult).join('; ')}`,
            `  ${decision}; budget spent ${attempt.budgetSpent}; verdict: ${verdict}`,
            '',
          ].join('\n'),
        );
      },
    }).finally(() => {
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    });
    return exitCode;
  },
};

/** Prints the run's outcome (one JSON object with --json) and returns the exit code. */
function report(
  io: CliIo,
  json: boolean | undefined,
  interruption: AbortSignal,
  result: Awaited<ReturnType<typeof runCyberneticLoop>>,
): number {
  if (interruption.aborted) {
    const restoration =
      result.record === null
        ? JSON.stringify(result.failure?.restoration ?? null)
        : renderTerminalRecord(result.record).trimEnd();
    if (json)
      writeJson(io, {
        command: 'cyber',
        status: 'failed',
        exitCode: INTERRUPTED_EXIT_CODE,
        interrupted: String(interruption.reason),
        resumed: result.resumed,
        transcript: result.transcriptPath,
        ...(result.record === null
          ? { failure: result.failure }
          : { record: terminalRecordToJson(result.record) }),
      });
    else
      io.stdout.write(
        `interrupted by ${String(interruption.reason)}; what the run observed while stopping:\n${restoration}\ntranscript: ${result.transcriptPath}\n`,
      );
    return INTERRUPTED_EXIT_CODE;
  }
  if (result.record === null) {
    const failure = result.failure;
    const text = `cybernetic run: internal error in ${failure?.operation ?? 'an effect'}: ${failure?.error ?? 'unknown'}; restoration: ${JSON.stringify(failure?.restoration ?? null)}`;
    if (json)
      writeJson(io, {
        command: 'cyber',
        status: 'failed',
        exitCode: 1,
        resumed: result.resumed,
        transcript: result.transcriptPath,
        failure,
      });
    else io.stdout.write(`${text}\ntranscript: ${result.transcriptPath}\n`);
    io.stderr.write(`loopchart: ${text}\n`);
    return 1;
  }
  const exitCode = CYBER_EXIT_CODES[result.record.status];
  if (json)
    writeJson(io, {
      command: 'cyber',
      status: exitCode === 0 ? 'finished' : exitCode === 2 ? 'invalid' : 'failed',
      exitCode,
      resumed: result.resumed,
      transcript: result.transcriptPath,
      record: terminalRecordToJson(result.record),
    });
  else io.stdout.write(`${renderTerminalRecord(result.record)}transcript: ${result.transcriptPath}\n`);
  return exitCode;
}
