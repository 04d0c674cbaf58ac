/**
 * Action record lines stored by the host (dispatch records, jobs files) read back into records.
 * The spend history a dispatch carries is the machine's (`DispatchPlan.actionRecords`, from the
 * refreshed history's action spend); the host never rebuilds it.
 */
import { parseActionRecord } from '../gauntlet/action-records.js';
import type { ActionRecord } from '../gauntlet/types.js';

/**
 * Parses stored record lines back into records, skipping anything that is not a record.
 *
 * @param lines record texts
 */
export function recordsFromLines(lines: readonly string[]): ActionRecord[] {
  return lines.map(parseActionRecord).filter((record): record is ActionRecord => record !== null);
}
