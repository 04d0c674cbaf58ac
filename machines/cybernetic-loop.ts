/**
 * The cybernetic loop as an XState v5 statechart: validate one falsifiable invariant and a finite
 * patch budget, echo the frozen run contract, checkpoint the bounded scope, run the baseline, then
 * try one candidate patch per budget unit, keeping it only when it improves without breaking
 * anything, until the frozen check set passes together (`restored`) or a stop class ends the run
 * (`non-converged`, after the whole scope is restored to the checkpoint).
 *
 * Every guard reads a verdict of the pure core in src/cybernetic/ (`decideBaseline`,
 * `recordCandidate` → `decideCandidate` + `decideAfterRun`, `concludeRun`); every side effect is
 * a named actor whose default throws NotProvidedError until the host provides it with
 * `machine.provide({ actors })`. The context is plain JSON.
 *
 * The verdict after a candidate run is one ordered table whose descriptions follow
 * `AFTER_RUN_ORDER`, so the diagram reads like procedure step 8.
 */

import { assign, fromPromise, setup } from 'xstate';
import { describeError } from '../src/common/describe-value.js';
import { NotProvidedError } from '../src/common/errors.js';
import type { CheckExecution, CheckResult } from '../src/cybernetic/check.js';
import { decideBaseline } from '../src/cybernetic/decide-after-run.js';
import { reviveRunContract } from '../src/cybernetic/revive-contract.js';
import { freezeRunContract, type RunContract } from '../src/cybernetic/run-contract.js';
import { recordRun } from '../src/cybernetic/run-record.js';
import {
  beginRun,
  type CandidatePatch,
  mayApplyCandidate,
  type RunTranscript,
  recordCandidate,
} from '../src/cybernetic/run-transcript.js';
import { failingInRetained, selectCandidateTarget } from '../src/cybernetic/select-target.js';
import type { StopClass } from '../src/cybernetic/stop-class.js';
import {
  concludeCheckpointUnavailable,
  concludeRun,
  type RestorationObservation,
  type TerminalRecord,
} from '../src/cybernetic/terminal-record.js';
import type { ActorContract, ActorImplementations } from './actor-contract.js';

// ---------------------------------------------------------------------------------------------
// Input, actor contracts, context

/**
 * The event that starts a run: the caller's request, as JSON (a `RunRequest`, see
 * src/cybernetic/run-input.ts; anything else ends as `invalid-input`). The request comes as an
 * event rather than as actor input so that one model of the machine can explore both a valid and
 * a refused request.
 */
export interface CyberneticStartEvent {
  readonly type: 'START';
  readonly request: unknown;
}

/** What `echoContract` gets: the frozen contract to echo and the scope to record, before any mutation. */
export interface EchoContractInput {
  readonly contract: RunContract;
}

/** What `createCheckpoint` reports: a checkpoint id the host can restore from, or why none could be made. */
export type CheckpointOutcome =
  | { readonly kind: 'created'; readonly checkpoint: string }
  | { readonly kind: 'unavailable'; readonly reason: string };

/** What `runChecks` gets: the full frozen check set and the run number (0 = baseline). */
export interface RunChecksInput {
  readonly run: number;
  readonly checks: RunContract['checks'];
}

/** What `runChecks` reports: one execution per frozen check, keyed by check name. */
export interface RunChecksOutput {
  readonly executions: Readonly<Record<string, CheckExecution>>;
}

/** What `applyCandidate` gets: everything the patcher needs to propose one candidate. */
export interface ApplyCandidateInput {
  /** 1-based attempt number (equals the run number of the check run that follows). */
  readonly attempt: number;
  /** The one failing check this candidate aims at. */
  readonly target: string;
  /** Every check that does not pass in the retained state, in contract order. */
  readonly failing: readonly CheckResult[];
  /** The run those results come from (0 = baseline, k = the last kept candidate). */
  readonly retainedRun: number;
  readonly contract: RunContract;
  readonly budget: { readonly limit: number; readonly spent: number };
  /** The checkpoint of the retained state, against which the candidate's changes are observed. */
  readonly checkpoint: string;
}

/**
 * What `applyCandidate` reports after the patcher ran: one line on what it did, and every
 * repository-relative path that now differs from the retained state, observed from the working
 * tree (inside and outside the scope; the pure core judges scope widening from these).
 */
