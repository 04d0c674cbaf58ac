import { describe, expect, it } from 'vitest';
import { runRepairPhase } from '../../src/convergence/repair-phase.js';
import {
  notBuiltReport,
  RpiReportIdentityError,
  repairPhaseReport,
} from '../../src/convergence/rpi-report.js';
import { A, pass } from './fixtures.js';

// Reference §1.9: a report's digests are 64 lowercase hex or null, references are non-blank or
// null, and a verdict reference comes with its digest. A refusal names the field at fault and
// the rule it breaks.

function refusal(run: () => unknown): RpiReportIdentityError {
  try {
    run();
  } catch (error) {
    if (error instanceof RpiReportIdentityError) return error;
    throw error;
  }
  throw new Error('expected an RpiReportIdentityError');
}

describe('a report identity that does not check names its field and the rule', () => {
  const cases: [object, string, RegExp][] = [
    [{ acceptanceDigest: 'ABC' }, 'acceptanceDigest', /64 lowercase hex characters or null/],
    [{ verdictRef: 'v.json', verdictDigest: A.toUpperCase() }, 'verdictDigest', /64 lowercase hex/],
    [{ intentRef: '  ' }, 'intentRef', /non-blank string or null/],
    [{ verdictRef: '', verdictDigest: A }, 'verdictRef', /non-blank string or null/],
    [{ intentRef: 7 }, 'intentRef', /non-blank string or null/],
    [{ verdictRef: 'v.json' }, 'verdictDigest', /given together or not at all/],
    [{ verdictDigest: A }, 'verdictRef', /given together or not at all/],
  ];
  for (const [identity, field, rule] of cases)
    it(`${JSON.stringify(identity)} → ${field}`, () => {
      const error = refusal(() => repairPhaseReport(runRepairPhase([pass(A)]), identity));
      expect(error.code).toBe('report.identity-invalid');
      expect(error.field).toBe(field);
      expect(error.message).toMatch(new RegExp(`^${field}: `));
      expect(error.message).toMatch(rule);
    });

  it('NOT_BUILT checks the identities Plan gave', () => {
    const error = refusal(() => notBuiltReport({ intentRef: 'caller', acceptanceDigest: 'x' }));
    expect(error.field).toBe('acceptanceDigest');
    expect(notBuiltReport({})).toMatchObject({ intent_ref: null, acceptance_digest: null });
  });

  it('a well-formed verdict reference and digest are carried as given', () => {
    const report = repairPhaseReport(runRepairPhase([pass(A)]), { verdictRef: 'v.json', verdictDigest: A });
    expect(report).toMatchObject({ verdict_ref: 'v.json', verdict_digest: A });
  });
});

describe('null is an absent identity', () => {
  it('explicit nulls are accepted and reported as null', () => {
    const report = repairPhaseReport(runRepairPhase([pass(A)]), {
      intentRef: null,
      acceptanceDigest: null,
      verdictRef: null,
      verdictDigest: null,
    });
    expect(report).toMatchObject({
      intent_ref: null,
      acceptance_digest: null,
      verdict_ref: null,
      verdict_digest: null,
    });
    expect(notBuiltReport({ intentRef: null, acceptanceDigest: null }).acceptance_digest).toBeNull();
  });
});
