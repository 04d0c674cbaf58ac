/**
 * The entries of a criterion and how an amendment names a row, on a single-leg ledger and on the
 * edges of a coordinated one (gauntlet-protocol §1.7, §1.8; docs/decisions/legs.md L12: "a
 * single-leg ledger's rows are its criteria", its one member is `home`). The single-leg ledger is
 * §1.8's complete example, copied from the protocol; the coordinated one is §1.8's variant.
 */
import { describe, expect, it } from 'vitest';
import { parseLedger } from '../../src/gauntlet/ledger.js';
import { entriesOfCriterion, ledgerRowTexts, rowAsCriterion } from '../../src/gauntlet/leg-amendments.js';
import type { Ledger, SpecRow } from '../../src/gauntlet/types.js';

/** §1.8: six rows, single leg (`home`). */
const SECTION_1_8 = [
  '# Loop ledger',
  '**Spec:** doc/specs/2026-11-02-csv-export.md',
  'base: 3f9c2d1e6b0a47c58f1d2e3a4b5c6d7e8f901234',
  'verification: npm test',
  'checks: commands',
  'iterations: 7',
  'allowance: 4',
  'pending: 3 | home | 9a8b7c6d5e4f3a2b1c0d9e8f7a6b5c4d3e2f1a0b',
  '',
  '| row | status | attempts | evidence |',
  '|---|---|---|---|',
  '| 1 | done | 0 | npm test -- csv.test.ts; header row already exported on baseline |',
  '| 2 | done | 1 | npm test -- csv.test.ts; 14 passed; commas and quotes escaped in src/export/csv.ts |',
  '| 3 | failed | 4 | staging-smoke; unreachable: staging bucket upload - docs/ops/staging.md |',
  '| 4 | cut | 0 | deferred: ACME-412 |',
  '| 5 | open | 0 | npm test -- csv.test.ts; 1 failing: export of empty report writes no header |',
  '| 6 | cut | 0 | deviates: XLSX output dropped by product decision; CSV only |',
  '',
  '## Decisions',
  '',
  'row 0 done | seeded 4 rows, closed 1 on baseline | row 2',
  'row 2 done | CSV writer escapes commas and quotes per RFC 4180 | take row 3 next',
  '',
].join('\n');

/** §1.8's coordinated variant (web = home, api; AC 2 shared): rows 1-4 are AC 1, 2, 2, 3. */
const SECTION_1_8_COORDINATED = [
  '# Loop ledger',
  '**Spec:** doc/specs/2026-11-02-csv-export.md',
  'base: 3f9c2d1e6b0a47c58f1d2e3a4b5c6d7e8f901234',
  'base web: 3f9c2d1e6b0a47c58f1d2e3a4b5c6d7e8f901234',
  'seeded web: yes',
  'base api: 0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d',
  'seeded api: no',
  'verification: npm test',
  'checks: commands',
  'iterations: 2',
  'allowance: 4',
  '',
  '| row | status | attempts | evidence |',
  '|---|---|---|---|',
  '| 1 | done | 1 | button check; passes |',
  '| 2 | done | 1 | stream check; passes in web |',
  '| 3 | open | 0 | |',
  '| 4 | open | 0 | |',
  '',
  '## Leg mapping',
  '',
  '| row | ac | leg |',
  '|---|---|---|',
  '| 1 | 1 | web |',
  '| 2 | 2 | web |',
  '| 3 | 2 | api |',
  '| 4 | 3 | api |',
  '',
  '## Decisions',
  '',
].join('\n');

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
