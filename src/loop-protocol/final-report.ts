import type { StateValue, TranscriptRecord } from './transcript-record.js';

/** An observed state of the authoritative source, as the transcript recorded it. */
export interface ObservedState {
  readonly cycle: number;
  readonly summary: string;
  readonly metric: number | null;
  readonly fingerprint: string | null;
}

/** One action or hypothesis of the loop with its final disposition. */
export interface ReportedAction {
  readonly cycle: number;
  readonly kind: 'action' | 'hypothesis';
  readonly summary: string;
}

/**
 * The protocol's final report, built from a transcript alone. `status` is `complete` only when
 * the transcript ends with a terminal check that names the rule that fired and carries terminal
 * evidence; anything else is `incomplete` with the reason, whatever the budget says.
 */
export interface FinalReport {
  readonly status: 'complete' | 'incomplete';
  readonly incompleteReason: string | null;
  /** Machine ids found in the transcript, in order of first appearance. */
  readonly machines: readonly string[];
  /** The first recorded observation (the baseline), if any. */
  readonly baseline: ObservedState | null;
  /** The last recorded observation, if any. */
  readonly final: ObservedState | null;
  /** The machine state value of the last record. */
  readonly finalMachineState: StateValue | null;
  /** Cycles (>= 1) that recorded a continue / pivot / stop decision. */
  readonly cyclesCompleted: number;
  /** The last budget the transcript recorded. */
  readonly budget: TranscriptRecord['budget'];
  readonly actions: {
    readonly kept: readonly ReportedAction[];
    readonly discarded: readonly ReportedAction[];
    readonly skipped: readonly ReportedAction[];
    /** Actions whose disposition was never recorded (an interrupted cycle). */
    readonly undecided: readonly ReportedAction[];
  };
  /** The last verifier result: the exact evaluator and its verdict. */
  readonly evaluator: TranscriptRecord['verifierResult'];
  /** The final authoritative evidence: the last terminal check's evidence. */
  readonly finalEvidence: readonly string[];
  /** Why the loop stopped: the rule that fired on the last terminal check, or null. */
  readonly stop: { readonly rule: string; readonly success: boolean; readonly reason: string } | null;
  /** True only for a complete report whose terminal check is a success. */
  readonly succeeded: boolean;
  readonly unresolvedRisk: string | null;
  readonly nextHypothesis: string | null;
  readonly retainedState: readonly string[];
  readonly cleanup: readonly string[];
}

function observed(record: TranscriptRecord): ObservedState | null {
  if (!record.observation) return null;
  return {
    cycle: record.cycle,
    summary: record.observation.summary,
    metric: record.observation.metric,
    fingerprint: record.fingerprint,
  };
}

function incompleteReasonOf(last: TranscriptRecord | undefined): string | null {
  if (!last) return 'the transcript is empty';
  const check = last.terminalCheck;
  if (!check) return 'the transcript ends without a terminal check';
  if (check.rule === null)
    return 'the last terminal check found no terminal condition; the loop did not finish';
  if (check.evidence.length === 0)
    return `the loop stopped (${check.rule}) without terminal evidence; an exhausted loop is not a completed one`;
  if (last.decision !== 'stop')
    return `the terminal check fired ${check.rule} but the recorded decision is ${last.decision ?? 'missing'}, not stop`;
  return null;
}

/**
 * Builds the final report from a transcript of any machine.
 *
 * @param records the transcript's records in order (see `parseTranscript`)
 * @returns the structured report; render it with `renderFinalReport`
 */
export function finalReport(records: readonly TranscriptRecord[]): FinalReport {
  const last = records.at(-1);
  const incompleteReason = incompleteReasonOf(last);
  const observations = records.map(observed).filter((state): state is ObservedState => state !== null);

  const actions = new Map<string, { action: ReportedAction; disposition: string | null }>();
  for (const record of records) {
    if (!record.action) continue;
    const key = JSON.stringify([record.cycle, record.action.kind, record.action.summary]);
    const known = actions.get(key);
    actions.set(key, {
      action: { cycle: record.cycle, kind: record.action.kind, summary: record.action.summary },
      disposition: record.action.disposition ?? known?.disposition ?? null,
    });
  }
  const byDisposition = (disposition: string | null) =>
    [...actions.values()].filter((entry) => entry.disposition === disposition).map((entry) => entry.action);

  const decidedCycles = new Set(
    records.filter((record) => record.cycle >= 1 && record.decision !== null).map((record) => record.cycle),
  );
  const check = last?.terminalCheck ?? null;
  const stop =
    check && check.rule !== null ? { rule: check.rule, success: check.success, reason: check.reason } : null;
  const closing = [...records].reverse().find((record) => record.closing)?.closing ?? null;

  return {
    status: incompleteReason === null ? 'complete' : 'incomplete',
    incompleteReason,
    machines: [...new Set(records.map((record) => record.machine))],
    baseline: observations[0] ?? null,
    final: observations.at(-1) ?? null,
    finalMachineState: last?.state ?? null,
    cyclesCompleted: decidedCycles.size,
    budget: [...records].reverse().find((record) => record.budget)?.budget ?? null,
    actions: {
      kept: byDisposition('kept'),
      discarded: byDisposition('discarded'),
      skipped: byDisposition('skipped'),
      undecided: byDisposition(null),
    },
    evaluator: [...records].reverse().find((record) => record.verifierResult)?.verifierResult ?? null,
    finalEvidence: check?.evidence ?? [],
    stop,
    succeeded: incompleteReason === null && stop?.success === true,
    unresolvedRisk: closing?.unresolvedRisk ?? null,
    nextHypothesis: closing?.nextHypothesis ?? null,
    retainedState: closing?.retainedState ?? [],
    cleanup: closing?.cleanup ?? [],
  };
}
