/**
 * The `cycle` region: observe, compare, choose, act, verify, record; a kept action moves the
 * rollback boundary, a discarded one is rolled back, then the table in deciding.ts decides.
 */
import { assign } from 'xstate';
import { startProgressLedger } from '../../src/loop-protocol/progress.js';
import type { Comparison, Observation } from './context.js';
import { loopProtocolSetup } from './setup.js';
import { contractOf, errorText, recordVerification, unavailableVerification } from './views.js';

/** The `cycle` region: observe, compare, choose, act, verify, record. */
export const cycleRegion = loopProtocolSetup.createStateConfig({
  description: 'One cycle: observe, compare, choose, act, verify, record.',
  initial: 'observing',
  on: { CANCEL: { target: 'deciding', actions: 'cancel' } },
  states: {
    observing: {
      description: '1. Observe the authoritative source and normalize the result.',
      invoke: {
        id: 'observe',
        src: 'observe',
        input: ({ context }) => ({
          cycle: context.cycle,
          purpose: 'cycle' as const,
          sample: 1,
          contract: contractOf(context),
        }),
        onDone: [
          {
            description: 'the source is gone',
            guard: 'observationLost',
            target: '#loop-protocol.deciding',
            actions: assign({ sourceLost: ({ event }) => event.output.summary }),
          },
          {
            description: 'user changes overlap the rollback boundary',
            guard: 'userChangesOverlap',
            target: '#loop-protocol.deciding',
            actions: assign({ boundaryOverlap: ({ event }) => event.output.summary }),
          },
          {
            target: 'comparing',
            actions: assign({ observation: ({ event }) => event.output }),
          },
        ],
        onError: {
          target: '#loop-protocol.deciding',
          actions: assign({ sourceLost: ({ event }) => errorText(event.error) }),
        },
      },
    },
    comparing: {
      description: '2. Compare with the baseline, the best known state and the previous fingerprint.',
      always: {
        target: 'choosing',
        actions: assign(({ context }) => {
          const observation = context.observation;
          const best = context.ledger?.bestMetric ?? null;
          return {
            comparison: {
              sameAsBaseline: observation?.fingerprint === context.baselineObservation?.fingerprint,
              sameAsPrevious: observation?.fingerprint === context.previousFingerprint,
              seenBefore:
                context.ledger?.observedFingerprints.includes(observation?.fingerprint ?? '') ?? false,
              metricDeltaFromBest:
                observation?.metric != null && best !== null ? observation.metric - best : null,
            },
            previousFingerprint: observation?.fingerprint ?? context.previousFingerprint,
          };
        }),
      },
    },
    choosing: {
      description: '3. Choose the smallest permitted action with a causal reason, or none.',
      invoke: {
        id: 'choose',
        src: 'choose',
        input: ({ context }) => ({
          cycle: context.cycle,
          observation: context.observation as Observation,
          comparison: context.comparison as Comparison,
          ledger: context.ledger ?? startProgressLedger(null, null),
          contract: contractOf(context),
          pivots: context.pivots,
        }),
        onDone: [
          {
            description: 'the next useful action needs broader scope',
            guard: 'needsBroaderScope',
            target: '#loop-protocol.deciding',
            actions: assign({ choice: ({ event }) => event.output }),
          },
          {
            description: 'explicitly no action',
            guard: 'noActionChosen',
            target: 'verifying',
            actions: assign({ choice: ({ event }) => event.output }),
          },
          { target: 'acting', actions: assign({ choice: ({ event }) => event.output }) },
        ],
        onError: {
          description: 'nothing permitted could be chosen',
          target: '#loop-protocol.deciding',
          actions: assign({
            choice: ({ event }) => ({
              action: null,
              reason: `choosing failed: ${errorText(event.error)}`,
              needsBroaderScope: false,
              pivotAvailable: false,
              permittedActionRemains: false,
              crossTurn: false,
            }),
          }),
        },
      },
    },
    acting: {
      description: '4. One writer applies the action.',
      invoke: {
        id: 'act',
        src: 'act',
        input: ({ context }) => ({
          cycle: context.cycle,
          action: context.choice?.action ?? { kind: 'action' as const, summary: '' },
        }),
        onDone: {
          target: 'verifying',
          actions: assign({
            actEvidence: ({ event }) => event.output.evidence,
            usage: ({ context, event }) => ({
              elapsedMs: context.usage.elapsedMs + event.output.elapsedMs,
              tokens: context.usage.tokens + event.output.tokens,
              cost: context.usage.cost + event.output.cost,
            }),
          }),
        },
        onError: {
          target: 'verifying',
          actions: assign({
            actEvidence: ({ event }) => [`the action failed: ${errorText(event.error)}`],
          }),
        },
      },
    },
    verifying: {
      description: '5. Run the declared evaluator against the same source state.',
      invoke: {
        id: 'verify',
        src: 'verify',
        input: ({ context }) => ({
          cycle: context.cycle,
          evaluator: contractOf(context).evaluator,
          action: context.choice?.action ?? null,
        }),
        onDone: {
          target: 'recording',
          actions: assign(({ context, event }) => recordVerification(context, event.output)),
        },
        onError: {
          target: 'recording',
          actions: assign(({ context, event }) =>
            recordVerification(context, unavailableVerification(errorText(event.error))),
          ),
        },
      },
    },
    recording: {
      description: '6. Record the evidence, delta, decision and remaining budget.',
      always: [
        { description: 'kept: move the rollback boundary', guard: 'actionKept', target: 'retaining' },
        { description: 'discarded: roll back', guard: 'actionDiscarded', target: 'rollingBack' },
        { description: 'skipped', target: '#loop-protocol.deciding' },
      ],
    },
    retaining: {
      invoke: {
        id: 'checkpoint',
        src: 'checkpoint',
        input: ({ context }) => ({ cycle: context.cycle, purpose: 'kept' as const }),
        onDone: [
          {
            description: 'the new boundary would touch user work',
            guard: 'checkpointRefused',
            target: '#loop-protocol.deciding',
            actions: assign({
              boundaryOverlap: ({ event }) =>
                event.output.reason ?? 'the checkpoint cannot isolate loop changes',
            }),
          },
          {
            target: '#loop-protocol.deciding',
            actions: assign({ checkpoint: ({ event }) => event.output.checkpoint }),
          },
        ],
        onError: {
          target: '#loop-protocol.deciding',
          actions: assign({
            failureEvidence: ({ context, event }) => [
              ...context.failureEvidence,
              `cycle ${context.cycle}: the checkpoint could not be moved: ${errorText(event.error)}`,
            ],
          }),
        },
      },
    },
    rollingBack: {
      invoke: {
        id: 'rollback',
        src: 'rollback',
        input: ({ context }) => ({ cycle: context.cycle, checkpoint: context.checkpoint }),
        onDone: [
          {
            description: 'the rollback failed',
            guard: 'rollbackFailed',
            target: '#loop-protocol.deciding',
            actions: assign({
              failureEvidence: ({ context, event }) => [
                ...context.failureEvidence,
                `cycle ${context.cycle}: rollback failed: ${event.output.detail ?? 'no detail'}`,
              ],
            }),
          },
          { target: '#loop-protocol.deciding' },
        ],
        onError: {
          target: '#loop-protocol.deciding',
          actions: assign({
            failureEvidence: ({ context, event }) => [
              ...context.failureEvidence,
              `cycle ${context.cycle}: rollback failed: ${errorText(event.error)}`,
            ],
          }),
        },
      },
    },
  },
});
