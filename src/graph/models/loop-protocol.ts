/**
 * The model of the loop protocol machine for path generation (docs/model-based-testing.md).
 *
 * An iteration budget of 3, a plateau threshold of 2 and a repeated-error threshold of 2 reach
 * every row of the continue / pivot / stop table: two cycles without progress reach the plateau,
 * two cycles with progress but the same error reach the repeated-error rule, three cycles with
 * progress exhaust the budget. The rarer outcomes (a lost source, an overlap, success, terminal
 * failure, no wakeup, broader scope) are offered in the first cycle only, which keeps the
 * exploration small without hiding a transition.
 */
import type { SnapshotFrom } from 'xstate';
import { loopProtocolMachine } from '../../../machines/loop-protocol/index.js';
import type { JsonValue } from '../../common/json-value.js';
import { completeEntryContract } from '../../loop-protocol/infer-or-stop.js';
import { defineMachineModel, type EventPayload } from '../machine-model.js';

type Snapshot = SnapshotFrom<typeof loopProtocolMachine>;

/** The material fields of the model's contract; everything else is inferred. */
export const LOOP_MODEL_CONTRACT = {
  outcome: 'zero failing tests',
  observableSource: 'npm test --reporter json',
  allowedActions: 'scoped local edits and tests',
  actor: 'the current task',
  evaluator: 'npm test',
  iterationBudget: 3,
  plateauRule: 'stop after 2 non-improving attempts',
} as const;

const { outcome: _outcome, ...WITHOUT_OUTCOME } = LOOP_MODEL_CONTRACT;

/** The run settings every START carries: a noisy metric sampled twice, repeated errors after 2. */
const SETTINGS = {
  metric: { direction: 'lower-is-better', minSamples: 2 },
  repeatedErrorThreshold: 2,
} as const;

function cycleOf(snapshot: Snapshot): number {
  return snapshot.context.cycle;
}

const firstCycleOnly =
  (all: readonly EventPayload[], later: readonly EventPayload[]) =>
  (snapshot: Snapshot): readonly EventPayload[] =>
    cycleOf(snapshot) <= 1 ? all : later;

const observed = (fields: Partial<Record<string, JsonValue>>): EventPayload => ({
  output: {
    available: true,
    summary: '4 failing tests',
    metric: 4,
    fingerprint: 'f0',
    userChangesOverlap: false,
    ...fields,
  } as EventPayload,
});

const chosen = (fields: Partial<Record<string, JsonValue>>): EventPayload => ({
  output: {
    action: { kind: 'action', summary: 'fix the tokenizer' },
    reason: 'the first failure points at the tokenizer',
    needsBroaderScope: false,
    pivotAvailable: false,
    permittedActionRemains: true,
    crossTurn: false,
    ...fields,
  } as EventPayload,
});

const verified = (fields: Partial<Record<string, JsonValue>>): EventPayload => ({
  output: {
    verdict: 'fail',
    detail: null,
    evidence: ['npm test exit 1'],
    successEvidence: [],
    terminalFailureEvidence: [],
    claim: {},
    errorFingerprint: null,
    ...fields,
  } as EventPayload,
});

/** Verifications that matter from cycle to cycle: progress, progress with the same error, none. */
function ordinaryVerifications(snapshot: Snapshot): EventPayload[] {
  const evidence = { evidenceFingerprints: [`ev-${cycleOf(snapshot)}`] };
  return [verified({ claim: evidence }), verified({ claim: evidence, errorFingerprint: 'E1' }), verified({})];
}

/**
 * What the guards read, as JSON: how the entry contract completes, the baseline samples, the
 * cycle and completed cycles, the patience counters, the flags of the latest choice and
 * verification, the disposition, the stop signals and the decision.
 */
export function projectLoopProtocol(snapshot: Snapshot): JsonValue {
  const c = snapshot.context;
  const choice = c.choice;
  return {
    entry: c.start === null ? 'none' : completeEntryContract(c.given, c.start.facts ?? {}).kind,
    samples: c.samples.length,
    cycle: c.cycle,
    completed: c.completedCycles,
    streaks: { ...c.streaks },
    choice:
      choice === null
        ? null
        : {
            action: choice.action !== null,
            scope: choice.needsBroaderScope,
            pivot: choice.pivotAvailable,
            remains: choice.permittedActionRemains,
            crossTurn: choice.crossTurn,
          },
    verification:
      c.verification === null
        ? null
        : {
            success: c.verification.successEvidence.length > 0,
            terminal: c.verification.terminalFailureEvidence.length > 0,
          },
    progress: c.progress.length > 0,
    disposition: c.disposition,
    signals: {
      cancelled: c.cancelled,
      sourceLost: c.sourceLost !== null,
      overlap: c.boundaryOverlap !== null,
      failure: c.failureEvidence.length > 0,
    },
    pivots: c.pivots.length,
    decision: c.decision === null ? null : `${c.decision.decision}:${c.decision.rule}`,
  };
}

