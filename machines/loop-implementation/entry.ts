/**
 * Entry: seed a fresh ledger from the spec, or restore an admitted one from disk and history.
 */
import { assign } from 'xstate';
import { parseLedger } from '../../src/gauntlet/ledger.js';
import { parseSpec } from '../../src/gauntlet/spec.js';
import { legacyLedgerInvalidState, legacyRestoreTransitions, migratingAllowanceState } from './legacy.js';
import { loopSetup } from './setup.js';
import {
  adoptedReservation,
  describeError,
  dirtDetail,
  headLedger,
  seedOf,
  unreadableLedgerProblem,
} from './views.js';

/** The `entry` region of the loop engine. */
export const entryRegion = loopSetup.createStateConfig({
  description: 'Seed a fresh ledger, or restore an admitted one (authorized restore)',
  initial: 'inspecting',
  states: {
    inspecting: {
      invoke: {
        id: 'inspectWorkspace',
        src: 'inspectWorkspace',
        input: ({ context }) => ({
          ledgerPath: context.input.ledgerPath,
          specPath: context.input.specPath,
          ...(context.input.legCheckouts === undefined ? {} : { legCheckouts: context.input.legCheckouts }),
        }),
        onDone: {
          target: 'resolvingSettings',
          actions: assign(({ event }) => {
            const facts = event.output;
            const parsedSpec = facts.specText === null ? null : parseSpec(facts.specText);
            const parsedLedger = facts.ledgerText === null ? null : parseLedger(facts.ledgerText);
            return {
              workspace: facts,
              head: facts.head,
              specText: facts.specText,
              spec: parsedSpec?.spec ?? null,
              specFindings: parsedSpec?.findings ?? [],
              legHeads: facts.legHeads ?? null,
              ledger: parsedLedger?.ledger ?? null,
              ledgerFindings: parsedLedger?.findings ?? [],
            };
          }),
        },
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    resolvingSettings: {
      description: 'Resolve the allowance setting and escalateAfter once for the run',
      invoke: {
        id: 'resolveSettings',
        src: 'resolveSettings',
        input: () => ({}),
        onDone: { target: 'routing', actions: assign({ settings: ({ event }) => event.output }) },
        onError: {
          target: 'routing',
          actions: assign({ settingsProblem: ({ event }) => describeError(event.error) }),
        },
      },
    },
    routing: {
      always: [
        { guard: 'specUnusable', target: 'specInvalid', description: 'spec missing or malformed' },
        {
          guard: 'reservationInFlight',
          target: 'restoring',
          description: 'a child committed, then the run ended: resume its reservation',
          actions: assign(({ context }) => adoptedReservation(context)),
        },
        { guard: 'ledgerAbsent', target: 'seeding', description: 'fresh: no ledger yet' },
        { target: 'restoring', description: 'authorized restore of an admitted ledger' },
      ],
    },
    specInvalid: {
      always: {
        target: '#loop-implementation.invalid',
        actions: assign({
          problem: ({ context }) => ({
            message:
              context.spec === null
                ? `cannot read the spec ${context.input.specPath}`
                : `the spec ${context.input.specPath} is not valid`,
            findings: context.specFindings,
          }),
        }),
      },
    },
    seeding: {
      description: 'Entry step 4: the ledger skeleton from the spec',
      always: [
        {
          guard: 'treeDirty',
          target: '#loop-implementation.humanStop.dirtyTree',
          description: 'dirty tree before any dispatch',
          actions: assign({
            stop: ({ context }) => ({ kind: 'dirty-start' as const, detail: dirtDetail(context) }),
            stopLedger: null,
          }),
        },
        {
          guard: 'settingsUnavailable',
          target: '#loop-implementation.invalid',
          description: 'settings tool unavailable',
          actions: assign({
            problem: ({ context }) => ({
              message:
                'cannot resolve escalation threshold: settings tool unavailable (loopEngine.escalateAfter)',
              findings:
                context.settingsProblem === null
                  ? []
                  : [{ code: 'settings.unavailable', line: 0, reason: context.settingsProblem }],
            }),
          }),
        },
        {
          guard: 'seedImpossible',
          target: '#loop-implementation.invalid',
          description: 'plan check found problems',
          actions: assign({
            problem: ({ context }) => ({
              message: 'the seeded ledger does not check',
              findings: seedOf(context).findings,
            }),
          }),
        },
        {
          target: 'committingSeed',
          actions: assign({ ledger: ({ context }) => seedOf(context).ledger }),
        },
      ],
    },
    committingSeed: {
      description: 'Entry step 5: commit `loop: seed ledger`',
      invoke: {
        id: 'commitSeedLedger',
        src: 'commitLedger',
        input: ({ context }) => ({ ledger: headLedger(context), subject: 'loop: seed ledger', body: '' }),
        onDone: '#loop-implementation.implement',
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    restoring: {
      description: 'Resume from disk and branch history only',
      always: [
        ...legacyRestoreTransitions,
        {
          guard: 'ledgerUnreadable',
          target: '#loop-implementation.invalid',
          description: 'ledger on disk does not parse',
          actions: assign({ problem: ({ context }) => unreadableLedgerProblem(context) }),
        },
        {
          guard: 'beforeImageMissing',
          target: '#loop-implementation.invalid',
          description: 'pending tuple without a recoverable before-image',
          actions: assign({
            problem: ({ context }) => ({
              message: `the ledger carries a pending tuple but the ledger at its HEAD cannot be read; the dispatch cannot be recovered automatically (${context.input.ledgerPath})`,
              findings: [],
            }),
          }),
        },
        {
          guard: 'pendingOnDisk',
          target: '#loop-implementation.implement.resuming',
          description: 'pending tuple: recover it first',
        },
        {
          guard: 'pendingVerifyOnDisk',
          target: '#loop-implementation.verify.repair.resuming',
          description: 'pending verify tuple',
        },
        {
          guard: 'treeDirty',
          target: '#loop-implementation.humanStop.commitBoundary',
          description: 'unresolved dirty tree',
          actions: assign({
            stop: ({ context }) => ({
              kind: 'commit-boundary' as const,
              problem: 'dirty tree' as const,
              detail: dirtDetail(context),
            }),
            stopLedger: ({ context }) => context.ledger,
          }),
        },
        { target: '#loop-implementation.implement' },
      ],
    },
    migratingAllowance: migratingAllowanceState,
    legacyLedgerInvalid: legacyLedgerInvalidState,
  },
});
