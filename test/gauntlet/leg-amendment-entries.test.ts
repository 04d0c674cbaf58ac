/**
 * The entries of a criterion and how an amendment names a row, on a single-leg ledger and on the
 * edges of a coordinated one (gauntlet-protocol §1.7, §1.8; docs/decisions/legs.md L12: "a
 * single-leg ledger's rows are its criteria", its one member is `home`). The single-leg ledger is
 * §1.8's complete example, written from the protocol; the coordinated one is §1.8's variant.
 */
import { describe, expect, it } from 'vitest';
import { parseLedger } from '../../src/gauntlet/ledger.js';
import { entriesOfCriterion, ledgerRowTexts, rowAsCriterion } from '../../src/gauntlet/leg-amendments.js';
import type { Ledger, SpecRow } from '../../src/gauntlet/types.js';
import { coordinatedText, EXAMPLE_DECISIONS, exampleLedgerText } from './text-fixtures.js';

/** §1.8: six rows, single leg (`home`); the first two of its decisions. */
const SECTION_1_8 = exampleLedgerText(EXAMPLE_DECISIONS.slice(0, 2));

/** §1.8's coordinated variant (web = home, api; AC 2 shared): rows 1-4 are AC 1, 2, 2, 3. */
const SECTION_1_8_COORDINATED = coordinatedText({
  spec: 'doc/specs/2026-11-02-csv-export.md',
  rows: [
    '| 1 | done | 1 | button check; passes |',
    '| 2 | done | 1 | stream check; passes in web |',
    '| 3 | open | 0 | |',
    '| 4 | open | 0 | |',
  ],
});

function parsed(text: string): Ledger {
  const result = parseLedger(text);
  expect(result.findings).toEqual([]);
  return result.ledger as Ledger;
}

const singleLeg = (): Ledger => parsed(SECTION_1_8);
const coordinated = (): Ledger => parsed(SECTION_1_8_COORDINATED);

describe('entriesOfCriterion on a single-leg ledger: the one row of that number, leg home', () => {
  it('every row of §1.8 is its own criterion', () => {
    const ledger = singleLeg();
    expect(entriesOfCriterion(ledger, 1)).toEqual([{ row: 1, leg: 'home' }]);
    expect(entriesOfCriterion(ledger, 3)).toEqual([{ row: 3, leg: 'home' }]);
    expect(entriesOfCriterion(ledger, 6)).toEqual([{ row: 6, leg: 'home' }]);
  });

  it('a criterion the ledger has no row for has no entry (row 0 is the seed, not a row)', () => {
    const ledger = singleLeg();
    expect(entriesOfCriterion(ledger, 7)).toEqual([]);
    expect(entriesOfCriterion(ledger, 0)).toEqual([]);
  });

  it('on a coordinated ledger an unshared criterion has its one entry, an unknown one none', () => {
    expect(entriesOfCriterion(coordinated(), 3)).toEqual([{ row: 4, leg: 'api' }]);
    expect(entriesOfCriterion(coordinated(), 4)).toEqual([]);
  });
});

describe('rowAsCriterion: how an amendment entry names the row', () => {
  it('a single-leg ledger keeps "row <n>"', () => {
    expect(rowAsCriterion(singleLeg(), 3)).toBe('row 3');
  });

  it('a coordinated ledger names the criterion, or the row when the mapping does not list it', () => {
    expect(rowAsCriterion(coordinated(), 3)).toBe('criterion 2 (row 3, api)');
    expect(rowAsCriterion(coordinated(), 9)).toBe('row 9');
  });
});

describe('ledgerRowTexts on a single-leg ledger (docs/decisions/legs.md L25)', () => {
  it('lists every criterion of the spec, also one the ledger has no row for yet', () => {
    // §1.8's ledger has six rows; this spec has a seventh criterion, written after the seed.
    const spec: SpecRow[] = [1, 2, 3, 4, 5, 6, 7].map((row) => ({
      row,
      text: `criterion ${row} of the spec`,
      line: 10 + row,
      disposition: { kind: 'in-scope', explicit: false },
    }));
    expect(ledgerRowTexts(spec, singleLeg()).map((entry) => [entry.row, entry.text])).toEqual([
      [1, 'criterion 1 of the spec'],
      [2, 'criterion 2 of the spec'],
      [3, 'criterion 3 of the spec'],
      [4, 'criterion 4 of the spec'],
      [5, 'criterion 5 of the spec'],
      [6, 'criterion 6 of the spec'],
      [7, 'criterion 7 of the spec'],
    ]);
  });
});
