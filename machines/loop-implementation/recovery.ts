/**
 * Interrupted recovery (a region of `implement`): exclusive checkout provenance, the child's
 * background jobs, the reset to the dispatch's HEAD, then the ledger repair.
 */
import { assign, enqueueActions } from 'xstate';
import type { DispatchPlan } from '../../src/gauntlet/dispatch.js';
import { loopSetup } from './setup.js';
import { repairEdit } from './views.js';

/** The `implement.recovery` region: provenance, jobs, reset, ledger repair. */
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
          {
            target: 'jobs',
            actions: assign({
              actionRecords: ({ context, event }) =>
                event.output.owned
                  ? [...context.actionRecords, ...event.output.actionRecords]
                  : context.actionRecords,
            }),
          },
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
            target: 'reset',
            actions: enqueueActions(({ context, event, enqueue }) => {
              enqueue.assign({
                actionRecords: [...context.actionRecords, ...event.output.actionRecords],
              });
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
