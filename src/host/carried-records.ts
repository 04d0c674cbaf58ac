/**
 * Action records a dispatch carries (gauntlet-protocol §3.19 rule 4): every `ran …` and
 * `bound spent: …` record in the ledger's decisions and evidence and in the bodies of the loop's
 * repair commits, once each. The child repeats them verbatim before any new spend.
 */
import {
  distinctActionRecords,
  extractActionRecords,
  parseActionRecord,
} from '../gauntlet/action-records.js';
import { parseSubject } from '../gauntlet/commits.js';
import type { ActionRecord, CommitFact, Ledger } from '../gauntlet/types.js';

/** What the records need of a commit: its subject and body. */
type CommitText = Pick<CommitFact, 'subject' | 'body'>;

/**
 * The spend history a dispatch over `ledger` carries, given the commits since the ledger base.
 *
 * @param ledger the ledger the dispatch is planned over
 * @param commits the commits since the base, oldest first
 * @param extra records the machine retained for this dispatch
 */
export function carriedActionRecords(
  ledger: Ledger,
  commits: readonly CommitText[],
  extra: readonly ActionRecord[] = [],
): ActionRecord[] {
  const records: ActionRecord[] = [...extra];
  for (const line of ledger.decisions) records.push(...extractActionRecords(line));
  for (const row of ledger.rows) records.push(...extractActionRecords(row.evidence));
  for (const commit of commits) {
    const kind = parseSubject(commit.subject.trim()).kind;
    if (kind === 'repair-row' || kind === 'repair-seed' || kind === 'repair-verification')
      records.push(...extractActionRecords(commit.body));
  }
  return distinctActionRecords(records);
}

/**
 * Parses stored record lines back into records, skipping anything that is not a record.
 *
 * @param lines record texts
 */
export function recordsFromLines(lines: readonly string[]): ActionRecord[] {
  return lines.map(parseActionRecord).filter((record): record is ActionRecord => record !== null);
}
