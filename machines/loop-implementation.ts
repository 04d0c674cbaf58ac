/**
 * The pi-gauntlet loop engine ("loop-implementation") as an XState v5 statechart.
 *
 * States are the protocol's: entry (fresh seeding or authorized restore), implement (the ordered
 * table before each dispatch, the escalated round, dispatch, validation, repairs, interrupted
 * recovery, amendments), the human stops (one state per stop kind, each accepting exactly the
 * choices its menu offers), verify (gate set, verification repairs, reviews, closure) and the
 * terminal states. Every guard is a thin call into the pure protocol core in src/gauntlet/; every
 * side effect is a named actor that throws "not provided" until the host supplies it with
 * `machine.provide({ actors })` (src/host/ wires the real ones).
 *
 * The ordered table before each dispatch is one ordered list of guarded `always` transitions whose
 * descriptions carry the rule labels (R1..R4), so the generated diagram reads like the table.
 */
import { assign, emit, enqueueActions, fromPromise, setup } from 'xstate';
import { NotProvidedError } from '../src/common/errors.js';
import type { Finding } from '../src/common/finding.js';
import { distinctActionRecords } from '../src/gauntlet/action-records.js';
import { amendSpecText } from '../src/gauntlet/amendment.js';
import { type DispatchPlan, planDispatch, restoredPlan } from '../src/gauntlet/dispatch.js';
import { emptyLoopHistory, historyFromCommits, type LoopHistory } from '../src/gauntlet/history.js';
import type { HumanStop, VerificationProblem } from '../src/gauntlet/human-stop.js';
import { parseLedger } from '../src/gauntlet/ledger.js';
import {
  cutRowEdit,
  emptyVerificationMarker,
  escalationEdit,
  interruptedRowRepair,
  interruptedSeedRepair,
  type LedgerEdit,
  ordinaryMissRepair,
  preservingAmendEdit,
  raiseAllowanceEdit,
  reopenRowEdit,
  retryEdit,
  seedMissRepair,
  verificationRepairMarker,
} from '../src/gauntlet/repair.js';
import { evaluateRules, type RulesOutcome } from '../src/gauntlet/rules.js';
import { seedLedger } from '../src/gauntlet/seed.js';
import { parseSpec } from '../src/gauntlet/spec.js';
import type { ActionRecord, CommitFact, Ledger, Spec } from '../src/gauntlet/types.js';
import { type ReturnOutcome, validateReturn } from '../src/gauntlet/validate.js';
import {
  type VerificationReturnOutcome,
  validateVerificationReturn,
  verificationRepairAllowed,
} from '../src/gauntlet/verify.js';

// ---------------------------------------------------------------------------------------------
// Input, actor contracts and context

/** What the host passes when it creates the loop actor. */
export interface LoopImplementationInput {
  /** Repo-relative path of the ledger file. */
  readonly ledgerPath: string;
  /** Repo-relative path of the spec file. */
  readonly specPath: string;
  /** The verification (CI) command a fresh ledger records; also the default gate set. */
  readonly verification: string;
}

/** What `inspectWorkspace` reports at entry. */
export interface WorkspaceFacts {
  /** Full SHA of HEAD. */
  readonly head: string;
  /**
   * `git status --porcelain` minus the loop's own expected dirt (the ledger when its bytes are
   * exactly the reserved bump and tuple).
   */
  readonly porcelain: string;
  /** The ledger file in the worktree, or `null` when there is none (a fresh run). */
  readonly ledgerText: string | null;
  /** The spec file in the worktree, or `null` when it cannot be read. */
  readonly specText: string | null;
  /** When the ledger carries a pending tuple: the ledger at the tuple's HEAD (the before-image). */
  readonly savedLedgerText: string | null;
}

/** Settings held for the run (resolved once at entry). */
export interface LoopSettings {
  /** Allowance of a fresh ledger (the allowance setting; default 4). */
  readonly allowance: number;
  /** `loopEngine.escalateAfter`. */
  readonly escalateAfter: number;
}

/** What a child dispatch reported (before git is read). */
export interface ChildReport {
  /** `DONE`, another status, or `null` when the child wrote no return. */
  readonly returned: string | null;
  readonly dispatchError?: string;
  readonly killedAfterSilence?: boolean;
}

/** What `recoverDispatch` learns about a dispatch found in flight at resume. */
export type DispatchRecovery = { readonly launched: false } | ({ readonly launched: true } & ChildReport);

/** What git says after a child returned. */
export interface BoundaryFacts {
  /** Unexpected dirt: `status --porcelain` minus the reserved ledger when it is byte-identical. */
  readonly porcelain: string;
  /** `rev-list HEAD_BEFORE..HEAD --count`. */
  readonly commitCount: number;
  /** The single new commit, when there is exactly one. */
  readonly commit: { readonly sha: string; readonly subject: string; readonly body: string } | null;
  /** The ledger at HEAD, when there is exactly one new commit. */
  readonly headLedgerText: string | null;
  /**
   * Action records the child wrote in the dispatch's jobs file (§3.19): each must survive in the
   * admitted ledger, or the return is a validation miss.
   */
  readonly actionRecords?: readonly ActionRecord[];
}

