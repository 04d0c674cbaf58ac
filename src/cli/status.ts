/**
 * `loopchart status`: the ledger's rows, attempts of their effective allowance, iterations, the
 * pending tuple and the step (or stop) the loop would take next, read from disk and branch history
 * only. Changes nothing.
 */
import { resolve } from 'node:path';
import { InputError } from '../common/errors.js';
import { formatFindings } from '../common/finding.js';
import { createGitPort } from '../effects/git.js';
import { resolveGitDir } from '../effects/git-dir.js';
import { parseLedger } from '../gauntlet/ledger.js';
import { formatLegRows } from '../gauntlet/leg-status.js';
import {
  checkLedgerBase,
  defaultLedgerPath,
  repoRelative,
  specOfLedger,
  worktreeRootOf,
} from '../host/run-paths.js';
import { DEFAULT_ESCALATE_AFTER } from '../host/settings-actors.js';
import { stateFilesOf } from '../host/state-files.js';
import { type LegStatusLine, type LoopStatus, readLoopStatus } from '../host/status.js';
import { readWorktreeFile } from '../host/worktree-view.js';
import { integerOption, parseCommandArgs } from './args.js';
import type { CliCommand } from './command.js';
import { CLI_RESULT_SCHEMA_ID } from './json-result.js';
import { IMPL_MODEL_VARIABLE } from './run.js';
import { terminalSafeIo } from './terminal-safe-io.js';

const OPTIONS = {
  worktree: { type: 'string' },
  spec: { type: 'string' },
  ledger: { type: 'string' },
  'escalate-after': { type: 'string' },
  'impl-model': { type: 'string' },
  leg: { type: 'string', multiple: true },
} as const;

const HELP = `usage: loopchart status [--worktree <dir>] [--spec <path>] [--ledger <path>] [--json]

Shows the ledger (rows, attempts of their effective allowance, iterations, the pending tuple)
and what the loop would do next, from disk and branch history only.

  --escalate-after <n>   escalateAfter the run would hold (default 2)
  --impl-model <model>   the run's impl model (default: $LOOPCHART_IMPL_MODEL)
  --leg <member>=<path>  a companion leg's checkout, as given to run (repeatable): its HEAD
                         is shown beside the leg's base, rows and verified HEAD

short flags: -w --worktree, -s --spec, -l --ledger, -h --help

examples:
  loopchart status --spec docs/specs/feature.md
  loopchart status -l docs/plans/feature.md --json
`;

function human(status: LoopStatus): string {
  const lines = [`ledger: ${status.ledgerPath} (spec ${status.specPath})`];
  if (status.ledger !== null) {
    lines.push(`iterations: ${status.iterations}, allowance: ${status.allowance}`);
    for (const row of status.rows)
      lines.push(
        `row ${row.row}: ${row.status}, ${row.attempts} of ${row.effectiveAllowance}${row.evidence === '' ? '' : ` - ${row.evidence}`}`,
      );
    lines.push(`pending: ${status.pending ?? 'none'}`);
    for (const leg of status.legs ?? []) lines.push(...legLines(leg));
    lines.push(`seed repairs: ${status.seedRepairs}, verification repairs: ${status.verificationRepairs}`);
  }
  lines.push(`next: ${status.next.description}`);
  let text = `${lines.join('\n')}\n`;
  if (status.next.kind === 'stop') text += `\n${status.next.stopText}`;
  if (status.next.kind === 'configuration' && status.next.findings.length > 0)
    text += `${formatFindings(status.next.findings)}\n`;
  return text;
}

/** The lines of one leg: name, checkout, base, seeded, HEAD, rows by status, pending, verified HEAD. */
function legLines(leg: LegStatusLine): string[] {
  const name = `leg ${leg.member}${leg.home ? ' (home)' : ''}`;
  const checkout = leg.checkout ?? 'checkout not given (--leg)';
  const head = leg.head === null ? '' : `, HEAD ${leg.head}`;
  return [
    `${name}: ${checkout}`,
    `  base ${leg.base}${head}, seeded ${leg.seeded ? 'yes' : 'no'}`,
    `  rows ${leg.rowNumbers.join(', ') || 'none'}: ${formatLegRows(leg.rows)}${leg.pending ? '; the pending tuple targets this leg' : ''}`,
    `  verified HEAD: ${leg.verifiedHead ?? 'not yet'}`,
  ];
}

/** `loopchart status`. */
export const statusCommand: CliCommand = {
  name: 'status',
  summary: 'show the ledger and the step or stop the loop would take next (reads only)',
  async run(args, rawIo) {
    const io = terminalSafeIo(rawIo);
    const { values } = parseCommandArgs('status', args, OPTIONS);
    if (values.help === true) {
      io.stdout.write(HELP);
      return 0;
    }
    const worktree = await worktreeRootOf(resolve(values.worktree ?? process.cwd()));
    let ledgerPath = values.ledger === undefined ? null : repoRelative(worktree, values.ledger, 'ledger');
    let specPath = values.spec === undefined ? null : repoRelative(worktree, values.spec, 'spec');
    if (specPath === null && ledgerPath !== null) specPath = await specOfLedger(worktree, ledgerPath);
    if (specPath === null)
      throw new InputError('status.spec', 'status: give --spec, or --ledger naming an existing ledger');
    ledgerPath ??= defaultLedgerPath(specPath);
    // A ledger whose base this repository lacks (a shallow clone) cannot be counted: name it.
    const diskLedger = await readWorktreeFile(worktree, ledgerPath);
    const base = diskLedger === null ? null : (parseLedger(diskLedger).ledger?.base ?? null);
    if (base !== null) await checkLedgerBase(worktree, ledgerPath, base);
    const status = await readLoopStatus({
      git: createGitPort(worktree),
      files: stateFilesOf(await resolveGitDir(worktree)),
      ledgerPath,
      specPath,
      escalateAfter: integerOption(
        'status',
        'escalate-after',
        values['escalate-after'],
        DEFAULT_ESCALATE_AFTER,
        0,
      ),
      implModel: values['impl-model'] ?? process.env[IMPL_MODEL_VARIABLE] ?? null,
      legCheckouts: legOptions(values.leg ?? [], process.cwd()),
    });
    if (values.json === true)
      io.stdout.write(
        `${JSON.stringify({
          schema: CLI_RESULT_SCHEMA_ID,
          command: 'status',
          status: 'finished',
          exitCode: 0,
          ledgerPath: status.ledgerPath,
          specPath: status.specPath,
          iterations: status.iterations,
          allowance: status.allowance,
          pending: status.pending,
          rows: status.rows,
          legs: status.legs,
          seedRepairs: status.seedRepairs,
          verificationRepairs: status.verificationRepairs,
          next: status.next,
        })}\n`,
      );
    else io.stdout.write(human(status));
    return 0;
  },
};

/** `--leg <member>=<path>` values: member to absolute path (relative paths from `cwd`). */
function legOptions(values: readonly string[], cwd: string): Record<string, string> {
  const legs: Record<string, string> = {};
  for (const value of values) {
    const at = value.indexOf('=');
    const member = at < 0 ? '' : value.slice(0, at).trim();
    const path = at < 0 ? '' : value.slice(at + 1).trim();
    if (member === '' || path === '')
      throw new InputError('status.leg', `status: --leg takes <member>=<path>, found "${value}"`);
    if (Object.hasOwn(legs, member))
      throw new InputError('status.leg', `status: --leg ${member} is given twice`);
    legs[member] = resolve(cwd, path);
  }
  return legs;
}
