/**
 * How a cybernetic run is written in the shared evidence-ledger shape (src/loop-protocol/
 * transcript-record.ts): cycle 0 is the baseline, cycle k is candidate k. Each full check run
 * carries the observation (which checks fail), its fingerprint (the failure fingerprint), the
 * evidence (each check's command, result and log), the verifier result (the invariant's check),
 * and, for a candidate, the patch with its disposition (kept or discarded). The record that ends
 * the run carries the terminal check (the terminal status and stop class), `decision: stop` and
 * the closing fields, so `loopchart report` renders a complete final report.
 */
import type { CyberneticLoopContext, EffectFailure } from '../../machines/cybernetic-loop.js';
import type { CheckResult } from '../cybernetic/check.js';
import { renderCheckCommand } from '../cybernetic/check-command.js';
import type { RunRecord } from '../cybernetic/run-record.js';
import type { RunTranscript } from '../cybernetic/run-transcript.js';
import type { TerminalRecord } from '../cybernetic/terminal-record.js';
import type { TranscriptFields, TranscriptStep } from './transcript.js';

/** Evidence lines of one full check run (commands with exit codes and logs), by run number. */
export type RunEvidenceSource = (run: number) => readonly string[] | undefined;

/**
 * One line per check result: `name passed|failed (exit n)|unavailable (why)`.
 *
 * @param result one check's result
 */
export function describeCheckResult(result: CheckResult): string {
  if (result.outcome === 'passed') return `${result.name} passed`;
  if (result.outcome === 'unavailable')
    return `${result.name} unavailable (${result.detail ?? 'not executed'})`;
  return result.exitCode !== null
    ? `${result.name} failed (exit ${result.exitCode})`
    : `${result.name} failed (${result.detail ?? 'terminated'})`;
}

function observationOf(run: RunRecord) {
  const failing = run.failingSet;
  return {
    summary:
      failing.length === 0
        ? `run ${run.run}: every frozen check passes`
        : `run ${run.run}: failing ${failing.join(', ')}`,
    metric: failing.length,
  };
}

function resultLines(run: RunRecord): string[] {
  return run.results.map((result) => `run ${run.run}: ${describeCheckResult(result)}`);
}

function budgetOf(context: CyberneticLoopContext): TranscriptFields['budget'] {
  const limit = context.contract?.budget ?? null;
  if (limit === null) return null;
  return {
    iterationsUsed: context.transcript?.budgetSpent ?? 0,
    iterationLimit: limit,
    elapsedMs: null,
    tokensUsed: null,
    costUsed: null,
  };
}

function latestRun(transcript: RunTranscript): RunRecord {
  return transcript.attempts.at(-1)?.run ?? transcript.baseline;
}

function runFields(transcript: RunTranscript, evidence: RunEvidenceSource): TranscriptFields {
  const run = latestRun(transcript);
  const attempt = transcript.attempts.at(-1);
  const invariantCheck = transcript.contract.checks[0];
  const invariantResult = run.results[0];
  const verdict = transcript.verdict;
  const stopping = verdict.kind !== 'continue';
  const fields: TranscriptFields = {
    observation: observationOf(run),
    fingerprint: run.failureFingerprint,
    evidence: [...(evidence(run.run) ?? resultLines(run))],
    verifierResult:
      invariantCheck && invariantResult
        ? {
            evaluator: renderCheckCommand(invariantCheck.command),
            verdict:
              invariantResult.outcome === 'passed'
                ? 'pass'
                : invariantResult.outcome === 'failed'
                  ? 'fail'
                  : 'unavailable',
            detail: describeCheckResult(invariantResult),
          }
        : null,
    decision: stopping ? 'stop' : 'continue',
    terminalCheck: {
      rule: verdict.kind === 'continue' ? null : verdict.kind === 'stop' ? verdict.stopClass : verdict.kind,
      success: verdict.kind === 'already-holds' || verdict.kind === 'restored',
      reason:
        verdict.kind === 'stop'
          ? verdict.why
          : verdict.kind === 'continue'
            ? 'checks still fail and budget remains'
            : `every frozen check passes in run ${run.run}`,
      evidence: stopping ? resultLines(run) : [],
    },
    data: { run: JSON.parse(JSON.stringify(run)), verdict: JSON.parse(JSON.stringify(verdict)) },
  };
  if (attempt && attempt.run.run === run.run && run.run > 0) {
    const kept = attempt.decision.decision === 'keep';
    return {
      ...fields,
      action: {
        kind: 'action',
        summary: `${attempt.patch.id} aiming at ${attempt.patch.target}: ${attempt.patch.summary}`,
        disposition: kept ? 'kept' : 'discarded',
      },
      progressDelta: {
        kinds: kept ? ['acceptance-criterion-closed'] : [],
        metricDelta:
          run.failingSet.length - (transcript.attempts.at(-2)?.run ?? transcript.baseline).failingSet.length,
      },
    };
  }
  return fields;
}

