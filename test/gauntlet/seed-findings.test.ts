// Entry step 4's refusals (gauntlet-protocol §1.2, §3.1; docs/decisions/legs.md L5): the smallest
// allowance, the wording of each seed finding, and which ledger findings a refused member base
// hides or keeps. Expected values are written by hand; every seed happens inside a test.
import { describe, expect, it } from 'vitest';
import { seedLedger } from '../../src/gauntlet/seed.js';
import { parseSpec } from '../../src/gauntlet/spec.js';
import type { Spec } from '../../src/gauntlet/types.js';

const HOME_BASE = '3f9c2d1e6b0a47c58f1d2e3a4b5c6d7e8f901234';
const API_BASE = '0c1d2e3f4a5b6c7d8e9f0a1b2c3d4e5f6a7b8c9d';
const options = { specPath: 'doc/specs/csv-export.md', base: HOME_BASE, verification: 'npm test' };

function parsed(lines: string[]): Spec {
  const result = parseSpec(lines.join('\n'));
  expect(result.findings).toEqual([]);
  return result.spec;
}

const single = (): Spec => parsed(['# CSV export', '', '## Acceptance criteria', '', '- [ ] a', '']);
const coordinated = (): Spec =>
  parsed([
    '# CSV export',
    '',
    '## Acceptance criteria',
    '',
    '- [ ] export button',
    '- [ ] CSV endpoint',
    '',
    '## Legs',
    '',
    '- web (home): 1',
    '- api: 2',
    '',
  ]);

describe('seedLedger refusals', () => {
  it('seeds the smallest allowance, 1', () => {
    const result = seedLedger(single(), { ...options, allowance: 1 });
    expect(result.findings).toEqual([]);
    expect(result.ledger?.allowance).toBe(1);
  });

  it('names a bad allowance with the value it got', () => {
    expect(seedLedger(single(), { ...options, allowance: 0 }).findings).toEqual([
      {
        code: 'seed.allowance',
        line: 0,
        reason: 'the allowance setting must be an integer >= 1 to seed a ledger, got 0',
      },
    ]);
  });

  it('names each refused member base with the member and the commits involved', () => {
    expect(seedLedger(coordinated(), { ...options, memberBases: { web: HOME_BASE } }).findings).toEqual([
      {
        code: 'seed.member-base',
        line: 0,
        reason: 'no base for member api: read it with git -C <api checkout> rev-parse HEAD',
      },
    ]);
    expect(
      seedLedger(coordinated(), { ...options, memberBases: { web: API_BASE, api: API_BASE } }).findings,
    ).toEqual([
      {
        code: 'seed.home-base',
        line: 0,
        reason: `member web is home: its base ${API_BASE} must equal the ledger's base: ${HOME_BASE}`,
      },
    ]);
    expect(
      seedLedger(coordinated(), { ...options, memberBases: { web: HOME_BASE, api: HOME_BASE } }).findings,
    ).toEqual([
      {
        code: 'seed.member-base-shared',
        line: 0,
        reason: `member api starts at the home base ${HOME_BASE}: a companion must be another repository, or a checkout at another commit`,
      },
    ]);
  });

  it('a refused home base hides only the ledger’s ambiguous-home finding, next to a bad allowance too', () => {
    const wrongHome = { ...options, memberBases: { web: API_BASE, api: API_BASE } };
    expect(seedLedger(coordinated(), { ...wrongHome, allowance: 0 }).findings.map((f) => f.code)).toEqual([
      'seed.allowance',
      'seed.home-base',
    ]);
    const result = seedLedger(coordinated(), { ...wrongHome, verification: ' ' });
    expect(result.ledger).toBeNull();
    expect(result.findings.map((f) => f.code)).toEqual(['seed.home-base', 'ledger.header.empty']);
  });
});