/** The loop protocol's model (registry name `loop-protocol`). */
export const loopProtocolModel = defineMachineModel(loopProtocolMachine, {
  events: {
    START: [
      { contract: LOOP_MODEL_CONTRACT, ...SETTINGS },
      { contract: WITHOUT_OUTCOME, ...SETTINGS },
      { contract: { ...LOOP_MODEL_CONTRACT, iterationBudget: 0 }, ...SETTINGS },
    ],
    DIRECTION: [{ fields: { outcome: LOOP_MODEL_CONTRACT.outcome } }],
    // Cancelling once per place it is handled is enough; later cancels add nothing new.
    CANCEL: (snapshot) =>
      snapshot.matches('awaitingDirection') ||
      (snapshot.matches({ baseline: 'sampling' }) && snapshot.context.samples.length === 0) ||
      (snapshot.matches({ cycle: 'observing' }) && cycleOf(snapshot) === 1)
        ? [{}]
        : [],
    'xstate.done.actor.observe': (snapshot) => {
      if (snapshot.matches('baseline'))
        return snapshot.context.samples.length === 0
          ? [
              observed({ metric: 5 }),
              observed({ available: false, summary: 'the test runner is gone' }),
              observed({ metric: null }),
            ]
          : [observed({ metric: 5 })];
      return cycleOf(snapshot) <= 1
        ? [
            observed({}),
            observed({ available: false, summary: 'the repository was deleted' }),
            observed({ userChangesOverlap: true, summary: 'the user edited the tokenizer' }),
          ]
        : [observed({})];
    },
    'xstate.error.actor.observe': firstCycleOnly([{ error: { message: 'permission denied' } }], []),
    'xstate.done.actor.checkpoint': (snapshot) =>
      cycleOf(snapshot) <= 1
        ? [
            { output: { ok: true, checkpoint: `cp-${cycleOf(snapshot)}`, reason: null } },
            { output: { ok: false, checkpoint: null, reason: 'user edits inside the rollback boundary' } },
          ]
        : [{ output: { ok: true, checkpoint: `cp-${cycleOf(snapshot)}`, reason: null } }],
    'xstate.error.actor.checkpoint': firstCycleOnly([{ error: { message: 'no space left on device' } }], []),
    'xstate.done.actor.choose': firstCycleOnly(
      [
        chosen({}),
        chosen({ action: null, reason: 'wait for the flaky test to settle' }),
        chosen({ needsBroaderScope: true }),
        chosen({ pivotAvailable: true }),
        chosen({ permittedActionRemains: false }),
        chosen({ crossTurn: true }),
      ],
      [chosen({}), chosen({ pivotAvailable: true })],
    ),
    'xstate.error.actor.choose': firstCycleOnly([{ error: { message: 'the planner crashed' } }], []),
    'xstate.done.actor.act': [
      { output: { evidence: ['edited src/tokenizer.ts'], elapsedMs: 1000, tokens: 0, cost: 0 } },
    ],
    'xstate.error.actor.act': firstCycleOnly([{ error: { message: 'the edit did not apply' } }], []),
    'xstate.done.actor.verify': (snapshot) =>
      cycleOf(snapshot) <= 1
        ? [
            ...ordinaryVerifications(snapshot),
            verified({ verdict: 'pass', successEvidence: ['npm test exit 0 on the final diff'] }),
            verified({ terminalFailureEvidence: ['the fix needs a dependency change, which is forbidden'] }),
          ]
        : ordinaryVerifications(snapshot),
    'xstate.error.actor.verify': firstCycleOnly([{ error: { message: 'npm is not installed' } }], []),
    'xstate.done.actor.rollback': firstCycleOnly(
      [
        { output: { restored: true, detail: null } },
        { output: { restored: false, detail: 'a file is locked' } },
      ],
      [{ output: { restored: true, detail: null } }],
    ),
    'xstate.error.actor.rollback': firstCycleOnly(
      [{ error: { message: 'the checkpoint store is gone' } }],
      [],
    ),
  },
  project: projectLoopProtocol,
});
