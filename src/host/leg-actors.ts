import { join } from 'node:path';
import { type AnyActorLogic, createActor, fromPromise, toPromise } from 'xstate';
import type {
  BoundaryFacts,
  CheckoutCleanliness,
  CheckoutHeadInput,
} from '../../machines/loop-implementation/index.js';
import { createGitPort } from '../effects/git.js';
import { resolveGitDir } from '../effects/git-dir.js';
import { jobsFilePath, parseJobsFile, readJobsFile, worktreeIdentity } from '../effects/jobs.js';
import type { DispatchPlan } from '../gauntlet/dispatch.js';
import { formatPending, serializeLedger } from '../gauntlet/ledger.js';
import { recordsFromLines } from './carried-records.js';
import { readDispatchRecord, updateDispatchRecord, writeFreshDispatch } from './dispatch-record.js';
import { completedSideEffect, type HostSession, unlessInterrupted } from './host-session.js';
import { checkProvenanceActor, OWNERSHIP_UNPROVEN, resetCheckoutActor } from './recovery-actors.js';
import {
  commitsBetween,
  forgetStatus,
  forgetWorktree,
  observeHead,
  observeWorktree,
} from './worktree-facts.js';
import { readWorktreeFile, unexpectedDirt } from './worktree-view.js';

/** The name of the home member: the member whose checkout is the worktree. */
export function homeMemberName(session: HostSession): string | null {
  const checkouts = session.options.legCheckouts;
  if (checkouts === undefined) return null;
  return Object.entries(checkouts).find(([, path]) => path === session.options.worktree)?.[0] ?? null;
}

/** The checkout of a companion member (not home), or `null` for home or a single-leg run. */
export function companionCheckout(session: HostSession, repo: string): string | null {
  const checkouts = session.options.legCheckouts;
  if (checkouts === undefined || repo === homeMemberName(session)) return null;
  const path = checkouts[repo];
  if (path === undefined) throw new Error(`no checkout for leg ${repo}: give it with --leg ${repo}=<path>`);
  return path;
}

const legSessions = new WeakMap<HostSession, Map<string, HostSession>>();

/**
 * The run's session seen from a companion checkout: its own worktree, git port, git directory and
 * observations; the run's state files, lock, dispatch in flight, side-effect count and notices.
 */
export async function legSession(
  session: HostSession,
  member: string,
  checkout: string,
): Promise<HostSession> {
  let byMember = legSessions.get(session);
  if (byMember === undefined) {
    byMember = new Map();
    legSessions.set(session, byMember);
  }
  const known = byMember.get(member);
  if (known !== undefined) return known;
  const gitDir = await resolveGitDir(checkout);
  const derived = Object.create(session) as HostSession;
  Object.defineProperties(derived, {
    options: { value: { ...session.options, worktree: checkout }, enumerable: true },
    git: { value: createGitPort(checkout), enumerable: true },
    gitDir: { value: gitDir, enumerable: true },
    observed: { value: null, writable: true, enumerable: true },
    shareObservations: { value: false, writable: true, enumerable: true },
    ledgerByCommit: { value: new Map(), enumerable: true },
    ledgerByBlob: { value: new Map(), enumerable: true },
    commitRanges: { value: new Map(), enumerable: true },
    ancestry: { value: new Map(), enumerable: true },
  });
  for (const key of ['plan', 'sideEffects', 'lastGateFailure', 'notify', 'logDir'] as const)
    Object.defineProperty(derived, key, {
      get: () => session[key],
      set: (value) => {
        (session as unknown as Record<string, unknown>)[key] = value;
      },
      enumerable: true,
    });
  byMember.set(member, derived);
  return derived;
}

/** The leg session of a plan's companion, or `null` when the plan works in home. */
async function sessionOfPlan(session: HostSession, plan: DispatchPlan | null): Promise<HostSession | null> {
  // A verification repair of a companion leg works in that leg's checkout too (L17).
  if (plan === null) return null;
  const checkout = companionCheckout(session, plan.pending.repo);
  return checkout === null ? null : legSession(session, plan.pending.repo, checkout);
}

/** Runs `logic` to completion as a child of the calling actor (stopped with it). */
async function runLogic<T>(logic: AnyActorLogic, input: unknown, signal: AbortSignal): Promise<T> {
  const actor = createActor(logic, { input });
  const stop = () => actor.stop();
  signal.addEventListener('abort', stop, { once: true });
  try {
    actor.start();
    return (await toPromise(actor)) as T;
  } finally {
    signal.removeEventListener('abort', stop);
  }
}

/**
 * An actor that works in the dispatch's companion checkout when its plan names a companion, and
 * in home otherwise: `make` builds the actor for a session.
 */
