/**
 * The parent's ledger edits: repairs after a validation miss or an interrupted return (§3.11,
 * §3.12, §3.14 step 4), the verification repair markers (§3.18) and the edits that answer a
 * human stop (retry, `rows +N`, escalation, cut, re-bound; §3.16, §3.17).
 *
 * Every function is pure and returns the ledger to write plus the commit subject and body to
 * commit it with. Invariants, checked by property tests: no edit lowers any row's attempts or
 * the iterations, and only `rows +N` changes the allowance (upwards). Repairs restore from the
 * saved pre-dispatch copy and clear the pending tuple; human-choice edits never clear it.
 */
import { LoopchartError } from '../common/errors.js';
import { distinctActionRecords, formatActionRecord } from './action-records.js';
import { effectiveAllowance } from './allowance.js';
import { formatAttribution, formatRepairReason, formatSubject, type RepairReason } from './commits.js';
import { formatEscalatedDecision, formatRaiseDecision, formatRetryDecision } from './decisions.js';
import { isEscalationSpent } from './escalation.js';
import { escapePipes, escapeSegment, MAX_RESULT_LINES } from './evidence.js';
import { FULL_SHA } from './ledger.js';
import {
  type CriterionEntry,
  criterionEntriesLine,
  criterionOfRow,
  entriesOfCriterion,
} from './leg-amendments.js';
import type { ActionRecord, Ledger, LedgerRow, PendingTuple } from './types.js';
import { type InterruptedReason, oneLine } from './validate.js';

/** A ledger edit ready to commit: write `ledger`, then commit it as `subject` with `body`. */
export interface LedgerEdit {
  readonly ledger: Ledger;
  readonly subject: string;
  /** Commit body (the lines after the subject and its blank line); may be empty. */
  readonly body: string;
}

/** Codes of {@link LedgerEditError}. */
export type LedgerEditErrorCode =
  | 'ledger-edit.target'
  | 'ledger-edit.row'
  | 'ledger-edit.amount'
  | 'ledger-edit.text'
  | 'ledger-edit.escalated';

/**
 * An edit that the protocol does not allow on this ledger: a repair for the wrong kind of target,
 * a row that does not exist or is in the wrong status, a non-positive allowance raise, text that
 * would break a ledger cell, or a second escalation of the same row.
 */
export class LedgerEditError extends LoopchartError {
  declare readonly code: LedgerEditErrorCode;

  /**
   * @param code what is wrong
   * @param message one sentence naming the value and what was expected
   */
  constructor(code: LedgerEditErrorCode, message: string) {
    super(code, message);
  }
}

/** Input of the row and seed repairs: the dispatch being repaired. */
export interface RepairInput {
  /** The ledger saved before the iterations bump and tuple write. Its `iterations` is the pre-bump `i`. */
  readonly saved: Ledger;
  /** The dispatched tuple (written in the body so a resume can match the repair to its dispatch). */
  readonly pending: PendingTuple;
  /** Action records retained for this dispatch; copied into the body (and, for rows, the evidence). */
  readonly actionRecords?: readonly ActionRecord[];
}

/**
 * Ordinary-miss repair (§3.12): restore every non-target row, the headers and the prior decisions
 * from the saved copy (which drops every decision the child appended, malformed ones included),
 * keep the consumed iterations, clear `pending:` and set the target `failed` with attempts + 1 and
 * evidence `iteration <i>: <miss>` followed by retained action records within the result-line bound.
 *
 * @param input the saved ledger, the dispatched tuple (numbered target) and retained action records
 * @param miss the concrete miss from {@link validateReturn}
 * @returns the repaired ledger, subject `loop: repair row <n>`, and a body with the tuple, the
 *   consumed iteration, `miss: <miss>` and every retained action record
 * @throws LedgerEditError when the tuple's target is not an open or failed row of the saved
 *   ledger, or the miss is blank
 */
export function ordinaryMissRepair(input: RepairInput & { readonly miss: string }): LedgerEdit {
  const miss = reasonText(input.miss, 'miss');
  return rowRepair(input, `iteration ${input.saved.iterations}: ${miss}`, { kind: 'miss', text: miss });
}

