/**
 * Amendments to the spec (gauntlet-protocol §3.13, §3.17): the spec side of an approved
 * amendment, as a pure text edit. The ledger side is in repair.ts (`cutRowEdit`,
 * `reopenRowEdit`, `preservingAmendEdit`); the loop commits both in one commit.
 *
 * Edits touch only the lines they must: the nested disposition line of the cut row, the criterion
 * line of a re-bound row, one entry at the end of `## Out of scope`, or one entry at the end of
 * `## Amendments`. Everything else keeps its bytes, line endings included: lines are counted as
 * `parseSpec` counts them (at `\n`), and an added line ends like the line it follows.
 */
import { InputError } from '../common/errors.js';
import { parseSpec } from './spec.js';

/** An amendment the loop applies to the spec text. */
export type SpecAmendment =
  /** Set row `row`'s disposition line (`deviates: …`, `deferred: …`, `elsewhere: …`). */
  | { readonly kind: 'cut'; readonly row: number; readonly disposition: string; readonly outOfScope?: string }
  /**
   * Re-bound a done row: the requirement changed. With `text`, the row's criterion text (after its
   * checkbox) is rewritten to it; without, the spec is unchanged (docs/decisions/amendments.md).
   */
  | { readonly kind: 'reopen'; readonly row: number; readonly text?: string }
  /** A requirement-preserving amendment: recorded under `## Amendments`. */
  | { readonly kind: 'preserve'; readonly what: string };

const DISPOSITION_LINE = /^[ \t]+(in-scope|deviates:|deferred:|venue:|elsewhere:)/;
const HEADING = /^#{1,6}[ \t]/;

/**
 * Applies an amendment to the spec text.
 *
 * @param specText the spec as on disk
 * @param amendment what to change
 * @returns the new spec text (unchanged for a `reopen` without text)
 * @throws InputError `amend.row` when the spec has no such AC row, `amend.text` for text that
 *   would break the spec (a line break in a one-line value)
 */
export function amendSpecText(specText: string, amendment: SpecAmendment): string {
  switch (amendment.kind) {
    case 'reopen':
      return amendment.text === undefined
        ? specText
        : setCriterionText(specText, amendment.row, oneLine(amendment.text, 'criterion text'));
    case 'preserve':
      return appendToSection(specText, '## Amendments', `- ${oneLine(amendment.what, 'amendment')}`);
    case 'cut': {
      const withDisposition = setDisposition(
        specText,
        amendment.row,
        oneLine(amendment.disposition, 'disposition'),
      );
      return amendment.outOfScope === undefined
        ? withDisposition
        : appendToSection(
            withDisposition,
            '## Out of scope',
            `- ${oneLine(amendment.outOfScope, 'out-of-scope entry')}`,
          );
    }
  }
}

function oneLine(text: string, what: string): string {
  const value = text.trim();
  if (value === '' || /[\r\n]/.test(value))
    throw new InputError('amend.text', `the ${what} must be one non-empty line`);
  return value;
}

/**
 * One spec line as `parseSpec` numbers them (the text split at `\n`), its ending kept apart so an
 * edit keeps every other line's bytes, a CRLF line's `\r` included, in a file with mixed endings too.
 */
interface SpecLine {
  text: string;
  /** `\r\n`, `\n`, or `''` for the last line. */
  end: string;
}

function splitLines(text: string): SpecLine[] {
  const raw = text.split('\n');
  return raw.map((line, index) => {
    if (index === raw.length - 1) return { text: line, end: '' };
    return line.endsWith('\r') ? { text: line.slice(0, -1), end: '\r\n' } : { text: line, end: '\n' };
  });
}

function joinLines(lines: readonly SpecLine[]): string {
  return lines.map((line) => `${line.text}${line.end}`).join('');
}

/** The ending of a line an edit adds at the end of the file: CRLF when the spec uses it anywhere. */
function eolOf(text: string): string {
  return text.includes('\r\n') ? '\r\n' : '\n';
}

/** Inserts a line after `lines[index]`; it ends as that line did (the file's ending when that was the last). */
function insertAfter(lines: SpecLine[], index: number, text: string, eol: string): void {
  const before = lines[index] as SpecLine;
  lines.splice(index + 1, 0, { text, end: before.end });
  if (before.end === '') before.end = eol;
}

/** The index of criterion `row`'s bullet among the lines of {@link splitLines}. */
function bulletIndexOf(specText: string, row: number): number {
  const specRow = parseSpec(specText).spec.rows.find((candidate) => candidate.row === row);
  if (specRow === undefined) throw new InputError('amend.row', `the spec has no acceptance criterion ${row}`);
  return specRow.line - 1;
}

/** How far a disposition line is indented under its bullet (criterion bullets start at column 0). */
const DISPOSITION_INDENT = '  ';

function setDisposition(specText: string, row: number, disposition: string): string {
  const bulletIndex = bulletIndexOf(specText, row);
  const lines = splitLines(specText);
  // The criterion's own disposition line, as parseSpec reads it: the first line after the bullet
  // that is not blank, when it is an indented disposition (a loose list puts a blank line between).
  let at = bulletIndex + 1;
  while (at < lines.length && (lines[at] as SpecLine).text.trim() === '') at++;
  const held = lines[at];
  if (held !== undefined && DISPOSITION_LINE.test(held.text))
    held.text = `${DISPOSITION_INDENT}${disposition}`;
  else insertAfter(lines, bulletIndex, `${DISPOSITION_INDENT}${disposition}`, eolOf(specText));
  return joinLines(lines);
}

const CHECKBOX_PREFIX = /^[-*+][ \t]+\[[ xX]\]/;

function setCriterionText(specText: string, row: number, text: string): string {
  const index = bulletIndexOf(specText, row);
  const lines = splitLines(specText);
  const line = lines[index] as SpecLine;
  // parseSpec numbers only checkbox bullets at column 0, on the same `\n` lines: the prefix matches.
  line.text = `${(CHECKBOX_PREFIX.exec(line.text) as RegExpExecArray)[0]} ${text}`;
  return joinLines(lines);
}

function appendToSection(specText: string, heading: string, entry: string): string {
  const eol = eolOf(specText);
  const lines = splitLines(specText);
  const start = lines.findIndex((line) => line.text.trim() === heading);
  if (start === -1) {
    const body = specText.endsWith('\n') ? specText : `${specText}${eol}`;
    return `${body}${eol}${heading}${eol}${eol}${entry}${eol}`;
  }
  let end = lines.length;
  for (let index = start + 1; index < lines.length; index++)
    if (HEADING.test((lines[index] as SpecLine).text)) {
      end = index;
      break;
    }
  // Insert after the section's last non-blank line, keeping blank lines before the next heading;
  // the walk stops at the heading line at the latest (it is not blank).
  let insertAt = end;
  while ((lines[insertAt - 1] as SpecLine).text.trim() === '') insertAt--;
  if (insertAt === start + 1) {
    // An empty section: a blank line after the heading, then the entry.
    insertAfter(lines, start, '', eol);
    insertAfter(lines, start + 1, entry, eol);
  } else insertAfter(lines, insertAt - 1, entry, eol);
  return joinLines(lines);
}
