import { beforeEach, describe, expect, it } from 'vitest';
import type { RunContract } from '../../src/cybernetic/index.js';
import { CheckSetMismatchError, decideCandidate, recordRun } from '../../src/cybernetic/index.js';
import { contractOf, executions, runFailing } from './helpers.js';

let contract: RunContract;
// Built in each test, not while the file loads, so that Stryker's per-test coverage sees it.
beforeEach(() => {
  contract = contractOf();
});

describe('decideCandidate (keep or revert)', () => {
  it('keeps a candidate that makes a failing check pass and breaks nothing', () => {
    const retained = runFailing(contract, 0, ['invariant', 'unit']);
    const candidate = runFailing(contract, 1, ['unit']);
    expect(decideCandidate(retained, candidate)).toEqual({ decision: 'keep', newlyPassing: ['invariant'] });
  });

  it('keeps a candidate that restores everything', () => {
    const decision = decideCandidate(runFailing(contract, 0, ['invariant']), runFailing(contract, 1, []));
    expect(decision.decision).toBe('keep');
  });

  it('reverts a candidate that changes nothing (no-improvement)', () => {
    const decision = decideCandidate(
      runFailing(contract, 0, ['invariant']),
      runFailing(contract, 1, ['invariant']),
    );
    expect(decision).toMatchObject({
      decision: 'revert',
      reason: 'candidate-regression',
      cause: 'no-improvement',
    });
  });

  it('reverts a candidate that only changes how a failing check fails', () => {
    const decision = decideCandidate(
      runFailing(contract, 0, ['invariant'], 'a'),
      runFailing(contract, 1, ['invariant'], 'b'),
    );
    expect(decision).toMatchObject({ decision: 'revert', cause: 'no-improvement' });
  });

  it('reverts a candidate that fixes one check but breaks a passing one', () => {
    const decision = decideCandidate(
      runFailing(contract, 0, ['invariant']),
      runFailing(contract, 1, ['lint']),
    );
    expect(decision).toEqual({
      decision: 'revert',
      reason: 'candidate-regression',
      cause: 'broke-passing-check',
      newlyPassing: ['invariant'],
      newlyFailing: ['lint'],
    });
  });

  it('reverts a candidate that leaves a passing check unable to run', () => {
    const retained = runFailing(contract, 0, ['invariant']);
    const candidate = recordRun(contract, 1, executions(contract, { unit: 'unavailable' }));
    expect(decideCandidate(retained, candidate)).toMatchObject({
      decision: 'revert',
      cause: 'broke-passing-check',
      newlyFailing: ['unit'],
    });
  });

  it('refuses to compare runs of different check sets', () => {
    const other = contractOf({ existingChecks: [{ name: 'unit', command: 'npm test' }] });
    expect(() => decideCandidate(runFailing(contract, 0, ['invariant']), runFailing(other, 1, []))).toThrow(
      CheckSetMismatchError,
    );
  });
});
