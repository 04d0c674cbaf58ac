/**
 * Legacy `cap:` ledgers (§1.2, §3.2, RS3): what migrates, to what, and what is refused by name.
 * Expected texts are written by hand.
 */
import { describe, expect, it } from 'vitest';
import { historicLedger, legacyAllowance } from '../../src/gauntlet/legacy-allowance.js';

const base = 'b'.repeat(40);
function ledger(header: string, extra = ''): string {
  return `# Loop ledger\n**Spec:** docs/specs/a.md\nbase: ${base}\nverification: npm test\nchecks: commands\n${header}\n\n| row | status | attempts | evidence |\n|---|---|---|---|\n| 1 | failed | 2 | t; red |\n\n## Decisions\n\n${extra}`;
}

describe('legacyAllowance', () => {
  it('moves the cap: value to allowance: right after iterations:, rows and attempts unchanged', () => {
    const found = legacyAllowance(ledger('cap: 3\niterations: 4'));
    expect(found.kind).toBe('migrate');
    if (found.kind !== 'migrate') return;
    expect(found.text).toContain('\niterations: 4\nallowance: 3\n');
    expect(found.text).not.toContain('cap:');
    expect(found.text).toContain('| 1 | failed | 2 | t; red |');
    expect(found.body).toBe('cap: 3\nallowance: 3');
  });

  it('leaves a current ledger alone, and a ledger with both lines to the precondition stop', () => {
    expect(legacyAllowance(ledger('iterations: 4\nallowance: 3')).kind).toBe('current');
    expect(legacyAllowance(ledger('iterations: 4\nallowance: 3\ncap: 3')).kind).toBe('current');
  });

  it('refuses by name a value that is not a count, several cap: lines and a pending tuple', () => {
    expect(legacyAllowance(ledger('iterations: 4\ncap: many'))).toEqual({
      kind: 'invalid',
      reason: 'the legacy cap: value "many" is not a non-negative integer',
    });
    expect(legacyAllowance(ledger('iterations: 4\ncap: 3\ncap: 4'))).toEqual({
      kind: 'invalid',
      reason: 'the legacy ledger has 2 cap: lines; keep one',
    });
    const pending = legacyAllowance(ledger(`iterations: 5\ncap: 3\npending: 1 | home | ${base}`));
    expect(pending.kind).toBe('invalid');
  });

  it('history reads a committed cap: ledger as migrated', () => {
    expect(historicLedger(ledger('iterations: 4\ncap: 3'))?.allowance).toBe(3);
    expect(historicLedger('not a ledger')).toBeNull();
  });
});
