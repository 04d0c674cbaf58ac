/**
 * The `law` region: a repair round is judged by the convergence law's conditions in the order C3
 * (no closed finding reopens), C2 (the open set is not larger), C4 (subject or evidence changed);
 * the first broken condition ends the run in its terminal state.
 */
import { rpiSetup } from './setup.js';

/** The `law` region of the RPI machine. */
export const lawRegion = rpiSetup.createStateConfig({
  description: 'the convergence law over the repair round, in the order C3, C2, C4',
  initial: 'reopen',
  states: {
    reopen: {
      always: [
        {
          description: 'C3 no closed finding reopens',
          guard: 'noClosedFindingReopens',
          target: 'growth',
        },
        {
          description: 'C3 broken: a closed finding reopened',
          target: '#rpi.reopened_finding',
          actions: 'admitRound',
        },
      ],
    },
    growth: {
      always: [
        { description: 'C2 open set not larger', guard: 'openSetNotLarger', target: 'progress' },
        {
          description: 'C2 broken: the open set grew',
          target: '#rpi.finding_set_grew',
          actions: 'admitRound',
        },
      ],
    },
    progress: {
      always: [
        {
          description: 'C4 subject or evidence changed',
          guard: 'subjectOrEvidenceChanged',
          target: '#rpi.convergenceCheck',
          actions: 'admitRound',
        },
        {
          description: 'C4 broken: same subject, no binding evidence',
          target: '#rpi.no_subject_or_evidence_change',
          actions: 'admitRound',
        },
      ],
    },
  },
});
