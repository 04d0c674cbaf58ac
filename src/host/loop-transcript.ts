/**
 * The loop engine's projection onto the run transcript (src/host/transcript.ts): which protocol
 * fields each processed event fills. `cycle` is the ledger's `iterations:` count, `action` is the
 * dispatch, `evidence` what the child and git reported, `verifierResult` the gate set, `decision`
 * whether the loop continues or stops, and the last record of a run carries the `terminalCheck`.
 */
import type { AnyMachineSnapshot } from 'xstate';
import type { LoopContext } from '../../machines/loop-implementation/index.js';
import { effectiveAllowance } from '../gauntlet/allowance.js';
import { type HumanStop, menuFor, renderHumanStop } from '../gauntlet/human-stop.js';
import { formatPending } from '../gauntlet/ledger.js';
import { homeMember, isCoordinated } from '../gauntlet/leg-entries.js';
import { formatLegRows, legSummaries } from '../gauntlet/leg-status.js';
import type { Ledger } from '../gauntlet/types.js';
import { porcelainLines } from '../gauntlet/validate.js';
import type { TranscriptFields, TranscriptStep } from './transcript.js';

const DISPATCH_DONE = new Set([
  'xstate.done.actor.dispatchChild',
  'xstate.done.actor.dispatchRepairChild',
  'xstate.done.actor.recoverDispatch',
  'xstate.done.actor.recoverVerifyDispatch',
]);
const BOUNDARY_DONE = new Set(['xstate.done.actor.readBoundary', 'xstate.done.actor.readRepairBoundary']);

/** A short name of a state value, e.g. `implement.running`. */
export function stateLabel(value: unknown): string {
  if (typeof value === 'string') return value;
  if (value !== null && typeof value === 'object') {
    const [key, inner] = Object.entries(value as Record<string, unknown>)[0] ?? [];
    return key === undefined ? '' : `${key}.${stateLabel(inner)}`;
  }
  return String(value);
}

/** True when the loop waits for a person or has ended. */
export function isResting(snapshot: AnyMachineSnapshot): boolean {
  return snapshot.status !== 'active' || snapshot.matches('humanStop');
}

function terminal(snapshot: AnyMachineSnapshot, context: LoopContext): TranscriptFields['terminalCheck'] {
  const label = stateLabel(snapshot.value);
  if (snapshot.matches('humanStop'))
    return {
      rule: context.stop?.kind ?? label,
      success: false,
      reason: `stopped for a human at ${label}`,
      evidence: context.stop === null ? [] : [JSON.stringify(context.stop)],
    };
  if (label === 'finished')
    return {
      rule: 'verify complete',
      success: true,
      reason: 'every row closed and the gate set passed',
      evidence: [],
    };
  const reason =
    label === 'invalid'
      ? (context.problem?.message ?? 'configuration error')
      : label === 'failed'
        ? (context.error ?? 'an effect failed')
        : 'stopped by the human; branch state preserved';
  return { rule: label, success: false, reason, evidence: [] };
}

/** A compact view of the ledger for the transcript's `data.ledger` (the run viewer draws it). */
function ledgerView(ledger: Ledger) {
  return {
    iterations: ledger.iterations,
    allowance: ledger.allowance,
    pending: ledger.pending === null ? null : formatPending(ledger.pending),
    rows: ledger.rows.map((row) => ({
      row: row.row,
      status: row.status,
      attempts: `${row.attempts} of ${effectiveAllowance(ledger, row.row)}`,
      evidence: row.evidence,
    })),
  };
}

/**
 * Coordinated runs: one line per leg for `data.legs` (the run viewer draws it as a table): its
 * rows by status, its seeded flag, what the loop does in it now and its verified HEAD. `null` on a
 * single leg, whose records stay as they were.
 */
function legsView(context: LoopContext) {
  const ledger = context.ledger as Ledger;
  const home = context.spec !== null && isCoordinated(context.spec) ? homeMember(context.spec) : undefined;
  const summaries = legSummaries(ledger, home);
  if (summaries === null) return null;
  const target = legTarget(context);
  return summaries.map((leg) => ({
    leg: leg.member,
    home: leg.home ? 'home' : '',
    seeded: leg.seeded ? 'yes' : 'no',
    rows: formatLegRows(leg.rows),
    now: target?.leg === leg.member ? target.what : '',
    verified: context.verifiedHeads[leg.member] ?? '',
  }));
}

/**
 * The leg the loop acts on now (`data.target`): the dispatch or verification repair in flight (the
 * tuple's member), else the leg whose gate failed; `null` when neither.
 */
