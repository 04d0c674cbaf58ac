/**
 * The branch history as the loop core reads it: the commits since the ledger base (gauntlet-protocol
 * §2 counting semantics, §6 A21) replayed into a {@link LoopHistory}, reading commit ledgers only
 * where the replay asks for them.
 *
 * Cost: one `git log` of the commits since the cached head (all of `base..HEAD` without a usable
 * cache) and one `cat-file --batch` process answering the few ledger versions the latest windows
 * need, newest first, and only for commits whose facts the cache does not hold yet (a resume at the
 * cached head reads no ledger version). Nothing grows with the sum of all ledger versions on the
 * branch.
 */

import { InputError } from '../common/errors.js';
import type { BlobReader, GitPort, LoggedCommit } from '../effects/git.js';
import {
  type CommitLedgerFacts,
  type HistoryCommit,
  historyFromLog,
  type LoopHistory,
} from '../gauntlet/history.js';
import { historicLedger } from '../gauntlet/legacy-allowance.js';
import type { Ledger } from '../gauntlet/types.js';
import {
  compactCommit,
  HISTORY_CACHE_VERSION,
  historyCacheFile,
  loadHistoryCache,
  saveHistoryCache,
} from './history-cache.js';

/** Input of {@link readLoopHistory}. */
export interface HistoryReadInput {
  /** The ledger's `base:` SHA. */
  readonly base: string;
  /** Repo-relative ledger path. */
  readonly ledgerPath: string;
  /** The ledger as it is on disk now. */
  readonly ledger: Ledger;
  /** HEAD's full object name, when the caller already read it. */
  readonly head?: string;
  /** Parsed ledgers by commit SHA, reused across reads of one run (commits never change). */
  readonly ledgers?: Map<string, Ledger | null>;
  /**
   * The folder of the history caches (`git rev-parse --git-path loopchart/history`); `null` reads
   * without a cache. Default: asked from git once per call.
   */
  readonly cacheRoot?: string | null;
  /**
   * The commits of `from..head` (both full object names) with parents and paths, when the caller
   * may already know them (a run keeps the boundary's range); default: `git log` asks git.
   * Used only to extend a non-empty cache, where the ledger base adds no exclusion of its own.
   */
  readonly commitsSince?: (from: string, head: string) => Promise<readonly LoggedCommit[]>;
  /**
   * Parsed ledgers by the object name of their blob (content the caller wrote and committed
   * itself): a commit read from git whose ledger blob is one of them needs no blob read.
   */
  readonly ledgersByBlob?: ReadonlyMap<string, Ledger | null>;
}

/** What {@link readLoopHistory} read. */
export interface HistoryRead {
  readonly history: LoopHistory;
  /** HEAD the history ends at. */
  readonly head: string;
  /** The commits of `base..HEAD`, oldest first, as the history keeps them (see compactCommit). */
  readonly commits: readonly HistoryCommit[];
  /** How many commits `git log` returned (the commits since the cached head on a cache hit). */
  readonly commitsRead: number;
  /** Whether a cache was found valid and extended. */
  readonly cacheHit: boolean;
}

/** The folder of the history caches for a worktree: `git rev-parse --git-path loopchart/history`. */
export function historyCacheRoot(git: GitPort): Promise<string> {
  return git.gitPath('loopchart/history');
}

/** True when `commits` continue `from` as one line of single-parent commits ending at `head`. */
function continuesLinearly(from: string | null, commits: readonly LoggedCommit[], head: string): boolean {
  let previous = from;
  for (const commit of commits) {
    if (commit.parents.length !== 1) return false;
    if (previous !== null && commit.parents[0] !== previous) return false;
    previous = commit.sha;
  }
  return commits.length === 0 ? from === head : previous === head;
}

/**
 * Reads the loop history of `base..HEAD` against the ledger on disk.
 *
 * With a cache root, the cached commits of `base..<cached head>` are reused when the commits git
 * reports since `<cached head>` continue it linearly up to HEAD; otherwise (no cache, another
 * format, another base or ledger path, rewritten history, a merge) the whole range is read from
 * git and the cache rewritten. Histories with merges are read but never cached.
 *
 * @param git the worktree's git port
 * @param input base, ledger path, the ledger on disk, and optionally HEAD, a ledger memo and the cache root
 */
export async function readLoopHistory(git: GitPort, input: HistoryReadInput): Promise<HistoryRead> {
  // Without a known HEAD, the blob reader resolves it: one process instead of two.
  let reader: BlobReader | null = input.head === undefined ? git.openBlobReader() : null;
  try {
    const head = input.head ?? (await headOf(reader as BlobReader));
    return await readWith(git, input, head, () => {
      reader ??= git.openBlobReader();
      return reader;
    });
  } finally {
    await (reader as BlobReader | null)?.close();
  }
}