/**
 * Interrupted repair of a numbered target (§3.14 step 4): like the ordinary repair, with evidence
 * `iteration <i>: interrupted - <reason>`. Run it only after provenance, jobs and reset (steps 1-3).
 *
 * @param input the saved ledger, the dispatched tuple (numbered target) and retained action records
 * @param reason the interrupted reason from {@link checkReturnBoundary}
 * @returns the repaired ledger, subject `loop: repair row <n>`, and a body with the tuple, the
 *   consumed iteration, `interrupted: <reason>` and every retained action record
 * @throws LedgerEditError when the tuple's target is not an open or failed row of the saved ledger
 */
export function interruptedRowRepair(
  input: RepairInput & { readonly reason: InterruptedReason },
): LedgerEdit {
  const reason = reasonText(input.reason, 'interrupted reason');
  return rowRepair(input, `iteration ${input.saved.iterations}: interrupted - ${reason}`, {
    kind: 'interrupted',
    text: reason,
  });
}

/**
 * Seed repair after a seed miss (§3.11): every row, header and decision comes back from the saved
 * copy (cut rows included, so they are preserved), iterations stay consumed and `pending:` is
 * cleared. No row or decision changes; the miss lives in the body as `seed miss: <miss>`.
 *
 * @param input the saved ledger, the dispatched seed tuple and retained action records
 * @param miss the concrete seed miss from {@link validateReturn}
 * @returns the restored ledger, subject `loop: repair seed`, and a body with the tuple, the consumed
 *   iteration, `seed miss: <miss>` and every retained action record
 * @throws LedgerEditError when the tuple's target is not `seed`, or the miss is blank
 */
export function seedMissRepair(input: RepairInput & { readonly miss: string }): LedgerEdit {
  return seedRepair(input, { kind: 'seed-miss', text: reasonText(input.miss, 'miss') });
}

/**
 * Interrupted seed repair (§3.14 step 4): rows and decisions unchanged, iterations consumed,
 * `pending:` cleared, `seed interrupted: <reason>` in the body. Counts as one seed repair.
 *
 * @param input the saved ledger, the dispatched seed tuple and retained action records
 * @param reason the interrupted reason from {@link checkReturnBoundary}
 * @returns the restored ledger, subject `loop: repair seed` and its body
 * @throws LedgerEditError when the tuple's target is not `seed`
 */
export function interruptedSeedRepair(
  input: RepairInput & { readonly reason: InterruptedReason },
): LedgerEdit {
  return seedRepair(input, {
    kind: 'seed-interrupted',
    text: reasonText(input.reason, 'interrupted reason'),
  });
}

/**
 * The marker after an admitted verification repair (§3.18 step 1): the child's commit kept the
 * bumped ledger with `pending: verify …`; the marker only removes that line.
 *
 * @param ledger the ledger at HEAD after the admitted repair commit, still carrying the verify tuple
 * @param childSha the admitted repair commit, a full SHA
 * @param actionRecords the records after tuple/iteration in the child's commit body
 * @returns the ledger without `pending:`, subject `loop: repair verification`, and a body with the
 *   tuple, the consumed iteration, `admitted: <childSha>` and the action records
 * @throws LedgerEditError when the ledger carries no `pending: verify` tuple or no bumped count, or
 *   the SHA is not full
 */
export function verificationRepairMarker(
  ledger: Ledger,
  childSha: string,
  actionRecords: readonly ActionRecord[] = [],
): LedgerEdit {
  const pending = ledger.pending;
  if (pending === null || pending.target !== 'verify')
    throw new LedgerEditError(
      'ledger-edit.target',
      'a verification repair marker needs a pending: verify tuple',
    );
  if (ledger.iterations < 1)
    throw new LedgerEditError(
      'ledger-edit.target',
      'a verification repair marker needs the bumped iterations count',
    );
  if (!FULL_SHA.test(childSha))
    throw new LedgerEditError(
      'ledger-edit.text',
      `the admitted child "${childSha}" is not a full lowercase SHA`,
    );
  return {
    ledger: { ...ledger, pending: null },
    subject: formatSubject({ kind: 'repair-verification' }),
    body: repairBody(pending, ledger.iterations, { kind: 'admitted', child: childSha }, actionRecords),
  };
}

