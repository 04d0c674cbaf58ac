import { describe, expect, it } from 'vitest';
import {
  admitCandidate,
  BudgetExceededError,
  beginRun,
  type CandidatePatch,
  CheckSetMismatchError,
  InvalidCandidateError,
  mayApplyCandidate,
  RunStoppedError,
  recordCandidate,
} from '../../src/cybernetic/index.js';
import { contractOf, runFailing } from './helpers.js';

const patch = (id: string, target = 'invariant', paths = ['src/store.ts']): CandidatePatch => ({
  id,
  target,
  summary: `patch ${id}`,
  paths,
});

describe('the run transcript', () => {
  it('restores within budget: kept candidates become the retained state', () => {
    const contract = contractOf({ budget: 3 });
    let t = beginRun(contract, runFailing(contract, 0, ['invariant', 'unit']));
    expect(t.verdict).toEqual({ kind: 'continue' });
    t = recordCandidate(t, patch('p1'), runFailing(contract, 1, ['unit']));
    expect(t.attempts[0]?.decision.decision).toBe('keep');
    expect(t.retained.run).toBe(1);
    t = recordCandidate(t, patch('p2', 'unit'), runFailing(contract, 2, []));
    expect(t.verdict).toEqual({ kind: 'restored' });
    expect(t.budgetSpent).toBe(2);
    expect(mayApplyCandidate(t)).toBe(false);
  });

  it('spends a budget unit on a reverted candidate and keeps the retained state', () => {
    const contract = contractOf({ budget: 3 });
    let t = beginRun(contract, runFailing(contract, 0, ['invariant']));
    t = recordCandidate(t, patch('p1'), runFailing(contract, 1, ['invariant', 'lint']));
    expect(t.attempts[0]?.decision).toMatchObject({ decision: 'revert', reason: 'candidate-regression' });
    expect(t.budgetSpent).toBe(1);
    expect(t.retained.run).toBe(0);
  });

  it('stops at budget exhaustion and refuses any further candidate', () => {
    const contract = contractOf({ budget: 1 });
    let t = beginRun(contract, runFailing(contract, 0, ['invariant', 'unit']));
    t = recordCandidate(t, patch('p1'), runFailing(contract, 1, ['unit']));
    expect(t.verdict).toMatchObject({ kind: 'stop', stopClass: 'budget-exhaustion' });
    expect(() => recordCandidate(t, patch('p2', 'unit'), runFailing(contract, 2, []))).toThrow(
      RunStoppedError,
    );
  });

  it('refuses candidates after already-holds', () => {
    const contract = contractOf();
    const t = beginRun(contract, runFailing(contract, 0, []));
    expect(t.verdict).toEqual({ kind: 'already-holds' });
    expect(() => admitCandidate(t, patch('p1'))).toThrow(RunStoppedError);
  });

  it('refuses a candidate past the budget even if a caller forges a continue verdict', () => {
    const contract = contractOf({ budget: 1 });
    let t = beginRun(contract, runFailing(contract, 0, ['invariant', 'unit']));
    t = recordCandidate(t, patch('p1'), runFailing(contract, 1, ['unit']));
    const forged = { ...t, verdict: { kind: 'continue' as const } };
    expect(() => recordCandidate(forged, patch('p2', 'unit'), runFailing(contract, 2, []))).toThrow(
      BudgetExceededError,
    );
  });

  it('stops for scope widening before applying a candidate that needs paths outside the scope, spending nothing', () => {
    const contract = contractOf();
    const t = beginRun(contract, runFailing(contract, 0, ['invariant']));
    const admission = admitCandidate(t, patch('wide', 'invariant', ['src/store.ts', 'package.json']));
    expect(admission.admitted).toBe(false);
    if (admission.admitted) return;
    expect(admission.verdict).toMatchObject({ stopClass: 'scope-widening' });
    expect(admission.transcript.budgetSpent).toBe(0);
    expect(admission.transcript.refusedCandidate?.id).toBe('wide');
    expect(admitCandidate(t, patch('narrow'))).toEqual({ admitted: true });
  });

  it('refuses a candidate aimed at a passing check or at no frozen check', () => {
    const contract = contractOf();
    const t = beginRun(contract, runFailing(contract, 0, ['invariant']));
    expect(() => admitCandidate(t, patch('p', 'unit'))).toThrow(InvalidCandidateError);
    expect(() => admitCandidate(t, patch('p', 'nonexistent'))).toThrow(InvalidCandidateError);
    expect(() => admitCandidate(t, { ...patch('p'), id: ' ' })).toThrow(InvalidCandidateError);
  });

  it('refuses a wrongly numbered run and a run of another contract', () => {
    const contract = contractOf();
    const t = beginRun(contract, runFailing(contract, 0, ['invariant']));
    expect(() => recordCandidate(t, patch('p'), runFailing(contract, 2, []))).toThrow(InvalidCandidateError);
    const other = contractOf({ existingChecks: [] });
    expect(() => recordCandidate(t, patch('p'), runFailing(other, 1, []))).toThrow(CheckSetMismatchError);
    expect(() => beginRun(contract, runFailing(contract, 1, ['invariant']))).toThrow(InvalidCandidateError);
  });
});