async function headOf(reader: BlobReader): Promise<string> {
  const head = await reader.commitName('HEAD');
  if (head === null)
    throw new InputError('git.no-head', 'HEAD does not name a commit (a branch without commits?)');
  return head;
}

async function readWith(
  git: GitPort,
  input: HistoryReadInput,
  head: string,
  reader: () => BlobReader,
): Promise<HistoryRead> {
  const { base, ledgerPath, ledger } = input;
  const root = input.cacheRoot === undefined ? await historyCacheRoot(git) : input.cacheRoot;
  const file = root === null ? null : historyCacheFile(root, base, ledgerPath);
  const cached = file === null ? null : await loadHistoryCache(file, base, ledgerPath);

  const ledgers = input.ledgers ?? new Map<string, Ledger | null>();
  /** Ledgers of commits just read whose blob the caller holds parsed already. */
  const known = (read: readonly LoggedCommit[]) => {
    if (input.ledgersByBlob === undefined) return;
    for (const commit of read) {
      const blob = commit.blobs?.[ledgerPath];
      if (blob !== undefined && !ledgers.has(commit.sha) && input.ledgersByBlob.has(blob))
        ledgers.set(commit.sha, input.ledgersByBlob.get(blob) ?? null);
    }
  };
  let commits: HistoryCommit[] | null = null;
  let commitsRead = 0;
  let linear = false;
  /** Facts derived from ledgers by earlier reads; trusted only when the cache continues to HEAD. */
  let facts = new Map<string, CommitLedgerFacts>();
  if (cached !== null) {
    // A non-empty cache ends at its head, a commit of base..head that base does not reach; commits
    // that continue it linearly descend from it, so base reaches none of them either, and
    // `<cached head>..head` is the same range whenever it passes the linearity check below.
    const read =
      input.commitsSince !== undefined && cached.commits.length > 0
        ? input.commitsSince(cached.head, head)
        : git.logRange(head, [base, cached.head]);
    const since = await read.catch(() => null);
    if (since !== null && continuesLinearly(cached.head, since, head)) {
      commits = [...cached.commits, ...since.map((commit) => compactCommit(commit, ledgerPath))];
      commitsRead = since.length;
      linear = true;
      facts = new Map(cached.facts);
      known(since);
    }
  }
  const cacheHit = commits !== null;
  if (commits === null) {
    const all = await git.logRange(head, [base]);
    commits = all.map((commit) => compactCommit(commit, ledgerPath));
    commitsRead = all.length;
    linear = all.length === 0 || continuesLinearly(null, all, head);
    known(all);
  }
  // The replay only adds facts (a derived field is never rewritten), so a count tells whether it did.
  const factsBefore = factCount(facts);
  const history = await replayWithBlobs(reader, commits, ledger, ledgerPath, ledgers, facts);
  const factsChanged = factCount(facts) !== factsBefore;
  if (file !== null && linear && (!cacheHit || commitsRead > 0 || factsChanged))
    await saveHistoryCache(file, { version: HISTORY_CACHE_VERSION, base, ledgerPath, head, commits, facts });
  return { history, head, commits, commitsRead, cacheHit };
}

function factCount(facts: ReadonlyMap<string, CommitLedgerFacts>): number {
  let count = 0;
  for (const value of facts.values()) count += Object.keys(value).length;
  return count;
}

async function replayWithBlobs(
  reader: () => BlobReader,
  commits: readonly HistoryCommit[],
  ledger: Ledger,
  ledgerPath: string,
  ledgers: Map<string, Ledger | null>,
  facts: Map<string, CommitLedgerFacts>,
): Promise<LoopHistory> {
  // The commit whose ledger commit i carries: the latest at or before i that changed the ledger.
  const touching = new Int32Array(commits.length);
  let last = -1;
  commits.forEach((commit, i) => {
    if (commit.paths.includes(ledgerPath)) last = i;
    touching[i] = last;
  });
  return historyFromLog(commits, { ledger, ledgerPath, facts }, async (index) => {
    const source = touching[index] ?? -1;
    if (source < 0) return null;
    const sha = (commits[source] as HistoryCommit).sha;
    if (!ledgers.has(sha)) {
      const blob = await reader().read(sha, ledgerPath);
      ledgers.set(sha, blob === null ? null : historicLedger(blob.toString('utf8')));
    }
    return ledgers.get(sha) ?? null;
  });
}
