/**
 * The human stops: one state per stop kind, each accepting exactly the choices its menu offers,
 * and the two top-level states a choice leads to outside `implement` (amending during verify,
 * discarding unowned dirt).
 */
import { assign } from 'xstate';
import type { CommitRequest } from './context.js';
import { loopSetup } from './setup.js';
import { headLedger } from './views.js';

/** A human choice that applies: keep its edit for the commit that follows. */
const acceptChoice = {
  guard: 'choiceApplies',
  target: '#loop-implementation.implement.applyingChoice',
  actions: 'keepChoice',
} as const;

/** A redraw: commit `loop: redraw` (the ledger deleted) and end the run. */
const redrawChoice = {
  target: '#loop-implementation.redrawing',
  actions: 'keepRedraw',
  description: 'redraw: delete the ledger; the next run reseeds',
} as const;

/** The offers of an amendment stop: the row stop's, plus redraw. */
const amendmentStopChoices = {
  'human.retry': acceptChoice,
  'human.raise': acceptChoice,
  'human.amend': acceptChoice,
  'human.redraw': redrawChoice,
  'human.stop': { target: '#loop-implementation.stopped' },
} as const;

/** The transitions every stop that offers them shares: retry, rows +N, amend, stop. */
const rowStopChoices = {
  'human.retry': acceptChoice,
  'human.raise': acceptChoice,
  'human.amend': acceptChoice,
  'human.stop': { target: '#loop-implementation.stopped' },
} as const;

/**
 * The loop engine statechart. Provide its actors with `loopImplementationMachine.provide({ actors
 * })` (see src/host/ for the real implementations and docs/api.md for the contracts).

/** The `humanStop` region of the loop engine. */
export const humanStopRegion = loopSetup.createStateConfig({
  description: 'Human stops: one state per stop kind, accepting only its menu offers',
  initial: 'rowAllowance',
  states: {
    rowAllowance: { description: 'Stopped on row <n> (rule 2)', on: rowStopChoices },
    missingModel: { description: 'Problem: escalationLoop.implModel unavailable', on: rowStopChoices },
    seedExhaustion: { description: 'Stopped on seed', on: rowStopChoices },
    boundSpent: { description: 'Stopped on row <n>: named action bound spent', on: rowStopChoices },
    unreachableAmend: { description: 'Unreachable row: amend batch', on: amendmentStopChoices },
    specAmend: {
      description: 'Amend item (`amend: <what> - <evidence>`) without amend permission',
      on: amendmentStopChoices,
    },
    repeatedEvidence: {
      description: 'Amend item whose evidence the spec already answers (options 4 and 5 alike)',
      on: amendmentStopChoices,
    },
    redraw: {
      description: 'Redraw item (`redraw: <why>`): always stops',
      on: amendmentStopChoices,
    },
    recoveryIncomplete: {
      description: 'Stopped: iteration <i> recovery incomplete - <what>',
      on: {
        'human.discard': {
          target: '#loop-implementation.implement.recovery.jobs',
          description: 'discard authorized',
        },
        'human.stop': { target: '#loop-implementation.stopped' },
      },
    },
    dirtyTree: {
      description: "Dirty tree at a fresh entry: stop only, nothing is the loop's to discard",
      on: { 'human.stop': { target: '#loop-implementation.stopped' } },
    },
    commitBoundary: {
      description: 'Dirty tree: discard/reset authorization',
      on: {
        'human.discard': { target: '#loop-implementation.discarding', description: 'discard authorized' },
        'human.stop': { target: '#loop-implementation.stopped' },
      },
    },
    verificationFailed: {
      description: 'Stopped: verification failed with every row closed',
      on: {
        'human.amend': [
          {
            guard: 'reopensRow',
            target: '#loop-implementation.amendingInVerify',
            actions: 'keepChoice',
            description: 'amendment re-bounds a done row',
          },
          acceptChoice,
        ],
        'human.stop': { target: '#loop-implementation.stopped' },
      },
    },
    reviewMiss: {
      description: 'Stopped: the <role> review return was rejected (a named miss)',
      on: { 'human.stop': { target: '#loop-implementation.stopped' } },
    },
    reviewCap: {
      description: 'Stopped: whole-diff review answers REVISE at the fix-round cap',
      on: { 'human.stop': { target: '#loop-implementation.stopped' } },
    },
    conformanceStep6: {
      description: 'gauntlet: gate=verification-before-completion/step-6 (GAPS at the cap, unfunded)',
      on: { 'human.stop': { target: '#loop-implementation.stopped' } },
    },
    closureCarriedOpen: {
      description: 'Stopped: verification complete with open gaps carried to the finishing gate',
      on: { 'human.stop': { target: '#loop-implementation.stopped' } },
    },
    closureNotAudited: {
      description: 'Stopped: verification passed; closure not audited (no conformance reviewer, no waiver)',
      on: { 'human.stop': { target: '#loop-implementation.stopped' } },
    },
    reopenedDuringVerify: {
      description: 'Stopped: row <n> reopened by amendment during verify',
      on: {
        'human.return': {
          target: '#loop-implementation.implement',
          description: 'return the row to ledger implementation',
        },
        'human.stop': { target: '#loop-implementation.stopped' },
      },
    },
  },
});

/** The `amendingInVerify` state: commit a row an amendment re-bounds during verify. */
export const amendingInVerifyState = loopSetup.createStateConfig({
  description: 'Commit the re-bound row (`loop: amend`) while verify is active',
  invoke: {
    id: 'commitReopen',
    src: 'commitLedger',
    input: ({ context }) => context.pendingChoice as CommitRequest,
    onDone: {
      target: '#loop-implementation.humanStop.reopenedDuringVerify',
      actions: assign(({ context }) => {
        const request = context.pendingChoice as CommitRequest;
        const row = request.ledger.rows.find(
          (r, i) => r.status === 'open' && headLedger(context).rows[i]?.status === 'done',
        )?.row;
        return {
          ledger: request.ledger,
          pendingChoice: null,
          stop: { kind: 'reopened-during-verify' as const, row: row ?? 0 },
          stopLedger: request.ledger,
        };
      }),
    },
    onError: { target: '#loop-implementation.failed', actions: 'storeError' },
  },
});

/** The `discarding` state: discard unowned dirt after explicit authorization. */
export const discardingState = loopSetup.createStateConfig({
  description: 'Discard unowned dirt after explicit authorization',
  invoke: {
    id: 'discardChanges',
    src: 'discardChanges',
    input: ({ context }) => ({ head: context.workspace?.head ?? '' }),
    onDone: [
      {
        guard: 'treeDirtyAfterReset',
        target: '#loop-implementation.humanStop.commitBoundary',
        description: 'still dirty',
      },
      { target: '#loop-implementation.implement' },
    ],
    onError: { target: '#loop-implementation.failed', actions: 'storeError' },
  },
});

/** The `redrawing` state: delete the ledger in one `loop: redraw` commit, then end the run. */
export const redrawingState = loopSetup.createStateConfig({
  description: 'Delete the ledger in one `loop: redraw` commit; the next run reseeds from the spec',
  invoke: {
    id: 'commitRedraw',
    src: 'commitLedger',
    input: ({ context }) => context.pendingChoice as CommitRequest,
    onDone: { target: '#loop-implementation.redrawn' },
    onError: { target: '#loop-implementation.failed', actions: 'storeError' },
  },
});
