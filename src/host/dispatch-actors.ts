/**
 * Host actors of one child dispatch: `reserveDispatch` (record, task and reserved ledger, in that
 * order), `dispatchChild` (the child as its own process group, its launch recorded durably right
 * after spawn), `recoverDispatch` (a dispatch found in flight at resume) and `finishDispatch`
 * (after the admission or repair is durable).
 */
import { stat } from 'node:fs/promises';
import { join } from 'node:path';
import { fromPromise } from 'xstate';
import type { ChildReport, DispatchRecovery, GateRun } from '../../machines/loop-implementation/index.js';
import { snapshotChanges } from '../effects/change-snapshot.js';
import { runChildCommand } from '../effects/child-process.js';
import { endDispatchLeftovers, leftoverNotices } from '../effects/dispatch-leftovers.js';
import { findProcessesWithEnvironment } from '../effects/environment-marker.js';
import { readFileIfExists } from '../effects/files.js';
import {
  cleanupJobs,
  deleteJobsFile,
  jobsFilePath,
  parseJobsFile,
  readJobsFile,
  recordedJobGroups,
  worktreeIdentity,
} from '../effects/jobs.js';
import { hasGroupExited, sleep, terminateGroup } from '../effects/process-group.js';
import { readProcessGroupId, readStartIdentity } from '../effects/process-identity.js';
import type { DispatchPlan } from '../gauntlet/dispatch.js';
import { formatPending, serializeLedger } from '../gauntlet/ledger.js';
import { CHILD_ENV } from './child-environment.js';
import { reportOfRun, returnedStatus } from './child-report.js';
import {
  type DispatchRecord,
  readDispatchRecord,
  removeDispatchFolder,
  updateDispatchRecord,
  writeFreshDispatch,
} from './dispatch-record.js';
import { completedSideEffect, type HostSession, unlessInterrupted } from './host-session.js';
import { dispatchFolder } from './state-files.js';
import { forgetStatus, forgetWorktree, observeWorktree } from './worktree-facts.js';
import { readWorktreeFile } from './worktree-view.js';

/** The record of `plan`, when one exists for exactly its tuple. */
async function recordOf(session: HostSession, plan: DispatchPlan): Promise<DispatchRecord | null> {
  const stored = await readDispatchRecord(session.files, plan.iteration);
  return stored?.ok && stored.record.tuple === formatPending(plan.pending) ? stored.record : null;
}

/**
 * `reserveDispatch` (§3.9): checks that the checkout is where the plan says, writes the durable
 * dispatch record and the task file under the git directory, then the reserved ledger (iterations
 * `i + 1` and the tuple) on disk, uncommitted. The record comes first, so a reserved tuple always
 * has a record.
 */
export function reserveDispatchActor(session: HostSession) {
  return fromPromise<Record<string, never>, { plan: DispatchPlan; ledgerPath: string }>(async ({ input }) => {
    unlessInterrupted(session);
    const { plan, ledgerPath } = input;
    const { worktree, specPath } = session.options;
    session.plan = plan;
    const [{ head, entries: status }, diskLedger] = await Promise.all([
      observeWorktree(session),
      readWorktreeFile(worktree, ledgerPath),
    ]);
    if (head !== plan.pending.head)
      throw new Error(`HEAD is ${head}, but the dispatch was planned at ${plan.pending.head}`);
    const savedText = serializeLedger(plan.saved);
    if (diskLedger !== savedText)
      throw new Error(`the ledger on disk is not the ledger the dispatch was planned over (${ledgerPath})`);

    const leg =
      session.options.legCheckouts === undefined || plan.target === 'verify'
        ? undefined
        : {
            member: plan.pending.repo,
            companion: false,
            home: worktree,
            homeLedger: join(worktree, ledgerPath),
            homeSpec: join(worktree, specPath),
          };
    await writeFreshDispatch({
      files: session.files,
      plan,
      ledgerPath,
      specPath,
      savedLedger: savedText,
      home: worktree,
      checkout: worktree,
      checkoutGitDir: session.gitDir,
      jobsBase: plan.saved.base,
      lock: session.lock.info.token,
      dirtBefore: status.map((entry) => `${entry.xy} ${entry.path}`),
      verification: plan.target === 'verify' ? session.lastGateFailure : null,
      ...(leg === undefined ? {} : { leg }),
      beforeLedgerWrite: () => forgetStatus(session),
    });
    completedSideEffect(session, 'reserveDispatch');
    return {};
  });
}

/** Input of the `dispatchChild` actor. */
export interface DispatchChildInput {
  readonly plan: DispatchPlan;
  readonly ledgerPath: string;
  readonly specPath: string;
  readonly gate: GateRun | null;
}

/**
 * Records durably how a dispatch's child ended: its report and the changes it left (write
 * provenance, compared again before any recovery resets the checkout).
 */
