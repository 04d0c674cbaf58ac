import { describe, expect, it } from 'vitest';
import { admitRound, finishRepairPhase, startRepairPhase } from '../../src/convergence/repair-phase.js';
import { upgradeRiskySurface } from '../../src/convergence/risky-surface-upgrade.js';
import { rpiReportSchema } from '../../src/convergence/schemas.js';
import { repairFailedReport } from '../../src/convergence/stage-failure-report.js';
import { A, B, C, fail, pass } from './fixtures.js';

// docs/decisions/rpi.md 4 and 8: a repair that returns nothing ends NOT_PROVEN with no subject
// digest, the round lines judged so far and `validate` not checked; risk only rises during a phase.

describe('the report of a repair that returned nothing', () => {
  // Built inside each test: code run while the file loads is covered by no test in particular.
  const judged = () =>
    admitRound(startRepairPhase(fail(A, ['f1', 'f2']), { repairRounds: 3 }), fail(B, ['f1']));

  it('is NOT_PROVEN, names no subject, keeps the judged round lines and says validate was not checked', () => {
    const state = judged();
    const report = repairFailedReport(state, { intentRef: 'issue-7', acceptanceDigest: C });
    expect(report).toEqual({
      schema_version: 'rpi-report.v1',
      status: 'NOT_PROVEN',
      intent_ref: 'issue-7',
      acceptance_digest: C,
      subject_manifest_digest: null,
      verdict_ref: null,
      verdict_digest: null,
      checked: ['repair round 0: 2 open findings', 'repair round 1: 1 open findings'],
      not_checked: ['validate'],
    });
    expect(rpiReportSchema.safeParse(report).success).toBe(true);
  });

  it("drops Plan's identities that would not check (blank ref, malformed digest) instead of throwing", () => {
    const state = judged();
    for (const identity of [
      { intentRef: '  ', acceptanceDigest: 'A'.repeat(64) },
      { intentRef: '', acceptanceDigest: 'abc' },
      { intentRef: null, acceptanceDigest: null },
      {},
    ]) {
      const report = repairFailedReport(state, identity);
      expect(report.intent_ref).toBeNull();
      expect(report.acceptance_digest).toBeNull();
      expect(rpiReportSchema.safeParse(report).success).toBe(true);
    }
    expect(repairFailedReport(state).intent_ref).toBeNull();
  });

  it('copies the round lines: the report does not share the state array', () => {
    const state = judged();
    const report = repairFailedReport(state);
    expect(report.checked).not.toBe(state.checkedLines);
    expect(report.checked).toEqual(state.checkedLines);
  });
});

describe('risk only rises during a phase', () => {
  const fresh = () => startRepairPhase(fail(A, ['f1']), { repairRounds: 2 });

  it('a risky measurement makes a plain phase risky; the rest of the state is unchanged', () => {
    const plain = fresh();
    const risky = upgradeRiskySurface(plain, true);
    expect(risky).toEqual({ ...plain, riskySurface: true });
    expect(plain.riskySurface).toBe(false);
  });

  it('a plain measurement never lowers the risk, and nothing changes returns the same state', () => {
    const plain = fresh();
    const risky = upgradeRiskySurface(plain, true);
    expect(upgradeRiskySurface(risky, false)).toBe(risky);
    expect(upgradeRiskySurface(risky, true)).toBe(risky);
    expect(upgradeRiskySurface(plain, false)).toBe(plain);
  });

  it('upgraded between rounds, a one-family PASS stops as diversity_unsatisfied, as if risky from round 0', () => {
    const plain = fresh();
    const upgraded = admitRound(upgradeRiskySurface(plain, true), pass(B, { family: 'codex' }));
    expect(finishRepairPhase(upgraded)).toMatchObject({
      stopReason: 'diversity_unsatisfied',
      status: 'NOT_PROVEN',
    });
    const fromStart = admitRound(
      startRepairPhase(fail(A, ['f1']), { repairRounds: 2, riskySurface: true }),
      pass(B, { family: 'codex' }),
    );
    expect(finishRepairPhase(fromStart)).toEqual(finishRepairPhase(upgraded));
  });
});
