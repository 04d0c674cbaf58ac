/**
 * Interrupted recovery (a region of `implement`): exclusive checkout provenance, the child's
 * background jobs, action accounting, the reset to the dispatch's HEAD, then the ledger repair. A
 * discard the person authorizes at a recovery-incomplete stop enters at the jobs step and passes
 * through action accounting too, so its repair body keeps every record the dispatch left.
 */
import { enqueueActions } from 'xstate';
import type { DispatchPlan } from '../../src/gauntlet/dispatch.js';
import { loopSetup } from './setup.js';
import { repairEdit } from './views.js';

/** The `implement.recovery` region: provenance, jobs, action accounting, reset, ledger repair. */
export const recoveryRegion = loopSetup.createStateConfig({
  description: 'Interrupted recovery: provenance, jobs, reset, ledger repair',
  initial: 'provenance',
  states: {
    provenance: {
      invoke: {
        id: 'checkProvenance',
        src: 'checkProvenance',
        input: ({ context }) => ({ plan: context.plan as DispatchPlan }),
        onDone: [
          {
            guard: 'notOwned',
            target: '#loop-implementation.humanStop.recoveryIncomplete',
            description: 'checkout ownership unproven',
            actions: {
              type: 'stopRecovery',
              params: ({ event }) => ({ what: event.output.owned ? '' : event.output.what }),
            },
          },
          { target: 'jobs' },
        ],
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    jobs: {
      invoke: {
        id: 'cleanupJobs',
        src: 'cleanupJobs',
        input: ({ context }) => ({ plan: context.plan as DispatchPlan }),
        onDone: [
          {
            guard: 'jobsUnresolved',
            target: '#loop-implementation.humanStop.recoveryIncomplete',
            description: 'a job is not owned or still running',
            actions: {
              type: 'stopRecovery',
              params: ({ event }) => ({ what: event.output.problem ?? '' }),
            },
          },
          {
            target: 'collecting',
            actions: enqueueActions(({ event, enqueue }) => {
              if (event.output.terminated > 0)
                enqueue.emit({
                  type: 'notice',
                  text: `terminated ${event.output.terminated} child jobs`,
                });
            }),
          },
        ],
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    collecting: {
      description: 'Action accounting: keep the records the dispatch left before any reset (§3.19)',
      invoke: {
        id: 'collectActionRecords',
        src: 'collectActionRecords',
        input: ({ context }) => ({ plan: context.plan as DispatchPlan }),
        onDone: [
          {
            guard: 'companionDispatch',
            target: '#loop-implementation.legs.resettingCompanion',
            description: 'a companion dispatch: reset only the companion checkout',
            actions: 'keepCollectedRecords',
          },
          { target: 'reset', actions: 'keepCollectedRecords' },
        ],
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    reset: {
      invoke: {
        id: 'resetCheckout',
        src: 'resetCheckout',
        input: ({ context }) => ({ head: (context.plan as DispatchPlan).pending.head }),
        onDone: [
          {
            guard: 'treeDirtyAfterReset',
            target: '#loop-implementation.humanStop.recoveryIncomplete',
            description: 'tree dirty after reset',
            actions: { type: 'stopRecovery', params: () => ({ what: 'tree dirty after reset' }) },
          },
          { target: 'ledgerRepair' },
        ],
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    ledgerRepair: {
      invoke: {
        id: 'commitInterruptedRepair',
        src: 'commitLedger',
        input: ({ context }) => repairEdit(context),
        onDone: '#loop-implementation.implement.finishingRepair',
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
  },
});