/** What `refresh` reads: the durable state the loop rebuilds itself from. */
export interface RefreshFacts {
  /** Full SHA of HEAD. */
  readonly head: string;
  readonly ledgerText: string;
  /** Commits since the ledger base, oldest first. */
  readonly commits: readonly CommitFact[];
}

/** A ledger (and optionally spec) write plus one commit. */
export interface CommitRequest {
  readonly ledger: Ledger;
  readonly subject: string;
  readonly body: string;
  /** New spec text to write and commit together with the ledger (amendments). */
  readonly specText?: string;
  /** Allow a commit that changes nothing (never needed by the protocol; false). */
  readonly allowEmpty?: boolean;
}

/** Outcome of the gate set (verify step 1). */
export type GateRun =
  | { readonly passed: true }
  | {
      readonly passed: false;
      readonly gate: number;
      readonly command: string;
      readonly exitCode: number;
      readonly logPath: string;
      /** The last lines of the gate's log (at most 20). */
      readonly tail: string;
    };

/** Outcome of an optional review actor. */
export interface ReviewResult {
  /** `false` when the host has no reviewer for this step. */
  readonly ran: boolean;
  readonly verdict?: string;
}

/** Events a person sends at a human stop. Each stop state accepts only the offers of its menu. */
export type HumanEvent =
  | { readonly type: 'human.retry'; readonly row: number; readonly hint: string }
  | { readonly type: 'human.raise'; readonly amount: number; readonly words: string }
  | {
      readonly type: 'human.amend';
      readonly amendment:
        | { readonly kind: 'cut'; readonly row: number; readonly disposition: string }
        | { readonly kind: 'reopen'; readonly row: number }
        | { readonly kind: 'preserve'; readonly what: string };
    }
  | { readonly type: 'human.discard' }
  | { readonly type: 'human.return' }
  | { readonly type: 'human.stop' };

/** A line the loop prints without stopping (`terminated <k> child jobs`, `amended the spec: …`). */
export interface NoticeEvent {
  readonly type: 'notice';
  readonly text: string;
}

/** The loop actor's context. Everything here is rebuilt from disk and git on resume. */
export interface LoopContext {
  readonly input: LoopImplementationInput;
  readonly settings: LoopSettings | null;
  /** Why settings could not be resolved, when they could not. */
  readonly settingsProblem: string | null;
  readonly workspace: WorkspaceFacts | null;
  readonly specText: string | null;
  readonly spec: Spec | null;
  readonly specFindings: readonly Finding[];
  /** The ledger as on disk (HEAD plus an uncommitted bump and tuple while a dispatch is in flight). */
  readonly ledger: Ledger | null;
  readonly ledgerFindings: readonly Finding[];
  readonly history: LoopHistory;
  /** The dispatch in flight: saved ledger, reserved ledger, tuple and task fields. */
  readonly plan: DispatchPlan | null;
  /** The resolved model of an escalated round or a verification repair. */
  readonly model: string | null;
  readonly child: ChildReport | null;
  readonly boundary: BoundaryFacts | null;
  /** Action records retained for the dispatch in flight (jobs file, earlier repair bodies). */
  readonly actionRecords: readonly ActionRecord[];
  /** The reason an interrupted dispatch is being recovered. */
  readonly interruption: string | null;
  /** The stop the loop is waiting at, for the host to render. */
  readonly stop: HumanStop | null;
  /** The ledger whose rows the stop lists (restored pre-dispatch cells at rejected-return stops). */
  readonly stopLedger: Ledger | null;
  /** Configuration problem that ended the run (exit code 2). */
  readonly problem: { readonly message: string; readonly findings: readonly Finding[] } | null;
  /** The last failed gate run (verify). */
  readonly gateFailure: Extract<GateRun, { passed: false }> | null;
  /** Reviews run in verify steps 2 and 3. */
  readonly reviews: readonly { readonly step: string; readonly result: ReviewResult }[];
  /** The human choice being committed (computed when the stop accepted the event). */
  readonly pendingChoice: CommitRequest | null;
  /** Full SHA of HEAD as last read. */
  readonly head: string | null;
  /** Internal error text, when an effect failed unexpectedly. */
  readonly error: string | null;
}

// ---------------------------------------------------------------------------------------------
// Pure views of the context (thin calls into the protocol core)

/**
 * The ordered table's answer for the context (the pure `evaluateRules` over the ledger, history,
 * held settings and spec). Every guard of `implement.beforeDispatch` reads this.
 */
