import { describe, expect, it } from 'vitest';
import { converged, diversityUnsatisfied } from '../../src/convergence/convergence-check.js';
import {
  bindingEvidence,
  findingSetGrew,
  lawViolation,
  reopenedFinding,
  reopenedIds,
  resolvedIds,
  subjectOrEvidenceChanged,
} from '../../src/convergence/law.js';
import { normalizeRound } from '../../src/convergence/normalize-round.js';
import { checkRepairRounds, withinRepairBudget } from '../../src/convergence/repair-budget.js';
import { RepairPhaseError } from '../../src/convergence/repair-phase-error.js';
import { A, B, binding, C, fail, notProven, pass } from './fixtures.js';

const round = normalizeRound;

describe('condition 1: withinRepairBudget', () => {
  it('admits a repair round only while rounds used < the declared bound', () => {
    expect(withinRepairBudget(0, 2)).toBe(true);
    expect(withinRepairBudget(1, 2)).toBe(true);
    expect(withinRepairBudget(2, 2)).toBe(false);
    expect(withinRepairBudget(0, 0)).toBe(false);
  });

  it('the bound defaults to 2 and must be a non-negative integer', () => {
    expect(checkRepairRounds(undefined)).toBe(2);
    expect(checkRepairRounds(0)).toBe(0);
    expect(Object.is(checkRepairRounds(-0), 0)).toBe(true);
    for (const bad of [-1, 1.5, Number.NaN, Number.POSITIVE_INFINITY, '2', true, null]) {
      expect(() => checkRepairRounds(bad)).toThrow(RepairPhaseError);
      try {
        checkRepairRounds(bad);
      } catch (error) {
        expect((error as RepairPhaseError).code).toBe('repair-phase.repair-rounds-invalid');
      }
    }
  });
});

describe('condition 2: findingSetGrew', () => {
  it('a larger open set grows', () => {
    expect(findingSetGrew(round(fail(A, ['f1'])), round(fail(B, ['f1', 'f2'])))).toBe(true);
  });

  it('only size counts: swapping ids one for one is not growth', () => {
    expect(findingSetGrew(round(fail(A, ['f1', 'f2'])), round(fail(B, ['f3', 'f4'])))).toBe(false);
  });

  it('the open set is the union over legs, so a cross-family leg adding an id grows it', () => {
    const previous = round(fail(A, ['f1']));
    const current = round([fail(B, ['f1'], { family: 'claude' }), fail(B, ['x1'], { family: 'codex' })]);
    expect(findingSetGrew(previous, current)).toBe(true);
  });
});

describe('condition 3: reopenedFinding', () => {
  it('an id closed in an earlier round that is open again reopens', () => {
    expect(reopenedFinding(round(fail(C, ['f1', 'f2'])), ['f2'])).toBe(true);
    expect(reopenedIds(round(fail(A, ['f1', 'f2'])), ['f2', 'f9'])).toEqual(['f2']);
  });

  it('an id that was never closed does not reopen', () => {
    expect(reopenedFinding(round(fail(A, ['f1'])), ['f2'])).toBe(false);
  });

  it('a reworded finding with a closed id is the same finding', () => {
    const current = round({ ...fail(A, []), findings: [{ id: 'f1', summary: 'entirely new words' }] });
    expect(reopenedFinding(current, ['f1'])).toBe(true);
  });
});

