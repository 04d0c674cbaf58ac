/**
 * The reference child's seed on a coordinated ledger names the first open row of the leg it
 * seeds, not of the whole ledger (docs/decisions/legs.md L24; gauntlet-protocol §1.8's
 * coordinated variant, with web's row 1 still open so the two answers differ).
 */
import { describe, expect, it } from 'vitest';
import { planDispatch } from '../../src/gauntlet/dispatch.js';
import { parseLedger } from '../../src/gauntlet/ledger.js';
import { referenceChildReturn } from '../../src/gauntlet/reference-child.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import { coordinatedText } from './text-fixtures.js';

const COORDINATED = coordinatedText({
  spec: 'doc/specs/2026-11-02-csv-export.md',
  rows: [
    '| 1 | open | 1 | button check; 1 failing |',
    '| 2 | done | 1 | stream check; passes in web |',
    '| 3 | open | 0 | |',
    '| 4 | open | 0 | |',
  ],
});

function coordinated(): Ledger {
  const result = parseLedger(COORDINATED);
  expect(result.findings).toEqual([]);
  if (result.ledger === null) throw new Error('the coordinated ledger does not parse');
  return result.ledger;
}

const API_HEAD = '0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d';

describe('the reference child seeds a leg', () => {
  it("api's seed names api's first open row (3), not web's open row 1", () => {
    const plan = planDispatch({ ledger: coordinated(), target: 'seed', head: API_HEAD, repo: 'api' });
    const seeded = referenceChildReturn(plan, {
      kind: 'seed',
      evidence: { 3: 'stream check; 1 failing in api', 4: 'rate check; 1 failing' },
    });
    expect(seeded.ledger.decisions.at(-1)).toBe('row 0 done | seeded 2 rows, closed 0 on baseline | row 3');
  });

  it("with api's row 3 closed on the baseline the next is api's row 4", () => {
    const plan = planDispatch({ ledger: coordinated(), target: 'seed', head: API_HEAD, repo: 'api' });
    const seeded = referenceChildReturn(plan, {
      kind: 'seed',
      evidence: { 3: 'stream check; passes on baseline', 4: 'rate check; 1 failing' },
      closeOnBaseline: [3],
    });
    expect(seeded.ledger.decisions.at(-1)).toBe('row 0 done | seeded 2 rows, closed 1 on baseline | row 4');
  });
});
