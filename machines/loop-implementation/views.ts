/**
 * Pure views of the loop context: thin calls into the protocol core (src/gauntlet/) that the
 * guards, actions and actor inputs of every region share.
 */
import { describeError } from '../../src/common/describe-value.js';
import type { Finding } from '../../src/common/finding.js';
import { amendSpecText } from '../../src/gauntlet/amendment.js';
import { amendmentEntries } from '../../src/gauntlet/amendment-items.js';
import {
  companionRecordEdit,
  dispatchLeg,
  isCompanionTuple,
  validateLegReturn,
} from '../../src/gauntlet/companion.js';
import {
  type DispatchPlan,
  planDispatch,
  reservationInFlight,
  restoredPlan,
} from '../../src/gauntlet/dispatch.js';
import type { HumanStop } from '../../src/gauntlet/human-stop.js';
import { parseLedger, serializeLedger } from '../../src/gauntlet/ledger.js';
import { criterionOfRow, specRowOfLedgerRow } from '../../src/gauntlet/leg-amendments.js';
import {
  amendItemEdit,
  cutRowEdit,
  emptyVerificationMarker,
  interruptedRowRepair,
  interruptedSeedRepair,
  type LedgerEdit,
  ordinaryMissRepair,
  preservingAmendEdit,
  raiseAllowanceEdit,
  redrawEdit,
  reopenRowEdit,
  retryEdit,
  seedMissRepair,
} from '../../src/gauntlet/repair.js';
import { evaluateRules, ledgerPreconditionStop, type RulesOutcome } from '../../src/gauntlet/rules.js';
import { seedLedger } from '../../src/gauntlet/seed.js';
import { parseSpec } from '../../src/gauntlet/spec.js';
import type { Ledger, Spec } from '../../src/gauntlet/types.js';
import { porcelainLines, type ReturnOutcome } from '../../src/gauntlet/validate.js';
import { type VerificationReturnOutcome, validateVerificationReturn } from '../../src/gauntlet/verify.js';
import type {
  BoundaryFacts,
  CommitRequest,
  GateRun,
  HumanEvent,
  LoopContext,
  WorkspaceFacts,
} from './context.js';

/** What the loop says when the person chose Stop (the `stopped` final state's output). */
export const STOPPED_BY_HUMAN = 'Stopped by the human: branch state preserved.\n';

/**
 * The ordered table's answer for the context (the pure `evaluateRules` over the ledger, history,
 * held settings and spec). Every guard of `implement.beforeDispatch` reads this.
 */
export function rulesOutcome(context: LoopContext): RulesOutcome {
  return rules(context);
}

export function rules(context: LoopContext): RulesOutcome {
  return evaluateRules({
    ledger: context.ledger,
    ledgerFindings: context.ledgerFindings,
    history: context.history,
    escalateAfter: context.settings?.escalateAfter ?? null,
    ...(context.spec === null
      ? {}
      : {
          routing: {
            spec: context.spec,
            amendPermission: amendPermission(context),
            amendments: amendmentEntries(context.specText ?? ''),
          },
        }),
  });
}

export function amendPermission(context: LoopContext): boolean {
  return context.spec?.amendGrant.kind === 'active';
}

/** The validation verdict on the return in flight (`validateReturn`), or `null` before a return. */
export function returnOutcomeOf(context: LoopContext): ReturnOutcome | null {
  return returnOutcome(context);
}

export function returnOutcome(context: LoopContext): ReturnOutcome | null {
  const { plan, boundary, child } = context;
  if (plan === null || child === null || boundary === null || plan.target === 'verify') return null;
  const home = boundary.home;
  return validateLegReturn({
    target: plan.target,
    iteration: plan.iteration,
    pending: plan.pending,
    saved: plan.saved,
    boundary: { ...child, porcelain: boundary.porcelain, commitCount: boundary.commitCount },
    ...(boundary.commit === null ? {} : { commit: boundary.commit }),
    ...headLedgerFacts(boundary),
    retainedActionRecords: context.actionRecords,
    ...(home === undefined
      ? {}
      : { home: { headBefore: plan.homeHead ?? home.head, head: home.head, porcelain: home.porcelain } }),
  });
}

