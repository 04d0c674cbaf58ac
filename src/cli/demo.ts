/**
 * `loopchart demo`: creates the demo repository (src/host/demo.ts) and runs the loop on it with the
 * scripted child, no model needed. The first run stops for a human at row 4's allowance; the demo
 * prints what a person would type and runs again with that answer; the second run verifies and
 * finishes. It then prints a summary of the transcript and the final ledger.
 */
import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  DEMO_ANSWER,
  DEMO_SETTINGS,
  DEMO_VERIFICATION,
  LEGS_DEMO_API_GATE,
  LEGS_DEMO_VERIFICATION,
  prepareDemoRepository,
  prepareLegsDemo,
} from '../host/demo.js';
import type { LoopRunnerOptions } from '../host/runner.js';
import { parseCommandArgs } from './args.js';
import type { CliCommand, CliIo } from './command.js';
import { CLI_RESULT_SCHEMA_ID } from './json-result.js';
import { executeRun, runResultJson } from './run.js';

const OPTIONS = {
  dir: { type: 'string' },
  child: { type: 'string' },
  'prepare-only': { type: 'boolean', default: false },
  legs: { type: 'boolean', default: false },
} as const;

const HELP = `usage: loopchart demo [--dir <empty dir>] [--legs] [--prepare-only] [--json]

Creates a sample git repository (in a new temporary folder unless --dir is given) and runs the
loop on it with the scripted child: seed, dispatches, a validation miss, an interrupted return,
a human stop answered with --answer, and a verification that passes.

  --prepare-only     create the repository and print the run command, without running
  --legs             a coordinated run on two repositories instead: web (home) and api (a
                     companion checkout given with --leg), one row each, a failing api gate
                     repaired in the api checkout, and a closure naming each leg's verified HEAD
  --child "<cmd>"    the child command (default: this loopchart's scripted-child)
  --dir <empty dir>  where to create the repository (default: a new temporary folder)
  --json             print one JSON object with the run's result

short flags: -d --dir, -c --child, -h --help

examples:
  loopchart demo
  loopchart demo --dir /tmp/loopchart-demo --prepare-only
  loopchart demo --legs
`;

