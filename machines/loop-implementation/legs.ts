/**
 * Coordinated legs (gauntlet-protocol §3.20): the states where a companion dispatch's path
 * differs from home's. An admitted companion return is recorded by the parent in ONE home commit
 * (`loop: record <member> row <n>`; its commit lives in the companion checkout, home never saw
 * it), and an interrupted companion return resets only the companion checkout; the home ledger is
 * then restored by the usual home-only repair commit.
 */
import type { DispatchPlan } from '../../src/gauntlet/dispatch.js';
import { loopSetup } from './setup.js';
import { companionRecord } from './views.js';

/** The `legs` region of the loop engine. */
export const legsRegion = loopSetup.createStateConfig({
  description: 'Coordinated legs: where a companion checkout differs from home',
  initial: 'recording',
  states: {
    recording: {
      description: 'Record the admitted companion return in home (`loop: record <member> row <n>`)',
      invoke: {
        id: 'commitCompanionRecord',
        src: 'commitLedger',
        input: ({ context }) => companionRecord(context),
        onDone: '#loop-implementation.implement.admitting',
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    resettingCompanion: {
      description: 'Interrupted companion: reset only the companion checkout to its HEAD_BEFORE',
      invoke: {
        id: 'resetCompanion',
        src: 'resetCheckout',
        input: ({ context }) => {
          const plan = context.plan as DispatchPlan;
          return { head: plan.pending.head, leg: plan.pending.repo };
        },
        onDone: [
          {
            guard: 'treeDirtyAfterReset',
            target: '#loop-implementation.humanStop.recoveryIncomplete',
            description: 'companion tree dirty after reset',
            actions: { type: 'stopRecovery', params: () => ({ what: 'tree dirty after reset' }) },
          },
          { target: '#loop-implementation.implement.recovery.ledgerRepair' },
        ],
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
  },
});