/** The admission verdict on a verification repair in flight, or `null`. */
export function verificationOutcomeOf(context: LoopContext): VerificationReturnOutcome | null {
  return verificationOutcome(context);
}

export function verificationOutcome(context: LoopContext): VerificationReturnOutcome | null {
  const { plan, boundary, child } = context;
  if (plan === null || child === null || boundary === null || plan.target !== 'verify') return null;
  return validateVerificationReturn({
    pending: plan.pending,
    saved: plan.saved,
    boundary: { ...child, porcelain: boundary.porcelain, commitCount: boundary.commitCount },
    ...(boundary.commit === null ? {} : { commit: boundary.commit }),
    // A companion repair (L17) commits in its own checkout; the home ledger is the reserved one
    // as long as home shows no change besides it.
    ...(boundary.home === undefined
      ? headLedgerFacts(boundary)
      : {
          headLedger: plan.reserved,
          home: {
            headMoved: boundary.home.head !== (plan.homeHead ?? boundary.home.head),
            unexpectedDirt: boundary.home.porcelain,
          },
        }),
  });
}

/**
 * The ledger at HEAD as validation sees it. A single new commit whose tree has no ledger file is a
 * ledger that cannot be read (a validation miss of the target, repaired from the saved copy), not
 * a missing fact.
 */
function headLedgerFacts(boundary: BoundaryFacts): { headLedger?: Ledger | readonly Finding[] } {
  if (boundary.headLedgerText !== null) return { headLedger: ledgerOrFindings(boundary.headLedgerText) };
  if (boundary.commit === null) return {};
  return { headLedger: [{ code: 'ledger.absent', line: 0, reason: 'the commit deletes the ledger file' }] };
}

export function ledgerOrFindings(text: string): Ledger | readonly Finding[] {
  const parsed = parseLedger(text);
  return parsed.ledger ?? parsed.findings;
}

export function outcomeKind(context: LoopContext): string | null {
  return returnOutcome(context)?.kind ?? null;
}

/** The repair edit for the dispatch in flight, by what went wrong. */
export function repairEdit(context: LoopContext): LedgerEdit {
  const plan = context.plan as DispatchPlan;
  const input = { saved: plan.saved, pending: plan.pending, actionRecords: context.actionRecords };
  if (plan.target === 'verify')
    return emptyVerificationMarker({ ...input, reason: context.interruption ?? 'not admitted' });
  if (context.interruption !== null) {
    const reason = context.interruption as Parameters<typeof interruptedRowRepair>[0]['reason'];
    return plan.target === 'seed'
      ? interruptedSeedRepair({ ...input, reason })
      : interruptedRowRepair({ ...input, reason });
  }
  const outcome = returnOutcome(context);
  const miss = outcome?.kind === 'miss' ? outcome.miss : 'return not admitted';
  return plan.target === 'seed' ? seedMissRepair({ ...input, miss }) : ordinaryMissRepair({ ...input, miss });
}

export function headLedger(context: LoopContext): Ledger {
  return context.ledger as Ledger;
}

/** An effect's error text: the shared rule of every machine (`describeError`, src/common/describe-value.ts). */
export { describeError };

/** Whether an escalated round needs a model: the rules said so and no model is held yet. */
export function escalationDue(context: LoopContext): boolean {
  const outcome = rules(context);
  return outcome.kind === 'dispatch-row' && outcome.escalated;
}

/** The dispatch the ordered table selected, planned over the ledger at HEAD. */
export function planFromRules(
  context: LoopContext,
  model: string | null,
  ledger: Ledger = headLedger(context),
  head = context.head ?? '',
): DispatchPlan {
  const outcome = rules(context);
  const actionRecords = carriedRecords(context);
  if (outcome.kind === 'dispatch-seed')
    return planDispatch({
      ledger,
      target: 'seed',
      ...legOf(context, ledger, 'seed', head),
      hint: outcome.hint,
      previousDecision: null,
      actionRecords,
    });
  if (outcome.kind === 'dispatch-row')
    return planDispatch({
      ledger,
      target: outcome.row,
      ...legOf(context, ledger, outcome.row, head),
      hint: outcome.hint,
      previousDecision: outcome.previousDecision === 'none' ? null : outcome.previousDecision,
      model,
      actionRecords,
    });
  throw new Error(`the ordered table selected no dispatch (${outcome.kind})`);
}