export function rulesOutcome(context: LoopContext): RulesOutcome {
  return rules(context);
}

function rules(context: LoopContext): RulesOutcome {
  return evaluateRules({
    ledger: context.ledger,
    ledgerFindings: context.ledgerFindings,
    history: context.history,
    escalateAfter: context.settings?.escalateAfter ?? null,
    ...(context.spec === null
      ? {}
      : { routing: { spec: context.spec, amendPermission: amendPermission(context) } }),
  });
}

function amendPermission(context: LoopContext): boolean {
  return context.spec?.amendGrant.kind === 'active';
}

/** The validation verdict on the return in flight (`validateReturn`), or `null` before a return. */
export function returnOutcomeOf(context: LoopContext): ReturnOutcome | null {
  return returnOutcome(context);
}

function returnOutcome(context: LoopContext): ReturnOutcome | null {
  const { plan, boundary, child } = context;
  if (plan === null || child === null || boundary === null || plan.target === 'verify') return null;
  return validateReturn({
    target: plan.target,
    iteration: plan.iteration,
    pending: plan.pending,
    saved: plan.saved,
    boundary: { ...child, porcelain: boundary.porcelain, commitCount: boundary.commitCount },
    ...(boundary.commit === null ? {} : { commit: boundary.commit }),
    ...(boundary.headLedgerText === null ? {} : { headLedger: ledgerOrFindings(boundary.headLedgerText) }),
    retainedActionRecords: context.actionRecords,
  });
}

/** The admission verdict on a verification repair in flight, or `null`. */
export function verificationOutcomeOf(context: LoopContext): VerificationReturnOutcome | null {
  return verificationOutcome(context);
}

function verificationOutcome(context: LoopContext): VerificationReturnOutcome | null {
  const { plan, boundary, child } = context;
  if (plan === null || child === null || boundary === null || plan.target !== 'verify') return null;
  return validateVerificationReturn({
    pending: plan.pending,
    saved: plan.saved,
    boundary: { ...child, porcelain: boundary.porcelain, commitCount: boundary.commitCount },
    ...(boundary.commit === null ? {} : { commit: boundary.commit }),
    ...(boundary.headLedgerText === null ? {} : { headLedger: ledgerOrFindings(boundary.headLedgerText) }),
  });
}

function ledgerOrFindings(text: string): Ledger | readonly Finding[] {
  const parsed = parseLedger(text);
  return parsed.ledger ?? parsed.findings;
}

function outcomeKind(context: LoopContext): string | null {
  return returnOutcome(context)?.kind ?? null;
}

