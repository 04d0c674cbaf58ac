/**
 * The `baseline` region: observe once (or sample a noisy metric until its tolerance is defined),
 * then confirm a checkpoint that restores only the loop's own changes.
 */
import { assign } from 'xstate';
import { aggregateBaseline } from '../../src/loop-protocol/noisy-baseline.js';
import { startProgressLedger } from '../../src/loop-protocol/progress.js';
import { loopProtocolSetup } from './setup.js';
import { contractOf, errorText } from './views.js';

/** The `baseline` region: sample the source, then confirm the checkpoint. */
export const baselineRegion = loopProtocolSetup.createStateConfig({
  description: 'Baseline: observe once (or sample a noisy metric) and confirm the checkpoint.',
  initial: 'sampling',
  on: { CANCEL: { target: 'deciding', actions: 'cancel' } },
  states: {
    sampling: {
      invoke: {
        id: 'observe',
        src: 'observe',
        input: ({ context }) => ({
          cycle: 0,
          purpose: 'baseline' as const,
          sample: context.samples.length + 1,
          contract: contractOf(context),
        }),
        onDone: [
          {
            description: 'the source is gone',
            guard: 'observationLost',
            target: '#loop-protocol.deciding',
            actions: assign({ sourceLost: ({ event }) => `baseline: ${event.output.summary}` }),
          },
          {
            description: 'the metric is gone',
            guard: 'metricMissing',
            target: '#loop-protocol.deciding',
            actions: assign({ sourceLost: () => 'baseline: the observation gave no metric' }),
          },
          {
            target: 'sampled',
            actions: assign({
              samples: ({ context, event }) =>
                event.output.metric === null ? context.samples : [...context.samples, event.output.metric],
              baselineObservation: ({ event }) => event.output,
              previousFingerprint: ({ event }) => event.output.fingerprint,
            }),
          },
        ],
        onError: {
          target: '#loop-protocol.deciding',
          actions: assign({ sourceLost: ({ event }) => `baseline: ${errorText(event.error)}` }),
        },
      },
    },
    sampled: {
      always: [
        { description: 'take another sample', guard: 'moreSamplesNeeded', target: 'sampling' },
        {
          target: 'confirmingCheckpoint',
          actions: assign({
            baseline: ({ context }) => {
              const metric = context.start?.metric;
              if (!metric) return null;
              const aggregated = aggregateBaseline(context.samples, {
                direction: metric.direction,
                ...(metric.minSamples === undefined ? {} : { minSamples: metric.minSamples }),
                ...(metric.minimumTolerance === undefined
                  ? {}
                  : { minimumTolerance: metric.minimumTolerance }),
              });
              return aggregated.ok ? aggregated.baseline : null;
            },
          }),
        },
      ],
    },
    confirmingCheckpoint: {
      invoke: {
        id: 'checkpoint',
        src: 'checkpoint',
        input: () => ({ cycle: 0, purpose: 'baseline' as const }),
        onDone: [
          {
            description: 'the checkpoint would touch user work',
            guard: 'checkpointRefused',
            target: '#loop-protocol.deciding',
            actions: assign({
              boundaryOverlap: ({ event }) =>
                event.output.reason ?? 'the checkpoint cannot isolate loop changes',
            }),
          },
          {
            target: '#loop-protocol.cycle',
            actions: assign({
              checkpoint: ({ event }) => event.output.checkpoint,
              ledger: ({ context }) =>
                startProgressLedger(context.baseline, context.baselineObservation?.fingerprint ?? null),
              cycle: 1,
            }),
          },
        ],
        onError: {
          target: '#loop-protocol.deciding',
          actions: assign({
            failureEvidence: ({ context, event }) => [
              ...context.failureEvidence,
              `no checkpoint could be confirmed: ${errorText(event.error)}`,
            ],
          }),
        },
      },
    },
  },
});