export function byLeg<Logic extends AnyActorLogic>(
  session: HostSession,
  make: (session: HostSession) => Logic,
  planOf: (input: never) => DispatchPlan | null = (input: { plan?: DispatchPlan }) => input.plan ?? null,
): Logic {
  const home = make(session);
  return fromPromise(async ({ input, signal }: { input: unknown; signal: AbortSignal }) => {
    const leg = await sessionOfPlan(session, planOf(input as never));
    return runLogic(leg === null ? home : make(leg), input, signal);
  }) as unknown as Logic;
}

/** Home HEAD of a companion dispatch: the plan's, else home HEAD now. */
function homeHeadOf(plan: DispatchPlan, now: string): string {
  return plan.homeHead ?? now;
}

/**
 * `reserveDispatch` of a companion dispatch (§3.20 "capture home and selected leg heads and save a
 * pre-dispatch snapshot"): the companion's HEAD must be the tuple's and home HEAD the plan's; the
 * durable record and the task (cwd = the companion checkout, the home ledger named absolutely) are
 * written, then the reserved ledger (bump and tuple) in home, uncommitted. The jobs file is keyed
 * by the companion's base and the pre-bump iteration.
 */
export async function reserveCompanionDispatch(
  session: HostSession,
  leg: HostSession,
  plan: DispatchPlan,
  ledgerPath: string,
): Promise<Record<string, never>> {
  unlessInterrupted(session);
  const { worktree, specPath } = session.options;
  session.plan = plan;
  const [{ head: legHead, entries: legStatus }, { head: homeHead }, diskLedger] = await Promise.all([
    observeWorktree(leg, true),
    observeWorktree(session),
    readWorktreeFile(worktree, ledgerPath),
  ]);
  if (legHead !== plan.pending.head)
    throw new Error(
      `${plan.pending.repo} HEAD is ${legHead}, but the dispatch was planned at ${plan.pending.head}`,
    );
  if (homeHead !== homeHeadOf(plan, homeHead))
    throw new Error(`home HEAD is ${homeHead}, but the dispatch was planned at ${plan.homeHead}`);
  const savedText = serializeLedger(plan.saved);
  if (diskLedger !== savedText)
    throw new Error(`the ledger on disk is not the ledger the dispatch was planned over (${ledgerPath})`);
  const member = plan.saved.legs?.members.find((m) => m.name === plan.pending.repo);
  await writeFreshDispatch({
    files: session.files,
    plan: plan.homeHead === undefined ? { ...plan, homeHead } : plan,
    ledgerPath,
    specPath,
    savedLedger: savedText,
    home: worktree,
    checkout: leg.options.worktree,
    checkoutGitDir: leg.gitDir,
    jobsBase: member?.base ?? plan.saved.base,
    lock: session.lock.info.token,
    dirtBefore: legStatus.map((entry) => `${entry.xy} ${entry.path}`),
    verification: plan.target === 'verify' ? session.lastGateFailure : null,
    leg: {
      member: plan.pending.repo,
      companion: true,
      home: worktree,
      homeLedger: join(worktree, ledgerPath),
      homeSpec: join(worktree, specPath),
      // The plan's home HEAD (checked equal above): child check fences home with it (L22).
      homeHead,
    },
    beforeLedgerWrite: () => forgetStatus(session),
  });
  completedSideEffect(session, 'reserveDispatch');
  return {};
}

/**
 * `readBoundary` of a companion dispatch: the companion's dirt, `HEAD_BEFORE..HEAD` count and
 * single commit (no ledger: a companion's rows are in its commit body), and home's HEAD and dirt
 * besides the reserved ledger.
 */
export async function readCompanionBoundary(
  session: HostSession,
  leg: HostSession,
  plan: DispatchPlan,
  ledgerPath: string,
): Promise<BoundaryFacts> {
  session.plan = plan;
  const stored = await readDispatchRecord(session.files, plan.iteration);
  const record = stored?.ok && stored.record.tuple === formatPending(plan.pending) ? stored.record : null;
  if (record?.resetBegun && record.boundary !== null) return record.boundary;
  const [{ head, entries: status }, { head: homeHead, entries: homeStatus }, diskLedger] = await Promise.all([
    observeWorktree(leg, true),
    observeWorktree(session, true),
    readWorktreeFile(session.options.worktree, ledgerPath),
  ]);
  const since = await commitsBetween(leg, plan.pending.head, head);
  const only = since.length === 1 ? since[0] : undefined;
  const expected = [serializeLedger(plan.reserved), ...(record === null ? [] : [record.reservedLedger])];
  const worktreeId = worktreeIdentity(leg.gitDir);
  const member = plan.saved.legs?.members.find((m) => m.name === plan.pending.repo);
  const jobsText = (
    await readJobsFile(
      record?.jobsFile ??
        jobsFilePath({ baseSha: member?.base ?? plan.saved.base, iteration: plan.iteration, worktreeId }),
      worktreeId,
    )
  ).text;
  const boundary: BoundaryFacts = {
    porcelain: status.map((entry) => `${entry.xy} ${entry.path}`).join('\n'),
    commitCount: since.length,
    commit: only === undefined ? null : { sha: only.sha, subject: only.subject, body: only.body },
    headLedgerText: null,
    actionRecords: jobsText === null ? [] : recordsFromLines(parseJobsFile(jobsText).actionRecordLines),
    home: { head: homeHead, porcelain: unexpectedDirt(homeStatus, ledgerPath, diskLedger, expected) },
  };
  if (record !== null && record.boundary === null)
    await updateDispatchRecord(session.files, plan.iteration, (r) => ({ ...r, boundary }));
  return boundary;
}

