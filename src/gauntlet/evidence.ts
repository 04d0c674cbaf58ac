/**
 * Evidence cells of the loop ledger.
 *
 * An evidence cell is one physical table cell: a check name, then at most three result lines,
 * separated by semicolons, with literal pipes escaped (`\|`) and no angle markup. A backslash
 * also escapes a semicolon inside one result line (`\;`) and a backslash (`\\`); any other
 * backslash is literal, so Windows paths and regexes survive unchanged.
 *
 * Cells are stored escaped (as written between the pipes); segments are returned escaped by
 * {@link splitEvidence} and plain by {@link unescapeEvidence}.
 */

import { InputError } from '../common/errors.js';

/** Most result lines an evidence cell may carry after its check name. */
export const MAX_RESULT_LINES = 3;

const ESCAPABLE = new Set(['|', ';', '\\']);

/** HTML-like tags such as `<br>`, `</td>` or `<!-- -->`; a bare `a < b` is plain text. */
const ANGLE_MARKUP = /<[A-Za-z!/?][^<>]*>/;

function escapeWith(text: string, specials: ReadonlySet<string>): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (specials.has(c)) {
      out += `\\${c}`;
    } else if (c === '\\') {
      // Double a backslash only where it would otherwise escape the next character (or the
      // cell's closing pipe); elsewhere it is already literal.
      const next = text[i + 1];
      out += next === undefined || ESCAPABLE.has(next) ? '\\\\' : '\\';
    } else {
      out += c;
    }
  }
  return out;
}

/**
 * Escapes `text` for use as a whole evidence cell whose semicolons stay separators (for example
 * a disposition text such as `deviates: X; proof at Y`): pipes become `\|`.
 *
 * @param text plain text, one line.
 * @returns the escaped text; `unescapeEvidence(escapePipes(t)) === t`.
 */
export function escapePipes(text: string): string {
  return escapeWith(text, new Set(['|']));
}

/**
 * Escapes `text` for use as one segment (a check name or one result line): pipes become `\|` and
 * semicolons `\;`, so the segment never splits.
 *
 * @param text plain text, one line.
 * @returns the escaped segment; `unescapeEvidence(escapeSegment(t)) === t`.
 */
export function escapeSegment(text: string): string {
  return escapeWith(text, new Set(['|', ';']));
}

/**
 * Undoes the escapes of an evidence cell or segment: `\|` → `|`, `\;` → `;`, `\\` → `\`. Any
 * other backslash is literal and kept.
 *
 * @param text escaped text as written in the ledger.
 * @returns the plain text.
 */
export function unescapeEvidence(text: string): string {
  let out = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    const next = text[i + 1];
    if (c === '\\' && next !== undefined && ESCAPABLE.has(next)) {
      out += next;
      i++;
    } else {
      out += c;
    }
  }
  return out;
}

/**
 * Splits `text` on every unescaped occurrence of `separator` (a backslash escapes the character
 * after it). The parts are returned as written, escapes included, untrimmed.
 */
export function splitUnescaped(text: string, separator: string): string[] {
  const parts: string[] = [];
  let current = '';
  for (let i = 0; i < text.length; i++) {
    const c = text[i] as string;
    if (c === '\\' && i + 1 < text.length) {
      current += c + (text[i + 1] as string);
      i++;
    } else if (c === separator) {
      parts.push(current);
      current = '';
    } else {
      current += c;
    }
  }
  parts.push(current);
  return parts;
}

/**
 * True when `text` contains a pipe that no backslash escapes (such a pipe would split the table
 * cell).
 */
export function hasUnescapedPipe(text: string): boolean {
  return splitUnescaped(text, '|').length > 1;
}

/**
 * Splits an evidence cell into trimmed segments on unescaped semicolons: segment 0 is the check
 * name, segments 1..3 the result lines (gauntlet-protocol §1.4, §6 A4). Segments keep their
 * escapes; pass one to {@link unescapeEvidence} for its plain text.
 *
 * @param cell the evidence cell as written between the pipes.
 * @returns the segments; `[]` for an empty (or blank) cell.
 */
export function splitEvidence(cell: string): string[] {
  if (cell.trim() === '') return [];
  return splitUnescaped(cell, ';').map((segment) => segment.trim());
}

/**
 * The target's first result segment after the check name, as the unreachable-routing rule reads
 * it (§3.13): split on unescaped semicolons, trimmed, unescaped.
 *
 * @param cell the evidence cell as written between the pipes.
 * @returns the plain text of segment 1, or `null` when the cell has no result line.
 */
export function firstResultSegment(cell: string): string | null {
  const segment = splitEvidence(cell)[1];
  return segment === undefined ? null : unescapeEvidence(segment);
}

/**
 * Why `cell` is not bounded evidence, or `null` when it is. Bounded evidence (§1.4, §3.10) is
 * nonempty, one physical line, a nonempty check name plus at most three nonempty result lines,
 * no unescaped pipe and no angle markup. No command-format check is applied (the protocol
 * forbids one).
 *
 * @param cell the evidence cell as written between the pipes.
 */
export function evidenceProblem(cell: string): string | null {
  if (cell.trim() === '') return 'evidence is empty';
  if (/[\r\n]/.test(cell)) return 'evidence spans more than one physical line';
  if (hasUnescapedPipe(cell)) return 'evidence contains an unescaped pipe (write it as \\|)';
  if (ANGLE_MARKUP.test(cell)) return 'evidence contains angle markup (write plain text)';
  const segments = splitEvidence(cell);
  if (segments.some((segment) => segment === ''))
    return 'evidence has an empty segment (a stray or doubled semicolon)';
  const results = segments.length - 1;
  if (results > MAX_RESULT_LINES)
    return `evidence has ${results} result lines after the check name; at most ${MAX_RESULT_LINES} are allowed`;
  return null;
}

/**
 * True when `cell` is bounded evidence: see {@link evidenceProblem}.
 *
 * @param cell the evidence cell as written between the pipes.
 */
export function isBoundedEvidence(cell: string): boolean {
  return evidenceProblem(cell) === null;
}

/**
 * Builds an evidence cell from a check name and result lines (plain text), escaping each.
 *
 * @param checkName what was run or inspected, e.g. `npm test -- csv.test.ts`.
 * @param results zero to three result lines.
 * @returns the escaped cell, segments joined by `; `.
 * @throws {InputError} `evidence.invalid` when the check name is blank, a part spans lines, a part
 *   has angle markup, or there are more than three results.
 */
export function buildEvidence(checkName: string, results: readonly string[] = []): string {
  const parts = [checkName, ...results].map((part) => part.trim());
  if (parts.some((part) => part === ''))
    throw new InputError('evidence.invalid', 'evidence check name and result lines must not be blank');
  if (results.length > MAX_RESULT_LINES)
    throw new InputError(
      'evidence.invalid',
      `evidence takes at most ${MAX_RESULT_LINES} result lines, got ${results.length}`,
    );
  if (parts.some((part) => /[\r\n]/.test(part)))
    throw new InputError('evidence.invalid', 'evidence parts must be single lines');
  if (parts.some((part) => ANGLE_MARKUP.test(part)))
    throw new InputError('evidence.invalid', 'evidence must be plain text without angle markup');
  return parts.map(escapeSegment).join('; ');
}
