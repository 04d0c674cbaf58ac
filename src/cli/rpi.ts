/**
 * `loopchart rpi`: Plan, Implement, a fresh Validate and the bounded repair phase under the
 * convergence law, over the current worktree, with the user's commands. See docs/rpi.md.
 *
 * Exit codes: 0 converged; 4 the run reached a stop without converging (the report is printed);
 * 2 invalid input (options, intent, a validator record that is not a verdict record); 1 internal
 * error.
 */
import { resolve } from 'node:path';
import { finalCiLine, type RiskDeclaration } from '../../machines/rpi/index.js';
import { UsageError } from '../common/errors.js';
import { formatFindings } from '../common/finding.js';
import { crashAtHookFromEnvironment, crashHookFromEnvironment } from '../host/crash-hook.js';
import { createRpiRunner, type RpiRunResult, rpiExitCode, rpiRunFailure } from '../host/rpi-runner.js';
import { presetHelp, RPI_AGENT_OPTIONS, rpiCommands } from './agent-options.js';
import { integerOption, parseCommandArgs } from './args.js';
import type { CliCommand, CliIo } from './command.js';
import { CLI_RESULT_SCHEMA_ID } from './json-result.js';
import { terminalSafeIo } from './terminal-safe-io.js';

const HELP = `usage: loopchart rpi --implementer "<cmd>" --validator "<cmd>" [options]

Plan, Implement, a fresh Validate, then repair while the convergence law holds.

  --implementer <cmd>    builds the change (round 0) and repairs the open findings (round n)
  --validator <cmd>      the fresh validator: prints one verdict record (JSON) on stdout
  --implementer-agent <agent>, --validator-agent <agent>
                         run a coding agent in that role instead (presets below)
  --cross-family <cmd>   a second validator of another model family, run on risky surfaces
  --final-ci <cmd>       a CI command run once on the converged subject (repeatable, in order); its
                         receipt counts only if the subject digest is unchanged before and after
                         (default: none, the report says "final CI: not configured")
  --plan <cmd>           Plan; a non-zero exit reports NOT_PLANNED (default: the intent is the plan)
  --intent <file>        the intent; its exact bytes give the acceptance digest
  --intent-ref <ref>     the intent reference reported (default: the intent file, else "caller")
  --repair-rounds <n>    repair rounds allowed (default 2; 0 is a single pass)
  --risky auto|yes|no    whether the change touches a risky surface (default auto: from the changed paths)
  --root <path>          a root of the subject (repeatable; default the whole worktree)
  --repo <dir>           the worktree (default the current directory)
  --command-timeout <s>  kill a Plan, implementer or validator command after <s> seconds (default: none)
  --transcript <file>    the JSONL transcript (default under .git/loopchart/rpi/<run id>/)
  --fresh                leave the unfinished run of this worktree (kept on disk) and start a new one;
                         without it, an unfinished run is resumed where it stopped
  --json                 print one JSON object
  -h, --help             this help

exit codes: 0 converged (and final CI passed when given), 4 stopped without converging, 2 invalid input, 1 internal error

short flags: -r --repo, -t --transcript, -h --help

examples:
  loopchart rpi --implementer "./impl.sh" --validator "./validate.sh" --intent intent.md
  loopchart rpi --implementer "./impl.sh" --validator "./validate.sh" --repair-rounds 0 --json

${presetHelp('--implementer-agent and --validator-agent')}
`;

/**
 * Parses `--risky`.
 *
 * @throws UsageError for anything but auto, yes or no
 */
export function riskyOption(command: string, value: string | undefined): RiskDeclaration {
  if (value === undefined) return 'auto';
  if (value === 'auto' || value === 'yes' || value === 'no') return value;
  throw new UsageError(`${command}: --risky must be auto, yes or no, got "${value}"`);
}

const OPTIONS = {
  implementer: { type: 'string' },
  validator: { type: 'string' },
  'cross-family': { type: 'string' },
  plan: { type: 'string' },
  'final-ci': { type: 'string', multiple: true },
  intent: { type: 'string' },
  'intent-ref': { type: 'string' },
  'repair-rounds': { type: 'string' },
  risky: { type: 'string' },
  root: { type: 'string', multiple: true },
  repo: { type: 'string' },
  transcript: { type: 'string' },
  'command-timeout': { type: 'string' },
  fresh: { type: 'boolean' },
  ...RPI_AGENT_OPTIONS,
} as const;

/** `--command-timeout <s>` as runner options; a value that is not a positive whole number is a usage error. */
export function commandTimeout(command: string, value: string | undefined): { commandTimeoutMs?: number } {
  if (value === undefined) return {};
  return { commandTimeoutMs: integerOption(command, 'command-timeout', value, 0, 1) * 1000 };
}

