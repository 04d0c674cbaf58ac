/**
 * Runs the loop protocol machine (machines/loop-protocol.ts) with host-supplied effects and writes
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
} from '../../machines/loop-protocol.js';
import { LoopchartError } from '../common/errors.js';
import type { PartialEntryContract } from '../loop-protocol/entry-contract.js';
import type { MissingField } from '../loop-protocol/infer-or-stop.js';
import type { TranscriptFields, TranscriptStep } from './transcript.js';
import { createTranscriptRecorder } from './transcript.js';

/** The host's effects, one async function per named actor of the loop protocol machine. */
export interface LoopProtocolEffects {
  readonly observe: (input: ObserveInput) => Promise<Observation>;
  readonly choose: (input: ChooseInput) => Promise<Choice>;
  readonly act: (input: ActInput) => Promise<ActOutput>;
  readonly verify: (input: VerifyInput) => Promise<Verification>;
  readonly checkpoint: (input: CheckpointInput) => Promise<CheckpointResult>;
  readonly rollback: (input: RollbackInput) => Promise<RollbackResult>;
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
}

/** What {@link runLoopProtocol} returns. */
export interface LoopProtocolRunResult {
  readonly status: LoopProtocolOutput['status'] | 'stopped-for-direction';
  readonly output: LoopProtocolOutput | null;
  /** The fields still missing, when the run ended waiting for direction. */
  readonly missing: readonly MissingField[];
  readonly transcriptPath: string;
}

/** The loop protocol machine failed outside the protocol (an action threw: a host bug). */
export class LoopProtocolRunError extends LoopchartError {
  constructor(message: string) {
    super('loop-protocol.run-failed', message);
  }
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
    fields.terminalCheck = {
      rule: stopped ? c.decision.rule : null,
      success: stopped && c.decision.rule === 'success',
      reason: c.decision.reason,
      evidence: [...(c.decision.evidence ?? [])],
    };
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
 * Runs the loop protocol machine to its end.
 *
 * @param options the start, the effects, the transcript file, the direction callback
 * @returns the machine's output, or the missing fields when it stopped for direction
 * @throws LoopProtocolRunError when the machine itself failed
 */
export async function runLoopProtocol(options: LoopProtocolRunnerOptions): Promise<LoopProtocolRunResult> {
  const { effects } = options;
  const machine = loopProtocolMachine.provide({
    actors: {
      observe: fromPromise<Observation, ObserveInput>(({ input }) => effects.observe(input)),
      choose: fromPromise<Choice, ChooseInput>(({ input }) => effects.choose(input)),
      act: fromPromise<ActOutput, ActInput>(({ input }) => effects.act(input)),
      verify: fromPromise<Verification, VerifyInput>(({ input }) => effects.verify(input)),
      checkpoint: fromPromise<CheckpointResult, CheckpointInput>(({ input }) => effects.checkpoint(input)),
      rollback: fromPromise<RollbackResult, RollbackInput>(({ input }) => effects.rollback(input)),
    },
  });
  const recorder = createTranscriptRecorder({
    path: options.transcriptPath,
    machine: 'loop-protocol',
    project: projectLoopProtocolTranscript,
    ...(options.now === undefined ? {} : { now: options.now }),
  });
  const actor = createActor(machine, { inspect: recorder.inspect });
  const onAbort = () => actor.send({ type: 'CANCEL' });
  options.signal?.addEventListener('abort', onAbort, { once: true });
  actor.start();
  actor.send({ type: 'START', ...options.start });
  let lastMissing = '';
  try {
    for (;;) {
      await waitFor(actor, (s) => s.status !== 'active' || s.matches('awaitingDirection'), {
        timeout: Number.POSITIVE_INFINITY,
      }).catch(() => undefined);
      const snapshot = actor.getSnapshot();
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
