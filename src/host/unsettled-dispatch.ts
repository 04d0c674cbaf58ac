/**
 * Finding a dispatch that started but was never settled although the worktree's ledger no longer
 * carries its tuple: the child committed (which removes the tuple) and the run ended before it
 * validated the commit. Its durable record is the only trace, and the loop resumes it from there.
 */

import type { GitPort } from '../effects/git.js';
import { parseSubject } from '../gauntlet/commits.js';
import { type DispatchRecord, listDispatchRecords, removeDispatchFolder } from './dispatch-record.js';
import type { StateFiles } from './state-files.js';

/** Subjects only the parent writes. */
function isParentSubject(subject: string): boolean {
  const kind = parseSubject(subject.trim()).kind;
  return !(kind === 'seed-evidence' || kind === 'row' || kind === 'verification-repair' || kind === 'other');
}

/**
 * The latest unsettled dispatch, if any. A dispatch is settled once any parent commit follows its
 * HEAD_BEFORE (the parent commits only after an admission or a repair); a record whose launch was
 * never even intended never reached a child. With `collect`, records of both kinds are removed.
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
    if (commits.some((commit) => isParentSubject(commit.subject))) {
      if (collect) await removeDispatchFolder(entry.folder, record.returnDir);
      continue;
    }
    return record;
  }
  return null;
}