/**
 * Where a dispatch goes (§3.20): the tuple's repo (the member of a coordinated run, `home` for a
 * single leg) and HEAD_BEFORE, the selected checkout's HEAD; a companion dispatch also keeps home
 * HEAD, which must not move while the companion works.
 */
export function legOf(
  context: LoopContext,
  ledger: Ledger,
  target: number | 'seed',
  homeHead: string,
): { repo: string; head: string; homeHead?: string } {
  const repo = dispatchLeg(ledger, target);
  const pending = { target, repo, head: homeHead };
  if (!isCompanionTuple(ledger, pending)) return { repo, head: homeHead };
  const head = context.legHeads?.[repo];
  if (head === undefined)
    throw new Error(`the checkout of leg ${repo} was not read (no --leg ${repo}=<path>?)`);
  return { repo, head, homeHead };
}

/** The home commit recording the admitted companion return in flight (§3.20). */
export function companionRecord(context: LoopContext): CommitRequest {
  const plan = context.plan as DispatchPlan;
  const outcome = returnOutcome(context);
  const sha = context.boundary?.commit?.sha;
  if (outcome?.kind !== 'admitted' || sha === undefined)
    throw new Error('no admitted companion return to record');
  return companionRecordEdit({
    admitted: outcome.ledger,
    changedRows: outcome.changedRows.map((c) => c.row),
    pending: plan.pending,
    companionSha: sha,
    actionRecords: context.actionRecords,
  });
}

/** Whether the dispatch in flight goes to a companion checkout (§3.20). */
export function companionInFlight(context: LoopContext): boolean {
  const plan = context.plan;
  // A companion verification repair too (L17): only the companion checkout is reset.
  return plan !== null && isCompanionTuple(plan.saved, plan.pending);
}

/**
 * The spend history a dispatch carries (§3.19 rule 4): every record of the refreshed history's
 * action spend (ledger decisions and evidence, repair bodies), once each, grouped by action.
 */
export function carriedRecords(context: LoopContext): string[] {
  return context.history.actionSpend.flatMap((spend) => spend.records);
}

/**
 * The dispatch found in flight at resume: before-image from the tuple's HEAD, reserved from disk,
 * task fields (hint, previous decision, model, carried spend) from the plan stored at reservation.
 */
export function planFromDisk(context: LoopContext): DispatchPlan {
  const reserved = headLedger(context);
  const savedText = context.workspace?.savedLedgerText ?? null;
  const saved = savedText === null ? null : parseLedger(savedText).ledger;
  if (saved === null || reserved.pending === null)
    throw new Error('the pending dispatch has no recoverable before-image');
  return restoredPlan(
    saved,
    reserved,
    context.workspace?.reservation?.plan,
    isCompanionTuple(saved, reserved.pending) ? (context.workspace?.head ?? undefined) : undefined,
  );
}

/**
 * Whether the host's latest reservation is a dispatch still in flight although the ledger on disk
 * carries no tuple: its child committed, then the run ended before the parent validated it.
 */
export function reservationPending(context: LoopContext): boolean {
  return reservationInFlight(context.ledger, context.workspace?.reservation);
}

/**
 * Resumes that reservation: the ledger is its reserved ledger and the before-image its saved one,
 * what the worktree held when the child started; the child's commit is then validated as usual.
 */
export function adoptedReservation(
  context: LoopContext,
): Pick<LoopContext, 'workspace' | 'ledger' | 'ledgerFindings'> {
  const workspace = context.workspace as WorkspaceFacts;
  const { plan } = workspace.reservation as NonNullable<WorkspaceFacts['reservation']>;
  return {
    workspace: {
      ...workspace,
      ledgerText: serializeLedger(plan.reserved),
      savedLedgerText: serializeLedger(plan.saved),
    },
    ledger: plan.reserved,
    ledgerFindings: [],
  };
}

/**
 * The configuration error of a restore whose ledger on disk does not parse (§3.2; §3.4's
 * preconditions hold "including for seed and completed ledgers"): the precondition's sentence when
 * the `checks:` or `allowance:` line is what fails, as the ordered table would stop, otherwise
 * `the ledger <path> does not parse`; the parser's findings either way.
 */
