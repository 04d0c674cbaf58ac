import { beforeEach, describe, expect, it } from 'vitest';
import type { RunContract } from '../../src/cybernetic/index.js';
import { CheckSetMismatchError, decideCandidate, type RunRecord } from '../../src/cybernetic/index.js';
import { contractOf, runFailing } from './helpers.js';

// The check set is frozen with the contract (docs/cybernetic-loop.md): two runs are comparable
// only over the same checks in the same order, and a refusal names what is missing, what is new,
// or that only the order changed.
let contract: RunContract;
let retained: RunRecord;
// Built in each test, not while the file loads, so that Stryker's per-test coverage sees it.
beforeEach(() => {
  contract = contractOf();
  retained = runFailing(contract, 0, ['invariant']);
});
const reordered = (run: RunRecord, names: string[]): RunRecord => ({
  ...run,
  results: names.map((name) => run.results.find((r) => r.name === name)!),
});
const refusal = (candidate: RunRecord): CheckSetMismatchError => {
  try {
    decideCandidate(retained, candidate);
  } catch (error) {
    if (error instanceof CheckSetMismatchError) return error;
    throw error;
  }
  throw new Error('not refused');
};

describe('comparing runs of different check sets', () => {
  it('names the missing check', () => {
    const other = runFailing(contractOf({ existingChecks: [{ name: 'unit', command: 'npm test' }] }), 1, []);
    const error = refusal(other);
    expect(error.code).toBe('cybernetic.check-set-mismatch');
    expect(error.missing).toEqual(['lint']);
    expect(error.unexpected).toEqual([]);
    expect(error.message).toMatch(/frozen check set.*missing lint/);
    expect(error.message).not.toMatch(/not in the frozen contract/);
    expect(error.message).not.toMatch(/order differs/);
  });

  it('lists several missing or unexpected checks, comma-separated', () => {
    const solo = runFailing(contractOf({ existingChecks: [] }), 1, []);
    expect(refusal(solo).message).toMatch(/missing unit, lint\)/);
    const wide = runFailing(
      contractOf({
        existingChecks: [
          { name: 'unit', command: 'npm test' },
          { name: 'lint', command: 'npm run lint' },
          { name: 'e2e', command: 'npm run e2e' },
          { name: 'docs', command: 'npm run docs' },
        ],
      }),
      1,
      [],
    );
    const error = refusal(wide);
    expect(error.unexpected).toEqual(['e2e', 'docs']);
    expect(error.message).toMatch(/not in the frozen contract: e2e, docs\)/);
  });

  it('names a check that is not in the frozen contract', () => {
    const other = runFailing(
      contractOf({
        existingChecks: [
          { name: 'unit', command: 'npm test' },
          { name: 'e2e', command: 'npm run e2e' },
        ],
      }),
      1,
      [],
    );
    const error = refusal(other);
    expect(error.missing).toEqual(['lint']);
    expect(error.unexpected).toEqual(['e2e']);
    expect(error.message).toMatch(/missing lint; not in the frozen contract: e2e/);
  });

  it('says when only the order differs', () => {
    const error = refusal(reordered(runFailing(contract, 1, []), ['invariant', 'lint', 'unit']));
    expect(error.missing).toEqual([]);
    expect(error.unexpected).toEqual([]);
    expect(error.message).toMatch(/check order differs from the frozen contract/);
  });

  it('a run with one check more is refused even when the frozen checks line up before it', () => {
    const extra = runFailing(
      contractOf({
        existingChecks: [
          { name: 'unit', command: 'npm test' },
          { name: 'lint', command: 'npm run lint' },
          { name: 'e2e', command: 'npm run e2e' },
        ],
      }),
      1,
      [],
    );
    expect(refusal(extra).unexpected).toEqual(['e2e']);
  });

  it('a run with one check fewer is refused even when the others line up', () => {
    const shorter = { ...retained, results: retained.results.slice(0, 2) };
    expect(() => decideCandidate(retained, shorter)).toThrow(CheckSetMismatchError);
  });
});
