/**
 * Verify steps 2-5 (gauntlet-protocol §3.18): the whole-diff review and its fix rounds, the
 * conformance review with its fix loop, the fix-round cap and its funding under amend permission,
 * the step-6 stop, and closure. A fix round always returns to the full gate set (step 1) before
 * the next review; the rounds and grants are read back from branch history by every review, so a
 * crash or a resume continues with the same counts.
 */
import { assign, emit } from 'xstate';
import { FUND_SUBJECT, grantBody, type ReviewRole } from '../../src/gauntlet/review.js';
import type { CommitRequest, LoopContext, ReviewReport } from './context.js';
import {
  amendGrantSentence,
  closedHeadOf,
  closureOf,
  fixTasksOf,
  reportOf,
  reviewOf,
  reviewStepOf,
} from './review-guards.js';
import { loopSetup } from './setup.js';
import { headLedger } from './views.js';

function reviewInput(context: LoopContext, role: ReviewRole) {
  return {
    role,
    base: headLedger(context).base,
    specPath: context.input.specPath,
    ledgerPath: context.input.ledgerPath,
  };
}

function fixRequest(context: LoopContext) {
  const report = context.review as ReviewReport;
  const review = reviewOf(report);
  const used = report.ran ? report.counts.used : 0;
  return { role: review.role, round: used + 1, tasks: fixTasksOf(review) };
}

/** Step 2: the whole-diff review, base through committed HEAD, and its fix rounds. */
/** Both reviews stop the same way on a malformed or missing return: a named review miss. */
function reviewMissStop({ context, event }: { context: LoopContext; event: unknown }) {
  const report = reportOf(event);
  return {
    review: report,
    stop: {
      kind: 'review-miss' as const,
      role: report.role,
      miss: report.ran && !report.returned.ok ? report.returned.miss : 'no return',
    },
    stopLedger: headLedger(context),
  };
}

