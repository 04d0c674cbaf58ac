/**
 * Runs the loop protocol machine (machines/loop-protocol/) with host-supplied effects and writes
 * its transcript in the shared evidence-ledger shape, so `loopchart report` renders its final
 * report like any other run's. The host gives plain async functions for observe, choose, act,
 * verify, checkpoint and rollback; the runner wraps them as the machine's named actors.
 */
import { createActor, fromPromise, waitFor } from 'xstate';
import {
  type ActInput,
  type ActOutput,
  type CheckpointInput,
  type CheckpointResult,
  type Choice,
  type ChooseInput,
  type LoopProtocolContext,
  type LoopProtocolOutput,
  type LoopProtocolStartEvent,
  loopProtocolMachine,
  type Observation,
  type ObserveInput,
  type RollbackInput,
  type RollbackResult,
  type Verification,
  type VerifyInput,
} from '../../machines/loop-protocol/index.js';
import { describeError } from '../common/describe-value.js';
import { InputError, LoopchartError } from '../common/errors.js';
import type { PartialEntryContract } from '../loop-protocol/entry-contract.js';
import type { MissingField } from '../loop-protocol/infer-or-stop.js';
import type { TranscriptRecord } from '../loop-protocol/transcript-record.js';
import type { TranscriptFields, TranscriptStep } from './transcript.js';
import { createTranscriptRecorder } from './transcript.js';

/**
 * The host's effects, one async function per named actor of the loop protocol machine. Each gets
 * the actor's `signal` (XState aborts it when the actor stops, e.g. when the run is cancelled):
 * an effect that runs a process kills it when the signal aborts.
 */
export interface LoopProtocolEffects {
  readonly observe: (input: ObserveInput, signal: AbortSignal) => Promise<Observation>;
  readonly choose: (input: ChooseInput, signal: AbortSignal) => Promise<Choice>;
  readonly act: (input: ActInput, signal: AbortSignal) => Promise<ActOutput>;
  readonly verify: (input: VerifyInput, signal: AbortSignal) => Promise<Verification>;
  readonly checkpoint: (input: CheckpointInput, signal: AbortSignal) => Promise<CheckpointResult>;
  readonly rollback: (input: RollbackInput, signal: AbortSignal) => Promise<RollbackResult>;
}

/** Options of {@link runLoopProtocol}. */
export interface LoopProtocolRunnerOptions {
  /** The START event's fields: the entry contract as given and the run's settings. */
  readonly start: Omit<LoopProtocolStartEvent, 'type'>;
  readonly effects: LoopProtocolEffects;
  /** The transcript file (JSON Lines). */
  readonly transcriptPath: string;
  /**
   * Asked when the loop stops for user direction: the fields to add, or null to cancel. Without
   * it the run ends there (status `stopped-for-direction`).
   */
  readonly direction?: (missing: readonly MissingField[]) => Promise<PartialEntryContract | null>;
  /** Aborting cancels the loop (the user-cancelled rule). */
  readonly signal?: AbortSignal;
  /** The transcript's clock; default `new Date()`. */
  readonly now?: () => Date;
  /**
   * The records already in the transcript of an interrupted run of this loop. The runner replays
   * them (the START and every recorded actor outcome, in order) without calling an effect or
   * writing a record, then continues live from where the ledger ends. See {@link resumePlan}.
   */
  readonly resume?: readonly TranscriptRecord[];
  /** Extra JSON written in the `data` of the START record (e.g. the baseline facts of the checkout). */
  readonly startData?: Readonly<Record<string, LedgerJson>>;
}

/** What {@link runLoopProtocol} returns. */
export interface LoopProtocolRunResult {
  readonly status: LoopProtocolOutput['status'] | 'stopped-for-direction';
  readonly output: LoopProtocolOutput | null;
  /** The fields still missing, when the run ended waiting for direction. */
  readonly missing: readonly MissingField[];
  readonly transcriptPath: string;
}

/**
 * A ledger that cannot be replayed as this loop: a record without its actor outcome, an outcome
 * out of order, or a replay that diverges from what the ledger recorded. `code` is
 * `loop-protocol.ledger-not-replayable`.
 */
