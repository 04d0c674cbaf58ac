/**
 * Host actors of interrupted recovery (gauntlet-protocol §3.14 steps 1-3, §3.15, §3.19):
 * `checkProvenance`, `cleanupJobs`, `resetCheckout`, and `discardChanges` for an authorized
 * discard at the dirty-tree stop.
 */
import { join } from 'node:path';
import { fromPromise } from 'xstate';
import { sameChanges, snapshotChanges } from '../effects/change-snapshot.js';
import { findProcessesWithEnvironment } from '../effects/environment-marker.js';
import { writeFileAtomic } from '../effects/files.js';
import { cleanupJobs, jobsFilePath, parseJobsFile, readJobsFile, worktreeIdentity } from '../effects/jobs.js';
import { hasGroupExited } from '../effects/process-group.js';
import { readProcessGroupId } from '../effects/process-identity.js';
import {
  distinctActionRecords,
  extractActionRecords,
  formatActionRecord,
} from '../gauntlet/action-records.js';
import { attributionMatches } from '../gauntlet/commits.js';
import type { DispatchPlan } from '../gauntlet/dispatch.js';
import { formatPending, parseLedger, serializeLedger } from '../gauntlet/ledger.js';
import type { ActionRecord, Ledger } from '../gauntlet/types.js';
import { recordsFromLines } from './carried-records.js';
import { CHILD_ENV } from './child-environment.js';
import { type DispatchRecord, readDispatchRecord, updateDispatchRecord } from './dispatch-record.js';
import { completedSideEffect, type HostSession } from './host-session.js';
import {
  commitsBetween,
  forgetWorktree,
  isAncestorOf,
  observeHead,
  observeWorktree,
  sharedObservation,
} from './worktree-facts.js';
import { readWorktreeFile, unexpectedDirt } from './worktree-view.js';

/** The recovery-incomplete `<what>` for missing or broken provenance (§3.15). */
export const OWNERSHIP_UNPROVEN = 'checkout ownership unproven';

async function recordOf(session: HostSession, plan: DispatchPlan): Promise<DispatchRecord | null> {
  const stored = await readDispatchRecord(session.files, plan.iteration);
  return stored?.ok && stored.record.tuple === formatPending(plan.pending) ? stored.record : null;
}

function ledgerRecords(ledger: Ledger | null): ActionRecord[] {
  if (ledger === null) return [];
  return [...ledger.rows.map((r) => r.evidence), ...ledger.decisions].flatMap(extractActionRecords);
}

const canonical = (record: ActionRecord) => formatActionRecord(record);

/**
 * The action records a dispatch left (§3.19 rule 1), kept in its record before anything is reset
 * or discarded: records retained earlier, the jobs file's record lines, the bodies of this
 * dispatch's attributed commits, and records the child added to the ledger on disk.
 */
async function retainRecords(
  session: HostSession,
  plan: DispatchPlan,
  record: DispatchRecord,
): Promise<ActionRecord[]> {
  const retained = recordsFromLines(record.retainedRecords);
  const jobsText = (await readJobsFile(record.jobsFile, worktreeIdentity(session.gitDir))).text;
  if (jobsText !== null) retained.push(...recordsFromLines(parseJobsFile(jobsText).actionRecordLines));
  if (!record.resetBegun) {
    const head = await observeHead(session);
    for (const commit of await commitsBetween(session, record.headBefore, head))
      if (attributionMatches(commit.body, plan.pending, plan.iteration + 1))
        retained.push(...extractActionRecords(commit.body.split('\n').slice(2).join('\n')));
    const disk = await readWorktreeFile(session.options.worktree, record.ledgerPath);
    const before = new Set(ledgerRecords(plan.saved).map(canonical));
    const onDisk = disk === null ? null : parseLedger(disk).ledger;
    retained.push(...ledgerRecords(onDisk).filter((r) => !before.has(canonical(r))));
  }
  const records = distinctActionRecords(retained);
  await updateDispatchRecord(session.files, plan.iteration, (r) => ({
    ...r,
    retainedRecords: records.map(canonical),
  }));
  return records;
}

/**
 * `checkProvenance` (§3.14 step 1): the checkout changes belong to this dispatch alone when its
 * durable record exists for exactly this tuple, the checkout was clean when it was reserved, the
 * child's process group was seen to exit, the launch is known, every run since the reservation
 * held the worktree lock (the lock chain covers the reserving run's token), and HEAD still
 * descends from HEAD_BEFORE. Otherwise: `checkout ownership unproven` (or the sharper reason).
 *
 * It proves ownership only; the machine asks for the dispatch's action records next
 * (`collectActionRecords`), on this path and on an authorized discard alike.
 */
export function checkProvenanceActor(session: HostSession) {
  return fromPromise<{ owned: true } | { owned: false; what: string }, { plan: DispatchPlan }>(
    async ({ input }) => {
      const { plan } = input;
      const { git } = session;
      session.plan = plan;
      const record = await recordOf(session, plan);
      if (record === null || !session.lock.covers(record.lock) || record.dirtBefore.length > 0)
        return { owned: false, what: OWNERSHIP_UNPROVEN };
      if (record.launchUncertain) return { owned: false, what: 'background launch history unavailable' };
      if (record.pid !== null && hasGroupExited(record.pid) !== true)
        return { owned: false, what: `job ${record.pid} still running` };
      const now = await snapshotChanges(git, await observeWorktree(session));
      if (!(await isAncestorOf(session, record.headBefore, now.head)))
        return { owned: false, what: OWNERSHIP_UNPROVEN };
      // Write provenance: the changes on disk must still be exactly those the child left.
      if (!record.resetBegun && (record.childWrites === null || !sameChanges(record.childWrites, now)))
        return { owned: false, what: OWNERSHIP_UNPROVEN };

      completedSideEffect(session, 'checkProvenance');
      return { owned: true };
    },
  );
}