/**
 * The empty marker after an interrupted or invalid verification repair (§3.18 step 1): the saved
 * row cells stay, the iteration stays consumed and `pending:` is cleared; no repair code.
 *
 * @param input the home ledger saved before the bump, the verify tuple and retained action records
 * @param reason why the repair was not admitted (an interrupted reason or a short miss)
 * @returns the ledger, subject `loop: repair verification`, and a body with the tuple, the consumed
 *   iteration, `interrupted: <reason>` and the action records
 * @throws LedgerEditError when the tuple's target is not `verify`, or the reason is blank
 */
export function emptyVerificationMarker(input: RepairInput & { readonly reason: string }): LedgerEdit {
  if (input.pending.target !== 'verify')
    throw new LedgerEditError('ledger-edit.target', 'an empty verification marker needs a verify tuple');
  const reason: RepairReason = { kind: 'interrupted', text: reasonText(input.reason, 'interrupted reason') };
  return {
    ledger: consumed(input.saved),
    subject: formatSubject({ kind: 'repair-verification' }),
    body: repairBody(input.pending, input.saved.iterations + 1, reason, input.actionRecords ?? []),
  };
}

/**
 * Human retry (`retry <n> | <hint>`, A6/A9): append `row <n> retry | <hint> | allowed attempts <m>`
 * with `m` the row's effective allowance after this retry, commit `loop: retry row <n>`. The tuple,
 * attempts, iterations and allowance are untouched.
 *
 * @param ledger the ledger at HEAD
 * @param row an open or failed row
 * @param hint the human's hint: one line, non-empty, without `|`
 * @returns the edit
 * @throws LedgerEditError for an unknown or resolved row, or an unusable hint
 */
export function retryEdit(ledger: Ledger, row: number, hint: string): LedgerEdit {
  unresolvedRow(ledger, row, 'retry');
  const text = cellText(hint, 'retry hint', false);
  const line = formatRetryDecision(row, text, effectiveAllowance(ledger, row) + 1);
  return {
    ledger: { ...ledger, decisions: [...ledger.decisions, line] },
    subject: formatSubject({ kind: 'retry-row', row }),
    body: line,
  };
}

/**
 * Raise the shared allowance (`rows +<N> [words]`, A6): `allowance:` += N, append `rows +<N> |
 * <words>` (bare: `rows +<N> |` with an empty words cell), commit `loop: raise allowance`.
 *
 * @param ledger the ledger at HEAD
 * @param amount N, a positive integer
 * @param words the human's words: one line without `|`, may be empty
 * @returns the edit
 * @throws LedgerEditError for a non-positive or non-integer amount, or unusable words
 */
export function raiseAllowanceEdit(ledger: Ledger, amount: number, words = ''): LedgerEdit {
  if (!Number.isSafeInteger(amount) || amount < 1 || !Number.isSafeInteger(ledger.allowance + amount))
    throw new LedgerEditError(
      'ledger-edit.amount',
      `rows +N needs a positive whole N, got ${String(amount)}`,
    );
  const line = formatRaiseDecision(amount, cellText(words, 'rows +N words', true));
  return {
    ledger: { ...ledger, allowance: ledger.allowance + amount, decisions: [...ledger.decisions, line] },
    subject: formatSubject({ kind: 'raise-allowance' }),
    body: `${line}\nallowance: ${ledger.allowance} -> ${ledger.allowance + amount}`,
  };
}

/**
 * Record a row's escalated round (§3.7, A5): append `row <n> escalated | implModel round | allowed
 * attempts <effective allowance>`, commit `loop: escalate row <n>`. At most once per row.
 *
 * @param ledger the ledger at HEAD
 * @param row an open or failed row without a durable escalation decision
 * @param implModel the resolved model, recorded in the body when given
 * @returns the edit
 * @throws LedgerEditError for an unknown or resolved row, or a row already escalated
 */
export function escalationEdit(ledger: Ledger, row: number, implModel?: string): LedgerEdit {
  unresolvedRow(ledger, row, 'escalate');
  if (isEscalationSpent(ledger, row))
    throw new LedgerEditError('ledger-edit.escalated', `row ${row} has already spent its escalated round`);
  const line = formatEscalatedDecision(row, effectiveAllowance(ledger, row));
  return {
    ledger: { ...ledger, decisions: [...ledger.decisions, line] },
    subject: formatSubject({ kind: 'escalate-row', row }),
    body: implModel === undefined ? line : `${line}\nimplModel: ${oneLine(implModel)}`,
  };
}