export class LedgerReplayError extends InputError {
  constructor(message: string) {
    super('loop-protocol.ledger-not-replayable', message);
  }
}

/** A JSON value as a transcript record's `data` holds it. */
type LedgerJson = NonNullable<TranscriptRecord['data']>[string];

/** One recorded actor outcome: the output, or the message of the error it ended with. */
type RecordedOutcome =
  | { readonly actor: string; readonly output: unknown }
  | { readonly actor: string; readonly error: string };

/** What a ledger tells a resumed run: its START and the actor outcomes in processing order. */
export interface ResumePlan {
  readonly start: Omit<LoopProtocolStartEvent, 'type'>;
  readonly outcomes: readonly RecordedOutcome[];
  /** The machine state of the ledger's last record: where the interrupted run stood. */
  readonly lastState: TranscriptRecord['state'];
  /** The run had already ended: nothing is left to resume. */
  readonly finished: boolean;
}

const ACTOR_EVENT = /^xstate\.(done|error)\.actor\.(.+)$/;

/**
 * Reads the START and the actor outcomes out of a loop protocol ledger, so that the machine can
 * be brought back to where the ledger ends without running an effect again. The machine is
 * deterministic given its events, so replaying them rebuilds the state exactly.
 *
 * @param records the ledger's records, in order
 * @returns the START, the outcomes and where the run stood
 * @throws LedgerReplayError when the ledger is empty, has no START, or a record lacks its outcome
 */
export function resumePlan(records: readonly TranscriptRecord[]): ResumePlan {
  // The machine's initial snapshot (xstate.init) comes first, then the START.
  const startIndex = records.findIndex((record) => record.event === 'START');
  const start = (records[startIndex]?.data as { start?: unknown } | undefined)?.start;
  if (startIndex < 0 || startIndex > 1 || typeof start !== 'object' || start === null)
    throw new LedgerReplayError('the ledger does not begin with a recorded START');
  const outcomes: RecordedOutcome[] = [];
  records.forEach((record, index) => {
    if (index <= startIndex) return;
    const match = ACTOR_EVENT.exec(record.event);
    if (match === null) {
      if (record.event === 'DIRECTION' || record.event === 'CANCEL')
        throw new LedgerReplayError(
          `line ${index + 1}: a ${record.event} from the user cannot be replayed; the run ended or waits for a person`,
        );
      return;
    }
    const data = (record.data ?? {}) as { output?: unknown; error?: unknown };
    const actor = match[2] as string;
    if (match[1] === 'done') {
      if (!('output' in data))
        throw new LedgerReplayError(`line ${index + 1}: ${record.event} has no recorded output`);
      outcomes.push({ actor, output: data.output });
    } else outcomes.push({ actor, error: typeof data.error === 'string' ? data.error : 'unknown error' });
  });
  const last = records[records.length - 1] as TranscriptRecord;
  const finished =
    last.state === 'stopped' || last.state === 'invalidContract' || last.state === 'cancelledBeforeStart';
  return {
    start: start as Omit<LoopProtocolStartEvent, 'type'>,
    outcomes,
    lastState: last.state,
    finished,
  };
}

/** The loop protocol machine failed outside the protocol (an action threw: a host bug). */
export class LoopProtocolRunError extends LoopchartError {
  constructor(message: string) {
    super('loop-protocol.run-failed', message);
  }
}

/**
 * The authoritative evidence behind a stop whose rule carries none of its own (plateau, budget,
 * a lost source, ...): what the loop last observed and what the evaluator last said, and any
 * failure the loop itself recorded. A stop is reported with the state it stopped on, never bare.
 */
function stopEvidence(c: LoopProtocolContext): string[] {
  const evidence: string[] = [];
  const observation = c.observation ?? c.baselineObservation;
  if (observation)
    evidence.push(
      `last observation (cycle ${c.observation ? c.cycle : 0}): ${observation.summary}${observation.metric === null ? '' : ` [metric ${observation.metric}]`}`,
    );
  if (c.verification)
    evidence.push(
      `last evaluator verdict (cycle ${c.cycle}): ${c.verification.verdict}${c.verification.detail ? ` (${c.verification.detail})` : ''}`,
    );
  evidence.push(`${c.completedCycles} cycles completed; ${c.streaks.nonProgress} without progress in a row`);
  if (c.sourceLost !== null) evidence.push(`source lost: ${c.sourceLost}`);
  if (c.boundaryOverlap !== null) evidence.push(`rollback boundary: ${c.boundaryOverlap}`);
  evidence.push(...c.failureEvidence);
  return evidence;
}