async function recordChildEnd(
  session: HostSession,
  plan: DispatchPlan,
  report: ChildReport,
  facts: { readonly groupExited: boolean; readonly launchUncertain?: boolean },
): Promise<void> {
  // The child (and anything it left running) may have changed the tree: read it afresh, once.
  const snapshot = await snapshotChanges(session.git, await observeWorktree(session, true));
  const childWrites = { head: snapshot.head, changes: [...snapshot.changes] };
  await updateDispatchRecord(session.files, plan.iteration, (r) => ({
    ...r,
    ...facts,
    finished: true,
    result: report,
    childWrites,
  }));
}

/**
 * After every dispatch, once the child's group has exited: ends the processes the child left
 * running outside its group and its jobs file (found by this dispatch's `LOOPCHART_TASK`), and
 * prints what was terminated and what could not be proven (issue 10 item 4).
 */
async function endLeftovers(session: HostSession, record: DispatchRecord, childIdentity: string | null) {
  const leftovers = await endDispatchLeftovers({
    name: CHILD_ENV.task,
    value: record.taskFile,
    recordedGroups: await recordedJobGroups(record.jobsFile, worktreeIdentity(session.gitDir)),
    childStartIdentity: childIdentity,
    graceMs: session.options.killGraceMs,
  });
  for (const line of leftoverNotices(leftovers)) session.notify?.(line);
}

/**
 * `dispatchChild`: runs the child command in the worktree as its own process group with
 * `LOOPCHART_TASK`, `LOOPCHART_RETURN` and `LOOPCHART_JOBS`, under the silence and overall limits.
 * The launch intent is recorded before spawn and the pid with its start identity right after, so
 * a resumed run can tell whether the child started. Processes the child left in its own group are
 * ended (the group is the one this host launched and recorded), then the return file is read.
 */
export function dispatchChildActor(session: HostSession) {
  return fromPromise<ChildReport, DispatchChildInput>(async ({ input, signal }) => {
    const { plan } = input;
    session.plan = plan;
    const child = session.options.child;
    if (child === null) throw new Error('no child command: give the child with --child "<command>"');
    const record = await recordOf(session, plan);
    if (record === null) throw new Error(`no dispatch record for ${formatPending(plan.pending)}`);
    await updateDispatchRecord(session.files, plan.iteration, (r) => ({ ...r, launching: true }));
    const model = plan.model ?? null;
    const run = await runChildCommand({
      command: child,
      cwd: session.options.worktree,
      env: {
        ...session.options.childEnv,
        [CHILD_ENV.task]: record.taskFile,
        [CHILD_ENV.return]: record.returnFile,
        [CHILD_ENV.jobs]: record.jobsFile,
        ...(model === null ? {} : { [CHILD_ENV.model]: model }),
      },
      logPath: record.logFile,
      silenceTimeoutMs: session.options.silenceTimeoutMs,
      overallTimeoutMs: session.options.timeoutMs,
      killGraceMs: session.options.killGraceMs,
      // Stopping the actor or interrupting the run stops the child's whole process group.
      signal:
        session.options.interrupt === undefined
          ? signal
          : AbortSignal.any([signal, session.options.interrupt]),
      onSpawned: async (spawned) => {
        await updateDispatchRecord(session.files, plan.iteration, (r) => ({
          ...r,
          launched: true,
          pid: spawned.pid,
          startIdentity: spawned.startIdentity,
          launchedAt: new Date().toISOString(),
        }));
        completedSideEffect(session, 'child launched');
      },
    });
    if (run.pid !== null && run.lingeringGroupMembers.length > 0)
      await terminateGroup(run.pid, { graceMs: session.options.killGraceMs });
    const groupExited = run.pid === null || hasGroupExited(run.pid) === true;
    await endLeftovers(session, record, run.startIdentity);
    const ran = reportOfRun(run, await readFileIfExists(record.returnFile), session.options.timeoutMs);
    const interrupt = session.options.interrupt;
    const report =
      run.outcome === 'aborted' && interrupt?.aborted === true
        ? { ...ran, dispatchError: `interrupted by ${String(interrupt.reason)}` }
        : ran;
    await recordChildEnd(session, plan, report, { groupExited });
    completedSideEffect(session, 'dispatchChild');
    return report;
  });
}

async function sizeOf(path: string): Promise<number> {
  try {
    return (await stat(path)).size;
  } catch {
    return -1;
  }
}

/**
 * Waits for a child this host launched in an earlier run (it outlived that run) to end, under the
 * same silence and overall limits, measured from its recorded launch.
 */
async function awaitAdoptedChild(
  session: HostSession,
  record: DispatchRecord,
  pid: number,
  identity: string | null,
): Promise<'exited' | 'killed-after-silence' | 'timed-out'> {
  const { silenceTimeoutMs, timeoutMs, killGraceMs } = session.options;
  const launchedAt = record.launchedAt === null ? Date.now() : Date.parse(record.launchedAt);
  let lastSize = await sizeOf(record.logFile);
  let lastGrowth = performance.now();
  const stillOurs = () => identity !== null && readStartIdentity(pid) === identity;
  for (;;) {
    if (hasGroupExited(pid) === true) return 'exited';
    const size = await sizeOf(record.logFile);
    if (size !== lastSize) {
      lastSize = size;
      lastGrowth = performance.now();
    }
    const silent = performance.now() - lastGrowth >= silenceTimeoutMs;
    const overdue = Date.now() - launchedAt >= timeoutMs;
    if (silent || overdue) {
      await terminateGroup(pid, {
        graceMs: killGraceMs,
        mayKill: () => stillOurs() || readStartIdentity(pid) === null,
      });
      return silent ? 'killed-after-silence' : 'timed-out';
    }
    await sleep(50);
  }
}

