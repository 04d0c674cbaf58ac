import { formatFindings } from '../common/finding.js';
import type { CheckResult } from './check.js';
import { renderCheckCommand } from './check-command.js';
import type { RunContract } from './run-contract.js';
import type { RunRecord } from './run-record.js';
import type { CandidateAttempt } from './run-transcript.js';
import { isTerminalSuccess, type TerminalRecord } from './terminal-record.js';

function describeResult(result: CheckResult): string {
  switch (result.outcome) {
    case 'passed':
      return `${result.name} passed`;
    case 'failed':
      return result.exitCode !== null
        ? `${result.name} failed (exit ${result.exitCode})`
        : `${result.name} failed (${result.detail ?? 'terminated'})`;
    case 'unavailable':
      return `${result.name} unavailable (${result.detail ?? 'could not be executed'})`;
  }
}

function describeRun(label: string, run: RunRecord): string {
  return `${label} (run ${run.run}): ${run.results.map(describeResult).join('; ')}`;
}

function describeAttempt(attempt: CandidateAttempt): string[] {
  const decision =
    attempt.decision.decision === 'keep'
      ? `kept (now passing: ${attempt.decision.newlyPassing.join(', ')})`
      : `reverted: candidate-regression, ${attempt.decision.cause}` +
        (attempt.decision.newlyFailing.length > 0
          ? ` (broke ${attempt.decision.newlyFailing.join(', ')})`
          : '');
  return [
    `candidate ${attempt.attempt} [${attempt.patch.id}] targeting ${attempt.patch.target}: ${attempt.patch.summary}`,
    `  paths: ${attempt.patch.paths.join(', ') || '(none)'}`,
    `  ${describeRun('results', attempt.run)}`,
    `  decision: ${decision}; budget spent ${attempt.budgetSpent}`,
  ];
}

/**
 * Renders one terminal record as text for people: the status line first, then the evidence the
 * protocol's Output section names for that status.
 *
 * @param record a terminal record
 * @returns multi-line text ending with a newline
 */
export function renderTerminalRecord(record: TerminalRecord): string {
  const lines: string[] = [];
  switch (record.status) {
    case 'invalid-input':
      lines.push(
        'cybernetic run: invalid-input (refused before any mutation)',
        formatFindings(record.findings),
      );
      break;
    case 'already-holds':
      lines.push(
        'cybernetic run: already-holds (every frozen check passed before mutation; no patch attempted)',
        describeRun('pre-mutation results', record.baseline),
        `budget: 0 of ${record.budget.limit} spent`,
      );
      break;
    case 'restored':
      lines.push(
        `cybernetic run: restored (every frozen check passed together in run ${record.finalRun.run})`,
        `budget: ${record.budget.spent} of ${record.budget.limit} spent`,
        describeRun('baseline', record.baseline),
        ...record.attempts.flatMap(describeAttempt),
        describeRun('final passing run', record.finalRun),
      );
      break;
    case 'non-converged':
    case 'recovery-failure': {
      lines.push(
        record.status === 'non-converged'
          ? `cybernetic run: non-converged (${record.stopClass})`
          : `cybernetic run: recovery-failure while stopping for ${record.stopClass} (NOT a clean rollback, NOT a success)`,
        `why: ${record.why}`,
        `budget: ${record.budget.spent} of ${record.budget.limit} spent`,
      );
      if (record.baseline) lines.push(describeRun('baseline', record.baseline));
      lines.push(...record.attempts.flatMap(describeAttempt));
      if (record.refusedCandidate)
        lines.push(
          `refused candidate [${record.refusedCandidate.id}] (not applied): ${record.refusedCandidate.summary}`,
          `  paths: ${record.refusedCandidate.paths.join(', ')}`,
        );
      if (record.status === 'non-converged')
        lines.push(
          record.restoration.kind === 'checkpoint-restored'
            ? `restoration: checkpoint ${record.restoration.checkpoint} restored by \`${record.restoration.operation}\`; no delta remains`
            : `restoration: not needed, ${record.restoration.reason}`,
        );
      else
        lines.push(
          `failed operation: ${record.failedOperation} (checkpoint ${record.checkpoint})`,
          `error: ${record.error}`,
          `remaining delta: ${record.remainingDelta.length > 0 ? record.remainingDelta.join(', ') : '(unknown)'}`,
        );
      break;
    }
  }
  return `${lines.join('\n')}\n`;
}

function contractToJson(contract: RunContract) {
  return {
    invariant: { ...contract.invariant },
    checks: contract.checks.map((check) => ({
      name: check.name,
      role: check.role,
      command: [...check.command],
      commandText: renderCheckCommand(check.command),
      pass: { ...check.pass },
    })),
    scope: [...contract.scope],
    budget: contract.budget,
  };
}

/**
 * The terminal record as a JSON-safe value: the record's own fields (contracts spelled out with
 * each command both as a vector and as display text) plus `protocol: "cybernetic-loop"` and
 * `success` (true only for `already-holds` and `restored`).
 *
 * @param record a terminal record
 */
export function terminalRecordToJson(record: TerminalRecord): Record<string, unknown> {
  const head = { protocol: 'cybernetic-loop', status: record.status, success: isTerminalSuccess(record) };
  if (record.status === 'invalid-input') return { ...head, findings: record.findings.map((f) => ({ ...f })) };
  const { status: _status, contract, ...rest } = record;
  return JSON.parse(JSON.stringify({ ...head, ...rest, contract: contractToJson(contract) })) as Record<
    string,
    unknown
  >;
}

/**
 * Renders one terminal record as JSON text (two-space indent, trailing newline).
 *
 * @param record a terminal record
 */
export function renderTerminalRecordJson(record: TerminalRecord): string {
  return `${JSON.stringify(terminalRecordToJson(record), null, 2)}\n`;
}
