import { describe, expect, it } from 'vitest';
import { checkLedger, parseLedger, serializeLedger } from '../../src/gauntlet/ledger.js';
import { DEFAULT_ALLOWANCE, seedLedger } from '../../src/gauntlet/seed.js';
import { parseSpec } from '../../src/gauntlet/spec.js';
import type { Ledger, Spec } from '../../src/gauntlet/types.js';
import { BASE, ledgerText } from './text-fixtures.js';

const options = { specPath: 'doc/specs/2026-11-02-csv-export.md', base: BASE, verification: 'npm test' };

function specOf(criteria: string[]): Spec {
  const result = parseSpec(['# CSV export', '', '## Acceptance criteria', '', ...criteria, ''].join('\n'));
  expect(result.findings).toEqual([]);
  return result.spec;
}

function seeded(spec: Spec, extra: Partial<Parameters<typeof seedLedger>[1]> = {}): Ledger {
  const result = seedLedger(spec, { ...options, ...extra });
  expect(result.findings).toEqual([]);
  if (result.ledger === null) throw new Error('expected a ledger');
  return result.ledger;
}

describe('seedLedger (Entry step 4)', () => {
  it('E1: 24 non-cut rows at the default allowance setting seed allowance: 4', () => {
    const spec = specOf(Array.from({ length: 24 }, (_, i) => `- [ ] criterion ${i + 1}`));
    const ledger = seeded(spec);
    expect(DEFAULT_ALLOWANCE).toBe(4);
    expect(ledger.allowance).toBe(4);
    expect(ledger.rows).toHaveLength(24);
    expect(seeded(spec, { allowance: 4 }).allowance).toBe(4);
  });

  it('E3: explicit in-scope, no disposition and venue: rows are all open, attempts 0, empty evidence', () => {
    const spec = specOf([
      '- [ ] header row',
      '  in-scope',
      '- [ ] commas escaped',
      '- [ ] upload',
      '  venue: staging - upload visible',
    ]);
    expect(seeded(spec).rows).toEqual([
      { row: 1, status: 'open', attempts: 0, evidence: '' },
      { row: 2, status: 'open', attempts: 0, evidence: '' },
      { row: 3, status: 'open', attempts: 0, evidence: '' },
    ]);
  });

  it('cuts deviates:, deferred: and elsewhere: rows with the disposition text as evidence', () => {
    const spec = specOf([
      '- [ ] a',
      '  deviates: dropped | by product; CSV only',
      '- [ ] b',
      '  deferred: ACME-412',
      '- [ ] c',
      '  elsewhere: acme/mobile',
    ]);
    expect(seeded(spec).rows).toEqual([
      { row: 1, status: 'cut', attempts: 0, evidence: 'deviates: dropped \\| by product; CSV only' },
      { row: 2, status: 'cut', attempts: 0, evidence: 'deferred: ACME-412' },
      { row: 3, status: 'cut', attempts: 0, evidence: 'elsewhere: acme/mobile' },
    ]);
  });

  it('an all-cut ledger keeps the allowance setting', () => {
    const spec = specOf(['- [ ] a', '  deferred: ACME-1', '- [ ] b', '  deferred: ACME-2']);
    expect(seeded(spec, { allowance: 7 }).allowance).toBe(7);
  });

  it('writes the header skeleton: iterations 0, allowance right after it, no pending, no decisions', () => {
    const text = serializeLedger(seeded(specOf(['- [ ] a', '- [ ] b', '  deferred: ACME-1'])));
    expect(text).toBe(
      ledgerText({
        spec: 'doc/specs/2026-11-02-csv-export.md',
        rows: ['| 1 | open | 0 |  |', '| 2 | cut | 0 | deferred: ACME-1 |'],
      }),
    );
  });

  it('the skeleton passes the ledger checks against its spec and reads back', () => {
    const spec = specOf(['- [ ] a', '- [ ] b', '  deviates: x | y; z', '- [ ] c', '  venue: qa - seen']);
    const ledger = seeded(spec, { checks: 'commands', discriminant: '# Loop ledger' });
    expect(checkLedger(ledger, spec)).toEqual([]);
    const back = parseLedger(serializeLedger(ledger));
    expect(back.findings).toEqual([]);
    expect(back.ledger?.rows).toEqual(ledger.rows);
  });

  it('a spec without acceptance criteria seeds an empty table', () => {
    expect(seeded(specOf(['none - no ticket'])).rows).toEqual([]);
  });

  it('refuses an allowance below 1 with a named finding and no ledger (§6 A20)', () => {
    const spec = specOf(['- [ ] a']);
    for (const allowance of [0, -1, 2.5]) {
      const result = seedLedger(spec, { ...options, allowance });
      expect(result.ledger).toBeNull();
      expect(result.findings.map((f) => f.code)).toEqual(['seed.allowance']);
    }
  });

  it('names every bad option at once', () => {
    const result = seedLedger(specOf(['- [ ] a']), {
      specPath: '/abs/doc/specs/x.md',
      base: 'HEAD',
      verification: ' ',
      allowance: 0,
    });
    expect(result.ledger).toBeNull();
    expect(result.findings.map((f) => f.code)).toEqual([
      'seed.allowance',
      'ledger.header.spec',
      'ledger.header.base',
      'ledger.header.empty',
    ]);
  });
});
