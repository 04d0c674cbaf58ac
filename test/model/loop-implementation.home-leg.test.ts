/**
 * Which checkout a verification repair names as home (gauntlet-protocol §1.6: the tuple names the
 * failing leg; docs/ledger-format.md §1.2: a single-leg ledger's tuple names `home`;
 * docs/decisions/legs.md L1: the member marked `(home)`). The ledger decides which checkouts exist:
 * a spec that declares legs over a ledger without leg lines still gets `home`, so the tuple the
 * loop reserves is one the ledger accepts. Expected names are written by hand from those pages.
 */
import { describe, expect, it } from 'vitest';
import type { LoopContext } from '../../machines/loop-implementation/context.js';
import { failingLeg, gatesInput, homeOf } from '../../machines/loop-implementation/verify-legs.js';
import { parseLedger } from '../../src/gauntlet/ledger.js';
import { parseSpec } from '../../src/gauntlet/spec.js';
import type { Ledger, Spec } from '../../src/gauntlet/types.js';
import { coordinatedText, csvSpecText, ledgerText, legSpecText } from '../gauntlet/text-fixtures.js';

const CRITERIA = ['the export has a header row', 'the api serves it', 'it is documented'];

function specOf(text: string): Spec {
  const parsed = parseSpec(text);
  expect(parsed.findings).toEqual([]);
  return parsed.spec as Spec;
}

/** A spec with the three criteria and a `## Legs` section (L1 grammar). */
function specWith(legs: readonly string[]): Spec {
  return specOf(legSpecText({ title: 'CSV export', criteria: CRITERIA, legs }));
}

/** The same criteria without `## Legs`: a single-leg spec. */
function singleLegSpec(): Spec {
  return specOf(csvSpecText(CRITERIA.map((c) => `- [ ] ${c}`)));
}

function ledgerOf(text: string): Ledger {
  const parsed = parseLedger(text);
  expect(parsed.findings).toEqual([]);
  return parsed.ledger as Ledger;
}

const COORDINATED_ROWS = [
  '| 1 | done | 1 | ok |',
  '| 2 | done | 1 | ok |',
  '| 3 | open | 0 |  |',
  '| 4 | open | 0 |  |',
];

/** Only the fields the home leg is read from; the rest of a loop context plays no part. */
function context(spec: Spec | null, ledger: Ledger): LoopContext {
  return { spec, ledger, verifiedHeads: {}, repairedLeg: null } as unknown as LoopContext;
}

describe('the home leg of a verification repair', () => {
  it('is the member marked (home) when the spec and the ledger are both coordinated', () => {
    const spec = specWith(['- web (home): 1, 2', '- api: 2-3']);
    const ledger = ledgerOf(coordinatedText({ rows: COORDINATED_ROWS }));
    expect(homeOf(context(spec, ledger))).toBe('web');
    expect(gatesInput(context(spec, ledger)).home).toBe('web');
  });

  it('is the first member when none is marked (L1)', () => {
    const spec = specWith(['- web: 1, 2', '- api: 2-3']);
    const ledger = ledgerOf(coordinatedText({ rows: COORDINATED_ROWS }));
    expect(homeOf(context(spec, ledger))).toBe('web');
  });

  it('is home for a single-leg spec and ledger, and for a run without a spec', () => {
    const ledger = ledgerOf(
      ledgerText({ rows: ['| 1 | done | 1 | ok |', '| 2 | open | 0 |  |', '| 3 | open | 0 |  |'] }),
    );
    expect(homeOf(context(singleLegSpec(), ledger))).toBe('home');
    expect(homeOf(context(null, ledger))).toBe('home');
  });

  it('is home when the spec declares legs but the ledger has no leg lines: the tuple must name a checkout the ledger has', () => {
    const spec = specWith(['- web (home): 1, 2', '- api: 2-3']);
    const ledger = ledgerOf(
      ledgerText({ rows: ['| 1 | done | 1 | ok |', '| 2 | open | 0 |  |', '| 3 | open | 0 |  |'] }),
    );
    expect(homeOf(context(spec, ledger))).toBe('home');
    const failure = {
      passed: false,
      head: 'a'.repeat(40),
      gate: 1,
      command: 'npm test',
      exitCode: 1,
    } as const;
    expect(failingLeg(context(spec, ledger), failure as never)).toBe('home');
    expect(failingLeg(context(spec, ledger), { ...failure, leg: 'api' } as never)).toBe('api');
  });
});