export function unreadableLedgerProblem(context: LoopContext): NonNullable<LoopContext['problem']> {
  const stop = ledgerPreconditionStop(null, context.ledgerFindings);
  const message =
    stop === null || stop.problem === 'ledger-invalid'
      ? `the ledger ${context.input.ledgerPath} does not parse`
      : stop.message;
  return { message, findings: context.ledgerFindings };
}

export function beforeImageMissing(context: LoopContext): boolean {
  const text = context.workspace?.savedLedgerText ?? null;
  return text === null || parseLedger(text).ledger === null;
}

/** Spec text after an amendment, parsed again (§3.17: re-decode the grant and dispositions). */
export function respec(specText: string | null): Pick<LoopContext, 'specText' | 'spec' | 'specFindings'> {
  if (specText === null) return { specText: null, spec: null, specFindings: [] };
  const parsed = parseSpec(specText);
  return { specText, spec: parsed.spec, specFindings: parsed.findings };
}

/** Whether a human choice can be applied to the ledger as it is (a bad row is refused, not thrown). */
export function choiceApplies(context: LoopContext, event: HumanEvent): boolean {
  try {
    choiceEdit(context, event);
    return true;
  } catch {
    return false;
  }
}

/** Input of `dispatchChild` (the plan carries the task fields); a verification repair also gets the failing gate. */
export function dispatchInput(context: LoopContext, gate: GateRun | null) {
  return {
    plan: context.plan as DispatchPlan,
    ledgerPath: context.input.ledgerPath,
    specPath: context.input.specPath,
    gate,
  };
}

/** Input of `reserveDispatch` and `readBoundary`: the dispatch in flight and the ledger path. */
export function planInput(context: LoopContext) {
  return { plan: context.plan as DispatchPlan, ledgerPath: context.input.ledgerPath };
}

/** The human stop the ordered table's outcome calls for, if it calls for one. */
export function ruleStop(context: LoopContext): HumanStop | null {
  const outcome = rules(context);
  switch (outcome.kind) {
    case 'bound-spent-stop':
      return { kind: 'bound-spent', row: outcome.row };
    case 'row-stop':
      return { kind: 'row-allowance', row: outcome.row };
    case 'seed-stop': {
      const lastReason = context.history.lastSeedRepairReason;
      return {
        kind: 'seed-exhaustion',
        seedRepairs: context.history.seedRepairCount,
        ...(lastReason === null ? {} : { lastReason }),
      };
    }
    case 'spec-amend':
      return {
        kind: 'spec-amend',
        row: outcome.row,
        what: outcome.what,
        evidence: outcome.evidence,
        entry: outcome.entry,
      };
    case 'repeated-evidence-stop':
      return {
        kind: 'repeated-evidence',
        row: outcome.row,
        what: outcome.what,
        evidence: outcome.evidence,
        earlier: outcome.earlier,
      };
    case 'redraw-stop':
      return { kind: 'redraw', row: outcome.row, reason: outcome.reason };
    case 'unreachable-amend': {
      const rowText =
        context.spec === null
          ? undefined
          : specRowOfLedgerRow(context.spec, headLedger(context), outcome.row)?.text;
      return {
        kind: 'unreachable-amend',
        row: outcome.row,
        what: outcome.what,
        where: outcome.where,
        ...(rowText === undefined ? {} : { rowText }),
      };
    }
    default:
      return null;
  }
}

/**
 * The first ten lines of the unexpected dirt at entry, for a dirty-tree stop, each porcelain line
 * whole (an unstaged ` M file` keeps its blank index column).
 */
export function dirtDetail(context: LoopContext): string {
  return porcelainLines(context.workspace?.porcelain ?? '')
    .slice(0, 10)
    .join('; ');
}

/** What an unattributed verdict found, for the recovery-incomplete stop's detail. */
export function unattributedDetail(outcome: { kind: string; detail?: string } | null): string {
  return outcome?.kind === 'unattributed' ? (outcome.detail ?? '') : '';
}

export function seedOf(context: LoopContext) {
  return seedLedger(context.spec as Spec, {
    specPath: context.input.specPath,
    base: context.workspace?.head ?? '',
    verification: context.input.verification,
    allowance: context.settings?.allowance,
    ...(context.workspace?.legHeads === undefined ? {} : { memberBases: context.workspace.legHeads }),
  });
}

