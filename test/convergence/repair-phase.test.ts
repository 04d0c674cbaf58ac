import { describe, expect, it } from 'vitest';
import {
  admitRound,
  exhaustRepairBudget,
  finishRepairPhase,
  type RepairPhaseResult,
  repairRoundLine,
  runRepairPhase,
  startRepairPhase,
} from '../../src/convergence/repair-phase.js';
import { RepairPhaseError } from '../../src/convergence/repair-phase-error.js';
import { RoundShapeError } from '../../src/convergence/round-shape-error.js';
import { A, B, binding, C, fail, notProven, pass } from './fixtures.js';

const D = 'd'.repeat(64);

/** The `checked` line the protocol prescribes: "repair round N: k open findings". */
const line = (n: number, k: number) => `repair round ${n}: ${k} open findings`;

function codeOf(run: () => unknown): string | undefined {
  try {
    run();
  } catch (error) {
    return (error as { code?: string }).code;
  }
  return undefined;
}

describe('Done-when scenarios', () => {
  it('a first-round PASS converges with no round used', () => {
    const result = runRepairPhase([pass(A, { checked: ['unit tests'] })]);
    expect(result).toEqual<RepairPhaseResult>({
      stopReason: 'converged',
      status: 'PASS',
      roundsUsed: 0,
      openFindings: [],
      checked: [line(0, 0), 'unit tests'],
      notChecked: [],
      subjectDigest: A,
    });
  });

  it('a PASS over an unchanged digest after a FAIL is NOT_PROVEN', () => {
    const result = runRepairPhase([fail(A, ['f1']), pass(A)]);
    expect(result.stopReason).toBe('no_subject_or_evidence_change');
    expect(result.status).toBe('NOT_PROVEN');
    expect(result.roundsUsed).toBe(1);
  });

  it('a closed id that reopens stops before growth is considered', () => {
    // Reference §4.1: FAIL@a [f1,f2] → FAIL@b [f1] → FAIL@c [f1,f2]; round 2 both reopens f2 and grows.
    const result = runRepairPhase([fail(A, ['f1', 'f2']), fail(B, ['f1']), fail(C, ['f1', 'f2'])], {
      repairRounds: 2,
    });
    expect(result.stopReason).toBe('reopened_finding');
    expect(result.roundsUsed).toBe(2);
    expect(result.status).toBe('FAIL');
    expect(result.openFindings.map((f) => f.id)).toEqual(['f1', 'f2']);
  });

  it('a bare evidence label never admits an unchanged digest', () => {
    const result = runRepairPhase([
      notProven(A, ['f1']),
      notProven(A, [], { evidence: ['f1 fixed, see log'] }),
    ]);
    expect(result.stopReason).toBe('no_subject_or_evidence_change');
    expect(result.status).toBe('NOT_PROVEN');
  });

  it('the §4.1 divergence example gives reopened_finding with any bound of at least 2', () => {
    for (const repairRounds of [2, 3, 10]) {
      const result = runRepairPhase([fail(A, ['f1', 'f2']), fail(B, ['f1']), fail(C, ['f1', 'f2'])], {
        repairRounds,
      });
      expect(result.stopReason).toBe('reopened_finding');
    }
  });

  it('repair_rounds=0 with findings is repair_budget_exhausted', () => {
    const result = runRepairPhase([fail(A, ['f1'])], { repairRounds: 0 });
    expect(result).toMatchObject({ stopReason: 'repair_budget_exhausted', status: 'FAIL', roundsUsed: 0 });
    expect(result.checked).toEqual([line(0, 1)]);
  });

  it('a risky PASS with one family at round 0 is diversity_unsatisfied with status NOT_PROVEN', () => {
    const result = runRepairPhase([pass(A, { family: 'claude' })], { riskySurface: true });
    expect(result).toMatchObject({
      stopReason: 'diversity_unsatisfied',
      status: 'NOT_PROVEN',
      roundsUsed: 0,
    });
  });
});

