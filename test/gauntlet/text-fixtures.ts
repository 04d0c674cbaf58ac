/**
 * Spec and ledger texts shared by the gauntlet tests, written from the format pages
 * (docs/ledger-format.md: §7 for the spec, §1 for the ledger) as plain strings and
 * small builders. Nothing here imports or runs the code under test: a test parses or writes these
 * texts itself, inside its `it` block.
 */

/** A spec titled "CSV export" with the given acceptance-criteria lines and header lines (after the title). */
export function csvSpecText(criteria: readonly string[], header: readonly string[] = []): string {
  return [
    '# CSV export',
    ...header,
    '',
    '## Goal',
    '',
    'Export reports as CSV.',
    '',
    '## Acceptance criteria',
    '',
    ...criteria,
    '',
    '## Out of scope',
    '',
    '- XLSX',
    '',
  ].join('\n');
}

/** 1-based number of the first line of `text` equal to `line` (a reference independent of any parser). */
export function lineOf(text: string, line: string): number {
  const index = text.split('\n').indexOf(line);
  if (index === -1) throw new Error(`no line ${JSON.stringify(line)}`);
  return index + 1;
}
