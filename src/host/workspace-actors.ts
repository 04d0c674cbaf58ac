/**
 * Host actors that read and write the worktree and its history: `inspectWorkspace` (entry),
 * `refresh` (the durable state the loop rebuilds itself from), `commitLedger` (every parent
 * commit) and `readBoundary` (git after a child returned).
 */
import { mkdir, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { fromPromise } from 'xstate';
import type {
  BoundaryFacts,
  CommitRequest,
  InspectWorkspaceInput,
  RefreshFacts,
  RefreshInput,
  WorkspaceFacts,
} from '../../machines/loop-implementation/index.js';
import { readFileIfExists, writeFileAtomic } from '../effects/files.js';
import { blobObjectName } from '../effects/git.js';
import { jobsFilePath, parseJobsFile, readJobsFile, worktreeIdentity } from '../effects/jobs.js';
import type { DispatchPlan, ReservationFacts } from '../gauntlet/dispatch.js';
import { formatPending, parseLedger, serializeLedger } from '../gauntlet/ledger.js';
import type { Ledger } from '../gauntlet/types.js';
import { recordsFromLines } from './carried-records.js';
import { clearCommitIntent, recoverCommitIntent, writeCommitIntent } from './commit-journal.js';
import { listDispatchRecords, readDispatchRecord, updateDispatchRecord } from './dispatch-record.js';
import { historyCacheRoot, readLoopHistory } from './history-facts.js';
import { completedSideEffect, type HostSession } from './host-session.js';
import { companionCheckout, readLegHeads } from './leg-actors.js';
import {
  commitsBetween,
  forgetWorktree,
  observeHead,
  observeWorktree,
  rememberWorktree,
} from './worktree-facts.js';
import { readWorktreeFile, unexpectedDirt } from './worktree-view.js';

function legHeadsPart(legHeads: Record<string, string> | undefined): { legHeads?: Record<string, string> } {
  return legHeads === undefined ? {} : { legHeads };
}

/** The reserved ledger a before-image and a tuple give (what reserveDispatch wrote). */
function reservedFrom(savedText: string | null, reservedOnDisk: Ledger): string | null {
  if (savedText === null) return null;
  const saved = parseLedger(savedText).ledger;
  if (saved === null) return null;
  return serializeLedger({ ...saved, iterations: saved.iterations + 1, pending: reservedOnDisk.pending });
}

/**
 * The latest readable dispatch record that carries its plan, as the machine's reservation: the
 * plan, whether the launch was intended, and the subjects since its HEAD_BEFORE (`null` when HEAD
 * does not descend from it). The machine decides from these whether the dispatch is in flight.
 */
async function reservationOf(session: HostSession, head: string): Promise<ReservationFacts | null> {
  const stored = await listDispatchRecords(session.files);
  const latest = [...stored].reverse().find((entry) => entry.ok);
  if (latest === undefined || !latest.ok || latest.record.plan === undefined) return null;
  const { record } = latest;
  const plan = record.plan as DispatchPlan;
  if (!record.launching) return { plan, launched: false, subjects: null };
  const reachable = await session.git.isAncestor(record.headBefore, head).catch(() => false);
  const subjects = reachable
    ? (await session.git.logSince(record.headBefore)).map((commit) => commit.subject)
    : null;
  return { plan, launched: true, subjects };
}

/**
 * `inspectWorkspace`: rolls back an interrupted parent commit of the loop's own, then reads HEAD,
 * the unexpected dirt, the ledger, the spec, for a pending tuple its before-image, and the latest
 * reservation (the machine recognizes from it a dispatch whose child committed before the run
 * ended).
 */
export function inspectWorkspaceActor(session: HostSession) {
  return fromPromise<WorkspaceFacts, InspectWorkspaceInput>(async ({ input }) => {
    const { git } = session;
    const worktree = session.options.worktree;
    await recoverCommitIntent(session.files.journal, git);
    const [diskLedger, specText, { head, entries: status }] = await Promise.all([
      readWorktreeFile(worktree, input.ledgerPath),
      readWorktreeFile(worktree, input.specPath),
      observeWorktree(session, true),
    ]);
    let savedLedgerText: string | null = null;
    const expected: string[] = [];
    const onDisk = diskLedger === null ? null : parseLedger(diskLedger).ledger;
    if (onDisk?.pending != null) {
      const tuple = onDisk.pending;
      // A companion tuple's HEAD is the companion's: its before-image is home's committed ledger
      // (the coordinated-legs reference: "reconstruct the pre-dispatch ledger from home HEAD").
      const rev = companionCheckout(session, tuple.repo) === null ? tuple.head : head;
      const [blob] = await git
        .readBlobs([{ rev, path: input.ledgerPath }])
        .catch((): (string | null)[] => [null]);
      savedLedgerText = blob ?? null;
      const record = await readDispatchRecord(session.files, onDisk.iterations - 1);
      if (record?.ok && record.record.tuple === formatPending(tuple))
        expected.push(record.record.reservedLedger);
      const rebuilt = reservedFrom(savedLedgerText, onDisk);
      if (rebuilt !== null) expected.push(rebuilt);
    }
    return {
      head,
      porcelain: unexpectedDirt(status, input.ledgerPath, diskLedger, expected),
      ledgerText: diskLedger,
      specText,
      savedLedgerText,
      reservation: await reservationOf(session, head),
      ...legHeadsPart(await readLegHeads(session)),
    };
  });
}

/**
 * `refresh`: the ledger on disk, HEAD and every commit since the ledger base with the ledger each
 * commit left (one `git log`, one batched blob read for the commits not parsed before).
 */
export function refreshActor(session: HostSession) {
  return fromPromise<RefreshFacts, RefreshInput>(async ({ input }) => {
    const { git } = session;
    const [head, ledgerText] = await Promise.all([
      observeHead(session),
      readWorktreeFile(session.options.worktree, input.ledgerPath),
    ]);
    if (ledgerText === null) throw new Error(`the ledger ${input.ledgerPath} is missing from the worktree`);
    const ledger = parseLedger(ledgerText).ledger;
    // An unparseable ledger stops the loop before any history is read (the machine's invalid state).
    const legHeads = legHeadsPart(await readLegHeads(session));
    if (ledger === null) return { head, ledgerText, commits: [], ...legHeads };
    session.historyCacheRoot ??= await historyCacheRoot(git);
    const read = await readLoopHistory(git, {
      base: input.base,
      ledgerPath: input.ledgerPath,
      ledger,
      head,
      ledgers: session.ledgerByCommit,
      cacheRoot: session.historyCacheRoot,
      // The commits since the cached head are often the boundary's HEAD_BEFORE..HEAD, read already.
      commitsSince: (from, to) => commitsBetween(session, from, to),
      ledgersByBlob: session.ledgerByBlob,
    });
    return { head, ledgerText, history: read.history, ...legHeads };
  });
}

/**
 * `commitLedger`: writes the ledger (and the spec, for amendments) atomically and makes exactly one
 * commit of exactly those paths with the exact subject and body. The intent is journaled first, so
 * a crash between the write and the commit is rolled back by the next run.
 */
export function commitLedgerActor(session: HostSession) {
  return fromPromise<{ head: string }, CommitRequest>(async ({ input }) => {
    const { git } = session;
    const { ledgerPath, specPath, worktree } = session.options;
    // A redraw deletes the ledger (`after: null`); every other commit writes it.
    const files: { path: string; after: string | null }[] = [
      { path: ledgerPath, after: input.deleteLedger === true ? null : serializeLedger(input.ledger) },
    ];
    if (input.specText !== undefined && input.deleteLedger !== true)
      files.push({ path: specPath, after: input.specText });
    const headBefore = await observeHead(session);
    // From here on the worktree and HEAD change: only the new HEAD is known afterwards.
    forgetWorktree(session);
    const before = await Promise.all(files.map((f) => readFileIfExists(join(worktree, f.path))));
    await writeCommitIntent(session.files.journal, {
      version: 1,
      headBefore,
      subject: input.subject,
      files: files.map((f, i) => ({ path: f.path, before: before[i] ?? null, after: f.after })),
    });
    for (const file of files) {
      if (file.after === null) {
        await rm(join(worktree, file.path), { force: true });
        continue;
      }
      await mkdir(dirname(join(worktree, file.path)), { recursive: true });
      await writeFileAtomic(join(worktree, file.path), file.after);
    }
    const head = await git.commitFiles({
      paths: files.map((f) => f.path),
      subject: input.subject,
      body: input.body,
      ...(input.allowEmpty === true ? { allowEmpty: true } : {}),
    });
    rememberWorktree(session, { head, entries: null });
    // The next refresh meets this ledger's blob in the new commit: keep it parsed by its object name.
    const ledgerText = files[0]?.after ?? null;
    if (ledgerText !== null)
      session.ledgerByBlob.set(
        blobObjectName(ledgerText, head.length === 64 ? 64 : 40),
        parseLedger(ledgerText).ledger,
      );
    await clearCommitIntent(session.files.journal);
    completedSideEffect(session, `commit: ${input.subject}`);
    return { head };
  });
}

/**
 * `readBoundary`: unexpected dirt, `rev-list HEAD_BEFORE..HEAD --count`, the single new commit and
 * the ledger at HEAD. The first observation is kept in the dispatch record; once the checkout was
 * reset for this dispatch, the recorded observation is what the interrupted return was, so a run
 * resumed after the reset repairs it for the same reason.
 */
export function readBoundaryActor(session: HostSession) {
  return fromPromise<BoundaryFacts, { plan: DispatchPlan; ledgerPath: string }>(async ({ input }) => {
    const { git } = session;
    const { plan, ledgerPath } = input;
    session.plan = plan;
    const stored = await readDispatchRecord(session.files, plan.iteration);
    const record = stored?.ok && stored.record.tuple === formatPending(plan.pending) ? stored.record : null;
    if (record?.resetBegun && record.boundary !== null) return record.boundary;
    const headBefore = plan.pending.head;
    // HEAD and status as the child left them (read once when it ended), and HEAD_BEFORE..HEAD once:
    // the same facts serve provenance, the retained records and the next refresh.
    const [{ head, entries: status }, diskLedger] = await Promise.all([
      observeWorktree(session),
      readWorktreeFile(session.options.worktree, ledgerPath),
    ]);
    const since = await commitsBetween(session, headBefore, head);
    const commitCount = since.length;
    const expected = [serializeLedger(plan.reserved), ...(record === null ? [] : [record.reservedLedger])];
    let commit: BoundaryFacts['commit'] = null;
    let headLedgerText: string | null = null;
    const only = commitCount === 1 ? since[0] : undefined;
    if (only !== undefined) {
      commit = { sha: only.sha, subject: only.subject, body: only.body };
      // The child's commit usually holds the ledger on disk byte for byte (same object name): then
      // no blob read is needed.
      const blobName = only.blobs?.[ledgerPath];
      const onDisk =
        diskLedger !== null &&
        blobName !== undefined &&
        blobObjectName(diskLedger, blobName.length === 64 ? 64 : 40) === blobName;
      if (onDisk) headLedgerText = diskLedger;
      else {
        const [blob] = await git.readBlobs([{ rev: only.sha, path: ledgerPath }]);
        headLedgerText = blob ?? null;
      }
      // The next refresh replays this commit's ledger: parsed once here.
      if (!session.ledgerByCommit.has(only.sha))
        session.ledgerByCommit.set(
          only.sha,
          headLedgerText === null ? null : parseLedger(headLedgerText).ledger,
        );
    }
    const worktreeId = worktreeIdentity(session.gitDir);
    const jobsText = (
      await readJobsFile(
        record?.jobsFile ?? jobsFilePath({ baseSha: plan.saved.base, iteration: plan.iteration, worktreeId }),
        worktreeId,
      )
    ).text;
    const boundary: BoundaryFacts = {
      porcelain: unexpectedDirt(status, ledgerPath, diskLedger, expected),
      commitCount,
      commit,
      headLedgerText,
      // Spends the child recorded in its jobs file must survive admission (§3.19 rule 2).
      actionRecords: jobsText === null ? [] : recordsFromLines(parseJobsFile(jobsText).actionRecordLines),
    };
    if (record !== null && record.boundary === null)
      await updateDispatchRecord(session.files, plan.iteration, (r) => ({ ...r, boundary }));
    return boundary;
  });
}