function terminalFields(record: TerminalRecord | null, failure: EffectFailure | null): TranscriptFields {
  if (record === null) {
    const restoration = failure?.restoration;
    return {
      decision: 'stop',
      terminalCheck: {
        rule: 'effect-failure',
        success: false,
        reason: `${failure?.operation ?? 'an effect'} failed: ${failure?.error ?? 'unknown error'}`,
        evidence: [
          `${failure?.operation ?? 'effect'}: ${failure?.error ?? 'unknown error'}`,
          restoration == null
            ? 'nothing had been mutated; no restoration was needed'
            : restoration.kind === 'restored' && restoration.remainingDelta.length === 0
              ? `scope restored to checkpoint ${restoration.checkpoint}`
              : `restoration after the failure did not complete: ${JSON.stringify(restoration)}`,
        ],
      },
      closing: {
        unresolvedRisk: 'the run ended on an effect failure, not on a protocol verdict',
        nextHypothesis: null,
        retainedState: [],
        cleanup:
          restoration?.kind === 'restored' ? [`scope restored to checkpoint ${restoration.checkpoint}`] : [],
      },
    };
  }
  switch (record.status) {
    case 'invalid-input':
      return {
        decision: 'stop',
        terminalCheck: {
          rule: 'invalid-input',
          success: false,
          reason: 'the request was refused before any mutation',
          evidence: record.findings.map((f) => `${f.reason} (${f.code})`),
        },
        closing: { unresolvedRisk: null, nextHypothesis: null, retainedState: [], cleanup: [] },
      };
    case 'already-holds':
      return {
        decision: 'stop',
        terminalCheck: {
          rule: 'already-holds',
          success: true,
          reason: 'every frozen check passed before mutation; no patch attempted',
          evidence: resultLines(record.baseline),
        },
        closing: { unresolvedRisk: null, nextHypothesis: null, retainedState: [], cleanup: [] },
      };
    case 'restored':
      return {
        decision: 'stop',
        terminalCheck: {
          rule: 'restored',
          success: true,
          reason: `every frozen check passed together in run ${record.finalRun.run}`,
          evidence: resultLines(record.finalRun),
        },
        closing: {
          unresolvedRisk: null,
          nextHypothesis: null,
          retainedState: record.attempts
            .filter((a) => a.decision.decision === 'keep')
            .map((a) => `${a.patch.id}: ${a.patch.paths.join(', ') || '(no paths)'}`),
          cleanup: [],
        },
      };
    case 'non-converged':
      return {
        decision: 'stop',
        terminalCheck: {
          rule: record.stopClass,
          success: false,
          reason: `non-converged: ${record.why}`,
          evidence: [
            ...(record.attempts.at(-1) ? resultLines(record.attempts.at(-1)?.run as RunRecord) : []),
            record.restoration.kind === 'checkpoint-restored'
              ? `scope restored to checkpoint ${record.restoration.checkpoint}; no delta remains`
              : `scope not mutated: ${record.restoration.reason}`,
          ],
        },
        closing: {
          unresolvedRisk: record.why,
          nextHypothesis:
            record.stopClass === 'scope-widening'
              ? 'the invariant may need a change outside the recorded scope'
              : null,
          retainedState: [],
          cleanup:
            record.restoration.kind === 'checkpoint-restored'
              ? [`scope restored to checkpoint ${record.restoration.checkpoint}`]
              : [],
        },
      };
    case 'recovery-failure':
      return {
        decision: 'stop',
        terminalCheck: {
          rule: `recovery-failure (${record.stopClass})`,
          success: false,
          reason: `restoring the checkpoint failed: ${record.error}`,
          evidence: [
            `failed operation: ${record.failedOperation}`,
            `error: ${record.error}`,
            `remaining delta: ${record.remainingDelta.join(', ') || '(unknown)'}`,
          ],
        },
        closing: {
          unresolvedRisk: `the scope still differs from checkpoint ${record.checkpoint}`,
          nextHypothesis: null,
          retainedState: [...record.remainingDelta],
          cleanup: [],
        },
      };
  }
}

/**
 * The projector for {@link createTranscriptRecorder}: the evidence-ledger fields of one processed
 * event of the cybernetic loop.
 *
 * @param evidence the evidence lines of each full check run, by run number
 * @returns a projector; it writes a record for every event
 */
export function projectCyberneticTranscript(evidence: RunEvidenceSource) {
  return ({ snapshot, event }: TranscriptStep): TranscriptFields => {
    const context = snapshot.context as CyberneticLoopContext;
    const transcript = context.transcript;
    const cycle =
      transcript === null ? 0 : transcript.attempts.length + (context.pendingPatch === null ? 0 : 1);
    let fields: TranscriptFields = { cycle, budget: budgetOf(context) };
    const checksRan =
      event.type === 'xstate.done.actor.runChecks' || event.type === 'xstate.error.actor.runChecks';
    if (checksRan && transcript !== null) fields = { ...fields, ...runFields(transcript, evidence) };
    if (event.type === 'xstate.done.actor.applyCandidate' && context.pendingPatch !== null)
      fields = {
        ...fields,
        action: {
          kind: 'action',
          summary: `${context.pendingPatch.id} aiming at ${context.pendingPatch.target}: ${context.pendingPatch.summary}`,
          disposition: null,
        },
        evidence: [`changed: ${context.pendingPatch.paths.join(', ') || '(nothing)'}`],
      };
    if (snapshot.status === 'done')
      fields = { ...fields, ...terminalFields(context.record, context.failure) };
    return fields;
  };
}
