/**
 * Amendments to the spec (gauntlet-protocol §3.13, §3.17): the spec side of an approved
 * amendment, as a pure text edit. The ledger side is in repair.ts (`cutRowEdit`,
 * `reopenRowEdit`, `preservingAmendEdit`); the loop commits both in one commit.
 *
 * Edits touch only the lines they must: the nested disposition line of the cut row, one entry at
 * the end of `## Out of scope`, or one entry at the end of `## Amendments`. Everything else keeps
 * its bytes.
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

function splitLines(text: string): { lines: string[]; eol: string } {
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  return { lines: text.split(eol), eol };
}

function setDisposition(specText: string, row: number, disposition: string): string {
  const specRow = parseSpec(specText).spec.rows.find((candidate) => candidate.row === row);
  if (specRow === undefined) throw new InputError('amend.row', `the spec has no acceptance criterion ${row}`);
  const { lines, eol } = splitLines(specText);
  const bulletIndex = specRow.line - 1;
  const bullet = lines[bulletIndex] ?? '';
  const indent = `${' '.repeat(bullet.length - bullet.trimStart().length)}  `;
  const next = lines[bulletIndex + 1];
  if (next !== undefined && DISPOSITION_LINE.test(next)) lines[bulletIndex + 1] = `${indent}${disposition}`;
  else lines.splice(bulletIndex + 1, 0, `${indent}${disposition}`);
  return lines.join(eol);
}

const CHECKBOX_PREFIX = /^([ \t]*[-*+][ \t]+\[[ xX]\])/;

function setCriterionText(specText: string, row: number, text: string): string {
  const specRow = parseSpec(specText).spec.rows.find((candidate) => candidate.row === row);
  if (specRow === undefined) throw new InputError('amend.row', `the spec has no acceptance criterion ${row}`);
  const { lines, eol } = splitLines(specText);
  const index = specRow.line - 1;
  const prefix = CHECKBOX_PREFIX.exec(lines[index] ?? '');
  if (prefix === null)
    throw new InputError('amend.row', `acceptance criterion ${row} is not a checkbox line`);
  lines[index] = `${prefix[1]} ${text}`;
  return lines.join(eol);
}

function appendToSection(specText: string, heading: string, entry: string): string {
  const { lines, eol } = splitLines(specText);
  const start = lines.findIndex((line) => line.trim() === heading);
  if (start === -1) {
    const body = specText.endsWith(eol) ? specText : `${specText}${eol}`;
    return `${body}${eol}${heading}${eol}${eol}${entry}${eol}`;
  }
  let end = lines.length;
  for (let index = start + 1; index < lines.length; index++)
    if (HEADING.test(lines[index] as string)) {
      end = index;
      break;
    }
  // Insert after the section's last non-blank line, keeping blank lines before the next heading.
  let insertAt = end;
  while (insertAt > start + 1 && (lines[insertAt - 1] as string).trim() === '') insertAt--;
  if (insertAt === start + 1) {
    lines.splice(start + 1, 0, '', entry);
    return lines.join(eol);
  }
  lines.splice(insertAt, 0, entry);
  return lines.join(eol);
}
