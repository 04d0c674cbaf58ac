/**
 * Action-spend records (gauntlet-protocol §3.19): `ran <action> (<k> of <bound>)` and
 * `bound spent: <action> (<k> of <bound>)`.
 *
 * Records are read wherever they are durable (evidence cells, decision lines, commit bodies) and
 * folded into the highest recorded `k` per action; identical copies are one spend. Both the
 * parenthesised spelling and the bare `capture 1 of 1` of the protocol's worked example are
 * accepted on read; the parenthesised one is always written (§6 A7).
 */

import { InputError } from '../common/errors.js';
import { splitUnescaped, unescapeEvidence } from './evidence.js';
import type { ActionRecord } from './types.js';

/** One unit holding exactly one record, optionally closed by a sentence period. */
const RECORD =
  /^(ran|bound spent:) ([^\s()](?:[^()]*[^\s()])?) (?:\((0|[1-9]\d*) of (0|[1-9]\d*)\)|(0|[1-9]\d*) of (0|[1-9]\d*))\.?$/;

/**
 * Reads one record from a unit of text (an evidence segment, a decision cell sentence or a body
 * line).
 *
 * @param text the unit; surrounding blanks are ignored.
 * @returns the record, or `null` when the whole unit is not one record.
 */
export function parseActionRecord(text: string): ActionRecord | null {
  const trimmed = text.trim();
  const m = RECORD.exec(trimmed);
  if (!m) return null;
  const k = Number(m[3] ?? m[5]);
  const bound = Number(m[4] ?? m[6]);
  if (!Number.isSafeInteger(k) || !Number.isSafeInteger(bound)) return null;
  return {
    kind: m[1] === 'ran' ? 'ran' : 'bound-spent',
    action: m[2] as string,
    k,
    bound,
    text: trimmed,
  };
}

/**
 * Every record in `text`: the text is cut into units at line breaks, unescaped pipes and
 * semicolons, and sentence ends (`. `); each unit that is exactly one record counts. Prose that
 * merely mentions "ran" is not a record.
 *
 * @param text an evidence cell, a decision line, a commit body or any mix of them.
 * @returns the records in order of appearance, duplicates included.
 */
export function extractActionRecords(text: string): ActionRecord[] {
  const records: ActionRecord[] = [];
  for (const line of text.split(/\r?\n/)) {
    for (const cell of splitUnescaped(line, '|')) {
      for (const segment of splitUnescaped(cell, ';')) {
        for (const sentence of unescapeEvidence(segment).split(/(?<=\.)\s+/)) {
          const record = parseActionRecord(sentence);
          if (record !== null) records.push(record);
        }
      }
    }
  }
  return records;
}

/**
 * Writes a record in the parenthesised spelling.
 *
 * @param record kind, action, k and bound (`text` is ignored).
 * @returns `ran <action> (<k> of <bound>)` or `bound spent: <action> (<k> of <bound>)`.
 * @throws {InputError} `action-record.invalid` for a blank or multi-line action, an action with
 *   parentheses, or counts that are not non-negative integers.
 */
export function formatActionRecord(record: Pick<ActionRecord, 'kind' | 'action' | 'k' | 'bound'>): string {
  const action = record.action.trim();
  if (action === '' || /[()\r\n;|]/.test(action))
    throw new InputError(
      'action-record.invalid',
      `action name "${record.action}" must be one line without parentheses, pipes or semicolons`,
    );
  for (const [name, value] of [
    ['k', record.k],
    ['bound', record.bound],
  ] as const)
    if (!Number.isSafeInteger(value) || value < 0)
      throw new InputError('action-record.invalid', `${name} must be an integer >= 0, got ${value}`);
  const prefix = record.kind === 'ran' ? 'ran' : 'bound spent:';
  return `${prefix} ${action} (${record.k} of ${record.bound})`;
}

/** The parenthesised spelling used to compare records; never throws (unlike the formatter). */
function canonicalText(record: ActionRecord): string {
  return `${record.kind === 'ran' ? 'ran' : 'bound spent:'} ${record.action} (${record.k} of ${record.bound})`;
}

/** What the durable records say about one action. */
export interface ActionSpend {
  readonly action: string;
  /** The highest recorded k: spends so far (identical copies count once). */
  readonly k: number;
  /** The bound on the record(s) with the highest k (the highest of them when they differ). */
  readonly bound: number;
  /** True when k has reached the bound or a `bound spent:` record says so. */
  readonly spent: boolean;
  /** Distinct records seen for the action, in first-seen order (canonical spelling). */
  readonly records: readonly string[];
}

/**
 * Folds records into one spend per action (§3.19 rule 4): the highest recorded k counts, and
 * identical copies of a record are one spend, so repeating carried records never inflates them.
 *
 * @param records records from any number of sources, in any order.
 * @returns one entry per action, in first-seen order.
 */
export function foldActionRecords(records: readonly ActionRecord[]): ActionSpend[] {
  const byAction = new Map<
    string,
    { k: number; bound: number; boundSpent: boolean; records: string[]; seen: Set<string> }
  >();
  for (const record of records) {
    const canonical = canonicalText(record);
    let entry = byAction.get(record.action);
    if (entry === undefined) {
      entry = { k: record.k, bound: record.bound, boundSpent: false, records: [], seen: new Set() };
      byAction.set(record.action, entry);
    } else if (record.k > entry.k) {
      entry.k = record.k;
      entry.bound = record.bound;
    } else if (record.k === entry.k && record.bound > entry.bound) {
      entry.bound = record.bound;
    }
    if (record.kind === 'bound-spent') entry.boundSpent = true;
    if (!entry.seen.has(canonical)) {
      entry.seen.add(canonical);
      entry.records.push(canonical);
    }
  }
  return [...byAction.entries()].map(([action, entry]) => ({
    action,
    k: entry.k,
    bound: entry.bound,
    spent: entry.boundSpent || entry.k >= entry.bound,
    records: entry.records,
  }));
}

/**
 * Distinct records in first-seen order, compared in the canonical spelling (so `bound spent:
 * capture 1 of 1` and `bound spent: capture (1 of 1)` are one record).
 *
 * @param records records from any number of sources.
 */
export function distinctActionRecords(records: readonly ActionRecord[]): ActionRecord[] {
  const seen = new Set<string>();
  return records.filter((record) => {
    const canonical = canonicalText(record);
    if (seen.has(canonical)) return false;
    seen.add(canonical);
    return true;
  });
}
