/**
 * `loopchart crank`: runs a caller's wave — RPI once per lane, lanes in parallel only when they
 * share no write scope or regen surface, the wave acceptance once after every lane returned — and
 * prints the wave evidence. See docs/rpi.md.
 *
 * Exit codes: 0 every lane's report is PASS and the wave acceptance passed; 4 the wave ran and
 * some lane did not converge or the acceptance failed (the evidence is printed); 2 an unrunnable
 * wave or invalid options; 1 internal error (including a wave acceptance that could not be run).
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputError, UsageError } from '../common/errors.js';
import { type CrankRunResult, crankExitCode, createCrankRunner } from '../host/crank-runner.js';
import { presetHelp, RPI_AGENT_OPTIONS, rpiCommands } from './agent-options.js';
import { parseCommandArgs } from './args.js';
import type { CliCommand, CliIo } from './command.js';
import { CLI_RESULT_SCHEMA_ID } from './json-result.js';
import { commandTimeout, riskyOption, sideEffectHook } from './rpi.js';
import { terminalSafeIo } from './terminal-safe-io.js';

const HELP = `usage: loopchart crank --wave <wave.json> --implementer "<cmd>" --validator "<cmd>" [options]

Run RPI once per lane of the caller's wave, then the wave acceptance once, and report.

  --wave <file>          the wave: lanes (scope, brief, acceptance, regen_surfaces), repair_rounds, acceptance
  --implementer <cmd>    every lane's implementer (LOOPCHART_LANE names the lane, LOOPCHART_INTENT its intent)
  --validator <cmd>      every lane's fresh validator
  --cross-family <cmd>   every lane's cross-family validator, run on risky surfaces
  --plan <cmd>           every lane's Plan
  --risky auto|yes|no    risk declaration for every lane (default auto)
  --repo <dir>           the worktree (default the current directory)
  --command-timeout <s>  kill any lane or acceptance command after <s> seconds (default: none)
  --transcript <file>    the wave's JSONL transcript (default under .git/loopchart/crank/<run id>/)
  --fresh                leave the unfinished wave of this worktree (kept on disk) and start a new one;
                         without it, an unfinished wave is resumed: lanes that returned are not rerun
  --json                 print one JSON object
  -h, --help             this help

exit codes: 0 every lane PASS and the acceptance passed, 4 otherwise, 2 invalid input, 1 internal error

short flags: -r --repo, -t --transcript, -h --help

examples:
  loopchart crank --wave wave.json --implementer "./impl.sh" --validator "./validate.sh"
  loopchart crank --wave wave.json --implementer "./impl.sh" --validator "./validate.sh" \\
    --command-timeout 900 --json

${presetHelp('--implementer-agent and --validator-agent')}
`;

const OPTIONS = {
  wave: { type: 'string' },
  implementer: { type: 'string' },
  validator: { type: 'string' },
  'cross-family': { type: 'string' },
  plan: { type: 'string' },
  risky: { type: 'string' },
  repo: { type: 'string' },
  transcript: { type: 'string' },
  fresh: { type: 'boolean' },
  'command-timeout': { type: 'string' },
  ...RPI_AGENT_OPTIONS,
} as const;

async function readWave(path: string): Promise<unknown> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InputError(
      'crank.wave-unreadable',
      `cannot read the wave ${path}: ${(error as Error).message}`,
    );
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new InputError('crank.wave-not-json', `the wave ${path} is not JSON: ${(error as Error).message}`);
  }
}

async function run(args: readonly string[], raw: CliIo): Promise<number> {
  // Everything printed may carry a child's, a validator's or a transcript's bytes: neutralized once here.
  const io = terminalSafeIo(raw);
  const { values } = parseCommandArgs('crank', args, OPTIONS);
  const json = values.json;
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (values.wave === undefined) throw new UsageError('crank: --wave <file> is required');
  const { implementer, validator } = rpiCommands('crank', values);
  const runner = createCrankRunner({
    repo: resolve(values.repo ?? '.'),
    wave: await readWave(resolve(values.wave)),
    implementer,
    validator,
    crossFamily: values['cross-family'] ?? null,
    plan: values.plan ?? null,
    risky: riskyOption('crank', values.risky),
    ...commandTimeout('crank', values['command-timeout']),
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
  // Only now may a rerun of the same command start a new wave: the evidence reached the caller.
  await result.markReported();
  return exitCode;
}

function report(result: CrankRunResult, json: boolean | undefined, io: CliIo): number {
  const { evidence, terminal, transcriptPath, resumed } = result;
  const exitCode = crankExitCode(evidence, terminal);
  if (json) {
    io.stdout.write(
      `${JSON.stringify({
        schema: CLI_RESULT_SCHEMA_ID,
        command: 'crank',
        status: exitCode === 1 ? 'failed' : 'finished',
        exitCode,
        terminal,
        lanes: evidence.lanes,
        acceptance: evidence.acceptance,
        failure: evidence.failure,
        conflicts: evidence.conflicts,
        startOrder: evidence.startOrder,
        transcript: transcriptPath,
        resumed,
      })}\n`,
    );
  } else {
    const lines = evidence.lanes.map((lane) => {
      const open = lane.openFindings.map((f) => f.id);
      const what = lane.status ?? `no report (${lane.error?.code ?? 'unknown'})`;
      return `  lane ${lane.id}: ${what}${lane.stopReason ? ` (${lane.stopReason})` : ''}, open findings: ${
        open.length > 0 ? open.join(', ') : 'none'
      }, subject ${lane.subjectDigest ?? 'none'}`;
    });
    const acceptance =
      evidence.acceptance === null
        ? `not run: ${evidence.failure?.message ?? 'unknown'}`
        : evidence.acceptance.passed
          ? 'passed'
          : `failed: ${evidence.acceptance.failure?.command} exit ${evidence.acceptance.failure?.exitCode} (${evidence.acceptance.failure?.logPath})`;
    io.stdout.write(
      [
        `crank: ${evidence.lanes.length} lanes`,
        ...lines,
        `wave acceptance: ${acceptance}`,
        ...(resumed ? [`resumed: the unfinished wave in ${result.runDir}`] : []),
        `transcript: ${transcriptPath}`,
        '',
      ].join('\n'),
    );
  }
  return exitCode;
}

/** The `loopchart crank` command. */
export const crankCommand: CliCommand = {
  name: 'crank',
  summary: "Run RPI once per lane of the caller's wave, then the wave acceptance once",
  run,
};
