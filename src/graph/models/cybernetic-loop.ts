/**
 * The model of the cybernetic loop for path generation (docs/model-based-testing.md).
 *
 * Two checks (`invariant`, `unit`) and a budget of 2 are enough to reach every verdict of
 * procedure step 8: a repeated equivalent failure needs two candidate runs with the same failure
 * fingerprint; an oscillation needs the baseline, a kept candidate and a return to the baseline's
 * failing set; budget exhaustion needs two candidates that fail differently. Check runs are
 * offered as a handful of named result sets rather than every combination.
 */
import type { SnapshotFrom } from 'xstate';
import { cyberneticLoopMachine } from '../../../machines/cybernetic-loop.js';
import type { JsonValue } from '../../common/json-value.js';
import type { CheckExecution } from '../../cybernetic/check.js';
import { pathsOutsideScope } from '../../cybernetic/scope.js';
import { defineMachineModel, type EventPayload } from '../machine-model.js';

type Snapshot = SnapshotFrom<typeof cyberneticLoopMachine>;

/** The request every generated path starts a valid run with: budget 2, scope `src/index`. */
export const CYBERNETIC_MODEL_REQUEST = {
  invariant: {
    statement: 'after an interrupted rebuild every stored key is found',
    offHappyPath: 'index recovery after a crash mid-rebuild',
    check: { command: ['node', 'scripts/check-index.js'] },
  },
  budget: 2,
  scope: ['src/index'],
  existingChecks: [{ name: 'unit', command: ['npm', 'test'] }],
} as const;

/** A request the loop must refuse before any mutation (a budget that is not finite and positive). */
export const CYBERNETIC_MODEL_INVALID_REQUEST = { ...CYBERNETIC_MODEL_REQUEST, budget: 0 } as const;

const failed = (signature: string): CheckExecution => ({ kind: 'exited', exitCode: 1, signature });
const passed: CheckExecution = { kind: 'exited', exitCode: 0 };

/**
 * Named results of one full run of the two checks. `invariantFails` and `invariantFailsOtherwise`
 * have the same failing set but different failure fingerprints.
 */
export const CYBERNETIC_MODEL_RUNS = {
  invariantFails: { invariant: failed('a'), unit: passed },
  invariantFailsOtherwise: { invariant: failed('b'), unit: passed },
  unitFails: { invariant: passed, unit: failed('u') },
  allPass: { invariant: passed, unit: passed },
  bothFail: { invariant: failed('a'), unit: failed('u') },
  invariantUnavailable: {
    invariant: { kind: 'not-executed', reason: 'node: command not found' },
    unit: passed,
  },
} as const satisfies Record<string, Record<string, CheckExecution>>;

const runCase = (name: keyof typeof CYBERNETIC_MODEL_RUNS): EventPayload => ({
  output: { executions: CYBERNETIC_MODEL_RUNS[name] },
});

const inScope: EventPayload = {
  output: { summary: 'replay the journal before reopening', changedPaths: ['src/index/rebuild.ts'] },
};
const outOfScope: EventPayload = {
  output: {
    summary: 'also patch the config loader',
    changedPaths: ['src/index/rebuild.ts', 'src/config.ts'],
  },
};

/** Restoring the checkpoint: clean, finished with a delta left, or failed. */
const cleanRestore: EventPayload = {
  output: { kind: 'restored', checkpoint: 'cp-0', operation: 'restore scope', remainingDelta: [] },
};
const restoreLeavingDelta: EventPayload = {
  output: {
    kind: 'restored',
    checkpoint: 'cp-0',
    operation: 'restore scope',
    remainingDelta: ['src/index/rebuild.ts'],
  },
};
const restoreFailed: EventPayload = {
  output: {
    kind: 'failed',
    checkpoint: 'cp-0',
    operation: 'restore scope',
    error: 'EACCES',
    remainingDelta: ['src/index/rebuild.ts'],
  },
};

function attemptsOf(snapshot: Snapshot): number {
  return snapshot.context.transcript?.attempts.length ?? 0;
}