export interface ApplyCandidateOutput {
  readonly summary: string;
  readonly changedPaths: readonly string[];
}

/** What `revertCandidate` and `retainCandidate` get. */
export interface RetainedStateInput {
  readonly attempt: number;
  /** The checkpoint of the retained state (revert restores it; retain replaces it). */
  readonly checkpoint: string;
}

/** What `revertCandidate` and `retainCandidate` report: the checkpoint of the retained state now. */
export interface RetainedStateOutput {
  readonly checkpoint: string;
}

/** What `restoreCheckpoint` gets: the pre-mutation checkpoint of the whole scope. */
export interface RestoreCheckpointInput {
  readonly checkpoint: string;
}

/**
 * A side effect failed in a way the protocol has no terminal status for (the host could not
 * echo the contract, run the patcher, or revert or retain a candidate). The run then restores
 * the checkpoint and ends in `failed`; the host reports it as an internal error.
 */
export interface EffectFailure {
  /** The named actor that failed. */
  readonly operation: string;
  readonly error: string;
  /** What restoring the checkpoint afterwards observed; null when nothing had been mutated. */
  readonly restoration: RestorationObservation | null;
}

/** The machine's context: plain JSON throughout, so a snapshot can be persisted. */
export interface CyberneticLoopContext {
  /** The caller's request as given with START (null before the start). */
  readonly request: unknown;
  /** The frozen run contract once validated. */
  readonly contract: RunContract | null;
  /** The pre-mutation checkpoint of the whole scope. */
  readonly checkpoint: string | null;
  /** The checkpoint of the retained state (the run checkpoint until a candidate is kept). */
  readonly retainedCheckpoint: string | null;
  readonly transcript: RunTranscript | null;
  /** The candidate applied and awaiting its full check run. */
  readonly pendingPatch: CandidatePatch | null;
  /** The one terminal record, once the run has one. */
  readonly record: TerminalRecord | null;
  readonly failure: EffectFailure | null;
}

/** The machine's output when it is done: the terminal record, or the effect failure. */
export interface CyberneticLoopOutput {
  readonly record: TerminalRecord | null;
  readonly failure: EffectFailure | null;
}

/** Events the machine handles besides actor outcomes: only the start; the loop takes no human input. */
export type CyberneticLoopEvent = CyberneticStartEvent;

// ---------------------------------------------------------------------------------------------
// Thin readers over the pure core

function notProvided(name: string) {
  return async (): Promise<never> => {
    throw new NotProvidedError(name);
  };
}

function contractOf(context: CyberneticLoopContext): RunContract {
  if (context.contract === null) throw new Error('cybernetic-loop: no frozen contract in context');
  return reviveRunContract(context.contract);
}

function transcriptOf(context: CyberneticLoopContext): RunTranscript {
  if (context.transcript === null) throw new Error('cybernetic-loop: no run transcript in context');
  return context.transcript;
}

/**
 * The text of an effect's error (`describeError`: its own string `message`, else the value as
 * text; never `[object Object]`, and never a throw that would stop the run before it restores the
 * checkpoint).
 */
const errorText = describeError;

/** An effect failure observed before any restoration ran. */
function effectFailed(operation: string, error: unknown): EffectFailure {
  return { operation, error: errorText(error), restoration: null };
}

/** Every frozen check reported as not executed, with the runner's error as the reason. */
function notExecuted(contract: RunContract, reason: string): Record<string, CheckExecution> {
  return Object.fromEntries(
    contract.checks.map((check) => [
      check.name,
      { kind: 'not-executed', reason: `the check runner failed: ${reason}` },
    ]),
  );
}

function baselineFrom(context: CyberneticLoopContext, executions: Record<string, CheckExecution>) {
  const contract = contractOf(context);
  return beginRun(contract, recordRun(contract, 0, executions));
}

function candidateFrom(context: CyberneticLoopContext, executions: Record<string, CheckExecution>) {
  const contract = contractOf(context);
  const transcript = { ...transcriptOf(context), contract };
  const patch = context.pendingPatch;
  if (patch === null) throw new Error('cybernetic-loop: no pending candidate patch');
  return recordCandidate(transcript, patch, recordRun(contract, transcript.attempts.length + 1, executions));
}

