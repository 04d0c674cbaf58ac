/**
 * `loopchart loop`: the loop protocol contract run over the person's own observable source, or
 * only designed (`--design`) or audited (`--audit <transcript>`) without running anything. Exit
 * codes (docs/cli.md "loop"): 0 success, 4 stopped without success, 5 a rollback failed, 2 an
 * invalid or incomplete contract or invalid options, 130 interrupted, 1 internal error.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputError, UsageError } from '../common/errors.js';
import { neutralizeText } from '../common/terminal-text.js';
import { runLoopCommand } from '../host/loop-command-runner.js';
import {
  auditRun,
  type ContractDesign,
  designEntryContract,
  renderContractDesign,
} from '../loop-protocol/design-contract.js';
import type { EntryContract } from '../loop-protocol/entry-contract.js';
import type { FinalReport } from '../loop-protocol/final-report.js';
import { renderFinalReport } from '../loop-protocol/render-final-report.js';
import { parseTranscript } from '../loop-protocol/transcript.js';
import { integerOption, parseCommandArgs } from './args.js';
import type { CliCommand, CliIo } from './command.js';
import { INTERRUPTED_EXIT_CODE } from './cyber.js';
import { type CliResultEnvelope, writeJsonResult } from './json-result.js';
import { terminalSafeIo } from './terminal-safe-io.js';

const HELP = `usage: loopchart loop --contract <file.md> --observe "<cmd>" --act "<cmd>" --verify "<cmd>" [options]
       loopchart loop --contract <file.md> --design
       loopchart loop --contract <file.md> --audit <transcript.jsonl>

Runs a bounded loop under its entry contract: observe, compare, act once, verify, record, then
continue, pivot or stop by the protocol's rules, and print the final report. The evidence ledger
is kept at the contract's State location; running the same command again resumes an interrupted
loop from its ledger, or prints the report of a finished one.

  --contract <file.md>   the entry contract (\`Label: value\` lines, docs/loop-protocol.md)
  --observe "<cmd>"      prints the source's state: a number, or a JSON line {"metric","summary","done"}
  --act "<cmd>"          the one bounded action of a cycle (LOOPCHART_CYCLE, LOOPCHART_USAGE)
  --verify "<cmd>"       the evaluator or guard: exit 0 passes
  --metric lower|higher  the observed number is a metric in this direction
  --target <n>           success once the metric reaches <n> and the evaluator passes
  --samples <n>          baseline samples of a noisy metric (default 1)
  --tolerance <n>        floor of the metric's tolerance (default 0)
  --scope <paths>        the rollback boundary, repository-relative (default: the whole worktree)
  --external "<cmd>"     prints the external state the loop depends on (recorded at baseline)
  --cwd <dir>            a directory inside the repository (default: the current one)
  --command-timeout <s>  kill observe, act or verify after <s> seconds
  --design               validate and complete the contract, print it, run nothing
  --audit <file>         as --design, then audit a run's transcript against the contract
  --json                 print one JSON object
Exit codes: 0 success, 4 stopped without success, 5 a rollback failed, 2 invalid or incomplete
contract or options, 130 interrupted, 1 internal error.

examples:
  loopchart loop --contract loop.md --design
  loopchart loop --contract loop.md --observe "./count-failures.sh" --act "./fix-one.sh" \\
    --verify "npm test" --metric lower --target 0
  loopchart loop --contract loop.md --audit .git/loopchart/loop/transcript.jsonl --json
`;

/** Exit code of a loop that stopped without success (as for the other loops). */
const NOT_SUCCEEDED = 4;
/** Exit code of a loop whose rollback failed: the scope needs a person (as `cyber`'s recovery-failure). */
const RECOVERY_FAILED = 5;

function writeJson(io: CliIo, value: CliResultEnvelope & Record<string, unknown>): void {
  writeJsonResult(io, value, true);
}

function designJson(design: ContractDesign) {
  return {
    contractStatus: design.status,
    contract: design.contract,
    inferred: design.inferred,
    missing: design.missing,
    findings: design.findings,
  };
}

