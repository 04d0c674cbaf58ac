/**
 * Verify: after the loop, the gate set, automatic verification repairs, the reviews and closure.
 */
import { assign } from 'xstate';
import { type DispatchPlan, planDispatch } from '../../src/gauntlet/dispatch.js';
import type { VerificationProblem } from '../../src/gauntlet/human-stop.js';
import { verificationRepairMarker } from '../../src/gauntlet/repair.js';
import type { LoopContext } from './context.js';
import { closingState, conformanceReviewState, wholeDiffReviewState } from './reviews.js';
import { loopSetup } from './setup.js';
import { failingHead, failingLeg, gatesInput, homeOf } from './verify-legs.js';
import {
  carriedRecords,
  dispatchInput,
  headLedger,
  planFromDisk,
  planInput,
  unattributedDetail,
  verificationOutcome,
} from './views.js';

function verificationProblem(context: LoopContext): VerificationProblem {
  const failure = context.gateFailure;
  if (failure === null) return { kind: 'missing-model' };
  return {
    kind: 'gate',
    gate: failure.gate,
    exitCode: failure.exitCode,
    logPath: failure.logPath,
    tail: failure.tail,
  };
}

/** The `verify` region of the loop engine. */
export const verifyRegion = loopSetup.createStateConfig({
  description: 'After the loop: gate set, verification repairs, reviews, closure',
  initial: 'gates',
  // A verify session starts with no leg verified; a rerun after a verification repair keeps the
  // legs that passed (§3.18 rerun scope).
  entry: assign(({ context }) => (context.repairedLeg === null ? { verifiedHeads: {} } : {})),
  states: {
    gates: {
      description:
        "Step 1: run the gate set fail-fast, each pair in its leg's checkout (the repaired leg first, then legs not yet passed)",
      invoke: {
        id: 'runGates',
        src: 'runGates',
        input: ({ context }) => gatesInput(context),
        onDone: [
          {
            guard: 'gatesPassedInConformance',
            target: 'conformance',
            description: 'every gate passed after a conformance fix round: re-review conformance',
            actions: 'keepGateRun',
          },
          {
            guard: 'gatesPassed',
            target: 'review',
            description: 'every gate of every leg passed',
            actions: 'keepGateRun',
          },
          {
            guard: 'companionGateFailed',
            target: 'repair',
            description:
              'repairs < allowance, a companion leg failed: repair in that checkout (shared allowance across legs)',
            actions: 'keepGateRun',
          },
          {
            guard: 'verificationRepairAllowed',
            target: 'repair',
            description: 'repairs < allowance: automatic verification repair on the HEAD the gates left',
            actions: 'keepGateRun',
          },
          {
            target: '#loop-implementation.humanStop.verificationFailed',
            description: 'repairs >= allowance',
            actions: assign(({ context, event }) => {
              const gateFailure = event.output.passed ? null : event.output;
              const next = { ...context, gateFailure };
              return {
                gateFailure,
                verifiedHeads: { ...context.verifiedHeads, ...(event.output.verified ?? {}) },
                repairedLeg: null,
                head: event.output.head,
                stop: {
                  kind: 'verification-failed' as const,
                  repairs: context.history.verificationRepairs,
                  problem: verificationProblem(next),
                },
                stopLedger: context.ledger,
              };
            }),
          },
        ],
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    repair: {
      description: 'One automatic verification repair',
      initial: 'resolvingModel',
      states: {
        resolvingModel: {
          invoke: {
            id: 'resolveRepairModel',
            src: 'resolveImplModel',
            input: () => ({ row: 'verify' as const }),
            onDone: [
              {
                guard: 'modelUnresolved',
                target: '#loop-implementation.humanStop.verificationFailed',
                description: 'no repair model',
                actions: 'stopMissingRepairModel',
              },
              {
                target: 'reserving',
                actions: assign(({ context, event }) => {
                  // §1.6: the tuple names the failing leg and that checkout's HEAD.
                  const failure = context.gateFailure;
                  const leg = failure === null ? null : failingLeg(context, failure);
                  return {
                    model: event.output.model,
                    repairedLeg: leg,
                    plan: planDispatch({
                      ledger: headLedger(context),
                      target: 'verify',
                      head: failure === null ? (context.head ?? '') : failingHead(failure),
                      model: event.output.model,
                      actionRecords: carriedRecords(context),
                      ...(leg === null ? {} : { repo: leg }),
                      // A companion repair keeps home HEAD: home must not move meanwhile (L17).
                      ...(leg === null || leg === homeOf(context) ? {} : { homeHead: context.head ?? '' }),
                    }),
                  };
                }),
              },
            ],
            onError: {
              target: '#loop-implementation.humanStop.verificationFailed',
              actions: 'stopMissingRepairModel',
            },
          },
        },
        resuming: {
          description: 'A verify tuple was on disk at resume',
          entry: assign({ plan: ({ context }) => planFromDisk(context) }),
          invoke: {
            id: 'recoverVerifyDispatch',
            src: 'recoverDispatch',
            input: ({ context }) => ({ plan: context.plan as DispatchPlan }),
            onDone: [
              {
                guard: 'neverLaunched',
                target: 'running',
                description: 'the reserved repair never started',
              },
              {
                target: 'readingBoundary',
                actions: 'keepRecoveredReport',
              },
            ],
            onError: { target: '#loop-implementation.failed', actions: 'storeError' },
          },
        },
        reserving: {
          invoke: {
            id: 'reserveVerifyDispatch',
            src: 'reserveDispatch',
            input: ({ context }) => planInput(context),
            onDone: {
              target: 'running',
              actions: 'keepReserved',
            },
            onError: { target: '#loop-implementation.failed', actions: 'storeError' },
          },
        },
        running: {
          invoke: {
            id: 'dispatchRepairChild',
            src: 'dispatchChild',
            input: ({ context }) => dispatchInput(context, context.gateFailure),
            onDone: {
              target: 'readingBoundary',
              actions: 'keepChildReport',
            },
            onError: {
              target: 'readingBoundary',
              actions: 'keepDispatchError',
            },
          },
        },
        readingBoundary: {
          invoke: {
            id: 'readRepairBoundary',
            src: 'readBoundary',
            input: ({ context }) => planInput(context),
            onDone: { target: 'validating', actions: 'keepBoundary' },
            onError: { target: '#loop-implementation.failed', actions: 'storeError' },
          },
        },
        validating: {
          always: [
            {
              guard: 'companionVerificationAdmitted',
              target: 'marking',
              description:
                'companion repair admitted: home unmoved; the marker commits the bumped home ledger',
            },
            { guard: 'verificationAdmitted', target: 'marking', description: 'repair admitted' },
            {
              guard: 'verificationHomeChanged',
              target: '#loop-implementation.humanStop.recoveryIncomplete',
              description:
                'companion repair not attributable: home moved or changed meanwhile (state preserved)',
              actions: {
                type: 'stopRecovery',
                params: ({ context }) => {
                  const outcome = verificationOutcome(context);
                  return {
                    what: 'ambiguous attribution',
                    detail: outcome?.kind === 'home-changed' ? outcome.detail : 'home changed',
                    interruption: 'ambiguous attribution',
                  };
                },
              },
            },
            {
              guard: 'verificationUnattributed',
              target: '#loop-implementation.humanStop.recoveryIncomplete',
              description: 'repair commit not attributable',
              actions: {
                type: 'stopRecovery',
                params: ({ context }) => ({
                  what: 'ambiguous attribution',
                  detail: unattributedDetail(verificationOutcome(context)),
                  interruption: 'ambiguous attribution',
                }),
              },
            },
            {
              target: '#loop-implementation.implement.recovery',
              description: 'not admitted: recover the checkout, then an empty marker',
              actions: assign({
                interruption: ({ context }) => {
                  const outcome = verificationOutcome(context);
                  return outcome?.kind === 'not-admitted' ? outcome.reason : 'not admitted';
                },
              }),
            },
          ],
        },
        marking: {
          description: 'Commit `loop: repair verification` over the admitted repair',
          invoke: {
            id: 'commitVerificationMarker',
            src: 'commitLedger',
            input: ({ context }) => {
              const outcome = verificationOutcome(context);
              if (outcome?.kind !== 'admitted') throw new Error('no admitted verification repair');
              return verificationRepairMarker(outcome.ledger, outcome.childSha, outcome.actionRecords);
            },
            onDone: '#loop-implementation.implement.finishingRepair',
            onError: { target: '#loop-implementation.failed', actions: 'storeError' },
          },
        },
      },
    },
    review: wholeDiffReviewState,
    conformance: conformanceReviewState,
    closing: closingState,
  },
});