/**
 * What the guards read, as JSON: the run's failure fingerprints in order (repeated failure and
 * oscillation read the history), the retained run, the budget spent, the latest verdict and
 * keep-or-revert decision, whether the pending patch leaves the scope, and the terminal record.
 */
export function projectCyberneticLoop(snapshot: Snapshot): JsonValue {
  const { context } = snapshot;
  const transcript = context.transcript;
  const verdict = transcript?.verdict ?? null;
  const pending = context.pendingPatch;
  return {
    request: context.request === null ? 'none' : context.contract === null ? 'given' : 'frozen',
    checkpoint: context.checkpoint,
    runs: transcript
      ? [transcript.baseline, ...transcript.attempts.map((attempt) => attempt.run)].map(
          (run) => run.failureFingerprint,
        )
      : [],
    retained: transcript?.retained.run ?? null,
    spent: transcript?.budgetSpent ?? 0,
    verdict: verdict === null ? null : verdict.kind === 'stop' ? verdict.stopClass : verdict.kind,
    decision: transcript?.attempts.at(-1)?.decision.decision ?? null,
    pending:
      pending === null
        ? null
        : pathsOutsideScope(context.contract?.scope ?? [], pending.paths).length > 0
          ? 'outside'
          : 'inside',
    record: context.record?.status ?? null,
    failure:
      context.failure === null
        ? null
        : `${context.failure.operation}:${context.failure.restoration?.kind ?? 'not-restored'}`,
  };
}

/** The cybernetic loop's model (registry name `cybernetic-loop`). */
export const cyberneticLoopModel = defineMachineModel(cyberneticLoopMachine, {
  events: {
    START: [{ request: CYBERNETIC_MODEL_REQUEST }, { request: CYBERNETIC_MODEL_INVALID_REQUEST }],
    'xstate.done.actor.echoContract': [{ output: {} }],
    'xstate.error.actor.echoContract': [{ error: { message: 'stdout is closed' } }],
    'xstate.done.actor.createCheckpoint': [
      { output: { kind: 'created', checkpoint: 'cp-0' } },
      { output: { kind: 'unavailable', reason: 'a socket lies in the scope' } },
    ],
    'xstate.error.actor.createCheckpoint': [{ error: { message: 'no space left on device' } }],
    'xstate.done.actor.runChecks': (snapshot) =>
      snapshot.matches('baseline')
        ? [
            runCase('invariantFails'),
            runCase('bothFail'),
            runCase('allPass'),
            runCase('invariantUnavailable'),
          ]
        : (Object.keys(CYBERNETIC_MODEL_RUNS) as (keyof typeof CYBERNETIC_MODEL_RUNS)[]).map(runCase),
    'xstate.error.actor.runChecks': [{ error: { message: 'the check runner crashed' } }],
    // Widening the scope once is enough to reach its verdict; later attempts stay inside.
    'xstate.done.actor.applyCandidate': (snapshot) =>
      attemptsOf(snapshot) === 0 ? [inScope, outOfScope] : [inScope],
    'xstate.error.actor.applyCandidate': [{ error: { message: 'cannot write the task file' } }],
    'xstate.done.actor.retainCandidate': [{ output: { checkpoint: 'cp-1' } }],
    'xstate.error.actor.retainCandidate': [{ error: { message: 'cannot copy src/index/rebuild.ts' } }],
    'xstate.done.actor.revertCandidate': [{ output: { checkpoint: 'cp-0' } }],
    'xstate.error.actor.revertCandidate': [{ error: { message: 'EBUSY' } }],
    // Every way a restoration can end, offered before any candidate ran; afterwards only a clean one.
    'xstate.done.actor.restoreCheckpoint': (snapshot) =>
      attemptsOf(snapshot) === 0 ? [cleanRestore, restoreLeavingDelta, restoreFailed] : [cleanRestore],
    'xstate.error.actor.restoreCheckpoint': (snapshot) =>
      attemptsOf(snapshot) === 0 ? [{ error: { message: 'the checkpoint store is gone' } }] : [],
  },
  project: projectCyberneticLoop,
});