/** The spec dispositions that cut a row (§1.3). TODO(formats): spec.ts's disposition parser, once exported. */
const CUT_DISPOSITION = /^(deviates|deferred|elsewhere): \S/;

/**
 * True when `text` is one line holding a disposition that cuts a row: `deviates: <why>`,
 * `deferred: <where>` or `elsewhere: <repo>` (never `venue:` or `in-scope`).
 *
 * @param text the disposition text, trimmed
 */
export function isCutDispositionText(text: string): boolean {
  return !/[\r\n]/.test(text) && CUT_DISPOSITION.test(text);
}

/**
 * Cut a row by an approved disposition amendment (§3.17, M3): the row becomes `cut` with the
 * disposition text as evidence; attempts, iterations, allowance, decisions and the tuple stay.
 * Commit `loop: cut row <n>` together with the spec edit (the spec is not this function's).
 *
 * On a coordinated ledger a disposition belongs to the row's acceptance criterion (the spec owns
 * the cut, §3.13; "copy each cut disposition to every expanded entry", §1.7): every entry of that
 * criterion in `## Leg mapping` is cut with the same evidence, in every leg, and the body lists one
 * `cut row <m>: <evidence>` line per entry and a `criterion <ac>: row <m> <leg>, …` line
 * (docs/decisions/legs.md L12). The subject keeps the row that was named.
 *
 * @param ledger the ledger at HEAD
 * @param row a row that is not cut yet
 * @param disposition `deviates: <why>`, `deferred: <where>` or `elsewhere: <repo>`, one line
 * @param grant the granting sentence when a standing grant applied the cut (recorded in the body)
 * @returns the edit
 * @throws LedgerEditError for an unknown or already cut row, or a disposition that does not cut
 */
export function cutRowEdit(ledger: Ledger, row: number, disposition: string, grant?: string): LedgerEdit {
  const current = rowOf(ledger, row);
  if (current.status === 'cut') throw new LedgerEditError('ledger-edit.row', `row ${row} is already cut`);
  const text = disposition.trim();
  if (!isCutDispositionText(text))
    throw new LedgerEditError(
      'ledger-edit.text',
      'a cut needs one disposition line: deviates: <why>, deferred: <where> or elsewhere: <repo>',
    );
  const evidence = escapePipes(text);
  const granted = grant === undefined ? [] : ['granted', `"${oneLine(grant)}"`];
  const { ac, entries } = criterionEntries(ledger, row);
  const cutRows = new Set(entries.map((entry) => entry.row));
  const lines =
    ledger.legs === undefined
      ? [`cut row ${row}: ${evidence}`]
      : [...entries.map((entry) => `cut row ${entry.row}: ${evidence}`), criterionEntriesLine(ac, entries)];
  return {
    ledger: {
      ...ledger,
      rows: ledger.rows.map((r) => (cutRows.has(r.row) ? { ...r, status: 'cut' as const, evidence } : r)),
    },
    subject: formatSubject({ kind: 'cut-row', row }),
    body: [...lines, ...granted].join('\n'),
  };
}

/**
 * The criterion of `row` and its entries (the row alone on a single-leg ledger).
 *
 * @throws LedgerEditError when a coordinated ledger's mapping does not list the row
 */
function criterionEntries(ledger: Ledger, row: number): { ac: number; entries: CriterionEntry[] } {
  const ac = criterionOfRow(ledger, row);
  if (ac === null) throw new LedgerEditError('ledger-edit.row', `row ${row} has no leg mapping`);
  if (ledger.legs === undefined) return { ac, entries: [{ row, leg: 'home' }] };
  return { ac, entries: entriesOfCriterion(ledger, ac) };
}

/** Evidence of a done row re-bounded by an amendment (§3.17). */
export const REOPENED_EVIDENCE = 'reopened by amendment';