/** Quotes a word for /bin/sh. */
export function shellQuote(word: string): string {
  return /^[\w@%+=:,./-]+$/.test(word) ? word : `'${word.replace(/'/g, `'\\''`)}'`;
}

/** The command that runs this loopchart's scripted child on a script. */
function scriptedChildCommand(scriptPath: string): string {
  const cli = process.argv[1] === undefined ? 'loopchart' : resolve(process.argv[1]);
  return [process.execPath, cli, 'scripted-child', scriptPath].map(shellQuote).join(' ');
}

interface TranscriptSummary {
  readonly records: number;
  readonly dispatches: number;
  readonly stops: readonly string[];
  readonly gateRuns: readonly string[];
}

/** Counts what a transcript file recorded. */
export function summarizeTranscript(path: string): TranscriptSummary {
  let text = '';
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    return { records: 0, dispatches: 0, stops: [], gateRuns: [] };
  }
  const records = text
    .split('\n')
    .filter((line) => line.trim() !== '')
    .map((line) => JSON.parse(line) as Record<string, unknown>);
  const stops = records
    .map((r) => r.terminalCheck as { rule?: string; success?: boolean } | null)
    .filter((check) => check !== null && check !== undefined)
    .map((check) => `${check.rule}${check.success ? ' (success)' : ''}`);
  const gateRuns = records
    .map((r) => r.verifierResult as { verdict?: string } | null)
    .filter((v) => v !== null && v !== undefined)
    .map((v) => String(v.verdict));
  return {
    records: records.length,
    dispatches: records.filter((r) => r.action !== null).length,
    stops,
    gateRuns,
  };
}

function ask(io: CliIo, line: string): void {
  io.stderr.write(`${line}\n`);
}

/** `loopchart demo`. */
export const demoCommand: CliCommand = {
  name: 'demo',
  summary: 'create a sample repository and run the whole loop on it with the scripted child',
  async run(args, io) {
    const { values } = parseCommandArgs('demo', args, OPTIONS);
    if (values.help === true) {
      io.stdout.write(HELP);
      return 0;
    }
    const json = values.json === true;
    const dir =
      values.dir === undefined ? mkdtempSync(join(tmpdir(), 'loopchart-demo-')) : resolve(values.dir);
    if (values.legs === true)
      return runLegsDemo(io, dir, values.child, values['prepare-only'] === true, json);
    const demo = prepareDemoRepository(dir);
    const child = values.child ?? scriptedChildCommand(demo.scriptPath);
    const transcript = join(dir, '.git', 'loopchart', 'transcript.jsonl');
    const options: LoopRunnerOptions = {
      worktree: dir,
      spec: demo.specPath,
      ledger: demo.ledgerPath,
      child,
      verification: DEMO_VERIFICATION,
      reviewer: child,
      conformanceReviewer: child,
      transcript,
      settings: { ...DEMO_SETTINGS, silenceTimeoutMs: 60_000, timeoutMs: 120_000, killGraceMs: 2_000 },
    };
    const runLine = [
      'loopchart run',
      `--worktree ${shellQuote(dir)}`,
      `--spec ${demo.specPath}`,
      `--child ${shellQuote(child)}`,
      `--verification ${shellQuote(DEMO_VERIFICATION)}`,
      `--allowance ${DEMO_SETTINGS.allowance}`,
      `--impl-model ${DEMO_SETTINGS.implModel}`,
      `--reviewer ${shellQuote(child)}`,
      `--conformance-reviewer ${shellQuote(child)}`,
    ].join(' ');
    if (values['prepare-only'] === true) {
      if (json)
        io.stdout.write(
          `${JSON.stringify({ schema: CLI_RESULT_SCHEMA_ID, command: 'demo', status: 'finished', exitCode: 0, dir, run: runLine, answer: DEMO_ANSWER })}\n`,
        );
      else
        io.stdout.write(
          `demo repository: ${dir}\nrun it with:\n  ${runLine}\nanswer its stop with:\n  ${runLine} --answer ${shellQuote(DEMO_ANSWER)}\n`,
        );
      return 0;
    }

    ask(io, `demo repository: ${dir}`);
    ask(io, `$ ${runLine}`);
    const first = await executeRun(io, options, json);
    if (first.status !== 'stopped') {
      if (json) io.stdout.write(`${JSON.stringify({ ...runResultJson('demo', first), dir })}\n`);
      else io.stderr.write(`loopchart: the demo's first run ended ${first.status}: ${first.message ?? ''}\n`);
      return first.exitCode === 0 ? 1 : first.exitCode;
    }
    if (!json) {
      io.stdout.write(first.stopText ?? '');
      io.stdout.write(`\nA person answers the stop by running the same command with the reply:\n`);
      io.stdout.write(`$ ${runLine} --answer ${shellQuote(DEMO_ANSWER)}\n\n`);
    }
    const second = await executeRun(io, { ...options, answer: DEMO_ANSWER }, json);
    const summary = summarizeTranscript(transcript);
    const ledgerText = (() => {
      try {
        return readFileSync(join(dir, demo.ledgerPath), 'utf8');
      } catch {
        return '';
      }
    })();
    if (json) {
      io.stdout.write(
        `${JSON.stringify({ ...runResultJson('demo', second), dir, firstStop: first.stopText, transcriptSummary: summary, ledgerText })}\n`,
      );
      return second.exitCode;
    }
    if (second.status !== 'finished') {
      io.stderr.write(`loopchart: the demo's second run ended ${second.status}: ${second.message ?? ''}\n`);
      if (second.stopText !== undefined) io.stdout.write(second.stopText);
      return second.exitCode === 0 ? 1 : second.exitCode;
    }
    io.stdout.write(
      [
        `finished: verification passed after ${second.ledger?.iterations ?? 0} iterations`,
        `transcript: ${transcript}`,
        `  ${summary.records} records, ${summary.dispatches} dispatch records`,
        `  stops and ends: ${summary.stops.join(', ')}`,
        `  gate runs: ${summary.gateRuns.join(', ')}`,
        '',
        `final ledger (${demo.ledgerPath}):`,
        '',
        ledgerText,
        second.closure ?? '',
      ].join('\n'),
    );
    return 0;
  },
};

