/**
 * The branch history as the loop core reads it: every commit since the ledger base with the
 * ledger it left (gauntlet-protocol §2 counting semantics, §6 A21), read with one `git log` and
 * one batched blob read.
 */

import type { GitPort } from '../effects/git.js';
import { parseLedger } from '../gauntlet/ledger.js';
import type { CommitFact, Ledger } from '../gauntlet/types.js';

/**
 * Reads the commits of `<base>..HEAD`, oldest first, each with the ledger as that commit left it.
 * A commit that did not touch the ledger carries the ledger of the commit before it.
 *
 * @param git the worktree's git port
 * @param base the ledger's `base:` SHA
 * @param ledgerPath repo-relative ledger path
 * @param cache parsed ledgers by commit SHA, filled as blobs are read (commits never change)
 */
export async function readCommitFacts(
  git: GitPort,
  base: string,
  ledgerPath: string,
  cache: Map<string, Ledger | null> = new Map(),
): Promise<CommitFact[]> {
  const records = await git.logSince(base);
  const unread = records.filter((commit) => commit.paths.includes(ledgerPath) && !cache.has(commit.sha));
  const blobs = await git.readBlobs(unread.map((commit) => ({ rev: commit.sha, path: ledgerPath })));
  unread.forEach((commit, index) => {
    const text = blobs[index] ?? null;
    cache.set(commit.sha, text === null ? null : parseLedger(text).ledger);
  });
  let latest: Ledger | null = null;
  return records.map((commit) => {
    if (commit.paths.includes(ledgerPath)) latest = cache.get(commit.sha) ?? null;
    return {
      sha: commit.sha,
      subject: commit.subject,
      body: commit.body,
      paths: commit.paths,
      ledger: latest,
    };
  });
}