/**
 * `resetCheckout` of an interrupted companion dispatch (§3.20 "reset only the selected companion
 * to its HEAD_BEFORE"): `reset --hard` and `clean -fd` in the companion checkout only; home is not
 * touched (the home repair commit restores the saved ledger there).
 */
export async function resetCompanionCheckout(
  session: HostSession,
  leg: HostSession,
  input: CheckoutHeadInput,
): Promise<CheckoutCleanliness> {
  const plan = session.plan;
  if (plan !== null) {
    const stored = await readDispatchRecord(session.files, plan.iteration);
    if (stored?.ok && stored.record.tuple === formatPending(plan.pending))
      await updateDispatchRecord(session.files, plan.iteration, (r) => ({ ...r, resetBegun: true }));
  }
  forgetWorktree(leg);
  await leg.git.resetHard(input.head);
  await leg.git.cleanFd();
  const { head, entries } = await observeWorktree(leg, true);
  const count = head === input.head ? 0 : await leg.git.revListCount(input.head);
  completedSideEffect(session, 'resetCheckout');
  return { clean: entries.length === 0 && count === 0 };
}

/** HEAD of every member's checkout (home included), read with each checkout's own git. */
export async function readLegHeads(session: HostSession): Promise<Record<string, string> | undefined> {
  const checkouts = session.options.legCheckouts;
  if (checkouts === undefined) return undefined;
  const home = homeMemberName(session);
  const entries = await Promise.all(
    Object.entries(checkouts).map(async ([member, path]) => {
      if (member === home) return [member, await observeHead(session)] as const;
      const leg = await legSession(session, member, path);
      forgetWorktree(leg);
      return [member, await observeHead(leg)] as const;
    }),
  );
  return Object.fromEntries(entries);
}

/**
 * An actor whose home form is `make(session)` and whose companion form is `companion(leg, input)`
 * (a dispatch whose plan names a companion member).
 */
export function companionOr<Input extends { plan: DispatchPlan }, Output>(
  session: HostSession,
  make: (session: HostSession) => AnyActorLogic,
  companion: (leg: HostSession, input: Input) => Promise<Output>,
): ReturnType<typeof fromPromise<Output, Input>> {
  const home = make(session);
  return fromPromise<Output, Input>(async ({ input, signal }) => {
    const leg = await sessionOfPlan(session, input.plan);
    return leg === null ? runLogic<Output>(home, input, signal) : companion(leg, input);
  });
}

/**
 * `checkProvenance` seen from a leg: for a companion, home must also be unmoved (HEAD the plan's)
 * with no dirt but the reserved ledger (the ownership fence of the coordinated-legs reference),
 * then the companion checkout's own provenance (`checkProvenanceActor` over the leg session).
 */
export function companionProvenance(session: HostSession, leg: HostSession): AnyActorLogic {
  const own = checkProvenanceActor(leg);
  if (leg === session) return own;
  return fromPromise<{ owned: true } | { owned: false; what: string }, { plan: DispatchPlan }>(
    async ({ input, signal }) => {
      const { plan } = input;
      const [{ head, entries }, diskLedger] = await Promise.all([
        observeWorktree(session, true),
        readWorktreeFile(session.options.worktree, session.options.ledgerPath),
      ]);
      const stored = await readDispatchRecord(session.files, plan.iteration);
      const expected = [
        serializeLedger(plan.reserved),
        ...(stored?.ok ? [stored.record.reservedLedger] : []),
      ];
      if (plan.homeHead !== undefined && head !== plan.homeHead)
        return { owned: false, what: OWNERSHIP_UNPROVEN };
      if (unexpectedDirt(entries, session.options.ledgerPath, diskLedger, expected) !== '')
        return { owned: false, what: OWNERSHIP_UNPROVEN };
      return runLogic(own, input, signal);
    },
  );
}

/** `resetCheckout`: a companion's checkout when the input names a companion leg, else home's. */
export function resetByLeg(session: HostSession): AnyActorLogic {
  const home = resetCheckoutActor(session);
  return fromPromise<CheckoutCleanliness, CheckoutHeadInput>(async ({ input, signal }) => {
    const checkout = input.leg === undefined ? null : companionCheckout(session, input.leg);
    if (checkout === null || input.leg === undefined) return runLogic(home, input, signal);
    return resetCompanionCheckout(session, await legSession(session, input.leg, checkout), input);
  });
}
