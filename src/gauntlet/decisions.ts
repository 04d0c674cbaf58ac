/**
 * Decision lines of the ledger's `## Decisions` section (gauntlet-protocol §1.5).
 *
 * Every line is kept verbatim in the ledger; {@link parseDecision} interprets one. Lines that
 * match no grammar are legacy history or hand notes and stay `other`; a line that starts like a
 * known kind but breaks its grammar is reported by {@link decisionProblem}.
 */

import { InputError } from '../common/errors.js';
import type { Decision } from './types.js';

/** Most characters (code points) in each free cell of an outcome decision. */
export const MAX_DECISION_CELL = 200;

/** The fixed middle cell of an escalation decision. */
export const ESCALATED_ROUND = 'implModel round';

// `u` makes `.{1,200}` count code points, the characters a person sees.
const OUTCOME = /^row ([1-9]\d*) (done|failed) \| (.{1,200}) \| (.{1,200})$/u;
const SEED = /^row 0 done \| seeded (0|[1-9]\d*) rows, closed (0|[1-9]\d*) on baseline \| (.{1,200})$/u;
const RETRY = /^row ([1-9]\d*) retry \| (.*) \| allowed attempts (0|[1-9]\d*)$/u;
// §6 A5: escalation is recognised by its prefix alone; the tail is not known upstream.
const ESCALATED = /^row ([1-9]\d*) escalated \|/u;
const RAISE = /^rows \+([1-9]\d*) \|(?: (.*))?$/u;

/** Lines that claim a known kind: `row <token> <done|failed|retry|escalated>…` or `rows +…`. */
const KNOWN_PREFIX = /^(?:row \S+ (done|failed|retry|escalated)(?![\w-])|rows \+)/u;

function toInt(digits: string): number {
  return Number.parseInt(digits, 10);
}

/**
 * The `<word>` of a `row <token> <word> …` line (`done`, `failed`, `retry`, `escalated`, …), or
 * `null` for any other line: the only grammar such a line can match is the one its word names.
 */
function rowWord(line: string): string | null {
  if (!line.startsWith('row ')) return null;
  const tokenEnd = line.indexOf(' ', 4);
  const wordEnd = tokenEnd < 0 ? -1 : line.indexOf(' ', tokenEnd + 1);
  return wordEnd < 0 ? null : line.slice(tokenEnd + 1, wordEnd);
}

/**
 * Interprets one decision line.
 *
 * @param line one line of `## Decisions`, verbatim (no line terminator).
 * @returns the decision; `other` for every line that matches no grammar (never throws).
 */
export function parseDecision(line: string): Decision {
  // Cheap prefilter: every grammar but `rows +…` is `row <token> <word> …`, and the word picks the
  // one grammar that can match, so no line is tried against every regex.
  if (!line.startsWith('row ')) return line.startsWith('rows +') ? parseRaise(line) : { kind: 'other', line };
  const word = rowWord(line);
  if (word === null) return { kind: 'other', line };
  switch (word) {
    case 'done':
    case 'failed':
      return parseOutcome(line);
    case 'retry':
      return parseRetry(line);
    case 'escalated': {
      const m = ESCALATED.exec(line);
      return m ? { kind: 'escalated', row: toInt(m[1] as string), line } : { kind: 'other', line };
    }
    default:
      return { kind: 'other', line };
  }
}

function parseOutcome(line: string): Decision {
  let m = SEED.exec(line);
  if (m) {
    return {
      kind: 'seed',
      seeded: toInt(m[1] as string),
      closed: toInt(m[2] as string),
      firstRow: m[3] as string,
      line,
    };
  }
  m = OUTCOME.exec(line);
  if (m) {
    return {
      kind: 'outcome',
      row: toInt(m[1] as string),
      status: m[2] as 'done' | 'failed',
      summary: m[3] as string,
      next: m[4] as string,
      line,
    };
  }
  return { kind: 'other', line };
}

function parseRetry(line: string): Decision {
  const m = RETRY.exec(line);
  if (m) {
    return {
      kind: 'retry',
      row: toInt(m[1] as string),
      hint: m[2] as string,
      allowedAttempts: toInt(m[3] as string),
      line,
    };
  }
  return { kind: 'other', line };
}

function parseRaise(line: string): Decision {
  const m = RAISE.exec(line);
  if (m) return { kind: 'raise', amount: toInt(m[1] as string), words: m[2] ?? '', line };
  return { kind: 'other', line };
}

