import { describe, expect, it } from 'vitest';
import { runRepairPhase } from '../../src/convergence/repair-phase.js';
import {
  isVerdictStatus,
  NON_VERDICT_STATUSES,
  REPORT_STATUSES,
} from '../../src/convergence/report-status.js';
import {
  antiCeremonyStopReport,
  notBuiltReport,
  notPlannedReport,
  RPI_REPORT_KEYS,
  RpiReportIdentityError,
  repairPhaseReport,
} from '../../src/convergence/rpi-report.js';
import { rpiReportSchema } from '../../src/convergence/schemas.js';
import { isVerdict, VERDICTS } from '../../src/convergence/verdict.js';
import { A, B, C, fail, pass } from './fixtures.js';

// The nine keys of rpi-report.v1 as the protocol lists them.
const NINE_KEYS = [
  'schema_version',
  'status',
  'intent_ref',
  'acceptance_digest',
  'subject_manifest_digest',
  'verdict_ref',
  'verdict_digest',
  'checked',
  'not_checked',
];

describe('rpi-report.v1', () => {
  it('a repair report has exactly the nine keys, no next action', () => {
    const report = repairPhaseReport(runRepairPhase([pass(A)]));
    expect(Object.keys(report).sort()).toEqual([...NINE_KEYS].sort());
    expect(RPI_REPORT_KEYS).toEqual(NINE_KEYS);
    expect(report).not.toHaveProperty('next_action');
    expect(rpiReportSchema.safeParse(report).success).toBe(true);
  });

  it('carries the phase status, the current digest, the round lines and the current not_checked', () => {
    const result = runRepairPhase([
      fail(A, ['f1'], { checked: ['first'] }),
      pass(B, { checked: ['lint'], not_checked: ['perf'] }),
    ]);
    const report = repairPhaseReport(result, {
      intentRef: 'issue-12',
      acceptanceDigest: C,
      verdictRef: 'verdicts/1.json',
      verdictDigest: A,
    });
    expect(report).toEqual({
      schema_version: 'rpi-report.v1',
      status: 'PASS',
      intent_ref: 'issue-12',
      acceptance_digest: C,
      subject_manifest_digest: B,
      verdict_ref: 'verdicts/1.json',
      verdict_digest: A,
      checked: ['repair round 0: 1 open findings', 'repair round 1: 0 open findings', 'lint'],
      not_checked: ['perf'],
    });
  });

  it('open findings never go into not_checked', () => {
    const report = repairPhaseReport(runRepairPhase([fail(A, ['f1', 'f2'])], { repairRounds: 0 }));
    expect(report.status).toBe('FAIL');
    expect(report.not_checked).toEqual([]);
  });

  it('a flip is reported NOT_PROVEN in the report too', () => {
    expect(repairPhaseReport(runRepairPhase([fail(A, ['f1']), pass(A)])).status).toBe('NOT_PROVEN');
  });

  it('identities default to null', () => {
    const report = repairPhaseReport(runRepairPhase([pass(A)]));
    expect([report.intent_ref, report.acceptance_digest, report.verdict_ref, report.verdict_digest]).toEqual([
      null,
      null,
      null,
      null,
    ]);
  });

  it('report.identity-invalid: a malformed digest, a blank ref, or a verdict ref without its digest', () => {
    const result = runRepairPhase([pass(A)]);
    const bad = [
      { acceptanceDigest: 'ABC' },
      { verdictRef: 'v.json' },
      { verdictDigest: A },
      { intentRef: '  ' },
      { verdictRef: 'v.json', verdictDigest: A.toUpperCase() },
    ];
    for (const identity of bad) {
      expect(() => repairPhaseReport(result, identity)).toThrow(RpiReportIdentityError);
      try {
        repairPhaseReport(result, identity);
      } catch (error) {
        expect((error as RpiReportIdentityError).code).toBe('report.identity-invalid');
      }
    }
  });

  it('anti-ceremony STOP: NOT_PLANNED, the guard line, nothing dispatched, identities null', () => {
    const report = antiCeremonyStopReport('The change is a typo fix.');
    expect(report.status).toBe('NOT_PLANNED');
    expect(report.checked).toEqual(['anti-ceremony guard: STOP — The change is a typo fix.']);
    expect(report.not_checked).toEqual(['plan', 'implement', 'validate']);
    expect(report.subject_manifest_digest).toBeNull();
    expect(rpiReportSchema.safeParse(report).success).toBe(true);
  });

  it('Plan returned nothing: NOT_PLANNED with implement and validate not checked', () => {
    const report = notPlannedReport();
    expect(report).toMatchObject({
      status: 'NOT_PLANNED',
      checked: [],
      not_checked: ['implement', 'validate'],
    });
    expect(rpiReportSchema.safeParse(report).success).toBe(true);
  });

  it('Implement returned nothing: NOT_BUILT keeping the intent and acceptance identities', () => {
    const report = notBuiltReport({ intentRef: 'caller', acceptanceDigest: A });
    expect(report).toMatchObject({
      status: 'NOT_BUILT',
      intent_ref: 'caller',
      acceptance_digest: A,
      subject_manifest_digest: null,
      checked: ['plan'],
      not_checked: ['validate'],
    });
    expect(() => notBuiltReport({ intentRef: 'caller', acceptanceDigest: 'x' })).toThrow(
      RpiReportIdentityError,
    );
  });

  it('the schema refuses a tenth key', () => {
    expect(rpiReportSchema.safeParse({ ...notPlannedReport(), next_action: 'go' }).success).toBe(false);
  });
});

describe('report statuses are not verdicts', () => {
  it('NOT_PLANNED and NOT_BUILT are report statuses and never verdicts', () => {
    expect(REPORT_STATUSES).toEqual(expect.arrayContaining([...VERDICTS, 'NOT_PLANNED', 'NOT_BUILT']));
    expect(REPORT_STATUSES).toHaveLength(5);
    for (const status of NON_VERDICT_STATUSES) {
      expect(isVerdict(status)).toBe(false);
      expect(isVerdictStatus(status)).toBe(false);
    }
    for (const verdict of VERDICTS) expect(isVerdictStatus(verdict)).toBe(true);
  });

  it('a validator reporting NOT_BUILT is a shape error, not a status', () => {
    expect(() => runRepairPhase([{ ...pass(A), status: 'NOT_BUILT' }])).toThrow(/PASS, FAIL or NOT_PROVEN/);
  });
});
