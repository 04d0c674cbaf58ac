/**
 * Finding a dispatch that started but was never settled although the worktree's ledger no longer
 * carries its tuple: the child committed (which removes the tuple) and the run ended before it
 * validated the commit. Its durable record is the only trace, and the loop resumes it from there.
 */

import type { GitPort } from '../effects/git.js';
import { parentCommitAmong } from '../gauntlet/dispatch.js';
import { type DispatchRecord, listDispatchRecords, removeDispatchFolder } from './dispatch-record.js';
import type { StateFiles } from './state-files.js';

/**
 * The latest unsettled dispatch, if any, by the machine's own rule (`reservationInFlight`: launch
 * intended, HEAD descends from HEAD_BEFORE, no parent commit since). Used by `status`, which reads
 * without running the machine. With `collect`, settled and never-launched records are removed.
 *
 * @param git the worktree's git port
 * @param files the host's state files
 * @param head the current HEAD
 * @param collect remove settled and never-launched records (only under the worktree lock)
 */
export async function findUnsettledDispatch(
  git: GitPort,
  files: StateFiles,
  head: string,
  collect: boolean,
): Promise<DispatchRecord | null> {
  const stored = await listDispatchRecords(files);
  for (const entry of [...stored].reverse()) {
    if (!entry.ok) continue; // an unreadable record proves nothing; it is left for a person to see
    const record = entry.record;
    if (!record.launching) {
      if (collect) await removeDispatchFolder(entry.folder, record.returnDir);
      continue;
    }
    const reachable = await git.isAncestor(record.headBefore, head).catch(() => false);
    if (!reachable) continue;
    const commits = await git.logSince(record.headBefore);
    if (parentCommitAmong(commits.map((commit) => commit.subject))) {
      if (collect) await removeDispatchFolder(entry.folder, record.returnDir);
      continue;
    }
    return record;
  }
  return null;
}