/** What the rules read from a whole `## Decisions` section, computed once per section. */
export interface DecisionIndex {
  /** Retry lines per row (§3.5: each counts once toward the row's effective allowance). */
  readonly retries: ReadonlyMap<number, number>;
  /** Rows with a durable `row <n> escalated | …` line (§3.7). */
  readonly escalated: ReadonlySet<number>;
}

const INDEXES = new WeakMap<readonly string[], { length: number; index: DecisionIndex }>();

/**
 * The retry counts and spent escalations of a decision list, parsed once and kept while the list is
 * unchanged (ledgers are values: a list is never edited in place by the loop; a list whose length
 * changed is indexed again).
 *
 * @param decisions the lines of `## Decisions`.
 * @returns the index; O(lines) the first time, O(1) after.
 */
export function decisionIndex(decisions: readonly string[]): DecisionIndex {
  const known = INDEXES.get(decisions);
  if (known !== undefined && known.length === decisions.length) return known.index;
  const retries = new Map<number, number>();
  const escalated = new Set<number>();
  for (const line of decisions) {
    // Only retry and escalation lines count here; the word rules out every other line unparsed.
    const word = rowWord(line);
    if (word !== 'retry' && word !== 'escalated') continue;
    const decision = parseDecision(line);
    if (decision.kind === 'retry') retries.set(decision.row, (retries.get(decision.row) ?? 0) + 1);
    else if (decision.kind === 'escalated') escalated.add(decision.row);
  }
  const index = { retries, escalated };
  INDEXES.set(decisions, { length: decisions.length, index });
  return index;
}

function codePoints(text: string): number {
  return [...text].length;
}

function cellsProblem(cells: readonly string[], what: string): string | null {
  for (const [index, cell] of cells.entries()) {
    const length = codePoints(cell);
    const name = index === 0 ? 'summary' : 'next';
    if (length === 0) return `${what} ${name} cell is empty`;
    if (length > MAX_DECISION_CELL)
      return `${what} ${name} cell has ${length} characters; at most ${MAX_DECISION_CELL} are allowed`;
    if (/[\r\n\u2028\u2029]/u.test(cell)) return `${what} ${name} cell spans lines`;
  }
  return null;
}

/**
 * Why a decision line is malformed, or `null`. A line is malformed when it starts like a known
 * kind (`row <n> done|failed|retry|escalated` or `rows +`) but does not match that kind's
 * grammar; lines that match no kind at all are legacy history and are fine.
 *
 * @param line one line of `## Decisions`, verbatim.
 * @returns a reason a person can act on, or `null`.
 */
export function decisionProblem(line: string): string | null {
  const m = KNOWN_PREFIX.exec(line);
  if (!m) return null;
  if (parseDecision(line).kind !== 'other') return null;
  const word = m[1];
  if (word === undefined) {
    return 'allowance raise must read "rows +<N> | <words>" with N a positive integer (bare: "rows +<N> |")';
  }
  const rowToken = line.split(' ')[1] ?? '';
  if (word === 'done' && rowToken === '0')
    return 'seed decision must read "row 0 done | seeded <k> rows, closed <m> on baseline | <first row to take>"';
  if (!/^[1-9]\d*$/.test(rowToken))
    return `row number "${rowToken}" is not a positive integer (row 0 is reserved for the seed)`;
  if (word === 'retry') return 'retry decision must read "row <n> retry | <hint> | allowed attempts <m>"';
  if (word === 'escalated')
    return `escalation decision must start "row <n> escalated |" (written "row <n> escalated | ${ESCALATED_ROUND} | allowed attempts <m>")`;
  const rest = line.slice(`row ${rowToken} ${word}`.length);
  if (!rest.startsWith(' | '))
    return `${word} decision must read "row <n> ${word} | <summary> | <next>" (cells separated by " | ")`;
  const cells = rest.slice(3).split(' | ');
  if (cells.length < 2) return `${word} decision needs a summary cell and a next cell separated by " | "`;
  // With more separators than cells, the regex's greedy split is one valid reading; report
  // the length of the cells that reading gives.
  const next = cells.pop() as string;
  return (
    cellsProblem([cells.join(' | '), next], `${word} decision`) ??
    `${word} decision must read "row <n> ${word} | <1-200 characters> | <1-200 characters>"`
  );
}

function requireLine(text: string, what: string): void {
  if (/[\r\n\u2028\u2029]/u.test(text)) throw new InputError('decision.invalid', `${what} must be one line`);
}

function requireRow(row: number, min = 1): void {
  if (!Number.isSafeInteger(row) || row < min)
    throw new InputError('decision.invalid', `row must be an integer >= ${min}, got ${row}`);
}

