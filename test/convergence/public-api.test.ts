import { describe, expect, it } from 'vitest';
import * as convergence from '../../src/convergence/index.js';
import * as crank from '../../src/crank/index.js';
import { A, fail, pass } from './fixtures.js';

describe('public API barrels', () => {
  it('expose the repair phase end to end: rounds in, report out', () => {
    const result = convergence.runRepairPhase([fail(A, ['f1']), pass('b'.repeat(64))]);
    const report = convergence.repairPhaseReport(result);
    expect(convergence.rpiReportSchema.parse(report).status).toBe('PASS');
  });

  it('expose one guard per law condition and the convergence checks', () => {
    const guards = [
      convergence.withinRepairBudget,
      convergence.findingSetGrew,
      convergence.reopenedFinding,
      convergence.subjectOrEvidenceChanged,
      convergence.bindingEvidence,
      convergence.converged,
      convergence.diversityUnsatisfied,
      convergence.lawViolation,
    ];
    for (const guard of guards) expect(typeof guard).toBe('function');
  });

  it('expose crank from wave input to partition', () => {
    const wave = crank.parseWave({
      lanes: [{ scope: 'src/**', brief: 'b', acceptance: 'npm test', regen_surfaces: [] }],
      repair_rounds: 1,
      acceptance: 'npm test',
    });
    expect(crank.partitionLanes(wave.lanes).batches).toEqual([['lane-1']]);
  });
});