/**
 * The evidence-ledger fields of one processed event of the loop protocol machine.
 *
 * @param step the processed event and the snapshot after it
 */
export function projectLoopProtocolTranscript({
  snapshot,
  event,
  transitions,
}: TranscriptStep): TranscriptFields {
  const c = snapshot.context as LoopProtocolContext;
  // A continue or pivot has already moved the context to the next cycle; the decision belongs to
  // the cycle it closed.
  const decided = transitions.some((t) => t.source === 'loop-protocol.deciding');
  const closedCycle =
    decided && c.decision !== null && c.decision.decision !== 'stop' ? c.cycle - 1 : c.cycle;
  const fields: TranscriptFields = {
    cycle: Math.max(closedCycle, 0),
    budget:
      c.contract === null
        ? null
        : {
            iterationsUsed: c.completedCycles,
            iterationLimit: c.contract.iterationBudget,
            elapsedMs: c.usage.elapsedMs,
            tokensUsed: c.usage.tokens,
            costUsed: c.usage.cost,
          },
  };
  const type = event.type;
  if (type === 'xstate.done.actor.observe') {
    const observation = (event as unknown as { output: Observation }).output;
    fields.observation = { summary: observation.summary, metric: observation.metric };
    fields.fingerprint = observation.fingerprint;
  }
  const action = c.choice?.action ?? null;
  if (type === 'xstate.done.actor.choose' && action !== null)
    fields.action = { kind: action.kind, summary: action.summary, disposition: null };
  if (type === 'xstate.done.actor.act') fields.evidence = [...c.actEvidence];
  if ((type === 'xstate.done.actor.verify' || type === 'xstate.error.actor.verify') && c.verification) {
    fields.verifierResult = {
      evaluator: c.contract?.evaluator ?? 'evaluator',
      verdict: c.verification.verdict,
      detail: c.verification.detail,
    };
    fields.evidence = [...c.verification.evidence];
    fields.progressDelta = { kinds: [...c.progress], metricDelta: null };
    if (action !== null)
      fields.action = { kind: action.kind, summary: action.summary, disposition: c.disposition };
  }
  if (decided && c.decision !== null) {
    const stopped = c.decision.decision === 'stop';
    fields.decision = c.decision.decision;
    const ruleEvidence = c.decision.evidence ?? [];
    fields.terminalCheck = {
      rule: stopped ? c.decision.rule : null,
      success: stopped && c.decision.rule === 'success',
      reason: c.decision.reason,
      evidence: stopped && ruleEvidence.length === 0 ? stopEvidence(c) : [...ruleEvidence],
    };
  }
  const actorEvent = ACTOR_EVENT.exec(type);
  if (actorEvent !== null) {
    // The outcome itself goes into the ledger, so that a run killed later can be replayed to here.
    const payload = event as unknown as { output?: unknown; error?: unknown };
    fields.data =
      actorEvent[1] === 'done'
        ? { output: (payload.output ?? null) as LedgerJson }
        : { error: errorMessage(payload.error) };
  }
  if (snapshot.status === 'done')
    fields.closing = {
      unresolvedRisk: c.decision && c.decision.rule !== 'success' ? c.decision.reason : null,
      nextHypothesis: null,
      retainedState: c.checkpoint === null ? [] : [`loop-owned changes up to checkpoint ${c.checkpoint}`],
      cleanup: [],
    };
  return fields;
}

/**
 * An effect's error as the ledger records it, by the machine's own rule (decisions/
 * cybernetic-machines.md M32): its string `message`, else the rejected value as text. A resumed
 * run replays this text as the error, so it must be what the machine recorded live.
 */
const errorMessage = describeError;

/**
 * Runs the loop protocol machine to its end.
 *
 * @param options the start, the effects, the transcript file, the direction callback
 * @returns the machine's output, or the missing fields when it stopped for direction
 * @throws LoopProtocolRunError when the machine itself failed
 */