/**
 * `recoverDispatch` (resume with a tuple on disk, §3.2 pending recovery): from the durable record,
 * `launched: false` when the child provably never started (no launch intent was recorded);
 * otherwise the child's end, waiting first for a child that is still running (identity-checked).
 */
export function recoverDispatchActor(session: HostSession) {
  return fromPromise<DispatchRecovery, { plan: DispatchPlan }>(async ({ input }) => {
    const { plan } = input;
    session.plan = plan;
    const record = await recordOf(session, plan);
    // Without a record nothing proves the child did not run, nor how it ended.
    if (record === null) return { launched: true, returned: null };
    if (record.finished && record.result !== null) return { launched: true, ...record.result };
    if (!record.launching) return { launched: false };

    let pid = record.pid;
    let identity = record.startIdentity;
    let uncertain = false;
    if (!record.launched) {
      // The run ended between the launch intent and the launch record: look for the child by the
      // environment variable that names its task file.
      const marked = findProcessesWithEnvironment(CHILD_ENV.task, record.taskFile);
      const leader = marked?.pids.find((candidate) => readProcessGroupId(candidate) === candidate);
      if (leader !== undefined) {
        pid = leader;
        identity = readStartIdentity(leader);
        await updateDispatchRecord(session.files, plan.iteration, (r) => ({
          ...r,
          launched: true,
          pid: leader,
          startIdentity: identity,
        }));
      } else uncertain = true;
    }
    let report: ChildReport;
    if (pid !== null && !uncertain) {
      const alive = identity !== null && readStartIdentity(pid) === identity;
      let ending: 'exited' | 'killed-after-silence' | 'timed-out' = 'exited';
      if (alive) ending = await awaitAdoptedChild(session, record, pid, identity);
      // Members left in the launched group cannot be another group: a group id is not reused while
      // the group has members.
      if (hasGroupExited(pid) === false) await terminateGroup(pid, { graceMs: session.options.killGraceMs });
      await endLeftovers(session, record, identity);
      const returned = returnedStatus(await readFileIfExists(record.returnFile));
      report =
        ending === 'killed-after-silence'
          ? { returned, killedAfterSilence: true }
          : ending === 'timed-out'
            ? {
                returned,
                dispatchError: `child killed after the overall timeout of ${Math.round(session.options.timeoutMs / 1000)} s`,
              }
            : { returned };
    } else {
      report = { returned: returnedStatus(await readFileIfExists(record.returnFile)) };
    }
    await recordChildEnd(session, plan, report, {
      launchUncertain: uncertain,
      groupExited: pid === null ? false : hasGroupExited(pid) === true,
    });
    completedSideEffect(session, 'recoverDispatch');
    return { launched: true, ...report };
  });
}

/**
 * `finishDispatch`: after the admission or repair is durable, ends any background job the child
 * recorded that is still running (ownership-checked), deletes the jobs file once every listed job
 * is confirmed gone, and removes the dispatch record. A job that cannot be confirmed gone keeps its
 * jobs file for a person to look at.
 */
export function finishDispatchActor(session: HostSession) {
  return fromPromise<Record<string, never>, { plan: DispatchPlan }>(async ({ input }) => {
    const { plan } = input;
    const record = await recordOf(session, plan);
    const jobsFile =
      record?.jobsFile ??
      jobsFilePath({
        baseSha: plan.saved.base,
        iteration: plan.iteration,
        worktreeId: worktreeIdentity(session.gitDir),
      });
    const worktreeId = worktreeIdentity(session.gitDir);
    // Another worktree's file (or one this run cannot read) is neither cleaned nor deleted.
    const { text, problem } = await readJobsFile(jobsFile, worktreeId);
    const listed = text === null ? [] : parseJobsFile(text).jobs;
    const outcome =
      listed.length === 0
        ? null
        : await cleanupJobs(jobsFile, {
            childDeclaredNoBackgroundWork: true,
            graceMs: session.options.killGraceMs,
            worktreeId,
          });
    // Ending a job may end its writes half-way: what was observed of the tree is no longer sure.
    if (listed.length > 0) forgetWorktree(session);
    if (problem === null && (outcome === null || outcome.problems.length === 0))
      await deleteJobsFile(jobsFile);
    if (record !== null)
      await removeDispatchFolder(dispatchFolder(session.files, plan.iteration), record.returnDir);
    session.plan = null;
    completedSideEffect(session, 'finishDispatch');
    return {};
  });
}