/** The output of the actor-done event a guard is looking at. */
function outputOf<T>(event: unknown): T {
  return (event as { output: T }).output;
}

function lastAttempt(context: CyberneticLoopContext) {
  return transcriptOf(context).attempts.at(-1);
}

// ---------------------------------------------------------------------------------------------
// The machine

/** Input of `createCheckpoint`: the frozen contract whose scope is checkpointed. */
export interface CreateCheckpointInput {
  readonly contract: RunContract;
}

/** What every actor of the cybernetic loop is invoked with and resolves to, by actor name. */
export interface CyberneticLoopActorContracts {
  readonly echoContract: ActorContract<EchoContractInput, Record<string, never>>;
  readonly createCheckpoint: ActorContract<CreateCheckpointInput, CheckpointOutcome>;
  readonly runChecks: ActorContract<RunChecksInput, RunChecksOutput>;
  readonly applyCandidate: ActorContract<ApplyCandidateInput, ApplyCandidateOutput>;
  readonly revertCandidate: ActorContract<RetainedStateInput, RetainedStateOutput>;
  readonly retainCandidate: ActorContract<RetainedStateInput, RetainedStateOutput>;
  readonly restoreCheckpoint: ActorContract<RestoreCheckpointInput, RestorationObservation>;
}

/** The actor logic a host provides to the cybernetic loop, by actor name (`.provide({ actors })`). */
export type CyberneticLoopActors = ActorImplementations<CyberneticLoopActorContracts>;