/** The repair edit for the dispatch in flight, by what went wrong. */
function repairEdit(context: LoopContext): LedgerEdit {
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

function headLedger(context: LoopContext): Ledger {
  return context.ledger as Ledger;
}

function verificationProblem(context: LoopContext): VerificationProblem {
  const failure = context.gateFailure;
  if (failure === null) return { kind: 'missing-model' };
  return {
    kind: 'gate',
    gate: failure.gate,
    exitCode: failure.exitCode,
    logPath: failure.logPath,
    tail: failure.tail,
  };
}

function notProvided(name: string) {
  return async (): Promise<never> => {
    throw new NotProvidedError(name);
  };
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/** Whether an escalated round needs a model: the rules said so and no model is held yet. */
function escalationDue(context: LoopContext): boolean {
  const outcome = rules(context);
  return outcome.kind === 'dispatch-row' && outcome.escalated;
}

/** The dispatch the ordered table selected, planned over the ledger at HEAD. */
function planFromRules(
  context: LoopContext,
  model: string | null,
  ledger: Ledger = headLedger(context),
  head = context.head ?? '',
): DispatchPlan {
  const outcome = rules(context);
  if (outcome.kind === 'dispatch-seed')
    return planDispatch({ ledger, target: 'seed', head, hint: outcome.hint, previousDecision: null });
  if (outcome.kind === 'dispatch-row')
    return planDispatch({
      ledger,
      target: outcome.row,
      head,
      hint: outcome.hint,
      previousDecision: outcome.previousDecision === 'none' ? null : outcome.previousDecision,
      model,
    });
  throw new Error(`the ordered table selected no dispatch (${outcome.kind})`);
}

/** The dispatch found in flight at resume: before-image from the tuple's HEAD, reserved from disk. */
function planFromDisk(context: LoopContext): DispatchPlan {
  const reserved = headLedger(context);
  const savedText = context.workspace?.savedLedgerText ?? null;
  const saved = savedText === null ? null : parseLedger(savedText).ledger;
  if (saved === null || reserved.pending === null)
    throw new Error('the pending dispatch has no recoverable before-image');
  return restoredPlan(saved, reserved);
}

function beforeImageMissing(context: LoopContext): boolean {
  const text = context.workspace?.savedLedgerText ?? null;
  return text === null || parseLedger(text).ledger === null;
}

/** Spec text after an amendment, parsed again (§3.17: re-decode the grant and dispositions). */
function respec(specText: string | null): Pick<LoopContext, 'specText' | 'spec' | 'specFindings'> {
  if (specText === null) return { specText: null, spec: null, specFindings: [] };
  const parsed = parseSpec(specText);
  return { specText, spec: parsed.spec, specFindings: parsed.findings };
}

/** Whether a human choice can be applied to the ledger as it is (a bad row is refused, not thrown). */
function choiceApplies(context: LoopContext, event: HumanEvent): boolean {
  try {
    choiceEdit(context, event);
    return true;
  } catch {
    return false;
  }
}

/** Input of `dispatchChild`; a verification repair also gets the failing gate. */
function dispatchInput(context: LoopContext, gate: GateRun | null) {
  return {
    plan: context.plan as DispatchPlan,
    ledgerPath: context.input.ledgerPath,
    specPath: context.input.specPath,
    actionRecords: context.actionRecords,
    gate,
  };
}

/** Input of `reserveDispatch` and `readBoundary`: the dispatch in flight and the ledger path. */
function planInput(context: LoopContext) {
  return { plan: context.plan as DispatchPlan, ledgerPath: context.input.ledgerPath };
}

/** The human stop the ordered table's outcome calls for, if it calls for one. */
function ruleStop(context: LoopContext): HumanStop | null {
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
    case 'unreachable-amend': {
      const rowText = context.spec?.rows.find((r) => r.row === outcome.row)?.text;
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

/** What an unattributed verdict found, for the recovery-incomplete stop's detail. */
function unattributedDetail(outcome: { kind: string; detail?: string } | null): string {
  return outcome?.kind === 'unattributed' ? (outcome.detail ?? '') : '';
}

// ---------------------------------------------------------------------------------------------
// The machine

const loopSetup = setup({
  types: {
    context: {} as LoopContext,
    input: {} as LoopImplementationInput,
    events: {} as HumanEvent,
    emitted: {} as NoticeEvent,
  },
  actors: {
    /** Reads HEAD, dirt, the ledger, the spec and a pending tuple's before-image. */
    inspectWorkspace: fromPromise<WorkspaceFacts, { ledgerPath: string; specPath: string }>(
      notProvided('inspectWorkspace'),
    ),
    /** Resolves the allowance setting and `loopEngine.escalateAfter` once per run. */
    resolveSettings: fromPromise<LoopSettings, Record<string, never>>(notProvided('resolveSettings')),
    /** Writes the ledger (and the spec for amendments) and makes exactly one commit. */
    commitLedger: fromPromise<{ head: string }, CommitRequest>(notProvided('commitLedger')),
    /** Reads the ledger on disk and every commit since the ledger base. */
    refresh: fromPromise<RefreshFacts, { ledgerPath: string; base: string }>(notProvided('refresh')),
    /** Resolves `escalationLoop.implModel`; `null` when neither a configured nor a main-loop model exists. */
    resolveImplModel: fromPromise<{ model: string | null }, { row: number | 'verify' }>(
      notProvided('resolveImplModel'),
    ),
    /** Writes the reserved ledger (bump and tuple) on disk, uncommitted, with the dispatch record. */
    reserveDispatch: fromPromise<Record<string, never>, { plan: DispatchPlan; ledgerPath: string }>(
      notProvided('reserveDispatch'),
    ),
    /** Runs one child for the planned dispatch and reports its return. */
    dispatchChild: fromPromise<
      ChildReport,
      {
        plan: DispatchPlan;
        ledgerPath: string;
        specPath: string;
        actionRecords: readonly ActionRecord[];
        gate: GateRun | null;
      }
    >(notProvided('dispatchChild')),
    /** At resume: finds out whether the dispatch in flight was launched and how it ended. */
    recoverDispatch: fromPromise<DispatchRecovery, { plan: DispatchPlan }>(notProvided('recoverDispatch')),
    /** Reads git after a return: unexpected dirt, new commits, the single commit and its ledger. */
    readBoundary: fromPromise<BoundaryFacts, { plan: DispatchPlan; ledgerPath: string }>(
      notProvided('readBoundary'),
    ),
    /** Interrupted recovery step 1: exclusive checkout provenance and action accounting. */
    checkProvenance: fromPromise<
      { owned: true; actionRecords: readonly ActionRecord[] } | { owned: false; what: string },
      { plan: DispatchPlan }
    >(notProvided('checkProvenance')),
    /** Interrupted recovery step 2: terminates the child's owned background jobs. */
    cleanupJobs: fromPromise<
      { terminated: number; problem: string | null; actionRecords: readonly ActionRecord[] },
      { plan: DispatchPlan }
    >(notProvided('cleanupJobs')),
    /** Interrupted recovery step 3: `reset --hard HEAD_BEFORE` and `clean -fd`, then checks the tree. */
    resetCheckout: fromPromise<{ clean: boolean }, { head: string }>(notProvided('resetCheckout')),
    /** After a durable admission or repair: deletes the dispatch's jobs file and record. */
    finishDispatch: fromPromise<Record<string, never>, { plan: DispatchPlan }>(notProvided('finishDispatch')),
    /** Discards unowned dirt after explicit human authorization (commit-boundary stop). */
    discardChanges: fromPromise<{ clean: boolean }, { head: string }>(notProvided('discardChanges')),
    /** Verify step 1: runs the gate set fail-fast; commits gate-produced tracked changes. */
    runGates: fromPromise<GateRun, { ledger: Ledger }>(notProvided('runGates')),
    /** Verify step 2: whole-diff review (optional; report `ran: false` when there is none). */
    reviewDiff: fromPromise<ReviewResult, { base: string }>(notProvided('reviewDiff')),
    /** Verify step 3: conformance review against the spec (optional, like `reviewDiff`). */
    conformanceReview: fromPromise<ReviewResult, { base: string; specPath: string }>(
      notProvided('conformanceReview'),
    ),
  },
  guards: {
    // entry
    ledgerAbsent: ({ context }) => context.workspace?.ledgerText === null,
    settingsUnavailable: ({ context }) => context.settings === null,
    specUnusable: ({ context }) => context.spec === null || context.specFindings.length > 0,
    seedImpossible: ({ context }) => seedOf(context).ledger === null,
    beforeImageMissing: ({ context }) => context.ledger?.pending != null && beforeImageMissing(context),
    pendingOnDisk: ({ context }) =>
      context.ledger?.pending != null && context.ledger.pending.target !== 'verify',
    pendingVerifyOnDisk: ({ context }) => context.ledger?.pending?.target === 'verify',
    treeDirty: ({ context }) => (context.workspace?.porcelain ?? '').trim() !== '',
    // the ordered table
    configurationStop: ({ context }) => rules(context).kind === 'configuration-stop',
    boundSpent: ({ context }) => rules(context).kind === 'bound-spent-stop',
    unreachableAutoCut: ({ context }) => {
      const outcome = rules(context);
      return outcome.kind === 'unreachable-amend' && outcome.autoApply;
    },
    unreachableNeedsHuman: ({ context }) => rules(context).kind === 'unreachable-amend',
    noOpenOrFailedRow: ({ context }) => rules(context).kind === 'verify',
    rowAtAllowance: ({ context }) => rules(context).kind === 'row-stop',
    seedCountReached: ({ context }) => rules(context).kind === 'seed-stop',
    seedDispatch: ({ context }) => rules(context).kind === 'dispatch-seed',
    stagnationHint: ({ context }) => {
      const outcome = rules(context);
      return (
        outcome.kind === 'dispatch-row' && outcome.hintSource !== null && outcome.hintSource !== 'human-retry'
      );
    },
    escalatedRound: ({ context }) => escalationDue(context),
    /** `resolveImplModel` found neither a configured nor a main-loop model. */
    modelUnresolved: ({ event }) => {
      const model = (event as unknown as { output: { model: string | null } }).output.model;
      return model === null || model.trim() === '';
    },
    // resume of a dispatch in flight
    neverLaunched: ({ event }) =>
      (event as unknown as { output: DispatchRecovery }).output.launched === false,
    // validation
    interrupted: ({ context }) => outcomeKind(context) === 'interrupted',
    unattributed: ({ context }) => outcomeKind(context) === 'unattributed',
    seedMiss: ({ context }) => outcomeKind(context) === 'miss' && context.plan?.target === 'seed',
    rowMiss: ({ context }) => outcomeKind(context) === 'miss',
    admitted: ({ context }) => outcomeKind(context) === 'admitted',
    // interrupted recovery
    notOwned: ({ event }) => (event as unknown as { output: { owned: boolean } }).output.owned === false,
    jobsUnresolved: ({ event }) =>
      (event as unknown as { output: { problem: string | null } }).output.problem !== null,
    treeDirtyAfterReset: ({ event }) =>
      (event as unknown as { output: { clean: boolean } }).output.clean === false,
    // verify
    gatesPassed: ({ event }) => (event as unknown as { output: GateRun }).output.passed,
    verificationRepairAllowed: ({ context }) =>
      verificationRepairAllowed(headLedger(context), context.history.verificationRepairs),
    verificationAdmitted: ({ context }) => verificationOutcome(context)?.kind === 'admitted',
    verificationUnattributed: ({ context }) => verificationOutcome(context)?.kind === 'unattributed',
    // human choices
    reopensRow: ({ context, event }) =>
      event.type === 'human.amend' && event.amendment.kind === 'reopen' && choiceApplies(context, event),
    choiceApplies: ({ context, event }) => choiceApplies(context, event),
  },
  actions: {
    notice: emit((_, params: { text: string }) => ({ type: 'notice' as const, text: params.text })),
    /** The reserved ledger (bump and tuple) is now the ledger on disk. */
    keepReserved: assign({ ledger: ({ context }) => (context.plan as DispatchPlan).reserved }),
    /** Keeps what the child reported. */
    keepChildReport: assign({ child: ({ event }) => (event as unknown as { output: ChildReport }).output }),
    /** A dispatch that failed to run is a `dispatch error` return. */
    keepDispatchError: assign({
      child: ({ event }) => ({
        returned: null,
        dispatchError: describeError((event as unknown as { error: unknown }).error),
      }),
    }),
    /** Keeps how a dispatch found in flight at resume ended. */
    keepRecoveredReport: assign({
      child: ({ event }) => {
        const { launched: _launched, ...report } = (
          event as unknown as { output: Extract<DispatchRecovery, { launched: true }> }
        ).output;
        return report;
      },
    }),
    /** Keeps what git said after the return, and retains the jobs file's action records. */
    keepBoundary: assign(({ context, event }) => {
      const boundary = (event as unknown as { output: BoundaryFacts }).output;
      return {
        boundary,
        actionRecords: distinctActionRecords([...context.actionRecords, ...(boundary.actionRecords ?? [])]),
      };
    }),
    /** The escalated round is due but no model resolves: `Problem: escalationLoop.implModel unavailable`. */
    stopMissingModel: assign(({ context }) => {
      const outcome = rules(context);
      return {
        stop: { kind: 'missing-model' as const, row: outcome.kind === 'dispatch-row' ? outcome.row : 0 },
        stopLedger: context.ledger,
      };
    }),
    /** A verification repair is due but no model resolves: the verification stop, without a repair. */
    stopMissingRepairModel: assign(({ context }) => ({
      stop: {
        kind: 'verification-failed' as const,
        repairs: context.history.verificationRepairs,
        problem: { kind: 'missing-model' as const },
      },
      stopLedger: context.ledger,
    })),
    /** Holds the stop the ordered table chose (rule 2, the seed count, unreachable routing). */
    keepRuleStop: assign(({ context }) => ({ stop: ruleStop(context), stopLedger: context.ledger })),
    /**
     * Holds a recovery-incomplete stop (§3.15): the saved pre-dispatch cells are what it lists,
     * nothing is repaired, no attempt is consumed.
     */
    stopRecovery: assign(({ context }, params: { what: string; detail?: string; interruption?: string }) => {
      const plan = context.plan as DispatchPlan;
      return {
        stop: {
          kind: 'recovery-incomplete' as const,
          iteration: plan.iteration,
          what: params.what,
          ...(params.detail === undefined ? {} : { detail: params.detail }),
        },
        stopLedger: plan.saved,
        ...(params.interruption === undefined ? {} : { interruption: params.interruption }),
      };
    }),
    /** Computes the ledger (and spec) edit of the accepted human choice. */
    keepChoice: assign({ pendingChoice: ({ context, event }) => choiceEdit(context, event) }),
    /** Keeps the message of an effect that failed unexpectedly (the run ends in `failed`). */
    storeError: assign({
      error: ({ event }) => describeError((event as unknown as { error?: unknown }).error),
    }),
  },
});

function seedOf(context: LoopContext) {
  return seedLedger(context.spec as Spec, {
    specPath: context.input.specPath,
    base: context.workspace?.head ?? '',
    verification: context.input.verification,
    allowance: context.settings?.allowance,
  });
}

/** Human-choice edits: the ledger edit (and spec text) for a retry, raise or amendment. */
function choiceEdit(context: LoopContext, event: HumanEvent): CommitRequest {
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
          specText: amendSpecText(specText, amendment),
        };
      if (amendment.kind === 'reopen')
        return reopenRowEdit(ledger, amendment.row, 'reopened by a human amendment');
      return { ...preservingAmendEdit(ledger, amendment.what), specText: amendSpecText(specText, amendment) };
    }
    default:
      throw new Error(`no ledger edit for ${event.type}`);
  }
}

/** The automatic cut of an unreachable row under amend permission (§3.13). */
function unreachableCut(context: LoopContext): CommitRequest {
  const outcome = rules(context);
  if (outcome.kind !== 'unreachable-amend') throw new Error('no unreachable amend item to apply');
  const grant = context.spec?.amendGrant.kind === 'active' ? context.spec.amendGrant.sentence : undefined;
  return {
    ...cutRowEdit(headLedger(context), outcome.row, outcome.disposition, grant),
    specText: amendSpecText(context.specText ?? '', {
      kind: 'cut',
      row: outcome.row,
      disposition: outcome.disposition,
      outOfScope: outcome.outOfScope,
    }),
  };
}

/** A human choice that applies: keep its edit for the commit that follows. */
const acceptChoice = {
  guard: 'choiceApplies',
  target: '#loop-implementation.implement.applyingChoice',
  actions: 'keepChoice',
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
 */
export const loopImplementationMachine = loopSetup.createMachine({
  id: 'loop-implementation',
  description: 'pi-gauntlet loop engine (loop-implementation)',
  context: ({ input }) => ({
    input,
    settings: null,
    settingsProblem: null,
    workspace: null,
    specText: null,
    spec: null,
    specFindings: [],
    ledger: null,
    ledgerFindings: [],
    history: emptyLoopHistory(),
    plan: null,
    model: null,
    child: null,
    boundary: null,
    actionRecords: [],
    interruption: null,
    stop: null,
    stopLedger: null,
    problem: null,
    gateFailure: null,
    reviews: [],
    pendingChoice: null,
    head: null,
    error: null,
  }),
  initial: 'entry',
  states: {
    entry: {
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
                  detail: (context.workspace?.porcelain ?? '').trim().split('\n').slice(0, 10).join('; '),
                }),
                stopLedger: ({ context }) => context.ledger,
              }),
            },
            { target: '#loop-implementation.implement' },
          ],
        },
      },
    },

    implement: {
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
            }),
            onDone: {
              target: 'beforeDispatch',
              actions: assign(({ context, event }) => {
                const parsed = parseLedger(event.output.ledgerText);
                const ledger = parsed.ledger;
                return {
                  head: event.output.head,
                  ledger,
                  ledgerFindings: parsed.findings,
                  history:
                    ledger === null
                      ? emptyLoopHistory()
                      : historyFromCommits(event.output.commits, {
                          ledger,
                          ledgerPath: context.input.ledgerPath,
                        }),
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
            { guard: 'seedMiss', target: 'repairing', description: 'seed miss: seed repair' },
            { guard: 'rowMiss', target: 'repairing', description: 'ordinary miss: parent repair' },
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
        recovery: {
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
        },
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
    },

    humanStop: {
      description: 'Human stops: one state per stop kind, accepting only its menu offers',
      initial: 'rowAllowance',
      states: {
        rowAllowance: { description: 'Stopped on row <n> (rule 2)', on: rowStopChoices },
        missingModel: { description: 'Problem: escalationLoop.implModel unavailable', on: rowStopChoices },
        seedExhaustion: { description: 'Stopped on seed', on: rowStopChoices },
        boundSpent: { description: 'Stopped on row <n>: named action bound spent', on: rowStopChoices },
        unreachableAmend: { description: 'Unreachable row: amend batch', on: rowStopChoices },
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
    },

    amendingInVerify: {
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
    },

    discarding: {
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
    },

    verify: {
      description: 'After the loop: gate set, verification repairs, reviews, closure',
      initial: 'gates',
      states: {
        gates: {
          description: 'Step 1: run the gate set fail-fast',
          invoke: {
            id: 'runGates',
            src: 'runGates',
            input: ({ context }) => ({ ledger: headLedger(context) }),
            onDone: [
              { guard: 'gatesPassed', target: 'review', description: 'every gate passed' },
              {
                guard: 'verificationRepairAllowed',
                target: 'repair',
                description: 'repairs < allowance: automatic verification repair',
                actions: assign({ gateFailure: ({ event }) => (event.output.passed ? null : event.output) }),
              },
              {
                target: '#loop-implementation.humanStop.verificationFailed',
                description: 'repairs >= allowance',
                actions: assign(({ context, event }) => {
                  const gateFailure = event.output.passed ? null : event.output;
                  const next = { ...context, gateFailure };
                  return {
                    gateFailure,
                    stop: {
                      kind: 'verification-failed' as const,
                      repairs: context.history.verificationRepairs,
                      problem: verificationProblem(next),
                    },
                    stopLedger: context.ledger,
                  };
                }),
              },
            ],
            onError: { target: '#loop-implementation.failed', actions: 'storeError' },
          },
        },
        repair: {
          description: 'One automatic verification repair',
          initial: 'resolvingModel',
          states: {
            resolvingModel: {
              invoke: {
                id: 'resolveRepairModel',
                src: 'resolveImplModel',
                input: () => ({ row: 'verify' as const }),
                onDone: [
                  {
                    guard: 'modelUnresolved',
                    target: '#loop-implementation.humanStop.verificationFailed',
                    description: 'no repair model',
                    actions: 'stopMissingRepairModel',
                  },
                  {
                    target: 'reserving',
                    actions: assign(({ context, event }) => ({
                      model: event.output.model,
                      plan: planDispatch({
                        ledger: headLedger(context),
                        target: 'verify',
                        head: context.head ?? '',
                        model: event.output.model,
                      }),
                    })),
                  },
                ],
                onError: {
                  target: '#loop-implementation.humanStop.verificationFailed',
                  actions: 'stopMissingRepairModel',
                },
              },
            },
            resuming: {
              description: 'A verify tuple was on disk at resume',
              entry: assign({ plan: ({ context }) => planFromDisk(context) }),
              invoke: {
                id: 'recoverVerifyDispatch',
                src: 'recoverDispatch',
                input: ({ context }) => ({ plan: context.plan as DispatchPlan }),
                onDone: [
                  {
                    guard: 'neverLaunched',
                    target: 'running',
                    description: 'the reserved repair never started',
                  },
                  {
                    target: 'readingBoundary',
                    actions: 'keepRecoveredReport',
                  },
                ],
                onError: { target: '#loop-implementation.failed', actions: 'storeError' },
              },
            },
            reserving: {
              invoke: {
                id: 'reserveVerifyDispatch',
                src: 'reserveDispatch',
                input: ({ context }) => planInput(context),
                onDone: {
                  target: 'running',
                  actions: 'keepReserved',
                },
                onError: { target: '#loop-implementation.failed', actions: 'storeError' },
              },
            },
            running: {
              invoke: {
                id: 'dispatchRepairChild',
                src: 'dispatchChild',
                input: ({ context }) => dispatchInput(context, context.gateFailure),
                onDone: {
                  target: 'readingBoundary',
                  actions: 'keepChildReport',
                },
                onError: {
                  target: 'readingBoundary',
                  actions: 'keepDispatchError',
                },
              },
            },
            readingBoundary: {
              invoke: {
                id: 'readRepairBoundary',
                src: 'readBoundary',
                input: ({ context }) => planInput(context),
                onDone: { target: 'validating', actions: 'keepBoundary' },
                onError: { target: '#loop-implementation.failed', actions: 'storeError' },
              },
            },
            validating: {
              always: [
                { guard: 'verificationAdmitted', target: 'marking', description: 'repair admitted' },
                {
                  guard: 'verificationUnattributed',
                  target: '#loop-implementation.humanStop.recoveryIncomplete',
                  description: 'repair commit not attributable',
                  actions: {
                    type: 'stopRecovery',
                    params: ({ context }) => ({
                      what: 'ambiguous attribution',
                      detail: unattributedDetail(verificationOutcome(context)),
                      interruption: 'ambiguous attribution',
                    }),
                  },
                },
                {
                  target: '#loop-implementation.implement.recovery',
                  description: 'not admitted: recover the checkout, then an empty marker',
                  actions: assign({
                    interruption: ({ context }) => {
                      const outcome = verificationOutcome(context);
                      return outcome?.kind === 'not-admitted' ? outcome.reason : 'not admitted';
                    },
                  }),
                },
              ],
            },
            marking: {
              description: 'Commit `loop: repair verification` over the admitted repair',
              invoke: {
                id: 'commitVerificationMarker',
                src: 'commitLedger',
                input: ({ context }) => {
                  const outcome = verificationOutcome(context);
                  if (outcome?.kind !== 'admitted') throw new Error('no admitted verification repair');
                  return verificationRepairMarker(outcome.ledger, outcome.childSha, outcome.actionRecords);
                },
                onDone: '#loop-implementation.implement.finishingRepair',
                onError: { target: '#loop-implementation.failed', actions: 'storeError' },
              },
            },
          },
        },
        review: {
          description: 'Step 2: whole-diff review (optional host actor)',
          invoke: {
            id: 'reviewDiff',
            src: 'reviewDiff',
            input: ({ context }) => ({ base: headLedger(context).base }),
            onDone: {
              target: 'conformance',
              actions: assign({
                reviews: ({ context, event }) => [
                  ...context.reviews,
                  { step: 'whole-diff review', result: event.output },
                ],
              }),
            },
            onError: { target: '#loop-implementation.failed', actions: 'storeError' },
          },
        },
        conformance: {
          description: 'Step 3: conformance review against the spec (optional host actor)',
          invoke: {
            id: 'conformanceReview',
            src: 'conformanceReview',
            input: ({ context }) => ({ base: headLedger(context).base, specPath: context.input.specPath }),
            onDone: {
              target: '#loop-implementation.finished',
              actions: assign({
                reviews: ({ context, event }) => [
                  ...context.reviews,
                  { step: 'conformance review', result: event.output },
                ],
              }),
            },
            onError: { target: '#loop-implementation.failed', actions: 'storeError' },
          },
        },
      },
    },

    finished: { type: 'final', description: 'Step 4: closure; verification complete' },
    stopped: { type: 'final', description: 'Stopped by the human; branch state preserved' },
    invalid: { type: 'final', description: 'Configuration error (exit code 2)' },
    failed: { type: 'final', description: 'An effect failed unexpectedly (exit code 1)' },
  },
});