/**
 * Re-bound a done row by an approved amendment (§3.17): `done` → `open` with evidence `reopened by
 * amendment`; attempts, iterations, allowance, decisions and the tuple stay. Commit `loop: amend`.
 *
 * On a coordinated ledger the re-bound changes the row's acceptance criterion, which every leg
 * listing it implements: every `done` entry of that criterion is reopened, the entries that are
 * still open or failed stay as they are, and the body lists one `reopened row <m> by amendment`
 * line per reopened entry and a `criterion <ac>: row <m> <leg>, …` line (docs/decisions/legs.md
 * L12).
 *
 * @param ledger the ledger at HEAD
 * @param row a done row
 * @param what one sentence describing the amendment, recorded in the body
 * @returns the edit
 * @throws LedgerEditError for an unknown row or a row that is not done
 */
export function reopenRowEdit(ledger: Ledger, row: number, what = ''): LedgerEdit {
  const current = rowOf(ledger, row);
  if (current.status !== 'done')
    throw new LedgerEditError(
      'ledger-edit.row',
      `only a done row can be reopened; row ${row} is ${current.status}`,
    );
  const note = what.trim() === '' ? '' : `\n${oneLine(what)}`;
  const { ac, entries } = criterionEntries(ledger, row);
  const done = new Set(ledger.rows.filter((r) => r.status === 'done').map((r) => r.row));
  const reopened = entries.filter((entry) => done.has(entry.row));
  const rows = new Set(reopened.map((entry) => entry.row));
  const lines =
    ledger.legs === undefined
      ? [`reopened row ${row} by amendment`]
      : [
          ...reopened.map((entry) => `reopened row ${entry.row} by amendment`),
          criterionEntriesLine(ac, reopened),
        ];
  return {
    ledger: {
      ...ledger,
      rows: ledger.rows.map((r) =>
        rows.has(r.row) ? { ...r, status: 'open' as const, evidence: REOPENED_EVIDENCE } : r,
      ),
    },
    subject: formatSubject({ kind: 'amend' }),
    body: `${lines.join('\n')}${note}`,
  };
}

/**
 * A requirement-preserving amendment (§3.17, M1): the rows stay as they are; the commit `loop:
 * amend` carries the spec edit and restarts every row's windows.
 *
 * @param ledger the ledger at HEAD
 * @param what one sentence describing the amendment, recorded in the body
 * @returns the edit (the ledger is unchanged)
 */
export function preservingAmendEdit(ledger: Ledger, what: string): LedgerEdit {
  return { ledger, subject: formatSubject({ kind: 'amend' }), body: oneLine(what) };
}

/**
 * Apply an `amend: <what> - <evidence>` item (docs/decisions/amendments.md): the rows stay as they
 * are, the spec gets one `## Amendments` entry (the caller's spec edit) and the commit is `loop:
 * amend`, which answers the admitted return and restarts every row's windows. Attempts,
 * iterations, allowance, decisions and the tuple stay.
 *
 * @param ledger the ledger at HEAD
 * @param row the failed target that reported the item
 * @param what the one-line spec change
 * @param evidence the observation that falsified the old text
 * @param grant the granting sentence when the standing grant applied the item
 * @returns the edit (the ledger is unchanged)
 */
export function amendItemEdit(
  ledger: Ledger,
  row: number,
  what: string,
  evidence: string,
  grant?: string,
): LedgerEdit {
  rowOf(ledger, row);
  const granted = grant === undefined ? [] : ['granted', `"${oneLine(grant)}"`];
  return {
    ledger,
    subject: formatSubject({ kind: 'amend' }),
    body: [
      `amended the spec: row ${row} - ${oneLine(what)}`,
      `evidence: ${oneLine(evidence)}`,
      ...granted,
    ].join('\n'),
  };
}

/**
 * The redraw commit (docs/decisions/amendments.md): `loop: redraw` with the body `redraw: <reason>`.
 * The ledger returned is the one to delete; the host removes the file instead of writing it.
 *
 * @param ledger the ledger at HEAD (deleted by the commit)
 * @param reason why the spec is redrawn, one line
 */
export function redrawEdit(ledger: Ledger, reason: string): LedgerEdit {
  return { ledger, subject: formatSubject({ kind: 'redraw' }), body: `redraw: ${oneLine(reason)}` };
}

