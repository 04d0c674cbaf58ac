/**
 * `loopchart check`: parses and checks a ledger and its spec, and lists every finding with its
 * line number. Exit 2 when there is any finding.
 */
import { resolve } from 'node:path';
import { InputError } from '../common/errors.js';
import type { Finding } from '../common/finding.js';
import { readFileIfExists } from '../effects/files.js';
import { checkLedger, parseLedger } from '../gauntlet/ledger.js';
import { parseSpec } from '../gauntlet/spec.js';
import type { Spec } from '../gauntlet/types.js';
import { defaultLedgerPath, repoRelative, worktreeRootOf } from '../host/run-paths.js';
import { parseCommandArgs } from './args.js';
import type { CliCommand } from './command.js';
import { CLI_RESULT_SCHEMA_ID } from './json-result.js';
import { terminalSafeIo } from './terminal-safe-io.js';

const OPTIONS = {
  worktree: { type: 'string' },
  spec: { type: 'string' },
  ledger: { type: 'string' },
} as const;

const HELP = `usage: loopchart check [--worktree <dir>] [--spec <path>] [--ledger <path>] [--json]

Parses and checks the spec and the ledger (rows against the spec's acceptance criteria) and lists
every finding as "<file>: line <n>: <reason> (<code>)". Exit 2 when there is any finding.

short flags: -w --worktree, -s --spec, -l --ledger, -h --help

examples:
  loopchart check --spec docs/specs/feature.md
  loopchart check -l docs/plans/feature.md --json
`;

/** One finding of a named file. */
export interface FileFinding extends Finding {
  readonly file: string;
}

function line(f: FileFinding): string {
  return f.line > 0
    ? `${f.file}: line ${f.line}: ${f.reason} (${f.code})`
    : `${f.file}: ${f.reason} (${f.code})`;
}

/** `loopchart check`. */
export const checkCommand: CliCommand = {
  name: 'check',
  summary: 'parse and check a ledger and its spec; findings with line numbers (exit 2 on findings)',
  async run(args, rawIo) {
    const io = terminalSafeIo(rawIo);
    const { values } = parseCommandArgs('check', args, OPTIONS);
    if (values.help === true) {
      io.stdout.write(HELP);
      return 0;
    }
    if (values.spec === undefined && values.ledger === undefined)
      throw new InputError('check.input', 'check: give --spec, --ledger or both');
    const worktree = await worktreeRootOf(resolve(values.worktree ?? process.cwd()));
    const findings: FileFinding[] = [];
    let spec: Spec | null = null;
    let specPath = values.spec === undefined ? null : repoRelative(worktree, values.spec, 'spec');
    let ledgerPath = values.ledger === undefined ? null : repoRelative(worktree, values.ledger, 'ledger');
    const read = (path: string) => readFileIfExists(resolve(worktree, path));
    if (ledgerPath !== null && specPath === null) {
      const text = await read(ledgerPath);
      specPath = text === null ? null : (parseLedger(text).ledger?.spec ?? null);
    }
    if (specPath !== null) {
      const text = await read(specPath);
      if (text === null)
        findings.push({ file: specPath, code: 'check.missing', line: 0, reason: 'the spec does not exist' });
      else {
        const parsed = parseSpec(text);
        spec = parsed.spec;
        findings.push(...parsed.findings.map((f) => ({ ...f, file: specPath as string })));
      }
    }
    if (ledgerPath === null && specPath !== null && values.spec !== undefined)
      ledgerPath = defaultLedgerPath(specPath);
    let absentLedger: string | null = null;
    if (ledgerPath !== null) {
      const text = await read(ledgerPath);
      if (text === null) {
        if (values.ledger === undefined) absentLedger = ledgerPath;
        if (values.ledger !== undefined)
          findings.push({
            file: ledgerPath,
            code: 'check.missing',
            line: 0,
            reason: 'the ledger does not exist',
          });
      } else {
        const parsed = parseLedger(text);
        findings.push(...parsed.findings.map((f) => ({ ...f, file: ledgerPath as string })));
        if (parsed.ledger !== null && parsed.findings.length === 0)
          findings.push(
            ...checkLedger(parsed.ledger, spec ?? undefined).map((f) => ({
              ...f,
              file: ledgerPath as string,
            })),
          );
      }
    }
    const status = findings.length === 0 ? 'finished' : 'invalid';
    const exitCode = findings.length === 0 ? 0 : 2;
    if (values.json === true)
      io.stdout.write(
        `${JSON.stringify({ schema: CLI_RESULT_SCHEMA_ID, command: 'check', status, exitCode, spec: specPath, ledger: ledgerPath, findings })}\n`,
      );
    else if (findings.length === 0)
      io.stdout.write(
        `ok: ${[specPath, ledgerPath === absentLedger ? null : ledgerPath].filter((p) => p !== null).join(' and ')} check clean${absentLedger === null ? '' : ` (no ledger at ${absentLedger} yet)`}\n`,
      );
    else io.stdout.write(`${findings.map(line).join('\n')}\n`);
    return exitCode;
  },
};