function requireCount(value: number, what: string, min = 0): void {
  if (!Number.isSafeInteger(value) || value < min)
    throw new InputError('decision.invalid', `${what} must be an integer >= ${min}, got ${value}`);
}

function requireCell(text: string, what: string): void {
  requireLine(text, what);
  const length = codePoints(text);
  if (length < 1 || length > MAX_DECISION_CELL)
    throw new InputError(
      'decision.invalid',
      `${what} must have 1-${MAX_DECISION_CELL} characters, got ${length}`,
    );
}

/**
 * Returns `line` when parsing it gives back exactly `cells`; a cell containing the separator
 * ` | ` could otherwise be read back split differently.
 */
function unambiguous(line: string, cells: Record<string, string>): string {
  const parsed = parseDecision(line) as unknown as Record<string, unknown>;
  for (const [name, value] of Object.entries(cells)) {
    if (parsed[name] !== value)
      throw new InputError(
        'decision.invalid',
        `${name} "${value}" would not read back unchanged from "${line}" (avoid " | " in it)`,
      );
  }
  return line;
}

/**
 * Writes a child's row outcome: `row <n> <done|failed> | <summary> | <next>`.
 *
 * @throws {InputError} `decision.invalid` when the row is not a positive integer or a cell is
 *   empty, longer than 200 characters or spans lines.
 */
export function formatOutcomeDecision(
  row: number,
  status: 'done' | 'failed',
  summary: string,
  next: string,
): string {
  requireRow(row);
  requireCell(summary, 'summary');
  requireCell(next, 'next');
  return unambiguous(`row ${row} ${status} | ${summary} | ${next}`, { summary, next });
}

/**
 * Writes the seed decision: `row 0 done | seeded <k> rows, closed <m> on baseline | <first row>`.
 *
 * @param seeded rows given evidence by this seed return (k).
 * @param closed rows among them closed on the baseline (m).
 * @param firstRow the row to take first, e.g. `row 2` (informational, §6 A15).
 * @throws {InputError} `decision.invalid` on negative counts, `closed > seeded` or a bad cell.
 */
export function formatSeedDecision(seeded: number, closed: number, firstRow: string): string {
  requireCount(seeded, 'seeded rows');
  requireCount(closed, 'closed rows');
  if (closed > seeded)
    throw new InputError('decision.invalid', `closed rows (${closed}) cannot exceed seeded rows (${seeded})`);
  requireCell(firstRow, 'first row to take');
  return unambiguous(`row 0 done | seeded ${seeded} rows, closed ${closed} on baseline | ${firstRow}`, {
    firstRow,
  });
}

/**
 * Writes a human retry: `row <n> retry | <hint> | allowed attempts <m>`. Each such line adds one
 * to the row's effective allowance; `m` is historical only (§3.5).
 *
 * @param hint the human's hint (may be empty; one line).
 * @param allowedAttempts the row's effective allowance after this retry (§6 A6).
 * @throws {InputError} `decision.invalid` on a bad row, a negative count or a multi-line hint.
 */
export function formatRetryDecision(row: number, hint: string, allowedAttempts: number): string {
  requireRow(row);
  requireLine(hint, 'retry hint');
  requireCount(allowedAttempts, 'allowed attempts');
  return unambiguous(`row ${row} retry | ${hint} | allowed attempts ${allowedAttempts}`, { hint });
}

/**
 * Writes the durable marker of a row's escalated round:
 * `row <n> escalated | implModel round | allowed attempts <m>` (§6 A5).
 *
 * @param allowedAttempts the row's effective allowance when the round was chosen.
 * @throws {InputError} `decision.invalid` on a bad row or count.
 */
export function formatEscalatedDecision(row: number, allowedAttempts: number): string {
  requireRow(row);
  requireCount(allowedAttempts, 'allowed attempts');
  return `row ${row} escalated | ${ESCALATED_ROUND} | allowed attempts ${allowedAttempts}`;
}

/**
 * Writes an allowance raise: `rows +<N> | <words>`, or `rows +<N> |` when the human gave no
 * words (the bare reply serializes as `rows +50 |`, §3.16).
 *
 * @param amount N, a positive integer.
 * @param words the human's words (trimmed; may be empty; one line).
 * @throws {InputError} `decision.invalid` when N is not a positive integer or words span lines.
 */
export function formatRaiseDecision(amount: number, words = ''): string {
  requireCount(amount, 'raise amount', 1);
  requireLine(words, 'raise words');
  const trimmed = words.trim();
  return trimmed === '' ? `rows +${amount} |` : `rows +${amount} | ${trimmed}`;
}
