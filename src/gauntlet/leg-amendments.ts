/**
 * Amendments on coordinated runs (gauntlet-protocol §3.13 "Companions: held mapping + coordinated
 * amendment rules; the home spec/ledger own the cut", §1.7 "copy each cut disposition to every
 * expanded entry"; docs/decisions/legs.md L12).
 *
 * A person, a stop and a child name ledger rows; the spec names acceptance criteria. On a
 * coordinated ledger the two differ once a criterion is shared (row 3 is AC 2 in §1.8's
 * coordinated example), so an amendment answered by row is carried to the criterion through
 * `## Leg mapping`: the spec edit names the criterion, and the ledger edit reaches every entry that
 * criterion expands to. A single-leg ledger's rows are its criteria. Pure.
 */
import type { Ledger, Spec, SpecRow } from './types.js';

/** One entry of a criterion: its ledger row and the member it belongs to (`home` for a single leg). */
export interface CriterionEntry {
  readonly row: number;
  readonly leg: string;
}

/**
 * The acceptance criterion a ledger row stands for: its `ac` in `## Leg mapping` on a coordinated
 * ledger, the row number itself on a single-leg ledger. `null` for a row the mapping does not list.
 *
 * @param ledger the ledger
 * @param row a ledger row number
 */
export function criterionOfRow(ledger: Ledger, row: number): number | null {
  if (ledger.legs === undefined) return row;
  return ledger.legs.mapping.find((entry) => entry.row === row)?.ac ?? null;
}

/**
 * Every ledger entry of an acceptance criterion, in row order: the rows `## Leg mapping` maps to
 * it (one per member that lists it, in membership order), or the one row of that number on a
 * single-leg ledger.
 *
 * @param ledger the ledger
 * @param ac an acceptance-criterion number of the spec
 */
export function entriesOfCriterion(ledger: Ledger, ac: number): CriterionEntry[] {
  if (ledger.legs === undefined)
    return ledger.rows.some((cells) => cells.row === ac) ? [{ row: ac, leg: 'home' }] : [];
  return ledger.legs.mapping
    .filter((entry) => entry.ac === ac)
    .map((entry) => ({ row: entry.row, leg: entry.leg }))
    .sort((a, b) => a.row - b.row);
}

/**
 * The spec row (criterion) a ledger row stands for, or `undefined` when the spec lacks it or the
 * mapping does not list the row.
 *
 * @param spec the spec as held
 * @param ledger the ledger
 * @param row a ledger row number
 */
export function specRowOfLedgerRow(spec: Spec, ledger: Ledger, row: number): SpecRow | undefined {
  const ac = criterionOfRow(ledger, row);
  return ac === null ? undefined : spec.rows.find((candidate) => candidate.row === ac);
}

/**
 * How an amendment's note names a ledger row on a coordinated ledger: `criterion <ac> (row <n>,
 * <leg>)`; a single-leg ledger keeps `row <n>`.
 *
 * @param ledger the ledger
 * @param row a ledger row number
 */
export function rowAsCriterion(ledger: Ledger, row: number): string {
  if (ledger.legs === undefined) return `row ${row}`;
  const entry = ledger.legs.mapping.find((candidate) => candidate.row === row);
  return entry === undefined ? `row ${row}` : `criterion ${entry.ac} (row ${row}, ${entry.leg})`;
}

/**
 * The line a coordinated cut or reopen adds to its commit body, naming the criterion and the
 * entries the edit reached: `criterion <ac>: row <n> <leg>, row <m> <leg>`.
 *
 * @param ac the criterion
 * @param entries the entries the edit changed, in row order
 */
export function criterionEntriesLine(ac: number, entries: readonly CriterionEntry[]): string {
  return `criterion ${ac}: ${entries.map((entry) => `row ${entry.row} ${entry.leg}`).join(', ')}`;
}

/**
 * The text of every ledger row, as the child tools and the prompt show it: each row carries the
 * text of the criterion it stands for (through `## Leg mapping` on a coordinated ledger, so a
 * shared criterion's text appears under each of its rows), numbered by the ledger row. A row the
 * spec or the mapping lacks is left out. Without a ledger, or on a single-leg ledger, the spec's
 * criteria are its rows, every one (docs/decisions/legs.md L25: also a criterion written after the
 * seed, which has no ledger row yet).
 *
 * @param spec the spec's criteria
 * @param ledger the ledger, or `null` when it cannot be read
 */
export function ledgerRowTexts(spec: readonly SpecRow[], ledger: Ledger | null): SpecRow[] {
  if (ledger === null || ledger.legs === undefined) return [...spec];
  const texts: SpecRow[] = [];
  for (const { row } of ledger.rows) {
    const ac = criterionOfRow(ledger, row);
    const criterion = ac === null ? undefined : spec.find((candidate) => candidate.row === ac);
    if (criterion !== undefined) texts.push({ ...criterion, row });
  }
  return texts;
}