describe('the repair loop', () => {
  it('repairs to convergence, one checked line per round', () => {
    const result = runRepairPhase(
      [
        fail(A, ['f1', 'f2']),
        fail(B, ['f2']),
        pass(C, { checked: ['acceptance: 3 commands'], not_checked: ['perf'] }),
      ],
      { repairRounds: 2 },
    );
    expect(result.stopReason).toBe('converged');
    expect(result.status).toBe('PASS');
    expect(result.roundsUsed).toBe(2);
    expect(result.checked).toEqual([line(0, 2), line(1, 1), line(2, 0), 'acceptance: 3 commands']);
    expect(result.notChecked).toEqual(['perf']);
    expect(result.subjectDigest).toBe(C);
  });

  it('the bound is checked before the round is read: a malformed round past the bound does not throw', () => {
    const result = runRepairPhase([fail(A, ['f1', 'f2']), fail(B, ['f1']), { nonsense: true }], {
      repairRounds: 1,
    });
    expect(result).toMatchObject({ stopReason: 'repair_budget_exhausted', roundsUsed: 1, status: 'FAIL' });
    expect(result.subjectDigest).toBe(B);
  });

  it('a malformed round within the bound throws its shape error', () => {
    expect(() => runRepairPhase([fail(A, ['f1']), fail(B, [])])).toThrow(RoundShapeError);
    expect(codeOf(() => runRepairPhase([fail(A, ['f1']), fail(B, [])]))).toBe('round.fail-without-findings');
  });

  it('rounds after a stop are never read', () => {
    expect(runRepairPhase([pass(A), 'garbage']).stopReason).toBe('converged');
    expect(runRepairPhase([fail(A, ['f1']), fail(A, ['f1']), 'garbage']).stopReason).toBe(
      'no_subject_or_evidence_change',
    );
  });

  it('not_converged: the supplied rounds ran out while budget remained', () => {
    const result = runRepairPhase([fail(A, ['f1', 'f2']), fail(B, ['f1'])], { repairRounds: 2 });
    expect(result).toMatchObject({ stopReason: 'not_converged', status: 'FAIL', roundsUsed: 1 });
  });

  it('post-rule 1: the rounds ran out with the budget spent and findings open', () => {
    const result = runRepairPhase([fail(A, ['f1', 'f2']), fail(B, ['f1'])], { repairRounds: 1 });
    expect(result).toMatchObject({ stopReason: 'repair_budget_exhausted', roundsUsed: 1 });
  });

  it('post-rule 1 needs open findings: a finding-less NOT_PROVEN with the budget spent stays not_converged', () => {
    const result = runRepairPhase([notProven(A, [])], { repairRounds: 0 });
    expect(result).toMatchObject({ stopReason: 'not_converged', status: 'NOT_PROVEN' });
  });

  it('renaming defects at constant size is not caught by the law; the budget ends it', () => {
    const result = runRepairPhase([fail(A, ['f1']), fail(B, ['f2']), fail(C, ['f3'])], { repairRounds: 2 });
    expect(result).toMatchObject({ stopReason: 'repair_budget_exhausted', roundsUsed: 2 });
  });

  it('a growing set stops the phase and the FAIL stays FAIL', () => {
    const result = runRepairPhase([fail(A, ['f1']), fail(B, ['f1', 'f2'])]);
    expect(result).toMatchObject({ stopReason: 'finding_set_grew', status: 'FAIL', roundsUsed: 1 });
  });

  it('an unchanged subject without evidence stops the phase; a NOT_PROVEN stays NOT_PROVEN', () => {
    const result = runRepairPhase([notProven(A, ['f1']), notProven(A, ['f1'])]);
    expect(result).toMatchObject({ stopReason: 'no_subject_or_evidence_change', status: 'NOT_PROVEN' });
  });

  it('binding evidence admits a NOT_PROVEN round over an unchanged subject', () => {
    const result = runRepairPhase([
      notProven(A, ['f1', 'f2']),
      notProven(A, ['f2'], { evidence: [binding('receipt-1', A, ['f1'])] }),
      pass(B),
    ]);
    expect(result).toMatchObject({ stopReason: 'converged', status: 'PASS', roundsUsed: 2 });
  });

  it('a NOT_PROVEN turning PASS over the same digest converges only with binding evidence', () => {
    expect(runRepairPhase([notProven(A, ['f1']), pass(A)])).toMatchObject({
      stopReason: 'no_subject_or_evidence_change',
      status: 'NOT_PROVEN',
    });
    expect(
      runRepairPhase([notProven(A, ['f1']), pass(A, { evidence: [binding('r', A, ['f1'])] })]),
    ).toMatchObject({
      stopReason: 'converged',
      status: 'PASS',
    });
  });

  it('a risky FAIL still enters repair; the risky PASS after it needs two families', () => {
    const oneFamily = runRepairPhase([fail(A, ['f1'], { family: 'claude' }), pass(B, { family: 'claude' })], {
      riskySurface: true,
    });
    expect(oneFamily).toMatchObject({
      stopReason: 'diversity_unsatisfied',
      status: 'NOT_PROVEN',
      roundsUsed: 1,
    });
    const twoFamilies = runRepairPhase(
      [fail(A, ['f1'], { family: 'claude' }), [pass(B, { family: 'claude' }), pass(B, { family: 'codex' })]],
      { riskySurface: true },
    );
    expect(twoFamilies).toMatchObject({ stopReason: 'converged', status: 'PASS' });
  });

  it('open findings ride in the result and never in not_checked', () => {
    const result = runRepairPhase([fail(A, ['f1'], { not_checked: ['load test'] })], { repairRounds: 0 });
    expect(result.openFindings).toEqual([{ id: 'f1', summary: 'defect f1' }]);
    expect(result.notChecked).toEqual(['load test']);
  });

  it('checked carries the round lines then only the current round legs checked', () => {
    const result = runRepairPhase([fail(A, ['f1'], { checked: ['old'] }), pass(B, { checked: ['new'] })]);
    expect(result.checked).toEqual([line(0, 1), line(1, 0), 'new']);
  });

  it('a four-round repair under a larger bound converges', () => {
    const result = runRepairPhase(
      [fail(A, ['f1', 'f2', 'f3']), fail(B, ['f2', 'f3']), fail(C, ['f3']), notProven(D, []), pass(A)],
      { repairRounds: 4 },
    );
    expect(result).toMatchObject({ stopReason: 'converged', roundsUsed: 4 });
  });
});