describe('condition 4: subjectOrEvidenceChanged and bindingEvidence', () => {
  it('a changed digest is progress, whatever the evidence', () => {
    expect(subjectOrEvidenceChanged(round(fail(A, ['f1'])), round(fail(B, ['f1'])))).toBe(true);
  });

  it('an unchanged digest without evidence is no progress', () => {
    expect(subjectOrEvidenceChanged(round(fail(A, ['f1'])), round(fail(A, ['f1'])))).toBe(false);
  });

  it('binding evidence: new ref, bound to the current digest, resolving an id that left the open set', () => {
    const previous = round(notProven(A, ['f1', 'f2']));
    const proof = binding('receipt-1', A, ['f1']);
    const current = round(notProven(A, ['f2'], { evidence: ['label', proof] }));
    expect(resolvedIds(previous, current)).toEqual(['f1']);
    expect(bindingEvidence(previous, current)).toEqual([proof]);
    expect(subjectOrEvidenceChanged(previous, current)).toBe(true);
  });

  it('a bare evidence label never admits an unchanged digest', () => {
    const previous = round(notProven(A, ['f1']));
    const current = round(notProven(A, [], { evidence: ['tests passed: f1'] }));
    expect(bindingEvidence(previous, current)).toEqual([]);
    expect(subjectOrEvidenceChanged(previous, current)).toBe(false);
  });

  it('evidence resolving an id that is still open admits nothing', () => {
    const previous = round(notProven(A, ['f1', 'f2']));
    const current = round(notProven(A, ['f1'], { evidence: [binding('r', A, ['f1'])] }));
    expect(bindingEvidence(previous, current)).toEqual([]);
  });

  it('evidence bound to another digest admits nothing', () => {
    const previous = round(notProven(A, ['f1']));
    const current = round(notProven(A, [], { evidence: [binding('r', B, ['f1'])] }));
    expect(bindingEvidence(previous, current)).toEqual([]);
  });

  it('evidence already cited in the previous round is not new', () => {
    const previous = round(notProven(A, ['f1'], { evidence: [binding('r', A, [])] }));
    const current = round(notProven(A, [], { evidence: [binding('r', A, ['f1'])] }));
    expect(bindingEvidence(previous, current)).toEqual([]);
  });

  it('a FAIL previous round is never rescued by evidence', () => {
    const previous = round(fail(A, ['f1', 'f2']));
    const current = round(notProven(A, ['f2'], { evidence: [binding('r', A, ['f1'])] }));
    expect(bindingEvidence(previous, current)).toEqual([]);
    expect(subjectOrEvidenceChanged(previous, current)).toBe(false);
  });

  it('a FAIL current round is never rescued by evidence', () => {
    const previous = round(notProven(A, ['f1', 'f2']));
    const current = round(fail(A, ['f2'], { evidence: [binding('r', A, ['f1'])] }));
    expect(bindingEvidence(previous, current)).toEqual([]);
  });

  it('a NOT_PROVEN round turning PASS over the same digest needs binding evidence', () => {
    const previous = round(notProven(A, ['f1']));
    expect(subjectOrEvidenceChanged(previous, round(pass(A)))).toBe(false);
    expect(subjectOrEvidenceChanged(previous, round(pass(A, { evidence: [binding('r', A, ['f1'])] })))).toBe(
      true,
    );
  });
});

describe('lawViolation: reopen → growth → progress', () => {
  it('a closed id that reopens stops before growth is considered', () => {
    // f2 closed earlier; the new round both reopens f2 and grows from 1 to 2 open findings.
    const previous = round(fail(B, ['f1']));
    const current = round(fail(C, ['f1', 'f2']));
    expect(findingSetGrew(previous, current)).toBe(true);
    expect(lawViolation(previous, current, ['f2'])).toBe('reopened_finding');
  });

  it('growth is reported before missing progress', () => {
    expect(lawViolation(round(fail(A, ['f1'])), round(fail(A, ['f1', 'f2'])), [])).toBe('finding_set_grew');
  });

  it('no reopen, no growth and an unchanged subject without binding evidence is no progress', () => {
    expect(lawViolation(round(fail(A, ['f1'])), round(fail(A, ['f1'])), [])).toBe(
      'no_subject_or_evidence_change',
    );
  });

  it('a shrinking set over a new digest is admitted', () => {
    expect(lawViolation(round(fail(A, ['f1', 'f2'])), round(fail(B, ['f2'])), ['f0'])).toBeNull();
  });
});

describe('convergence checks', () => {
  it('converged: a PASS; on a risky surface only with two distinct families', () => {
    expect(converged(round(pass(A)), false)).toBe(true);
    expect(converged(round(pass(A)), true)).toBe(false);
    expect(converged(round([pass(A, { family: 'claude' }), pass(A, { family: 'codex' })]), true)).toBe(true);
    expect(converged(round(notProven(A, [])), false)).toBe(false);
  });

  it('diversityUnsatisfied: a risky PASS with fewer than two families; never a FAIL or NOT_PROVEN', () => {
    expect(diversityUnsatisfied(round(pass(A, { family: 'claude' })), true)).toBe(true);
    expect(
      diversityUnsatisfied(round([pass(A, { family: 'codex' }), pass(A, { family: 'Codex' })]), true),
    ).toBe(true);
    expect(diversityUnsatisfied(round(pass(A, { family: 'claude' })), false)).toBe(false);
    expect(diversityUnsatisfied(round(fail(A, ['f1'], { family: 'claude' })), true)).toBe(false);
  });
});