/** The cybernetic loop statechart (registry name `cybernetic-loop`). */
export const cyberneticLoopMachine = setup({
  types: {
    context: {} as CyberneticLoopContext,
    events: {} as CyberneticLoopEvent,
    output: {} as CyberneticLoopOutput,
  },
  actors: {
    /** Echoes the frozen run contract (checks, commands, criteria, scope, budget) and records the scope. */
    echoContract: fromPromise<Record<string, never>, EchoContractInput>(notProvided('echoContract')),
    /** Checkpoints every byte of the bounded scope, pre-existing edits and untracked files included. */
    createCheckpoint: fromPromise<CheckpointOutcome, { contract: RunContract }>(
      notProvided('createCheckpoint'),
    ),
    /** Runs the full frozen check set once and reports one execution per check. */
    runChecks: fromPromise<RunChecksOutput, RunChecksInput>(notProvided('runChecks')),
    /** Runs the patcher for one candidate and observes which paths it changed. */
    applyCandidate: fromPromise<ApplyCandidateOutput, ApplyCandidateInput>(notProvided('applyCandidate')),
    /** Reverts a candidate exactly: restores the scope to the retained state. */
    revertCandidate: fromPromise<RetainedStateOutput, RetainedStateInput>(notProvided('revertCandidate')),
    /** Keeps a candidate: checkpoints the scope as the new retained state. */
    retainCandidate: fromPromise<RetainedStateOutput, RetainedStateInput>(notProvided('retainCandidate')),
    /** Restores the whole scope to the pre-mutation checkpoint and reports what it observed. */
    restoreCheckpoint: fromPromise<RestorationObservation, RestoreCheckpointInput>(
      notProvided('restoreCheckpoint'),
    ),
  } satisfies CyberneticLoopActors,
  guards: {
    /** Step 1: the request is not exactly one falsifiable invariant with a finite positive budget and a scope. */
    inputInvalid: ({ context }) => !freezeRunContract(context.request).ok,
    /** Step 4: no exact checkpoint of the scope could be made. */
    checkpointUnavailable: ({ event }) => outputOf<CheckpointOutcome>(event).kind === 'unavailable',
    /** Step 5: every frozen check passed before mutation. */
    alreadyHolds: ({ context }) => decideBaseline(transcriptOf(context).baseline).kind === 'already-holds',
    /** Step 5: a frozen check could not be executed before mutation. */
    baselineStopped: ({ context }) => decideBaseline(transcriptOf(context).baseline).kind === 'stop',
    /** Step 8: the verdict after the candidate run is a stop of this class. */
    stoppedFor: ({ context }, params: { stopClass: StopClass }) => {
      const verdict = transcriptOf(context).verdict;
      return verdict.kind === 'stop' && verdict.stopClass === params.stopClass;
    },
    /** Step 8: every frozen check passed together in this run. */
    allPassTogether: ({ context }) => transcriptOf(context).verdict.kind === 'restored',
    /** Step 7: the candidate improved without breaking anything, and the run may go on. */
    keptAndContinuing: ({ context }) =>
      mayApplyCandidate(transcriptOf(context)) && lastAttempt(context)?.decision.decision === 'keep',
    /** Step 7: the candidate was reverted as candidate-regression, and the run may go on. */
    revertedAndContinuing: ({ context }) =>
      mayApplyCandidate(transcriptOf(context)) && lastAttempt(context)?.decision.decision === 'revert',
    /** Step 9: restoring the checkpoint failed or left a delta. */
    recoveryFailed: ({ context }) => context.record?.status === 'recovery-failure',
  },
}).createMachine({
  id: 'cybernetic-loop',
  description: 'The cybernetic loop: one invariant, a finite patch budget, a byte-for-byte checkpoint.',
  context: {
    request: null,
    contract: null,
    checkpoint: null,
    retainedCheckpoint: null,
    transcript: null,
    pendingPatch: null,
    record: null,
    failure: null,
  },
  initial: 'idle',
  output: ({ context }) => ({ record: context.record, failure: context.failure }),
  states: {
    idle: {
      description: 'Waiting for the caller to start a run with its request.',
      on: { START: { target: 'validating', actions: assign({ request: ({ event }) => event.request }) } },
    },
    validating: {
      description: 'Step 1: exactly one falsifiable invariant and a finite positive-integer budget.',
      always: [
        {
          description: 'step 1: invalid-input, before any mutation',
          guard: 'inputInvalid',
          target: 'invalidInput',
          actions: assign({
            record: ({ context }) => {
              const frozen = freezeRunContract(context.request);
              return frozen.ok ? null : frozen.record;
            },
          }),
        },
        {
          description: 'steps 2-3: record the scope and freeze the check set',
          target: 'echoing',
          actions: assign({
            contract: ({ context }) => {
              const frozen = freezeRunContract(context.request);
              return frozen.ok ? frozen.contract : null;
            },
          }),
        },
      ],
    },
    echoing: {
      description: 'Step 3: echo the frozen run contract before the first mutation.',
      invoke: {
        id: 'echoContract',
        src: 'echoContract',
        input: ({ context }) => ({ contract: contractOf(context) }),
        onDone: { target: 'checkpointing' },
        onError: {
          target: 'failed',
          actions: assign({
            failure: ({ event }) => effectFailed('echoContract', event.error),
          }),
        },
      },
    },
    checkpointing: {
      description: 'Step 4: a checkpoint that restores every byte of the scope.',
      invoke: {
        id: 'createCheckpoint',
        src: 'createCheckpoint',
        input: ({ context }) => ({ contract: contractOf(context) }),
        onDone: [
          {
            description: 'step 4: no exact checkpoint: non-converged before mutation',
            guard: 'checkpointUnavailable',
            target: 'nonConverged',
            actions: assign({
              record: ({ context, event }) =>
                concludeCheckpointUnavailable(
                  contractOf(context),
                  event.output.kind === 'unavailable' ? event.output.reason : 'unknown',
                ),
            }),
          },
          {
            target: 'baseline',
            actions: assign({
              checkpoint: ({ event }) => (event.output.kind === 'created' ? event.output.checkpoint : null),
              retainedCheckpoint: ({ event }) =>
                event.output.kind === 'created' ? event.output.checkpoint : null,
            }),
          },
        ],
        onError: {
          description: 'step 4: the checkpoint failed: non-converged before mutation',
          target: 'nonConverged',
          actions: assign({
            record: ({ context, event }) =>
              concludeCheckpointUnavailable(contractOf(context), errorText(event.error)),
          }),
        },
      },
    },
    baseline: {
      description: 'Step 5: run the full frozen check set before mutation.',
      invoke: {
        id: 'runChecks',
        src: 'runChecks',
        input: ({ context }) => ({ run: 0, checks: contractOf(context).checks }),
        onDone: {
          target: 'judgingBaseline',
          actions: assign({
            transcript: ({ context, event }) => baselineFrom(context, { ...event.output.executions }),
          }),
        },
        onError: {
          target: 'judgingBaseline',
          actions: assign({
            transcript: ({ context, event }) =>
              baselineFrom(context, notExecuted(contractOf(context), errorText(event.error))),
          }),
        },
      },
    },
    judgingBaseline: {
      description: 'Step 5: decideBaseline.',
      always: [
        {
          description: 'already-holds: every check passed before mutation',
          guard: 'alreadyHolds',
          target: 'alreadyHolds',
          actions: assign({ record: ({ context }) => concludeRun(transcriptOf(context)) }),
        },
        { description: 'unavailable-check before mutation', guard: 'baselineStopped', target: 'restoring' },
        { description: 'checks fail: start the candidate loop', target: 'candidate' },
      ],
    },
    candidate: {
      description: 'Steps 6-8: one candidate patch per budget unit.',
      initial: 'applying',
      states: {
        applying: {
          description: 'Step 6: select one failing result and apply one candidate patch within the scope.',
          invoke: {
            id: 'applyCandidate',
            src: 'applyCandidate',
            input: ({ context }) => {
              const transcript = transcriptOf(context);
              return {
                attempt: transcript.attempts.length + 1,
                target: selectCandidateTarget(transcript) ?? '',
                failing: failingInRetained(transcript),
                retainedRun: transcript.retained.run,
                contract: contractOf(context),
                budget: { limit: transcript.contract.budget, spent: transcript.budgetSpent },
                checkpoint: context.retainedCheckpoint ?? '',
              };
            },
            onDone: {
              target: 'checking',
              actions: assign({
                pendingPatch: ({ context, event }) => {
                  const transcript = transcriptOf(context);
                  const attempt = transcript.attempts.length + 1;
                  return {
                    id: `candidate-${attempt}`,
                    target: selectCandidateTarget(transcript) ?? '',
                    summary: event.output.summary,
                    paths: [...event.output.changedPaths],
                  };
                },
              }),
            },
            onError: {
              target: '#cybernetic-loop.abandoning',
              actions: assign({
                failure: ({ event }) => effectFailed('applyCandidate', event.error),
              }),
            },
          },
        },
        checking: {
          description: 'Step 6: spend one budget unit and run the full frozen check set.',
          invoke: {
            id: 'runChecks',
            src: 'runChecks',
            input: ({ context }) => ({
              run: transcriptOf(context).attempts.length + 1,
              checks: contractOf(context).checks,
            }),
            onDone: {
              target: 'deciding',
              actions: assign({
                transcript: ({ context, event }) => candidateFrom(context, { ...event.output.executions }),
                pendingPatch: null,
              }),
            },
            onError: {
              target: 'deciding',
              actions: assign({
                transcript: ({ context, event }) =>
                  candidateFrom(context, notExecuted(contractOf(context), errorText(event.error))),
                pendingPatch: null,
              }),
            },
          },
        },
        deciding: {
          description: 'Steps 7-8: keep or revert, then the verdict in AFTER_RUN_ORDER.',
          always: [
            {
              description: 'V1 scope-widening',
              guard: { type: 'stoppedFor', params: { stopClass: 'scope-widening' } },
              target: '#cybernetic-loop.restoring',
            },
            {
              description: 'V2 unavailable-check',
              guard: { type: 'stoppedFor', params: { stopClass: 'unavailable-check' } },
              target: '#cybernetic-loop.restoring',
            },
            {
              description: 'V3 restored',
              guard: 'allPassTogether',
              target: '#cybernetic-loop.restored',
              actions: assign({ record: ({ context }) => concludeRun(transcriptOf(context)) }),
            },
            {
              description: 'V4 repeated-equivalent-failure',
              guard: { type: 'stoppedFor', params: { stopClass: 'repeated-equivalent-failure' } },
              target: '#cybernetic-loop.restoring',
            },
            {
              description: 'V5 oscillation',
              guard: { type: 'stoppedFor', params: { stopClass: 'oscillation' } },
              target: '#cybernetic-loop.restoring',
            },
            {
              description: 'V6 budget-exhaustion',
              guard: { type: 'stoppedFor', params: { stopClass: 'budget-exhaustion' } },
              target: '#cybernetic-loop.restoring',
            },
            { description: 'step 7: keep the candidate', guard: 'keptAndContinuing', target: 'retaining' },
            {
              description: 'step 7: revert the candidate (candidate-regression)',
              guard: 'revertedAndContinuing',
              target: 'reverting',
            },
          ],
        },
        retaining: {
          description: 'Step 7: the kept candidate becomes the retained state.',
          invoke: {
            id: 'retainCandidate',
            src: 'retainCandidate',
            input: ({ context }) => ({
              attempt: transcriptOf(context).attempts.length,
              checkpoint: context.retainedCheckpoint ?? '',
            }),
            onDone: {
              target: 'applying',
              actions: assign({ retainedCheckpoint: ({ event }) => event.output.checkpoint }),
            },
            onError: {
              target: '#cybernetic-loop.abandoning',
              actions: assign({
                failure: ({ event }) => effectFailed('retainCandidate', event.error),
              }),
            },
          },
        },
        reverting: {
          description: 'Step 7: revert the candidate exactly; the budget unit stays spent.',
          invoke: {
            id: 'revertCandidate',
            src: 'revertCandidate',
            input: ({ context }) => ({
              attempt: transcriptOf(context).attempts.length,
              checkpoint: context.retainedCheckpoint ?? '',
            }),
            onDone: {
              target: 'applying',
              actions: assign({ retainedCheckpoint: ({ event }) => event.output.checkpoint }),
            },
            onError: {
              target: '#cybernetic-loop.abandoning',
              actions: assign({
                failure: ({ event }) => effectFailed('revertCandidate', event.error),
              }),
            },
          },
        },
      },
    },
    restoring: {
      description: 'Step 9: restore the whole scope to the checkpoint before returning.',
      invoke: {
        id: 'restoreCheckpoint',
        src: 'restoreCheckpoint',
        input: ({ context }) => ({ checkpoint: context.checkpoint ?? '' }),
        onDone: {
          target: 'concluding',
          actions: assign({
            record: ({ context, event }) => concludeRun(transcriptOf(context), event.output),
          }),
        },
        onError: {
          target: 'concluding',
          actions: assign({
            record: ({ context, event }) =>
              concludeRun(transcriptOf(context), {
                kind: 'failed',
                checkpoint: context.checkpoint ?? '',
                operation: 'restoreCheckpoint',
                error: errorText(event.error),
                remainingDelta: [],
              }),
          }),
        },
      },
    },
    concluding: {
      description: 'Step 9: a clean rollback is non-converged; anything else is a recovery failure.',
      always: [
        { description: 'recovery-failure', guard: 'recoveryFailed', target: 'recoveryFailure' },
        { description: 'non-converged, checkpoint restored', target: 'nonConverged' },
      ],
    },
    abandoning: {
      description: 'An effect failed after mutation may have begun: restore the checkpoint, then fail.',
      invoke: {
        id: 'restoreCheckpoint',
        src: 'restoreCheckpoint',
        input: ({ context }) => ({ checkpoint: context.checkpoint ?? '' }),
        onDone: {
          target: 'failed',
          actions: assign({
            failure: ({ context, event }) =>
              context.failure === null ? null : { ...context.failure, restoration: event.output },
          }),
        },
        onError: {
          target: 'failed',
          actions: assign({
            failure: ({ context, event }) =>
              context.failure === null
                ? null
                : {
                    ...context.failure,
                    restoration: {
                      kind: 'failed' as const,
                      checkpoint: context.checkpoint ?? '',
                      operation: 'restoreCheckpoint',
                      error: errorText(event.error),
                      remainingDelta: [],
                    },
                  },
          }),
        },
      },
    },
    invalidInput: { type: 'final', description: 'invalid-input: refused before any mutation.' },
    alreadyHolds: { type: 'final', description: 'already-holds: no patch attempted.' },
    restored: { type: 'final', description: 'restored: every frozen check passed together within budget.' },
    nonConverged: { type: 'final', description: 'non-converged: stop class named, checkpoint restored.' },
    recoveryFailure: { type: 'final', description: 'recovery-failure: restoration failed; not a success.' },
    failed: { type: 'final', description: 'An effect failed; the checkpoint was restored where possible.' },
  },
});