/** The exit code of a finished run, read from its report. */
export function loopExitCode(report: FinalReport, interrupted: boolean): number {
  if (report.succeeded) return 0;
  if (interrupted && report.stop?.rule === 'user-cancelled') return INTERRUPTED_EXIT_CODE;
  if (report.finalEvidence.some((line) => /rollback failed/.test(line))) return RECOVERY_FAILED;
  return NOT_SUCCEEDED;
}

async function readText(path: string, what: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new InputError(
      `loop.${what}-unreadable`,
      `cannot read the ${what} ${path}: ${(error as Error).message}`,
    );
  }
}

function numberOption(name: string, value: string | undefined): number | null {
  if (value === undefined) return null;
  if (!/^-?\d+(\.\d+)?$/.test(value))
    throw new UsageError(`loop: --${name} must be a number, got "${value}"`);
  return Number(value);
}

/** `loopchart loop`. */
export const loopCommand: CliCommand = {
  name: 'loop',
  summary: 'run a bounded loop under its entry contract, or design / audit the contract only',
  async run(args, raw) {
    // Everything printed may carry a child's, a check's or a transcript's bytes: neutralized once here.
    const io = terminalSafeIo(raw);
    const { values } = parseCommandArgs('loop', args, {
      contract: { type: 'string' },
      observe: { type: 'string' },
      act: { type: 'string' },
      verify: { type: 'string' },
      metric: { type: 'string' },
      target: { type: 'string' },
      samples: { type: 'string' },
      tolerance: { type: 'string' },
      scope: { type: 'string', multiple: true },
      external: { type: 'string' },
      cwd: { type: 'string' },
      'command-timeout': { type: 'string' },
      design: { type: 'boolean', default: false },
      audit: { type: 'string' },
    });
    if (values.help) {
      io.stdout.write(HELP);
      return 0;
    }
    const json = values.json;
    if (values.contract === undefined) throw new UsageError('loop: --contract <file.md> is required');
    const contractPath = resolve(values.contract);
    const contractText = await readText(contractPath, 'contract');

    if (values.design || values.audit !== undefined) {
      const design = designEntryContract(contractText);
      const text = neutralizeText(renderContractDesign(design));
      const incomplete = design.status !== 'complete';
      if (values.audit === undefined || incomplete) {
        const exitCode = incomplete ? 2 : 0;
        if (json)
          writeJson(io, {
            command: 'loop',
            mode: values.audit === undefined ? 'design' : 'audit',
            status: incomplete ? 'invalid' : 'finished',
            exitCode,
            ...designJson(design),
          });
        else io.stdout.write(text);
        if (incomplete)
          io.stderr.write(
            `loopchart: the contract ${design.status === 'invalid' ? 'is invalid' : `is missing material fields: ${design.missing.map((m) => m.label).join(', ')}`}\n`,
          );
        return exitCode;
      }
      const transcriptPath = resolve(values.audit);
      const parsed = parseTranscript(await readText(transcriptPath, 'transcript'));
      const malformed = parsed.findings.filter(
        (f) => f.code.endsWith('not-json') || f.code.endsWith('record-invalid'),
      );
      if (malformed.length > 0)
        throw new InputError(
          'loop.transcript-malformed',
          `${transcriptPath} is not a valid transcript`,
          malformed,
        );
      const audit = auditRun(design.contract as EntryContract, parsed.records);
      const exitCode = audit.findings.length === 0 ? 0 : NOT_SUCCEEDED;
      if (json)
        writeJson(io, {
          command: 'loop',
          mode: 'audit',
          status: exitCode === 0 ? 'finished' : 'failed',
          exitCode,
          ...designJson(design),
          transcript: transcriptPath,
          audit,
        });
      else
        io.stdout.write(
          neutralizeText(
            `${renderContractDesign(design)}\n${renderFinalReport(audit.report)}\nAudit: ${
              audit.findings.length === 0
                ? 'the run kept its contract'
                : `\n${audit.findings.map((f) => `- ${f.line > 0 ? `record ${f.line}: ` : ''}${f.reason} (${f.code})`).join('\n')}`
            }\n`,
          ),
        );
      return exitCode;
    }

    for (const name of ['observe', 'act', 'verify'] as const)
      if (values[name] === undefined || values[name].trim() === '')
        throw new UsageError(`loop: --${name} "<cmd>" is required (or use --design)`);
    const metric = values.metric ?? null;
    if (metric !== null && metric !== 'lower' && metric !== 'higher')
      throw new UsageError(`loop: --metric must be lower or higher, got "${metric}"`);
    const target = numberOption('target', values.target);
    if (target !== null && metric === null)
      throw new UsageError('loop: --target needs --metric lower|higher');
    const samples = integerOption('loop', 'samples', values.samples, 1, 1);
    const tolerance = numberOption('tolerance', values.tolerance) ?? 0;
    if (tolerance < 0) throw new UsageError('loop: --tolerance must not be negative');
    const timeout = values['command-timeout'];
    const timeoutSeconds =
      timeout === undefined ? null : integerOption('loop', 'command-timeout', timeout, 0, 1);
    const progress = json ? io.stderr : io.stdout;

    const interruption = new AbortController();
    const onSignal = (name: NodeJS.Signals) => {
      if (interruption.signal.aborted) return;
      io.stderr.write(`loopchart: ${name}: stopping the running command; the loop stops as cancelled\n`);
      interruption.abort(name);
    };
    process.on('SIGINT', onSignal).on('SIGTERM', onSignal);
    const result = await runLoopCommand({
      contractPath,
      contractText,
      cwd: values.cwd ?? process.cwd(),
      observe: values.observe as string,
      act: values.act as string,
      verify: values.verify as string,
      metric,
      target,
      samples,
      tolerance,
      ...(values.scope === undefined
        ? {}
        : { scope: values.scope.flatMap((value) => value.split(',').map((path) => path.trim())) }),
      external: values.external ?? null,
      ...(timeoutSeconds === null ? {} : { commandTimeoutMs: timeoutSeconds * 1000 }),
      signal: interruption.signal,
      onProgress: (line) => progress.write(`${neutralizeText(line, { singleLine: true, maxLength: 500 })}\n`),
    }).finally(() => {
      process.off('SIGINT', onSignal).off('SIGTERM', onSignal);
    });

    if (result.status !== 'stopped' || result.report === null) {
      if (json)
        writeJson(io, {
          command: 'loop',
          mode: 'run',
          status: 'invalid',
          exitCode: 2,
          ...designJson(result.design),
        });
      else io.stdout.write(neutralizeText(renderContractDesign(result.design)));
      io.stderr.write(
        `loopchart: the loop did not start: the contract ${result.status === 'invalid-contract' ? 'is invalid' : `is missing material fields: ${result.design.missing.map((m) => m.label).join(', ')}`}\n`,
      );
      return 2;
    }
    const exitCode = loopExitCode(result.report, interruption.signal.aborted);
    if (json)
      writeJson(io, {
        command: 'loop',
        mode: 'run',
        status: exitCode === 0 ? 'finished' : 'failed',
        exitCode,
        stop: result.report.stop,
        succeeded: result.report.succeeded,
        resumed: result.resumed,
        alreadyFinished: result.alreadyFinished,
        ledger: result.transcriptPath,
        stateDir: result.stateDir,
        baseline: result.baseline,
        ...designJson(result.design),
        report: result.report,
      });
    else
      io.stdout.write(
        neutralizeText(
          `${result.resumed ? 'resumed from the ledger\n' : ''}${
            result.alreadyFinished ? 'the ledger holds a finished run; its report:\n' : ''
          }${renderFinalReport(result.report)}ledger: ${result.transcriptPath}\n`,
        ),
      );
    return exitCode;
  },
};
