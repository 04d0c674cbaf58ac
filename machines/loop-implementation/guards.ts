/**
 * The loop engine's guards: each is a thin call into the protocol core over the context (or the
 * output of the actor that just finished).
 */

import { verificationRepairAllowed } from '../../src/gauntlet/verify.js';
import type { DispatchRecovery, GateRun, HumanEvent, LoopContext } from './context.js';
import { legacyGuards } from './legacy-guards.js';
import { reviewGuards } from './review-guards.js';
import { verifyLegGuards } from './verify-legs.js';
import {
  beforeImageMissing,
  choiceApplies,
  companionInFlight,
  escalationDue,
  headLedger,
  outcomeKind,
  reservationPending,
  rules,
  seedOf,
  verificationOutcome,
} from './views.js';

/** What a guard sees: the context and the event being processed. */
interface GuardArgs {
  readonly context: LoopContext;
  readonly event: HumanEvent;
}

/** Every guard of the machine, by name. */
export const loopGuards = {
  // entry
  ledgerAbsent: ({ context }: GuardArgs) => context.workspace?.ledgerText === null,
  settingsUnavailable: ({ context }: GuardArgs) => context.settings === null,
  specUnusable: ({ context }: GuardArgs) => context.spec === null || context.specFindings.length > 0,
  seedImpossible: ({ context }: GuardArgs) => seedOf(context).ledger === null,
  /**
   * The ledger file on disk does not parse (and is no legacy `cap:` ledger, whose transitions
   * `entry.restoring` takes first): a configuration error, never a refresh over no ledger.
   */
  ledgerUnreadable: ({ context }: GuardArgs) =>
    context.workspace?.ledgerText != null && context.ledger === null,
  beforeImageMissing: ({ context }: GuardArgs) =>
    context.ledger?.pending != null && beforeImageMissing(context),
  pendingOnDisk: ({ context }: GuardArgs) =>
    context.ledger?.pending != null && context.ledger.pending.target !== 'verify',
  pendingVerifyOnDisk: ({ context }: GuardArgs) => context.ledger?.pending?.target === 'verify',
  treeDirty: ({ context }: GuardArgs) => (context.workspace?.porcelain ?? '').trim() !== '',
  /** The host's latest reservation is in flight although the ledger on disk carries no tuple. */
  reservationInFlight: ({ context }: GuardArgs) => reservationPending(context),
  // the ordered table
  configurationStop: ({ context }: GuardArgs) => rules(context).kind === 'configuration-stop',
  boundSpent: ({ context }: GuardArgs) => rules(context).kind === 'bound-spent-stop',
  unreachableAutoCut: ({ context }: GuardArgs) => {
    const outcome = rules(context);
    return outcome.kind === 'unreachable-amend' && outcome.autoApply;
  },
  unreachableNeedsHuman: ({ context }: GuardArgs) => rules(context).kind === 'unreachable-amend',
  /** `redraw: <why>` on the admitted failed target: a redraw stops under every approval option. */
  redrawItem: ({ context }: GuardArgs) => rules(context).kind === 'redraw-stop',
  /** An `amend:` item whose evidence the spec's `## Amendments` already answers. */
  repeatedEvidence: ({ context }: GuardArgs) => rules(context).kind === 'repeated-evidence-stop',
  amendItemAutoApply: ({ context }: GuardArgs) => {
    const outcome = rules(context);
    return outcome.kind === 'spec-amend' && outcome.autoApply;
  },
  amendItemNeedsHuman: ({ context }: GuardArgs) => rules(context).kind === 'spec-amend',
  noOpenOrFailedRow: ({ context }: GuardArgs) => rules(context).kind === 'verify',
  rowAtAllowance: ({ context }: GuardArgs) => rules(context).kind === 'row-stop',
  seedCountReached: ({ context }: GuardArgs) => rules(context).kind === 'seed-stop',
  seedDispatch: ({ context }: GuardArgs) => rules(context).kind === 'dispatch-seed',
  stagnationHint: ({ context }: GuardArgs) => {
    const outcome = rules(context);
    return (
      outcome.kind === 'dispatch-row' && outcome.hintSource !== null && outcome.hintSource !== 'human-retry'
    );
  },
  escalatedRound: ({ context }: GuardArgs) => escalationDue(context),
  /** `resolveImplModel` found neither a configured nor a main-loop model. */
  modelUnresolved: ({ event }: GuardArgs) => {
    const model = (event as unknown as { output: { model: string | null } }).output.model;
    return model === null || model.trim() === '';
  },
  // resume of a dispatch in flight
  neverLaunched: ({ event }: GuardArgs) =>
    (event as unknown as { output: DispatchRecovery }).output.launched === false,
  // validation
  interrupted: ({ context }: GuardArgs) => outcomeKind(context) === 'interrupted',
  unattributed: ({ context }: GuardArgs) => outcomeKind(context) === 'unattributed',
  seedMiss: ({ context }: GuardArgs) => outcomeKind(context) === 'miss' && context.plan?.target === 'seed',
  rowMiss: ({ context }: GuardArgs) => outcomeKind(context) === 'miss',
  admitted: ({ context }: GuardArgs) => outcomeKind(context) === 'admitted',
  // coordinated legs (§3.20): where a companion's path differs from home's
  companionMiss: ({ context }: GuardArgs) => outcomeKind(context) === 'miss' && companionInFlight(context),
  companionAdmitted: ({ context }: GuardArgs) =>
    outcomeKind(context) === 'admitted' && companionInFlight(context),
  companionDispatch: ({ context }: GuardArgs) => companionInFlight(context),
  // interrupted recovery
  notOwned: ({ event }: GuardArgs) =>
    (event as unknown as { output: { owned: boolean } }).output.owned === false,
  jobsUnresolved: ({ event }: GuardArgs) =>
    (event as unknown as { output: { problem: string | null } }).output.problem !== null,
  treeDirtyAfterReset: ({ event }: GuardArgs) =>
    (event as unknown as { output: { clean: boolean } }).output.clean === false,
  // verify
  gatesPassed: ({ event }: GuardArgs) => (event as unknown as { output: GateRun }).output.passed,
  verificationRepairAllowed: ({ context }: GuardArgs) =>
    verificationRepairAllowed(headLedger(context), context.history.verificationRepairs),
  verificationAdmitted: ({ context }: GuardArgs) => verificationOutcome(context)?.kind === 'admitted',
  verificationUnattributed: ({ context }: GuardArgs) => verificationOutcome(context)?.kind === 'unattributed',
  // human choices
  reopensRow: ({ context, event }: GuardArgs) =>
    event.type === 'human.amend' && event.amendment.kind === 'reopen' && choiceApplies(context, event),
  choiceApplies: ({ context, event }: GuardArgs) => choiceApplies(context, event),
  // verify steps 2-4: reviews, fix rounds, funding (review-guards.ts)
  ...reviewGuards,
  ...verifyLegGuards,
  ...legacyGuards,
};
