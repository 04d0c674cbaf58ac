/**
 * The `validating` region: a fresh validator judges the measured subject, and a cross-family
 * validator too when the surface is risky and a cross-family leg was asked for.
 */
import { rpiSetup } from './setup.js';
import { nextRound } from './views.js';

/** The `validating` region of the RPI machine. */
export const validatingRegion = rpiSetup.createStateConfig({
  description: 'a fresh validator judges the subject; a cross-family leg too on risky surfaces',
  entry: 'clearLegs',
  initial: 'fresh',
  onDone: 'checkingRound',
  states: {
    fresh: {
      invoke: {
        id: 'validateFresh',
        src: 'validateFresh',
        input: ({ context }) => ({
          round: nextRound(context),
          leg: 'fresh' as const,
          subjectDigest: context.subject?.digest ?? '',
        }),
        onDone: { target: 'choosingLegs', actions: 'recordLeg' },
        onError: {
          target: '#rpi.failed',
          actions: { type: 'recordFailure', params: { stage: 'validateFresh' } },
        },
      },
    },
    choosingLegs: {
      always: [
        {
          description: 'risky surface: a cross-family leg judges too',
          guard: 'crossFamilyLegDue',
          target: 'crossFamily',
        },
        { description: 'the fresh leg is the round', target: 'judged' },
      ],
    },
    crossFamily: {
      invoke: {
        id: 'validateCrossFamily',
        src: 'validateCrossFamily',
        input: ({ context }) => ({
          round: nextRound(context),
          leg: 'cross-family' as const,
          subjectDigest: context.subject?.digest ?? '',
        }),
        onDone: { target: 'judged', actions: 'recordLeg' },
        onError: {
          target: '#rpi.failed',
          actions: { type: 'recordFailure', params: { stage: 'validateCrossFamily' } },
        },
      },
    },
    judged: { type: 'final' },
  },
});