function rowRepair(input: RepairInput, evidenceHead: string, reason: RepairReason): LedgerEdit {
  const { saved, pending } = input;
  const target = pending.target;
  if (typeof target !== 'number')
    throw new LedgerEditError('ledger-edit.target', `a row repair needs a numbered target, got ${target}`);
  const before = unresolvedRow(saved, target, 'repair');
  const records = input.actionRecords ?? [];
  const evidence = [evidenceHead, ...evidenceRecords(records)].map(escapeSegment).join('; ');
  const row: LedgerRow = { ...before, status: 'failed', attempts: before.attempts + 1, evidence };
  return {
    ledger: withRow(consumed(saved), row),
    subject: formatSubject({ kind: 'repair-row', row: target }),
    body: repairBody(pending, saved.iterations + 1, reason, records),
  };
}

function seedRepair(input: RepairInput, reason: RepairReason): LedgerEdit {
  if (input.pending.target !== 'seed')
    throw new LedgerEditError(
      'ledger-edit.target',
      `a seed repair needs the seed target, got ${input.pending.target}`,
    );
  return {
    ledger: consumed(input.saved),
    subject: formatSubject({ kind: 'repair-seed' }),
    body: repairBody(input.pending, input.saved.iterations + 1, reason, input.actionRecords ?? []),
  };
}

/**
 * The repair body: attribution lines, the reason line, then every retained record once (§3.19
 * rule 3: the body keeps the complete accounting). Mirrors commits.ts's formatRepairBody, but
 * never drops a record it cannot re-spell: such a record is kept as written.
 */
function repairBody(
  pending: PendingTuple,
  consumedIteration: number,
  reason: RepairReason,
  records: readonly ActionRecord[],
): string {
  return [
    formatAttribution(pending, consumedIteration),
    formatRepairReason(reason),
    ...distinctActionRecords(records).map(recordText),
  ].join('\n');
}

function recordText(record: ActionRecord): string {
  try {
    return formatActionRecord(record);
  } catch {
    return oneLine(record.text);
  }
}

/** The saved ledger with the consumed iteration and no tuple. */
function consumed(saved: Ledger): Ledger {
  return { ...saved, iterations: saved.iterations + 1, pending: null };
}

function rowOf(ledger: Ledger, row: number): LedgerRow {
  const found = ledger.rows.find((r) => r.row === row);
  if (found === undefined) throw new LedgerEditError('ledger-edit.row', `the ledger has no row ${row}`);
  return found;
}

function unresolvedRow(ledger: Ledger, row: number, what: string): LedgerRow {
  const found = rowOf(ledger, row);
  if (found.status !== 'open' && found.status !== 'failed')
    throw new LedgerEditError('ledger-edit.row', `cannot ${what} row ${row}: it is ${found.status}`);
  return found;
}

function withRow(ledger: Ledger, row: LedgerRow): Ledger {
  return { ...ledger, rows: ledger.rows.map((r) => (r.row === row.row ? row : r)) };
}

function reasonText(text: string, name: string): string {
  const line = oneLine(text);
  if (line === '') throw new LedgerEditError('ledger-edit.text', `the ${name} is blank`);
  return line;
}

function cellText(text: string, name: string, allowEmpty: boolean): string {
  const trimmed = text.trim();
  if (/[\r\n]/.test(trimmed)) throw new LedgerEditError('ledger-edit.text', `the ${name} must be one line`);
  if (trimmed.includes('|'))
    throw new LedgerEditError(
      'ledger-edit.text',
      `the ${name} may not contain "|" (it separates decision cells)`,
    );
  if (!allowEmpty && trimmed === '') throw new LedgerEditError('ledger-edit.text', `the ${name} is empty`);
  return trimmed;
}

/**
 * The records that fit the evidence cell after the reason: per action the highest recorded k
 * (a `bound spent` record wins a tie), at most three, in the order the actions were first seen.
 */
function evidenceRecords(records: readonly ActionRecord[]): string[] {
  const best = new Map<string, ActionRecord>();
  for (const record of distinctActionRecords(records)) {
    const current = best.get(record.action);
    if (
      current === undefined ||
      record.k > current.k ||
      (record.k === current.k && record.kind === 'bound-spent' && current.kind === 'ran')
    )
      best.set(record.action, record);
  }
  return [...best.values()].slice(0, MAX_RESULT_LINES).map(recordText);
}