describe('preconditions (named errors)', () => {
  it('repair-phase.no-rounds: no validation at all', () => {
    expect(codeOf(() => runRepairPhase([]))).toBe('repair-phase.no-rounds');
    expect(codeOf(() => runRepairPhase('x' as unknown as unknown[]))).toBe('repair-phase.no-rounds');
  });

  it('repair-phase.repair-rounds-invalid: negative, fractional or non-numeric bounds', () => {
    for (const repairRounds of [-1, 0.5, Number.NaN, '1' as unknown as number]) {
      expect(codeOf(() => runRepairPhase([pass(A)], { repairRounds }))).toBe(
        'repair-phase.repair-rounds-invalid',
      );
    }
  });

  it('repair-phase.risky-surface-invalid: riskySurface must be a boolean', () => {
    expect(codeOf(() => runRepairPhase([pass(A)], { riskySurface: 'yes' as unknown as boolean }))).toBe(
      'repair-phase.risky-surface-invalid',
    );
  });

  it('preconditions are checked before round 0 is read', () => {
    expect(codeOf(() => runRepairPhase(['garbage'], { repairRounds: -1 }))).toBe(
      'repair-phase.repair-rounds-invalid',
    );
  });
});

describe('the incremental form', () => {
  it('start, admit and finish step through the same phase as the batch function', () => {
    let state = startRepairPhase(fail(A, ['f1', 'f2']), { repairRounds: 2 });
    expect(state).toMatchObject({ roundsUsed: 0, stopReason: null, checkedLines: [line(0, 2)] });
    state = admitRound(state, fail(B, ['f2']));
    expect(state).toMatchObject({ roundsUsed: 1, stopReason: null, closedIds: ['f1'] });
    state = admitRound(state, pass(C));
    expect(state.stopReason).toBe('converged');
    expect(finishRepairPhase(state)).toEqual(
      runRepairPhase([fail(A, ['f1', 'f2']), fail(B, ['f2']), pass(C)]),
    );
  });

  it('a state survives a JSON round trip (a persisted snapshot) and continues identically', () => {
    const state = admitRound(startRepairPhase(fail(A, ['f1', 'f2'])), fail(B, ['f2']));
    const restored = JSON.parse(JSON.stringify(state));
    expect(restored).toEqual(state);
    expect(finishRepairPhase(admitRound(restored, fail(C, ['f1'])))).toEqual(
      finishRepairPhase(admitRound(state, fail(C, ['f1']))),
    );
  });

  it('admitRound on a stopped phase is a named error', () => {
    const stopped = startRepairPhase(pass(A));
    expect(codeOf(() => admitRound(stopped, pass(B)))).toBe('repair-phase.already-stopped');
    expect(() => admitRound(stopped, pass(B))).toThrow(RepairPhaseError);
  });

  it('exhaustRepairBudget stops a spent phase and refuses one with budget left', () => {
    const spent = startRepairPhase(fail(A, ['f1']), { repairRounds: 0 });
    expect(exhaustRepairBudget(spent).stopReason).toBe('repair_budget_exhausted');
    expect(codeOf(() => exhaustRepairBudget(startRepairPhase(fail(A, ['f1']))))).toBe(
      'repair-phase.budget-remaining',
    );
    expect(codeOf(() => exhaustRepairBudget(startRepairPhase(pass(A), { repairRounds: 0 })))).toBe(
      'repair-phase.already-stopped',
    );
  });

  it('repairRoundLine spells the protocol line', () => {
    expect(repairRoundLine(3, 1)).toBe(line(3, 1));
  });
});