export async function runLoopProtocol(options: LoopProtocolRunnerOptions): Promise<LoopProtocolRunResult> {
  const { effects } = options;
  const replay = options.resume ?? [];
  const plan = replay.length > 0 ? resumePlan(replay) : null;
  const queue = [...(plan?.outcomes ?? [])];
  // While the ledger has outcomes left, an actor returns the recorded one instead of its effect.
  const replayed =
    <I, O>(name: string, live: (input: I, signal: AbortSignal) => Promise<O>) =>
    async ({ input, signal }: { input: I; signal: AbortSignal }): Promise<O> => {
      const next = queue.shift();
      if (next === undefined) return live(input, signal);
      if (next.actor !== name)
        throw new LedgerReplayError(`the ledger recorded ${next.actor} where the loop now runs ${name}`);
      if ('error' in next) throw new Error(next.error);
      return next.output as O;
    };
  const machine = loopProtocolMachine.provide({
    actors: {
      observe: fromPromise<Observation, ObserveInput>(replayed('observe', effects.observe)),
      choose: fromPromise<Choice, ChooseInput>(replayed('choose', effects.choose)),
      act: fromPromise<ActOutput, ActInput>(replayed('act', effects.act)),
      verify: fromPromise<Verification, VerifyInput>(replayed('verify', effects.verify)),
      checkpoint: fromPromise<CheckpointResult, CheckpointInput>(replayed('checkpoint', effects.checkpoint)),
      rollback: fromPromise<RollbackResult, RollbackInput>(replayed('rollback', effects.rollback)),
    },
  });
  const start = plan?.start ?? options.start;
  let processed = 0;
  let divergence: string | null = null;
  const recorder = createTranscriptRecorder({
    path: options.transcriptPath,
    machine: 'loop-protocol',
    project: (step) => {
      const fields = projectLoopProtocolTranscript(step);
      const index = processed++;
      if (step.event.type === 'START' && index <= 1)
        fields.data = { ...(fields.data ?? {}), start: start as unknown as LedgerJson, ...options.startData };
      // Records the ledger already holds are replayed, not written again; each must match.
      const recorded = replay[index];
      if (recorded === undefined) return fields;
      if (recorded.event !== step.event.type && divergence === null)
        divergence = `ledger record ${index + 1} is ${recorded.event}, the replay processed ${step.event.type}`;
      return null;
    },
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const actor = createActor(machine, { inspect: recorder.inspect });
  const onAbort = () => actor.send({ type: 'CANCEL' });
  options.signal?.addEventListener('abort', onAbort, { once: true });
  actor.start();
  actor.send({ type: 'START', ...start });
  let lastMissing = '';
  try {
    for (;;) {
      await waitFor(actor, (s) => s.status !== 'active' || s.matches('awaitingDirection'), {
        timeout: Number.POSITIVE_INFINITY,
      }).catch(() => undefined);
      const snapshot = actor.getSnapshot();
      if (divergence !== null) throw new LedgerReplayError(divergence);
      if (snapshot.status === 'error' && snapshot.error instanceof LedgerReplayError) throw snapshot.error;
      if (snapshot.status === 'error')
        throw new LoopProtocolRunError(`the loop protocol machine failed: ${String(snapshot.error)}`);
      if (snapshot.status === 'done')
        return {
          status: (snapshot.output as LoopProtocolOutput).status,
          output: snapshot.output as LoopProtocolOutput,
          missing: [],
          transcriptPath: options.transcriptPath,
        };
      const missing = (snapshot.context as LoopProtocolContext).missing;
      // Asking again for the same fields would not end: the direction given did not supply them.
      const key = JSON.stringify(missing.map((m) => m.field));
      const fields = options.direction && key !== lastMissing ? await options.direction(missing) : undefined;
      lastMissing = key;
      if (fields === undefined)
        return {
          status: 'stopped-for-direction',
          output: null,
          missing,
          transcriptPath: options.transcriptPath,
        };
      actor.send(fields === null ? { type: 'CANCEL' } : { type: 'DIRECTION', fields });
    }
  } finally {
    options.signal?.removeEventListener('abort', onAbort);
    actor.stop();
  }
}
