import { describe, expect, it } from 'vitest';
import { bindingEvidence } from '../../src/convergence/law.js';
import { normalizeRound } from '../../src/convergence/normalize-round.js';
import {
  admitRound,
  exhaustRepairBudget,
  runRepairPhase,
  startRepairPhase,
} from '../../src/convergence/repair-phase.js';
import { RepairPhaseError } from '../../src/convergence/repair-phase-error.js';
import { worstVerdict } from '../../src/convergence/verdict.js';
import { A, B, fail, notProven, pass } from './fixtures.js';

// Reference §1.2, preconditions P1 and P2, and the incremental form's refusals: each refusal is a
// named error whose sentence says what was wrong and with which value, so that a caller can fix
// the call without reading the source.

function refusal(run: () => unknown): RepairPhaseError {
  try {
    run();
  } catch (error) {
    if (error instanceof RepairPhaseError) return error;
    throw error;
  }
  throw new Error('expected a RepairPhaseError');
}

describe('the repair phase names what it refuses', () => {
  it('P1: no validation round at all', () => {
    const error = refusal(() => runRepairPhase([]));
    expect(error.code).toBe('repair-phase.no-rounds');
    expect(error.message).toMatch(/needs at least one validation round/);
  });

  it('P2: a bound that is not a non-negative integer, quoting the value as given', () => {
    const quoted: [unknown, string][] = [
      [-1, 'got -1'],
      ['2', 'got "2"'],
      [1.5, 'got 1.5'],
      [null, 'got null'],
    ];
    for (const [repairRounds, shown] of quoted) {
      const error = refusal(() => runRepairPhase([pass(A)], { repairRounds: repairRounds as number }));
      expect(error.code).toBe('repair-phase.repair-rounds-invalid');
      expect(error.message).toMatch(/repairRounds must be a non-negative integer/);
      expect(error.message).toContain(shown);
    }
  });

  it('a risky-surface declaration that is not a boolean, quoting the value as given', () => {
    for (const [riskySurface, shown] of [
      ['yes', 'got "yes"'],
      [1, 'got 1'],
    ] as const) {
      const error = refusal(() =>
        startRepairPhase(pass(A), { riskySurface: riskySurface as unknown as boolean }),
      );
      expect(error.code).toBe('repair-phase.risky-surface-invalid');
      expect(error.message).toMatch(/riskySurface must be a boolean/);
      expect(error.message).toContain(shown);
    }
  });

  it('a round offered to a stopped phase names the stop', () => {
    const converged = startRepairPhase(pass(A));
    const admit = refusal(() => admitRound(converged, pass(B)));
    expect(admit.code).toBe('repair-phase.already-stopped');
    expect(admit.message).toContain('already stopped (converged)');
    expect(admit.message).toMatch(/no further round/);
    const exhausted = exhaustRepairBudget(startRepairPhase(fail(A, ['f1']), { repairRounds: 0 }));
    const again = refusal(() => exhaustRepairBudget(exhausted));
    expect(again.code).toBe('repair-phase.already-stopped');
    expect(again.message).toContain('already stopped (repair_budget_exhausted)');
  });

  it('a budget stop while rounds remain says how many of the bound remain', () => {
    // Bound 3, one round spent: 2 of 3 remain.
    const running = admitRound(startRepairPhase(fail(A, ['f1', 'f2']), { repairRounds: 3 }), fail(B, ['f1']));
    const error = refusal(() => exhaustRepairBudget(running));
    expect(error.code).toBe('repair-phase.budget-remaining');
    expect(error.message).toContain('2 of 3 repair rounds remain');
    expect(error.message).toMatch(/not spent/);
  });
});

describe('worst-of needs a leg', () => {
  it('an empty list of verdicts is a RangeError that says so', () => {
    expect(() => worstVerdict([])).toThrow(RangeError);
    expect(() => worstVerdict([])).toThrow(/at least one verdict/);
  });

  it('is the worst by rank PASS < NOT_PROVEN < FAIL, whatever the order', () => {
    expect(worstVerdict(['PASS'])).toBe('PASS');
    expect(worstVerdict(['PASS', 'NOT_PROVEN', 'PASS'])).toBe('NOT_PROVEN');
    expect(worstVerdict(['FAIL', 'NOT_PROVEN'])).toBe('FAIL');
    expect(worstVerdict(['NOT_PROVEN', 'FAIL', 'PASS'])).toBe('FAIL');
  });
});

describe('evidence without resolves admits nothing (reference §1.2, C4 evidence branch)', () => {
  it('a digest-bound ref that names no resolved id leaves an unchanged subject a law stop', () => {
    // NOT_PROVEN [f1] → NOT_PROVEN [] over the same digest: f1 left the open set, but the new
    // evidence binds to the digest without saying what it resolves.
    const result = runRepairPhase([
      notProven(A, ['f1']),
      notProven(A, [], { evidence: [{ ref: 'log-2', subject_digest: A }] }),
    ]);
    expect(result.stopReason).toBe('no_subject_or_evidence_change');
    expect(
      bindingEvidence(
        normalizeRound(notProven(A, ['f1'])),
        normalizeRound(notProven(A, [], { evidence: [{ ref: 'log-2', subject_digest: A }] })),
      ),
    ).toEqual([]);
  });
});