function legTarget(context: LoopContext): { leg: string; what: string } | null {
  const plan = context.plan;
  if (plan !== null && context.ledger?.pending != null) {
    const what =
      plan.target === 'verify'
        ? 'verification repair'
        : plan.target === 'seed'
          ? 'seed dispatch'
          : `dispatch row ${plan.target}`;
    return { leg: plan.pending.repo, what };
  }
  const failure = context.gateFailure;
  if (failure !== null && failure.leg !== undefined)
    return { leg: failure.leg, what: `gate ${failure.gate} failed` };
  return null;
}

/**
 * The stop as the person reads it, for `data.stop` (the run viewer shows the text and its menu):
 * the rendered text when it can be rendered, and the numbered menu.
 */
function stopView(context: LoopContext) {
  const stop = context.stop as HumanStop | null;
  if (stop === null) return null;
  let text: string | null;
  try {
    text = renderHumanStop(stop, context.stopLedger);
  } catch {
    text = null;
  }
  return {
    kind: stop.kind,
    text,
    menu: menuFor(stop).map((offer) => ({ number: offer.number, label: offer.label, reply: offer.reply })),
  };
}

/**
 * A projector for one run whose records continue a transcript that ended at cycle `startCycle`
 * (0 for a new transcript): until the resumed run has read its ledger, its records keep the last
 * known cycle instead of going back to 0.
 *
 * @param startCycle the cycle of the transcript's last record, or 0
 */
export function createLoopRecordProjector(startCycle = 0): (step: TranscriptStep) => TranscriptFields | null {
  let cycle = startCycle;
  return (step) => {
    const fields = projectLoopRecord(step);
    if (fields === null) return null;
    const context = step.snapshot.context as LoopContext;
    if (context.ledger !== null) cycle = context.ledger.iterations;
    return { ...fields, cycle };
  };
}

/**
 * The transcript fields of one processed event of the loop machine.
 *
 * @param step the snapshot after the event, the event and the transitions it caused
 * @returns the fields to record, or `null` for the host stopping the actor
 */
export function projectLoopRecord(step: TranscriptStep): TranscriptFields | null {
  // Stopping the actor at the end of a run is not a loop event.
  if (step.event.type === 'xstate.stop') return null;
  const snapshot = step.snapshot;
  const context = snapshot.context as LoopContext;
  const type = step.event.type;
  const fields: {
    -readonly [K in keyof TranscriptFields]: TranscriptFields[K];
  } = { cycle: context.ledger?.iterations ?? 0 };
  const plan = context.plan;
  if (DISPATCH_DONE.has(type) && plan !== null) {
    fields.action = {
      kind: 'action',
      summary: `dispatch ${String(plan.target)} (task iteration ${plan.iteration}, ${formatPending(plan.pending)})`,
      disposition: null,
    };
    const child = context.child;
    if (child !== null)
      fields.evidence = [
        `return: ${child.returned ?? 'none'}`,
        ...(child.dispatchError === undefined ? [] : [`dispatch error: ${child.dispatchError}`]),
        ...(child.killedAfterSilence === true ? ['killed after silence'] : []),
      ];
  }
  if (BOUNDARY_DONE.has(type) && context.boundary !== null) {
    const boundary = context.boundary;
    const dirt = porcelainLines(boundary.porcelain);
    fields.evidence = [
      `rev-list HEAD_BEFORE..HEAD --count: ${boundary.commitCount}`,
      `unexpected dirt: ${dirt.length === 0 ? 'none' : dirt.join('; ')}`,
      ...(boundary.commit === null ? [] : [`commit: ${boundary.commit.subject}`]),
    ];
  }
  if (type === 'xstate.done.actor.runGates') {
    const failure = context.gateFailure;
    const passed = (step.event as unknown as { output?: { passed?: boolean } }).output?.passed === true;
    fields.verifierResult = {
      evaluator: 'gate set',
      verdict: passed ? 'pass' : 'fail',
      detail:
        passed || failure === null
          ? null
          : `gate ${failure.gate} exit ${failure.exitCode} ${failure.logPath}`,
    };
  }
  if (type === 'xstate.done.actor.refresh') fields.decision = 'continue';
  if (isResting(snapshot)) {
    fields.decision = 'stop';
    fields.terminalCheck = terminal(snapshot, context);
  }
  const stop = isResting(snapshot) && snapshot.matches('humanStop') ? stopView(context) : null;
  const legs = context.ledger === null ? null : legsView(context);
  const target = legs === null ? null : legTarget(context);
  if (context.ledger !== null || stop !== null)
    fields.data = {
      ...(context.ledger === null ? {} : { ledger: ledgerView(context.ledger) }),
      ...(legs === null ? {} : { legs }),
      ...(target === null ? {} : { target }),
      ...(stop === null ? {} : { stop }),
    };
  if (context.ledger !== null)
    fields.budget = {
      iterationsUsed: context.ledger.iterations,
      iterationLimit: null,
      elapsedMs: null,
      tokensUsed: null,
      costUsed: null,
    };
  return fields;
}