/**
 * `collectActionRecords` (§3.19 rule 1): the records the dispatch left, kept in its record before
 * anything is reset or discarded (see `retainRecords`). Without a record for the tuple, the jobs
 * file's record lines are all that can be read.
 */
export function collectActionRecordsActor(session: HostSession) {
  return fromPromise<{ actionRecords: readonly ActionRecord[] }, { plan: DispatchPlan }>(
    async ({ input }) => {
      const { plan } = input;
      session.plan = plan;
      const record = await recordOf(session, plan);
      if (record !== null) return { actionRecords: await retainRecords(session, plan, record) };
      const worktreeId = worktreeIdentity(session.gitDir);
      const jobsFile = jobsFilePath({ baseSha: plan.saved.base, iteration: plan.iteration, worktreeId });
      const jobsText = (await readJobsFile(jobsFile, worktreeId)).text;
      return {
        actionRecords: jobsText === null ? [] : recordsFromLines(parseJobsFile(jobsText).actionRecordLines),
      };
    },
  );
}

/**
 * `cleanupJobs` (§3.14 step 2): ends the background jobs the child recorded in its jobs file
 * (identity, command and group checked before every signal) and looks for dispatch processes it
 * did not record (every process started under the dispatch carries its `LOOPCHART_TASK`). The
 * scan is the retained evidence that no unrecorded background work runs; an unrecorded process
 * that still runs is reported and never signalled.
 */
export function cleanupJobsActor(session: HostSession) {
  return fromPromise<{ terminated: number; problem: string | null }, { plan: DispatchPlan }>(
    async ({ input }) => {
      const { plan } = input;
      session.plan = plan;
      const record = await recordOf(session, plan);
      const jobsFile =
        record?.jobsFile ??
        jobsFilePath({
          baseSha: plan.saved.base,
          iteration: plan.iteration,
          worktreeId: worktreeIdentity(session.gitDir),
        });
      const taskFile = record?.taskFile ?? null;
      const scanned = taskFile === null ? null : findProcessesWithEnvironment(CHILD_ENV.task, taskFile);
      const outcome = await cleanupJobs(jobsFile, {
        graceMs: session.options.killGraceMs,
        worktreeId: worktreeIdentity(session.gitDir),
        childDeclaredNoBackgroundWork: scanned !== null,
      });
      // Ending a job may end its writes half-way: what was observed of the tree is no longer sure.
      if (outcome.jobs.length > 0 || outcome.terminated > 0) forgetWorktree(session);
      const listedGroups = new Set(outcome.jobs.map((job) => job.pid));
      const after = taskFile === null ? null : findProcessesWithEnvironment(CHILD_ENV.task, taskFile);
      const unrecorded = (after?.pids ?? []).filter(
        (pid) => !listedGroups.has(readProcessGroupId(pid) ?? -1),
      );
      const problem =
        outcome.problems[0] ??
        (unrecorded[0] !== undefined ? `unrecorded job ${unrecorded[0]} still running` : null) ??
        null;
      completedSideEffect(session, 'cleanupJobs');
      return { terminated: outcome.terminated, problem };
    },
  );
}

/**
 * `resetCheckout` (§3.14 step 3): `reset --hard HEAD_BEFORE`, `clean -fd` (ignored files stay),
 * then the reserved ledger is written back, because the bump and tuple are the consumed iteration
 * the repair commit still has to record; clean means no other change and no commit after
 * HEAD_BEFORE. The record says the reset began before it begins.
 */
export function resetCheckoutActor(session: HostSession) {
  return fromPromise<{ clean: boolean }, { head: string }>(async ({ input }) => {
    const { git } = session;
    const plan = session.plan;
    if (plan === null) throw new Error('resetCheckout has no dispatch in flight');
    const ledgerPath = session.options.ledgerPath;
    // What the child left, as read when it ended (the same step): when HEAD is HEAD_BEFORE, nothing
    // is staged and the ledger is the only changed path, `reset --hard` and `clean -fd` would only
    // put back the ledger, which is written over below; they are skipped (an empty directory the
    // child made is all that stays, which no status shows).
    const seen = sharedObservation(session);
    forgetWorktree(session);
    const onlyLedger =
      seen !== null &&
      seen.head === input.head &&
      seen.entries.every((entry) => entry.path === ledgerPath && entry.xy === ' M');
    const record = await recordOf(session, plan);
    if (record !== null)
      await updateDispatchRecord(session.files, plan.iteration, (r) => ({ ...r, resetBegun: true }));
    if (!onlyLedger) {
      await git.resetHard(input.head);
      await git.cleanFd();
    }
    const reserved = record?.reservedLedger ?? serializeLedger(plan.reserved);
    await writeFileAtomic(join(session.options.worktree, ledgerPath), reserved);
    const { head, entries: status } = await observeWorktree(session, true);
    const count = head === input.head ? 0 : await git.revListCount(input.head);
    completedSideEffect(session, 'resetCheckout');
    return { clean: unexpectedDirt(status, ledgerPath, reserved, [reserved]) === '' && count === 0 };
  });
}

/**
 * `discardChanges`: after the human explicitly authorized it at the dirty-tree stop,
 * `reset --hard <HEAD>` and `clean -fd` (ignored files stay), then checks the tree is clean.
 */
export function discardChangesActor(session: HostSession) {
  return fromPromise<{ clean: boolean }, { head: string }>(async ({ input }) => {
    const { git } = session;
    await git.resetHard(input.head);
    await git.cleanFd();
    const { entries: status } = await observeWorktree(session, true);
    completedSideEffect(session, 'discardChanges');
    return { clean: status.length === 0 };
  });
}
