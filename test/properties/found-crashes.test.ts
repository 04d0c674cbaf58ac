/**
 * Inputs the property test (parsers.property.test.ts) found that crashed with a TypeError instead
 * of a named error or a finding; each is fixed where the value is first read.
 */
import { describe, expect, it } from 'vitest';
import { describeValue } from '../../src/common/describe-value.js';
import {
  checkLedger,
  checkReturnBoundary,
  type Ledger,
  LedgerFormatError,
  parseLedger,
  ReturnFactsError,
  reviveRunContract,
  serializeLedger,
  UnfrozenContractError,
} from '../../src/index.js';

const SHA = 'a'.repeat(40);
const TEXT = `# Loop ledger\n\n**Spec:** a.md\nbase: ${SHA}\nverification: npm test\nchecks: commands\niterations: 0\nallowance: 2\n\n| row | status | attempts | evidence |\n|---|---|---|---|\n| 1 | open | 0 |  |\n\n## Decisions\n`;

function ledger(): Ledger {
  const parsed = parseLedger(TEXT).ledger;
  if (parsed === null) throw new Error('fixture ledger does not parse');
  return parsed;
}

/** The finding codes serializeLedger refuses a value with. */
function refusal(value: unknown): string[] {
  try {
    serializeLedger(value as Ledger);
  } catch (error) {
    expect(error).toBeInstanceOf(LedgerFormatError);
    return (error as LedgerFormatError).findings.map((f) => f.code);
  }
  throw new Error('serializeLedger accepted the value');
}

describe('ledger values of the wrong shape are findings, not TypeErrors', () => {
  it('a row that is null, a decision that is a number, rows that are not a list', () => {
    expect(refusal({ ...ledger(), rows: [null] })).toEqual(['ledger.value.shape']);
    expect(refusal({ ...ledger(), decisions: [7] })).toEqual(['ledger.value.shape']);
    expect(refusal({ ...ledger(), rows: 'x' })).toEqual(['ledger.value.shape']);
    expect(refusal(null)).toEqual(['ledger.value.shape']);
    expect(checkLedger({ ...ledger(), rows: [null] } as unknown as Ledger).map((f) => f.code)).toEqual([
      'ledger.value.shape',
    ]);
  });

  it('a pending tuple that is undefined, or a part whose toString is not a function', () => {
    expect(refusal({ ...ledger(), pending: undefined })).toEqual(['ledger.pending.malformed']);
    expect(
      refusal({ ...ledger(), pending: { target: { toString: false }, repo: 'home', head: SHA } }),
    ).toEqual(['ledger.pending.malformed']);
  });

  it('a row number or status whose toString is not a function', () => {
    const row = ledger().rows[0];
    expect(refusal({ ...ledger(), rows: [{ ...row, row: { toString: [] } }] })).toContain(
      'ledger.table.row-number',
    );
    expect(refusal({ ...ledger(), rows: [{ ...row, status: { toString: [] } }] })).toContain(
      'ledger.table.status',
    );
  });
});

describe('return boundary facts', () => {
  it('a missing porcelain text is a named fact error', () => {
    expect(() => checkReturnBoundary({ returned: 'DONE', commitCount: 1 } as never)).toThrow(
      ReturnFactsError,
    );
    try {
      checkReturnBoundary({ returned: 'DONE', commitCount: 1 } as never);
    } catch (error) {
      expect((error as ReturnFactsError).code).toBe('return-facts.porcelain');
    }
  });

  it('a commit count whose toString is not a function is a named fact error', () => {
    expect(() =>
      checkReturnBoundary({ returned: 'DONE', commitCount: { toString: false }, porcelain: '' } as never),
    ).toThrow(ReturnFactsError);
  });
});

describe('reviveRunContract on values that are not contracts', () => {
  it.each([
    undefined,
    null,
    3,
    'contract',
    [],
    { checks: 'x' },
    { checks: [null] },
    { scope: 5 },
    { invariant: 2 },
  ])('refuses %j with UnfrozenContractError', (value) => {
    expect(() => reviveRunContract(value as never)).toThrow(UnfrozenContractError);
  });
});

describe('describeValue', () => {
  it('names any value without throwing', () => {
    expect(describeValue({ toString: false })).toBe('{"toString":false}');
    expect(describeValue('x')).toBe('x');
    expect(describeValue(undefined)).toBe('undefined');
    expect(describeValue(Symbol('s'))).toBe('symbol');
    expect(describeValue(2n)).toBe('2n');
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    expect(describeValue(cyclic)).toBe('[object Object]');
  });
});