/**
 * `loopchart demo --legs`: the two-leg demo (web home, api companion) in one run that finishes:
 * seeds per leg, web's row 1, api's row 2 recorded in home, api's gate failing and repaired in the
 * api checkout, both reviews, the closure with each leg's verified HEAD.
 */
async function runLegsDemo(
  io: CliIo,
  dir: string,
  childOption: string | undefined,
  prepareOnly: boolean,
  json: boolean,
): Promise<number> {
  const demo = prepareLegsDemo(dir);
  const child = childOption ?? scriptedChildCommand(demo.scriptPath);
  const transcript = join(demo.web, '.git', 'loopchart', 'transcript.jsonl');
  const options: LoopRunnerOptions = {
    worktree: demo.web,
    spec: demo.specPath,
    ledger: demo.ledgerPath,
    child,
    legs: { api: demo.api },
    legGates: { api: [LEGS_DEMO_API_GATE] },
    verification: LEGS_DEMO_VERIFICATION,
    reviewer: child,
    conformanceReviewer: child,
    transcript,
    settings: { ...DEMO_SETTINGS, silenceTimeoutMs: 60_000, timeoutMs: 120_000, killGraceMs: 2_000 },
  };
  const runLine = [
    'loopchart run',
    `--worktree ${shellQuote(demo.web)}`,
    `--spec ${demo.specPath}`,
    `--leg api=${shellQuote(demo.api)}`,
    `--child ${shellQuote(child)}`,
    `--verification ${shellQuote(LEGS_DEMO_VERIFICATION)}`,
    `--leg-gate ${shellQuote(`api=${LEGS_DEMO_API_GATE}`)}`,
    `--allowance ${DEMO_SETTINGS.allowance}`,
    `--impl-model ${DEMO_SETTINGS.implModel}`,
    `--reviewer ${shellQuote(child)}`,
    `--conformance-reviewer ${shellQuote(child)}`,
  ].join(' ');
  if (prepareOnly) {
    if (json)
      io.stdout.write(
        `${JSON.stringify({ schema: CLI_RESULT_SCHEMA_ID, command: 'demo', status: 'finished', exitCode: 0, dir, web: demo.web, api: demo.api, run: runLine })}\n`,
      );
    else
      io.stdout.write(
        `demo repositories: ${demo.web} (home), ${demo.api} (api)\nrun it with:\n  ${runLine}\n`,
      );
    return 0;
  }
  ask(io, `demo repositories: ${demo.web} (home, web), ${demo.api} (companion, api)`);
  ask(io, `$ ${runLine}`);
  const result = await executeRun(io, options, json);
  const summary = summarizeTranscript(transcript);
  let ledgerText = '';
  try {
    ledgerText = readFileSync(join(demo.web, demo.ledgerPath), 'utf8');
  } catch {
    // no ledger: the run ended before seeding; the result says why
  }
  if (json) {
    io.stdout.write(
      `${JSON.stringify({ ...runResultJson('demo', result), dir, web: demo.web, api: demo.api, transcriptSummary: summary, ledgerText })}\n`,
    );
    return result.exitCode;
  }
  if (result.status !== 'finished') {
    io.stderr.write(`loopchart: the two-leg demo ended ${result.status}: ${result.message ?? ''}\n`);
    if (result.stopText !== undefined) io.stdout.write(result.stopText);
    return result.exitCode === 0 ? 1 : result.exitCode;
  }
  io.stdout.write(
    [
      `finished: both legs verified after ${result.ledger?.iterations ?? 0} iterations`,
      `transcript: ${transcript}`,
      `  ${summary.records} records, ${summary.dispatches} dispatch records`,
      `  stops and ends: ${summary.stops.join(', ')}`,
      `  gate runs: ${summary.gateRuns.join(', ')}`,
      '',
      `final ledger (${demo.ledgerPath} in ${demo.web}):`,
      '',
      ledgerText,
      result.closure ?? '',
    ].join('\n'),
  );
  return 0;
}
