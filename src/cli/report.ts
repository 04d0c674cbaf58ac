/**
 * `loopchart report <transcript.jsonl>`: the loop protocol's final report, rendered from the
 * transcript of any machine's run (every runner writes the same evidence-ledger records, each
 * naming its machine). A line that is not a transcript record is a named error with its line
 * number (exit 2); a report that is incomplete is still a finished command (exit 0) whose text
 * and JSON say INCOMPLETE and why.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputError, UsageError } from '../common/errors.js';
import type { Finding } from '../common/finding.js';
import { finalReport } from '../loop-protocol/final-report.js';
import { renderFinalReport } from '../loop-protocol/render-final-report.js';
import { parseTranscript } from '../loop-protocol/transcript.js';
import { parseCommandArgs } from './args.js';
import type { CliCommand } from './command.js';
import { CLI_RESULT_SCHEMA_ID } from './json-result.js';
import { terminalSafeIo } from './terminal-safe-io.js';

/** Finding codes that make a transcript line unreadable (the others are kept as warnings). */
const MALFORMED = new Set(['loop-protocol.transcript.not-json', 'loop-protocol.transcript.record-invalid']);

/** A transcript with lines that are not transcript records; the findings give each line number. */
export class TranscriptFormatError extends InputError {
  constructor(path: string, findings: readonly Finding[]) {
    super('report.transcript-malformed', `${path} is not a valid transcript`, findings);
  }
}

const HELP = `usage: loopchart report <transcript.jsonl> [--json]

Renders the final report of a loop run from its transcript: baseline and final state, cycles and
budget used, actions kept, discarded or skipped, the evaluator and final evidence, why the loop
stopped, unresolved risk, retained state and cleanup. Works for the transcript of any machine.
Exit codes: 0 rendered (complete or not), 2 unreadable or malformed transcript.

short flags: -h --help

examples:
  loopchart report .git/loopchart/transcript.jsonl
  loopchart report .git/loopchart/rpi/<run id>/transcript.jsonl --json
`;

/** `loopchart report`. */
export const reportCommand: CliCommand = {
  name: 'report',
  summary: "render a run's final report from its transcript (any machine)",
  async run(args, raw) {
    // Everything printed may carry a child's, a check's or a transcript's bytes: neutralized once here.
    const io = terminalSafeIo(raw);
    const { values, positionals } = parseCommandArgs('report', args, {}, true);
    if (values.help) {
      io.stdout.write(HELP);
      return 0;
    }
    if (positionals.length !== 1)
      throw new UsageError('report: give exactly one transcript file: loopchart report <transcript.jsonl>');
    const path = resolve(positionals[0] as string);
    let text: string;
    try {
      text = await readFile(path, 'utf8');
    } catch (error) {
      throw new InputError(
        'report.transcript-unreadable',
        `cannot read transcript ${path}: ${(error as Error).message}`,
      );
    }
    const parsed = parseTranscript(text);
    const malformed = parsed.findings.filter((f) => MALFORMED.has(f.code));
    if (malformed.length > 0) throw new TranscriptFormatError(path, malformed);
    const warnings = parsed.findings.filter((f) => !MALFORMED.has(f.code));
    for (const warning of warnings)
      io.stderr.write(`loopchart: warning: line ${warning.line}: ${warning.reason} (${warning.code})\n`);
    const report = finalReport(parsed.records);
    if (values.json)
      io.stdout.write(
        `${JSON.stringify({ schema: CLI_RESULT_SCHEMA_ID, command: 'report', status: 'finished', exitCode: 0, transcript: path, report, warnings }, null, 2)}\n`,
      );
    else io.stdout.write(renderFinalReport(report));
    return 0;
  },
};