/** Human-choice edits: the ledger edit (and spec text) for a retry, raise or amendment. */
export function choiceEdit(context: LoopContext, event: HumanEvent): CommitRequest {
  const ledger = headLedger(context);
  switch (event.type) {
    case 'human.retry':
      return retryEdit(ledger, event.row, event.hint);
    case 'human.raise':
      return raiseAllowanceEdit(ledger, event.amount, event.words);
    case 'human.amend': {
      const amendment = event.amendment;
      const specText = context.specText ?? '';
      if (amendment.kind === 'cut')
        return {
          ...cutRowEdit(ledger, amendment.row, amendment.disposition),
          specText: amendSpecText(specText, onCriterion(ledger, amendment)),
        };
      if (amendment.kind === 'reopen') {
        const edit = reopenRowEdit(
          ledger,
          amendment.row,
          amendment.text === undefined
            ? 'reopened by a human amendment - the spec text is unchanged'
            : `reopened by a human amendment - criterion ${criterionOf(ledger, amendment.row)} is now: ${amendment.text}`,
        );
        return amendment.text === undefined
          ? edit
          : { ...edit, specText: amendSpecText(specText, onCriterion(ledger, amendment)) };
      }
      return { ...preservingAmendEdit(ledger, amendment.what), specText: amendSpecText(specText, amendment) };
    }
    default:
      throw new Error(`no ledger edit for ${event.type}`);
  }
}

/**
 * The criterion a ledger row names (L12): the spec side of an amendment answered by row edits the
 * criterion `## Leg mapping` maps the row to; a single-leg row is its criterion.
 */
function criterionOf(ledger: Ledger, row: number): number {
  const ac = criterionOfRow(ledger, row);
  if (ac === null) throw new Error(`row ${row} has no leg mapping`);
  return ac;
}

/** A row-numbered spec amendment carried to the row's criterion (L12). */
function onCriterion<A extends { readonly row: number }>(ledger: Ledger, amendment: A): A {
  return { ...amendment, row: criterionOf(ledger, amendment.row) };
}

/** The automatic cut of an unreachable row under amend permission (§3.13). */
export function unreachableCut(context: LoopContext): CommitRequest {
  const outcome = rules(context);
  if (outcome.kind !== 'unreachable-amend') throw new Error('no unreachable amend item to apply');
  const grant = context.spec?.amendGrant.kind === 'active' ? context.spec.amendGrant.sentence : undefined;
  return {
    ...cutRowEdit(headLedger(context), outcome.row, outcome.disposition, grant),
    specText: amendSpecText(context.specText ?? '', {
      kind: 'cut',
      row: criterionOf(headLedger(context), outcome.row),
      disposition: outcome.disposition,
      outOfScope: outcome.outOfScope,
    }),
  };
}

/** The amend item applied under amend permission (`loop: amend`, one `## Amendments` entry). */
export function amendItemApply(context: LoopContext): CommitRequest {
  const outcome = rules(context);
  if (outcome.kind !== 'spec-amend') throw new Error('no amend item to apply');
  const grant = context.spec?.amendGrant.kind === 'active' ? context.spec.amendGrant.sentence : undefined;
  return {
    ...amendItemEdit(headLedger(context), outcome.row, outcome.what, outcome.evidence, grant),
    specText: amendSpecText(context.specText ?? '', { kind: 'preserve', what: outcome.entry }),
  };
}

/** The redraw commit: `loop: redraw` deleting the ledger file (and nothing else). */
export function redrawRequest(context: LoopContext, reason: string): CommitRequest {
  return { ...redrawEdit(headLedger(context), reason), deleteLedger: true };
}

/** What the run says after a redraw: the ledger is gone and the next run seeds a fresh one. */
export function redrawnText(ledgerPath: string, reason: string): string {
  return `Redrawn: ${ledgerPath} is deleted (loop: redraw - ${reason}). Redraw the spec, then run again: the next run seeds a fresh ledger from the spec.\n`;
}

/** The reason of the redraw being committed (its body line `redraw: <reason>`). */
export function redrawReason(context: LoopContext): string {
  const body = context.pendingChoice?.body ?? '';
  return body.startsWith('redraw: ') ? body.slice('redraw: '.length) : body;
}
