/**
 * The git facts one run's host actors share, so that an iteration spends a git process only where
 * the protocol needs a fresh fact (issue 11):
 *
 * - **HEAD and status** are read together by one process (`status --porcelain=v2 --branch`) and
 *   kept as the run's observation of the worktree until something may have changed it: every actor
 *   that writes the worktree, the index or HEAD, or starts a process that may (a child, a gate, a
 *   reviewer), forgets it before it runs, and so does a human reply (the run waited on a person).
 *   Only actors that read (refresh, reservation, boundary, provenance, job cleanup) reuse it, so a
 *   child's return is read once and shared by the boundary, provenance and the reset.
 * - **Facts about commits** (the commits of `from..to` between two object names, ancestry) never
 *   change, so they are kept for the run by object name: the boundary's `HEAD_BEFORE..HEAD` is read
 *   once and serves the boundary, provenance, the retained records and the next refresh.
 *
 * The observation is shared only when the session says so ({@link HostSession.shareObservations},
 * set by `createRunner`, which forgets it on every human reply); a host that drives the machine
 * itself reads fresh facts at every step unless it does the same.
 */
import type { LoggedCommit, StatusEntry } from '../effects/git.js';
import type { HostSession, WorktreeObservation } from './host-session.js';

/** HEAD and status as observed together. */
export interface WorktreeSnapshot {
  readonly head: string;
  readonly entries: readonly StatusEntry[];
}

/** Forgets HEAD and status (the loop or a process it started may have changed them). */
export function forgetWorktree(session: HostSession): void {
  session.observed = null;
}

/** Keeps HEAD but forgets the status (the loop wrote a file in the worktree, HEAD did not move). */
export function forgetStatus(session: HostSession): void {
  if (session.observed !== null && session.observed !== undefined)
    session.observed = { head: session.observed.head, entries: null };
}

/** Records HEAD (and the status when known) the loop itself just produced or read. */
export function rememberWorktree(session: HostSession, observation: WorktreeObservation): void {
  session.observed = observation;
}

function shared(session: HostSession): WorktreeObservation | null {
  return session.shareObservations === true ? (session.observed ?? null) : null;
}

/**
 * HEAD and status as observed since the last change the run knows of, when the session shares
 * observations and both are known; `null` otherwise (read them with {@link observeWorktree}).
 *
 * @param session the run
 */
export function sharedObservation(session: HostSession): WorktreeSnapshot | null {
  const seen = shared(session);
  return seen === null || seen.entries === null ? null : { head: seen.head, entries: seen.entries };
}

/**
 * HEAD and status: the shared observation when there is one, else one fresh read (kept).
 *
 * @param session the run
 * @param fresh read from git even when an observation is shared (after the caller's own write)
 */
export async function observeWorktree(session: HostSession, fresh = false): Promise<WorktreeSnapshot> {
  const seen = fresh ? null : shared(session);
  if (seen !== null && seen.entries !== null) return { head: seen.head, entries: seen.entries };
  const state = await session.git.worktreeState();
  // A branch without commits: the same error a `rev-parse HEAD` gives.
  const head = state.head ?? (await session.git.revParseHead());
  const snapshot = { head, entries: state.entries };
  session.observed = snapshot;
  return snapshot;
}

/**
 * HEAD: the shared observation's when there is one, else one `rev-parse` (kept).
 *
 * @param session the run
 */
export async function observeHead(session: HostSession): Promise<string> {
  const seen = shared(session);
  if (seen !== null) return seen.head;
  const head = await session.git.revParseHead();
  session.observed = { head, entries: null };
  return head;
}

/**
 * The commits reachable from `head` and not from `from` (`from..head`), oldest first, with parents
 * and changed paths: read once per pair of object names for the whole run (commits never change).
 *
 * @param session the run
 * @param from the excluded commit (e.g. HEAD_BEFORE)
 * @param head the included commit, a full object name
 */
export async function commitsBetween(
  session: HostSession,
  from: string,
  head: string,
): Promise<readonly LoggedCommit[]> {
  if (from === head) return [];
  const key = `${from}..${head}`;
  const known = session.commitRanges.get(key);
  if (known !== undefined) return known;
  const commits = await session.git.logRange(head, [from]);
  session.commitRanges.set(key, commits);
  return commits;
}

/**
 * Whether `ancestor` is an ancestor of (or equal to) `descendant`, both full object names: asked
 * once per pair for the whole run.
 *
 * @param session the run
 * @param ancestor the older commit
 * @param descendant the newer commit
 */
export async function isAncestorOf(
  session: HostSession,
  ancestor: string,
  descendant: string,
): Promise<boolean> {
  if (ancestor === descendant) return true;
  const key = `${ancestor} ${descendant}`;
  const known = session.ancestry.get(key);
  if (known !== undefined) return known;
  const answer = await session.git.isAncestor(ancestor, descendant);
  session.ancestry.set(key, answer);
  return answer;
}
