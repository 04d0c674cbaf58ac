/**
 * Legacy `cap:` ledgers, the edges (§1.2 "a `cap:` line (pre-allowance ledger)", §2 `loop: migrate
 * allowance`, RS3; docs/decisions/rules.md: `allowance:` takes the `cap:` value, written right
 * after `iterations:`). Only the header block (line 2 up to the rows table or the first heading)
 * is a ledger's header: a `cap:`, `allowance:` or `iterations:` line below it is decision text.
 * Expected values are written by hand.
 */
import { describe, expect, it } from 'vitest';
import {
  historicLedger,
  legacyAllowance,
  MIGRATE_ALLOWANCE_SUBJECT,
} from '../../src/gauntlet/legacy-allowance.js';

const base = 'c'.repeat(40);
const HEAD = `# Loop ledger\n**Spec:** docs/specs/a.md\nbase: ${base}\nverification: npm test\nchecks: commands`;
const TABLE = '| row | status | attempts | evidence |\n|---|---|---|---|\n| 1 | open | 0 |  |';

/** A ledger text: the fixed head, the given header lines, the table and the decisions. */
function ledger(header: string, decisions: readonly string[] = []): string {
  return `${HEAD}\n${header}\n\n${TABLE}\n\n## Decisions\n\n${decisions.join('\n')}\n`;
}

describe('legacy cap: ledgers: which lines are the header', () => {
  it('the migration commit is `loop: migrate allowance` (§2)', () => {
    expect(MIGRATE_ALLOWANCE_SUBJECT).toBe('loop: migrate allowance');
  });

  it('a line that only contains cap: is not a cap: line', () => {
    expect(legacyAllowance(ledger('iterations: 1\nallowance: 2\nrecap: 3')).kind).toBe('current');
    expect(legacyAllowance(ledger('iterations: 1\nrecap: 3')).kind).toBe('current');
  });

  it('a cap: line below the header (in the decisions) is text: the header cap migrates alone', () => {
    const found = legacyAllowance(ledger('iterations: 2\ncap: 5', ['cap: 9 was discussed']));
    expect(found.kind).toBe('migrate');
    if (found.kind !== 'migrate') return;
    expect(found.ledger.allowance).toBe(5);
    expect(found.body).toBe('cap: 5\nallowance: 5');
  });

  it('an allowance: line below the header does not make a cap: ledger current', () => {
    const found = legacyAllowance(ledger('iterations: 2\ncap: 5', ['allowance: 7 was proposed']));
    expect(found.kind).toBe('migrate');
    if (found.kind === 'migrate') expect(found.ledger.allowance).toBe(5);
  });

  it('an iterations: line below the header is no place to write allowance: after', () => {
    const text = `${HEAD}\ncap: 3\n## Notes\niterations: 4\n\n${TABLE}\n`;
    expect(legacyAllowance(text)).toEqual({
      kind: 'invalid',
      reason: 'the legacy ledger has no iterations: line to write allowance: after',
    });
  });

  it('a two-digit cap migrates with its whole value', () => {
    const found = legacyAllowance(ledger('iterations: 0\ncap: 12'));
    expect(found.kind).toBe('migrate');
    if (found.kind === 'migrate') expect(found.ledger.allowance).toBe(12);
  });

  it('refuses a cap that is negative, written as an exponent or beyond a safe integer', () => {
    for (const raw of ['-1', '3e2', '99999999999999999999']) {
      expect(legacyAllowance(ledger(`iterations: 0\ncap: ${raw}`))).toEqual({
        kind: 'invalid',
        reason: `the legacy cap: value "${raw}" is not a non-negative integer`,
      });
    }
  });

  it('a cap: ledger whose rows do not parse after migration is refused naming the line', () => {
    // Line 11 of this text (1-based) is a row with a status the ledger does not know.
    const text = `${HEAD}\niterations: 0\ncap: 2\n\n| row | status | attempts | evidence |\n|---|---|---|---|\n| 1 | sleeping | 0 |  |\n`;
    expect(text.split('\n')[10]).toBe('| 1 | sleeping | 0 |  |');
    const found = legacyAllowance(text);
    expect(found.kind).toBe('invalid');
    if (found.kind !== 'invalid') return;
    expect(found.reason.startsWith('the legacy ledger does not parse after migration: line ')).toBe(true);
    // After migration cap: is gone and allowance: sits right after iterations:, so the row keeps
    // its line number 11.
    expect(found.reason).toContain('line 11: ');
    expect(found.reason.length).toBeGreaterThan(
      'the legacy ledger does not parse after migration: line 11: '.length,
    );
  });

  it('several findings after migration are all named, one after the other', () => {
    const text = `${HEAD}\niterations: 0\ncap: 2\n\n| row | status | attempts | evidence |\n|---|---|---|---|\n| 1 | sleeping | 0 |  |\n| 2 | dozing | 0 |  |\n`;
    const found = legacyAllowance(text);
    expect(found.kind).toBe('invalid');
    if (found.kind !== 'invalid') return;
    expect(found.reason).toContain('line 11: ');
    expect(found.reason).toContain('; line 12: ');
  });

  it('a cap: ledger without a rows table is refused as not parsing, its last line still read', () => {
    const found = legacyAllowance(`${HEAD}\niterations: 0\ncap: 2`);
    expect(found.kind).toBe('invalid');
    if (found.kind === 'invalid')
      expect(found.reason.startsWith('the legacy ledger does not parse after migration: ')).toBe(true);
  });

  it('a pending tuple is refused with what to do: recover or remove the dispatch by hand', () => {
    const found = legacyAllowance(ledger(`iterations: 1\ncap: 3\npending: 1 | home | ${base}`));
    expect(found.kind).toBe('invalid');
    if (found.kind !== 'invalid') return;
    expect(found.reason).toContain('pending');
    expect(found.reason).toContain('by hand');
  });

  it('history reads a current ledger as it is', () => {
    const current = ledger('iterations: 3\nallowance: 6');
    expect(historicLedger(current)?.allowance).toBe(6);
    expect(historicLedger(current)?.iterations).toBe(3);
  });
});
