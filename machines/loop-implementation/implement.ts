/**
 * Implement: the dispatch loop. The ordered table before each dispatch is one ordered list of
 * guarded `always` transitions whose descriptions carry the rule labels (R1..R4), so the generated
 * diagram reads like the table; then dispatch, validation, repairs, amendments.
 */
import { assign } from 'xstate';
import type { DispatchPlan } from '../../src/gauntlet/dispatch.js';
import { emptyLoopHistory, historyFromCommits } from '../../src/gauntlet/history.js';
import { parseLedger } from '../../src/gauntlet/ledger.js';
import { escalationEdit } from '../../src/gauntlet/repair.js';
import type { CommitRequest } from './context.js';
import { recoveryRegion } from './recovery.js';
import { loopSetup } from './setup.js';
import {
  amendItemApply,
  dispatchInput,
  headLedger,
  planFromDisk,
  planFromRules,
  planInput,
  repairEdit,
  respec,
  returnOutcome,
  rules,
  unattributedDetail,
  unreachableCut,
} from './views.js';

/** The `implement` region of the loop engine. */
export const implementRegion = loopSetup.createStateConfig({
  description: 'The dispatch loop: ordered table, dispatch, validate, repair, recover',
  initial: 'refreshing',
  states: {
    refreshing: {
      description: 'Rebuild ledger and counters from disk and branch history',
      invoke: {
        id: 'refresh',
        src: 'refresh',
        input: ({ context }) => ({
          ledgerPath: context.input.ledgerPath,
          base: headLedger(context).base,
          ...(context.input.legCheckouts === undefined ? {} : { legCheckouts: context.input.legCheckouts }),
        }),
        onDone: {
          target: 'beforeDispatch',
          actions: assign(({ context, event }) => {
            const parsed = parseLedger(event.output.ledgerText);
            const ledger = parsed.ledger;
            return {
              head: event.output.head,
              legHeads: event.output.legHeads ?? null,
              ledger,
              ledgerFindings: parsed.findings,
              history:
                ledger === null
                  ? emptyLoopHistory()
                  : (event.output.history ??
                    historyFromCommits(event.output.commits ?? [], {
                      ledger,
                      ledgerPath: context.input.ledgerPath,
                    })),
              plan: null,
              model: null,
              child: null,
              boundary: null,
              actionRecords: [],
              interruption: null,
              stop: null,
              stopLedger: null,
            };
          }),
        },
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    beforeDispatch: {
      description: 'Before each dispatch: preconditions, unreachable routing, the ordered table',
      always: [
        {
          guard: 'configurationStop',
          target: '#loop-implementation.invalid',
          description: 'preconditions (checks:, allowance:, escalateAfter)',
          actions: assign({
            problem: ({ context }) => {
              const outcome = rules(context);
              return outcome.kind === 'configuration-stop'
                ? { message: outcome.message, findings: outcome.findings }
                : null;
            },
          }),
        },
        {
          guard: 'boundSpent',
          target: '#loop-implementation.humanStop.boundSpent',
          description: 'unreachable routing: bound spent',
          actions: 'keepRuleStop',
        },
        {
          guard: 'unreachableAutoCut',
          target: 'cuttingUnreachable',
          description: 'unreachable routing: cut under amend permission',
        },
        {
          guard: 'unreachableNeedsHuman',
          target: '#loop-implementation.humanStop.unreachableAmend',
          description: 'unreachable routing: amend batch for the human',
          actions: 'keepRuleStop',
        },
        {
          guard: 'redrawItem',
          target: '#loop-implementation.humanStop.redraw',
          description: 'amendment routing: a redraw item always stops',
          actions: 'keepRuleStop',
        },
        {
          guard: 'repeatedEvidence',
          target: '#loop-implementation.humanStop.repeatedEvidence',
          description: 'amendment routing: repeated evidence stops',
          actions: 'keepRuleStop',
        },
        {
          guard: 'amendItemAutoApply',
          target: 'applyingAmendItem',
          description: 'amendment routing: apply the amend item under amend permission',
        },
        {
          guard: 'amendItemNeedsHuman',
          target: '#loop-implementation.humanStop.specAmend',
          description: 'amendment routing: amend item for the human',
          actions: 'keepRuleStop',
        },
        {
          guard: 'noOpenOrFailedRow',
          target: '#loop-implementation.verify',
          description: 'R1 no open or failed row',
        },
        {
          guard: 'rowAtAllowance',
          target: '#loop-implementation.humanStop.rowAllowance',
          description: 'R2 unresolved row attempts >= effective allowance',
          actions: 'keepRuleStop',
        },
        {
          guard: 'seedCountReached',
          target: '#loop-implementation.humanStop.seedExhaustion',
          description: 'R4 seed count reached the allowance',
          actions: 'keepRuleStop',
        },
        {
          guard: 'seedDispatch',
          target: 'escalation',
          description: 'R4 select seed until a validated seed survives',
        },
        {
          guard: 'stagnationHint',
          target: 'escalation',
          description: 'R3 stagnation: hint for the selected row, then R4',
        },
        { target: 'escalation', description: 'R4 dispatch the selected row' },
      ],
    },
    escalation: {
      description: 'Escalation threshold check for a numbered target',
      always: [
        { guard: 'escalatedRound', target: 'resolvingModel', description: 'escalated round due' },
        { target: 'reserving', actions: assign({ plan: ({ context }) => planFromRules(context, null) }) },
      ],
    },
    resolvingModel: {
      invoke: {
        id: 'resolveImplModel',
        src: 'resolveImplModel',
        input: ({ context }) => {
          const outcome = rules(context);
          return { row: outcome.kind === 'dispatch-row' ? outcome.row : ('verify' as const) };
        },
        onDone: [
          {
            guard: 'modelUnresolved',
            target: '#loop-implementation.humanStop.missingModel',
            actions: 'stopMissingModel',
          },
          { target: 'escalating', actions: assign({ model: ({ event }) => event.output.model }) },
        ],
        onError: {
          target: '#loop-implementation.humanStop.missingModel',
          actions: 'stopMissingModel',
        },
      },
    },
    escalating: {
      description: 'Record the escalated round (`loop: escalate row <n>`), then dispatch with the model',
      entry: assign({ plan: ({ context }) => planFromRules(context, context.model) }),
      invoke: {
        id: 'commitEscalation',
        src: 'commitLedger',
        input: ({ context }) => {
          const plan = context.plan as DispatchPlan;
          return escalationEdit(plan.saved, plan.target as number, context.model ?? undefined);
        },
        onDone: {
          target: 'reserving',
          actions: assign({
            plan: ({ context, event }) => {
              const plan = context.plan as DispatchPlan;
              const escalated = escalationEdit(
                plan.saved,
                plan.target as number,
                context.model ?? undefined,
              ).ledger;
              // HEAD moved with the escalation commit: the tuple names the new HEAD.
              return {
                ...planFromRules(context, context.model, escalated, event.output.head),
                hint: plan.hint,
              };
            },
            ledger: ({ context }) => {
              const plan = context.plan as DispatchPlan;
              return escalationEdit(plan.saved, plan.target as number, context.model ?? undefined).ledger;
            },
            head: ({ event }) => event.output.head,
          }),
        },
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    reserving: {
      description: 'Save the ledger, bump iterations and write the pending tuple (uncommitted)',
      invoke: {
        id: 'reserveDispatch',
        src: 'reserveDispatch',
        input: ({ context }) => planInput(context),
        onDone: {
          target: 'running',
          actions: 'keepReserved',
        },
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    resuming: {
      description: 'A tuple was on disk at resume: was its child launched, and how did it end?',
      entry: assign({ plan: ({ context }) => planFromDisk(context) }),
      invoke: {
        id: 'recoverDispatch',
        src: 'recoverDispatch',
        input: ({ context }) => ({ plan: context.plan as DispatchPlan }),
        onDone: [
          {
            guard: 'neverLaunched',
            target: 'running',
            description: 'the reserved dispatch never started',
          },
          {
            target: 'readingBoundary',
            actions: 'keepRecoveredReport',
          },
        ],
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    running: {
      description: 'Dispatch exactly one foreground child',
      invoke: {
        id: 'dispatchChild',
        src: 'dispatchChild',
        input: ({ context }) => dispatchInput(context, null),
        onDone: { target: 'readingBoundary', actions: 'keepChildReport' },
        onError: {
          target: 'readingBoundary',
          actions: 'keepDispatchError',
        },
      },
    },
    readingBoundary: {
      invoke: {
        id: 'readBoundary',
        src: 'readBoundary',
        input: ({ context }) => planInput(context),
        onDone: { target: 'validating', actions: 'keepBoundary' },
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    validating: {
      description: 'Validate the return: boundary, attribution, then the seed or ordinary table',
      always: [
        {
          guard: 'interrupted',
          target: 'recovery',
          description: 'boundary failed: interrupted return',
          actions: assign({
            interruption: ({ context }) => {
              const outcome = returnOutcome(context);
              return outcome?.kind === 'interrupted' ? outcome.reason : null;
            },
          }),
        },
        {
          guard: 'unattributed',
          target: '#loop-implementation.humanStop.recoveryIncomplete',
          description: 'commit not attributable to this dispatch',
          actions: {
            type: 'stopRecovery',
            params: ({ context }) => ({
              what: 'ambiguous attribution',
              detail: unattributedDetail(returnOutcome(context)),
              interruption: 'ambiguous attribution',
            }),
          },
        },
        {
          guard: 'companionMiss',
          target: 'repairing',
          description: 'companion miss: repair in home (`loop: repair row <n>` / `loop: repair seed`)',
        },
        { guard: 'seedMiss', target: 'repairing', description: 'seed miss: seed repair' },
        { guard: 'rowMiss', target: 'repairing', description: 'ordinary miss: parent repair' },
        {
          guard: 'companionAdmitted',
          target: '#loop-implementation.legs.recording',
          description: 'companion admitted: record it in home',
        },
        { guard: 'admitted', target: 'admitting', description: 'admitted' },
      ],
    },
    admitting: {
      description: 'The child commit is admitted; clean up the dispatch record',
      invoke: {
        id: 'finishAdmittedDispatch',
        src: 'finishDispatch',
        input: ({ context }) => ({ plan: context.plan as DispatchPlan }),
        onDone: 'refreshing',
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    repairing: {
      description: 'Parent repair commit (`loop: repair row <n>` / `loop: repair seed`)',
      invoke: {
        id: 'commitRepair',
        src: 'commitLedger',
        input: ({ context }) => repairEdit(context),
        onDone: 'finishingRepair',
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    finishingRepair: {
      invoke: {
        id: 'finishRepairedDispatch',
        src: 'finishDispatch',
        input: ({ context }) => ({ plan: context.plan as DispatchPlan }),
        onDone: 'refreshing',
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    recovery: recoveryRegion,
    cuttingUnreachable: {
      description: 'Apply the unreachable row cut (`loop: cut row <n>`) under amend permission',
      entry: {
        type: 'notice',
        params: ({ context }) => {
          const outcome = rules(context);
          return { text: outcome.kind === 'unreachable-amend' ? outcome.amendedLine : '' };
        },
      },
      invoke: {
        id: 'commitUnreachableCut',
        src: 'commitLedger',
        input: ({ context }) => unreachableCut(context),
        onDone: {
          target: 'refreshing',
          actions: assign(({ context }) => respec(unreachableCut(context).specText ?? context.specText)),
        },
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    applyingAmendItem: {
      description: 'Apply the amend item (`loop: amend`, one `## Amendments` entry) under amend permission',
      entry: {
        type: 'notice',
        params: ({ context }) => {
          const outcome = rules(context);
          return { text: outcome.kind === 'spec-amend' ? outcome.amendedLine : '' };
        },
      },
      invoke: {
        id: 'commitAmendItem',
        src: 'commitLedger',
        input: ({ context }) => amendItemApply(context),
        onDone: {
          target: 'refreshing',
          actions: assign(({ context }) => respec(amendItemApply(context).specText ?? context.specText)),
        },
        onError: { target: '#loop-implementation.failed', actions: 'storeError' },
      },
    },
    applyingChoice: {
      description: 'Commit the human choice (retry, rows +N, amendment)',
      initial: 'committing',
      states: {
        committing: {
          // The event that entered this state is the human choice; keep it for the commit.
          invoke: {
            id: 'commitChoice',
            src: 'commitLedger',
            input: ({ context }) => context.pendingChoice as CommitRequest,
            onDone: {
              target: '#loop-implementation.implement.refreshing',
              actions: assign(({ context }) => ({
                ...respec((context.pendingChoice as CommitRequest).specText ?? context.specText),
                pendingChoice: null,
              })),
            },
            onError: { target: '#loop-implementation.failed', actions: 'storeError' },
          },
        },
      },
    },
  },
});