async function run(args: readonly string[], raw: CliIo): Promise<number> {
  // Everything printed may carry a child's, a validator's or a transcript's bytes: neutralized once here.
  const io = terminalSafeIo(raw);
  const { values } = parseCommandArgs('rpi', args, OPTIONS);
  const json = values.json;
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const { implementer, validator } = rpiCommands('rpi', values);
  const runner = createRpiRunner({
    repo: resolve(values.repo ?? '.'),
    implementer,
    validator,
    crossFamily: values['cross-family'] ?? null,
    plan: values.plan ?? null,
    finalCi: values['final-ci'] ?? [],
    intentFile: values.intent === undefined ? null : resolve(values.intent),
    intentRef: values['intent-ref'] ?? values.intent ?? null,
    repairRounds: integerOption('rpi', 'repair-rounds', values['repair-rounds'], 2),
    risky: riskyOption('rpi', values.risky),
    ...commandTimeout('rpi', values['command-timeout']),
    ...(values.root === undefined ? {} : { roots: values.root }),
    ...(values.transcript === undefined ? {} : { transcriptPath: resolve(values.transcript) }),
    fresh: values.fresh === true,
    holdReport: true,
    ...sideEffectHook(),
    ...((io.stderr as { isTTY?: boolean }).isTTY
      ? { onProgress: (line: string) => io.stderr.write(`${line}\n`) }
      : {}),
  });
  const result = await runner.run();
  const exitCode = report(result, json, io);
  // Only now may a rerun of the same command start a new run: the outcome reached the caller.
  await result.markReported();
  return exitCode;
}

/**
 * The crash hooks of tests (`LOOPCHART_CRASH_AFTER=<n>`, `LOOPCHART_CRASH_AT=<name>[#k]`,
 * src/host/crash-hook.ts) as runner options.
 */
export function sideEffectHook(): { onSideEffect?: (name: string, count: number) => void } {
  const hooks = [crashHookFromEnvironment(), crashAtHookFromEnvironment()].filter(
    (hook) => hook !== undefined,
  );
  if (hooks.length === 0) return {};
  return {
    onSideEffect: (name, count) => {
      for (const hook of hooks) hook(name, count);
    },
  };
}

function report(result: RpiRunResult, json: boolean | undefined, io: CliIo): number {
  const { outcome, transcriptPath, resumed } = result;

  const failure = rpiRunFailure(outcome);
  const exitCode = rpiExitCode(outcome);
  if (failure !== null) {
    const { input, code, message, findings } = failure;
    if (json) {
      io.stdout.write(
        `${JSON.stringify({
          schema: CLI_RESULT_SCHEMA_ID,
          command: 'rpi',
          status: input ? 'invalid' : 'failed',
          exitCode,
          terminal: outcome.terminal,
          error: { code, message, findings },
          transcript: transcriptPath,
          resumed,
        })}\n`,
      );
    } else {
      const detail = findings.length > 0 ? `\n${formatFindings(findings)}` : '';
      io.stderr.write(`loopchart: rpi ${outcome.terminal}: ${message} (${code})${detail}\n`);
      io.stderr.write(`transcript: ${transcriptPath}\n`);
    }
    return exitCode;
  }

  if (json) {
    io.stdout.write(
      `${JSON.stringify({
        schema: CLI_RESULT_SCHEMA_ID,
        command: 'rpi',
        status: 'finished',
        exitCode,
        terminal: outcome.terminal,
        stopReason: outcome.stopReason,
        converged: outcome.converged,
        roundsUsed: outcome.roundsUsed,
        openFindings: outcome.openFindings,
        stageNote: outcome.stageNote,
        finalCi: outcome.finalCi,
        report: outcome.report,
        transcript: transcriptPath,
        resumed,
      })}\n`,
    );
  } else {
    const open = outcome.openFindings.map((f) => f.id);
    io.stdout.write(
      [
        `rpi: ${outcome.terminal} (status ${outcome.report?.status ?? 'none'}) after ${outcome.roundsUsed} repair round(s)`,
        ...(resumed ? [`resumed: the unfinished run in ${result.runDir}`] : []),
        ...(outcome.stageNote === null ? [] : [`note: ${outcome.stageNote}`]),
        `open findings: ${open.length > 0 ? open.join(', ') : 'none'}`,
        ...(outcome.finalCi === null ? [] : [finalCiLine(outcome.finalCi)]),
        `transcript: ${transcriptPath}`,
        JSON.stringify(outcome.report, null, 2),
        '',
      ].join('\n'),
    );
  }
  return exitCode;
}

/** The `loopchart rpi` command. */
export const rpiCommand: CliCommand = {
  name: 'rpi',
  summary: 'Plan, Implement, Validate and repair under the convergence law',
  run,
};