export const wholeDiffReviewState = loopSetup.createStateConfig({
  description: 'Step 2: whole-diff review (base..HEAD) and its fix rounds',
  initial: 'reviewing',
  states: {
    reviewing: {
      invoke: {
        id: 'wholeDiffReview',
        src: 'runReview',
        input: ({ context }) => reviewInput(context, 'whole-diff'),
        onDone: [
          {
            guard: 'reviewNotRun',
            target: '#loop-implementation.verify.conformance',
            description: 'no whole-diff reviewer configured',
            actions: 'keepReview',
          },
          {
            guard: 'reviewMiss',
            target: '#loop-implementation.humanStop.reviewMiss',
            description: 'malformed or missing return: a named miss',
            actions: assign(reviewMissStop),
          },
          {
            guard: 'reviewAccepted',
            target: '#loop-implementation.verify.conformance',
            description: 'SHIP: carry its minor lines',
            actions: assign(({ event }) => {
              const report = reportOf(event);
              const review = reviewOf(report);
              return { review: report, minors: review.role === 'whole-diff' ? review.minors : [] };
            }),
          },
          {
            guard: 'reviewFixRoundLeft',
            target: 'fixing',
            description: 'REVISE with a fix round left',
            actions: 'keepReview',
          },
          {
            target: '#loop-implementation.humanStop.reviewCap',
            description: 'REVISE at the fix-round cap',
            actions: assign(({ context, event }) => {
              const report = reportOf(event);
              const step = reviewStepOf(context, report);
              return {
                review: report,
                stop: {
                  kind: 'review-cap' as const,
                  used: step?.kind === 'review-cap' ? step.used : 0,
                  cap: step?.kind === 'review-cap' ? step.cap : 0,
                  tasks: fixTasksOf(reviewOf(report)),
                },
                stopLedger: headLedger(context),
              };
            }),
          },
        ],
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    fixing: fixRoundState('wholeDiffFixRound', 'One fix round, then the full gate set before the re-review'),
  },
});

/**
 * A fix round of either review: the fixer runs once, then the whole gate set runs again before
 * the re-review. The two reviews differ only in the invocation's id and the description.
 */
function fixRoundState(id: 'wholeDiffFixRound' | 'conformanceFixRound', description: string) {
  return loopSetup.createStateConfig({
    description,
    invoke: {
      id,
      src: 'runFixRound',
      input: ({ context }) => fixRequest(context),
      onDone: {
        target: '#loop-implementation.verify.gates',
        // The whole gate set runs again after a fix round: no leg stays verified.
        actions: assign({ head: ({ event }) => event.output.head, verifiedHeads: {} }),
      },
      onError: { target: '#loop-implementation.failed', actions: 'storeError' },
    },
  });
}

/** Step 3: the conformance review, its fix loop, the cap, funding and the step-6 stop. */
export const conformanceReviewState = loopSetup.createStateConfig({
  description: 'Step 3: conformance review against the spec rows, its fix loop and funding',
  initial: 'reviewing',
  states: {
    reviewing: {
      invoke: {
        id: 'conformanceReview',
        src: 'runReview',
        input: ({ context }) => reviewInput(context, 'conformance'),
        onDone: [
          {
            guard: 'conformanceWaived',
            target: '#loop-implementation.verify.closing',
            description: 'no conformance reviewer, audit waived: the closure records the waiver',
            actions: 'keepReview',
          },
          {
            guard: 'reviewNotRun',
            target: '#loop-implementation.humanStop.closureNotAudited',
            description: 'no conformance reviewer and no waiver: stop, closure not audited',
            actions: assign(({ context, event }) => ({
              review: reportOf(event),
              stop: { kind: 'closure-not-audited' as const },
              stopLedger: headLedger(context),
            })),
          },
          {
            guard: 'reviewMiss',
            target: '#loop-implementation.humanStop.reviewMiss',
            description: 'malformed or missing return: a named miss',
            actions: assign(reviewMissStop),
          },
          {
            guard: 'reviewAccepted',
            target: '#loop-implementation.verify.closing',
            description: 'CONFORMS',
            actions: 'keepReview',
          },
          {
            guard: 'reviewCarriedOpen',
            target: '#loop-implementation.verify.closing',
            description: 'GAPS, every open gap carried open: a valid deferred inventory',
            actions: 'keepReview',
          },
          {
            guard: 'reviewFixRoundLeft',
            target: 'fixing',
            description: 'GAPS with a fix round left',
            actions: 'keepReview',
          },
          {
            guard: 'reviewFundable',
            target: 'funding',
            description: 'cap block under amend permission, used < allowance',
            actions: 'keepReview',
          },
          {
            target: '#loop-implementation.humanStop.conformanceStep6',
            description: 'GAPS at the cap, no funding: step-6 stop',
            actions: assign(({ context, event }) => {
              const report = reportOf(event);
              const step = reviewStepOf(context, report);
              const review = reviewOf(report);
              return {
                review: report,
                stop: {
                  kind: 'conformance-step6' as const,
                  used: step?.kind === 'step-6' ? step.used : 0,
                  cap: step?.kind === 'step-6' ? step.cap : 0,
                  openGaps:
                    review.role === 'conformance' ? review.openGaps.map((g) => `${g.id}: ${g.text}`) : [],
                },
                stopLedger: headLedger(context),
              };
            }),
          },
        ],
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    funding: {
      description: 'Record the grant (`loop: fund conformance rounds`) and print it',
      invoke: {
        id: 'commitGrant',
        src: 'commitLedger',
        input: ({ context }): CommitRequest => {
          const step = reviewStepOf(context, context.review as ReviewReport);
          const rounds = step?.kind === 'fund' ? step.rounds : 0;
          return {
            ledger: headLedger(context),
            subject: FUND_SUBJECT,
            body: grantBody(rounds, amendGrantSentence(context) ?? ''),
            allowEmpty: true,
          };
        },
        onDone: {
          target: 'fixing',
          actions: [
            assign({ head: ({ event }) => event.output.head }),
            emit(({ context }) => {
              const step = reviewStepOf(context, context.review as ReviewReport);
              return { type: 'notice' as const, text: step?.kind === 'fund' ? step.notice : '' };
            }),
          ],
        },
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    fixing: fixRoundState(
      'conformanceFixRound',
      'One conformance fix round, then the full gate set before the re-review',
    ),
  },
});

/**
 * Steps 4 and 5: the closure block on current CONFORMS, on a valid carried-open deferred
 * inventory (`status: GAPS (N open)`) or recording a waived audit, then the host's finishing hook.
 * A closure with open gaps then stops for the person (the finishing gate decides them).
 */
export const closingState = loopSetup.createStateConfig({
  description:
    'Step 4: closure block on CONFORMS or a waived audit; step 5: finishing the branch (host hook)',
  entry: assign({ closure: ({ context }) => closureOf(context) }),
  invoke: {
    id: 'finishBranch',
    src: 'finishBranch',
    input: ({ context }) => ({ closure: context.closure ?? '', head: closedHeadOf(context) }),
    onDone: [
      {
        guard: 'closureCarriesOpenGaps',
        target: '#loop-implementation.humanStop.closureCarriedOpen',
        description: 'GAPS (N open) carried to the finishing gate: stop, never exit 0',
        actions: assign(({ context }) => {
          const review = reviewOf(context.review);
          return {
            stop: {
              kind: 'closure-carried-open' as const,
              openGaps: review.role === 'conformance' ? review.openGaps.map((g) => `${g.id}: ${g.text}`) : [],
              closure: context.closure ?? '',
            },
            stopLedger: headLedger(context),
          };
        }),
      },
      { target: '#loop-implementation.finished', description: 'CONFORMS, or the audit waived' },
    ],
    onError: { target: '#loop-implementation.failed', actions: 'storeError' },
  },
});
