/**
 * Authorized restore of a legacy `cap:` ledger (§3.2, scenario RS3): the `loop: migrate allowance`
 * commit, applied before refresh and before any dirty-tree stop (src/gauntlet/legacy-allowance.ts).
 */
import { assign } from 'xstate';
import { MIGRATE_ALLOWANCE_SUBJECT } from '../../src/gauntlet/legacy-allowance.js';
import type { CommitRequest } from './context.js';
import { legacyOf } from './legacy-guards.js';
import { loopSetup } from './setup.js';

/** The transitions `entry.restoring` takes first for a legacy ledger. */
export const legacyRestoreTransitions = [
  {
    guard: 'legacyCapLedger',
    target: 'migratingAllowance',
    description: 'legacy cap: ledger: migrate before refresh and before any dirty-tree stop',
  },
  {
    guard: 'legacyCapInvalid',
    target: 'legacyLedgerInvalid',
    description: 'legacy cap: ledger that cannot be migrated',
  },
] as const;

/** `entry.legacyLedgerInvalid`: a configuration error naming why the cap: ledger cannot migrate. */
export const legacyLedgerInvalidState = loopSetup.createStateConfig({
  description: 'A legacy cap: ledger that cannot be migrated (configuration error)',
  always: {
    target: '#loop-implementation.invalid',
    actions: assign({
      problem: ({ context }) => {
        const legacy = legacyOf(context);
        return {
          message: `cannot migrate the legacy ledger ${context.input.ledgerPath}: ${legacy.kind === 'invalid' ? legacy.reason : 'unknown'}`,
          findings: [],
        };
      },
    }),
  },
});

/** `entry.migratingAllowance`: one `loop: migrate allowance` commit, then the restore goes on. */
export const migratingAllowanceState = loopSetup.createStateConfig({
  description: 'Commit `loop: migrate allowance` (allowance: takes the cap: value)',
  invoke: {
    id: 'commitMigration',
    src: 'commitLedger',
    input: ({ context }): CommitRequest => {
      const legacy = legacyOf(context);
      if (legacy.kind !== 'migrate') throw new Error('no legacy ledger to migrate');
      return { ledger: legacy.ledger, subject: MIGRATE_ALLOWANCE_SUBJECT, body: legacy.body };
    },
    onDone: {
      target: 'restoring',
      actions: assign(({ context, event }) => {
        const legacy = legacyOf(context);
        const ledger = legacy.kind === 'migrate' ? legacy.ledger : context.ledger;
        const text = legacy.kind === 'migrate' ? legacy.text : (context.workspace?.ledgerText ?? null);
        return {
          ledger,
          ledgerFindings: [],
          head: event.output.head,
          workspace:
            context.workspace === null
              ? null
              : { ...context.workspace, ledgerText: text, head: event.output.head },
        };
      }),
    },
    onError: { target: '#loop-implementation.failed', actions: 'storeError' },
  },
});
