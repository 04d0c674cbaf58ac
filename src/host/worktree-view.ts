/**
 * Small reads of the worktree the host actors share: a file by repo-relative path, and the
 * "unexpected dirt" view of `git status --porcelain` (gauntlet-protocol §3.10 step 1, §3.18: only
 * the reserved bump and tuple are expected dirt).
 */
import { join } from 'node:path';
import { readFileIfExists } from '../effects/files.js';
import type { StatusEntry } from '../effects/git.js';

/**
 * Reads a worktree file by repo-relative path.
 *
 * @returns its text, or `null` when it does not exist
 */
export function readWorktreeFile(worktree: string, path: string): Promise<string | null> {
  return readFileIfExists(join(worktree, path));
}

/** One status entry as a porcelain line, `XY path`. */
export function porcelainLine(entry: StatusEntry): string {
  return `${entry.xy} ${entry.path}`;
}

/**
 * The status entries the loop cannot account for: every entry, minus the ledger's when its bytes
 * on disk are exactly one of the ledgers the loop itself expects there (the reserved ledger of the
 * dispatch in flight). Any other difference in the ledger is unexpected dirt.
 *
 * @param entries `git status --porcelain` entries
 * @param ledgerPath repo-relative ledger path
 * @param diskLedger the ledger's bytes on disk (`null` when absent)
 * @param expected ledgers the loop wrote itself and has not committed
 * @returns the unexpected entries as porcelain lines joined by `\n` (empty when there are none)
 */
export function unexpectedDirt(
  entries: readonly StatusEntry[],
  ledgerPath: string,
  diskLedger: string | null,
  expected: readonly string[],
): string {
  const ledgerExpected = diskLedger !== null && expected.includes(diskLedger);
  return entries
    .filter((entry) => !(ledgerExpected && entry.path === ledgerPath && entry.xy !== '??'))
    .map(porcelainLine)
    .join('\n');
}
