/**
 * What a finished RPI run reports: Plan's identities carried into the rpi-report.v1, the final CI
 * line a reader sees in `checked` or `not_checked` for each kind of receipt, and the outcome of a
 * run that stopped before the repair phase could stop (a failed repair, a failed effect). The
 * expected reports are written by hand from docs/rpi.md (steps 5 and 6, Output),
 * docs/decisions/rpi.md 4 and 6, and convergence.md's report shape.
 */
import { describe, expect, it } from 'vitest';
import { type FinalCiCommandResult, type FinalCiOutcome, finalCiLine } from '../../machines/rpi/index.js';
import { digest, leg, runRpi } from '../support/rpi-host.js';

const A = digest('a');
const B = digest('b');
const INTENT = digest('e');

const PLANNED = () => ({ planned: true as const, intentRef: 'issue-42', acceptanceDigest: INTENT });

/** A first fresh validation that passes, with what the leg checked and could not check. */
const PASSING = {
  plan: PLANNED,
  validateFresh: (request: Parameters<typeof leg>[0]) =>
    leg(request, 'PASS', [], 'alpha', { checked: ['npx vitest run'], not_checked: ['browser check'] }),
};

const NPM_TEST_OK: FinalCiCommandResult = { command: 'npm test', exitCode: 0, detail: 'exit 0' };
const LINT_OK: FinalCiCommandResult = { command: 'npm run lint', exitCode: 0, detail: 'exit 0' };

function receipt(
  passed: boolean,
  digestBefore: string,
  digestAfter: string,
  commands: readonly FinalCiCommandResult[],
): () => FinalCiOutcome {
  return () => ({ configured: true, passed, digestBefore, digestAfter, commands });
}

/** The report of a run whose round 0 passed over A, before the final CI line is added. */
function passReport(status: string, checked: readonly string[], notChecked: readonly string[]) {
  return {
    schema_version: 'rpi-report.v1',
    status,
    intent_ref: 'issue-42',
    acceptance_digest: INTENT,
    subject_manifest_digest: A,
    verdict_ref: null,
    verdict_digest: null,
    checked,
    not_checked: notChecked,
  };
}

describe('rpi report: the final CI line (docs/rpi.md step 6)', () => {
  it('a fresh passing receipt keeps PASS and ends checked with every command run', async () => {
    const { outcome, calls } = await runRpi(
      {},
      { ...PASSING, finalCi: receipt(true, A, A, [NPM_TEST_OK, LINT_OK]) },
    );
    expect(outcome.terminal).toBe('converged');
    expect(calls.filter((c) => c.actor === 'finalCi').map((c) => c.input)).toEqual([{ subjectDigest: A }]);
    expect(outcome.report).toEqual(
      passReport(
        'PASS',
        [
          'repair round 0: 0 open findings',
          'npx vitest run',
          `final CI: passed on ${A}: npm test (exit 0); npm run lint (exit 0)`,
        ],
        ['browser check'],
      ),
    );
    expect(outcome.finalCi).toEqual({
      status: 'passed',
      convergedDigest: A,
      digestBefore: A,
      digestAfter: A,
      staleReason: null,
      commands: [NPM_TEST_OK, LINT_OK],
    });
  });

  it('without a CI command set, not_checked says final CI: not configured', async () => {
    const { outcome } = await runRpi({}, PASSING);
    expect(outcome.terminal).toBe('converged');
    expect(outcome.finalCi).toEqual({ status: 'not_configured' });
    expect(outcome.report).toEqual(
      passReport(
        'PASS',
        ['repair round 0: 0 open findings', 'npx vitest run'],
        ['browser check', 'final CI: not configured'],
      ),
    );
  });

  it('a failing command turns the report NOT_PROVEN and names the command in checked', async () => {
    const failing: FinalCiCommandResult = { command: 'npm test', exitCode: 1, detail: 'exit 1' };
    const { outcome } = await runRpi({}, { ...PASSING, finalCi: receipt(false, A, A, [failing]) });
    expect(outcome.terminal).toBe('final_ci_failed');
    expect(outcome.converged).toBe(false);
    expect(outcome.report).toEqual(
      passReport(
        'NOT_PROVEN',
        ['repair round 0: 0 open findings', 'npx vitest run', `final CI: failed on ${A}: npm test (exit 1)`],
        ['browser check'],
      ),
    );
  });

  it('a subject that changed during the run is a stale receipt naming all three digests', async () => {
    const { outcome } = await runRpi({}, { ...PASSING, finalCi: receipt(true, A, B, [NPM_TEST_OK]) });
    expect(outcome.terminal).toBe('final_ci_stale_receipt');
    expect(outcome.report).toEqual(
      passReport(
        'NOT_PROVEN',
        [
          'repair round 0: 0 open findings',
          'npx vitest run',
          `final CI: stale receipt (subject_changed_during_ci): converged ${A}, before ${A}, after ${B}; npm test (exit 0)`,
        ],
        ['browser check'],
      ),
    );
    expect(outcome.finalCi).toMatchObject({ status: 'stale', staleReason: 'subject_changed_during_ci' });
  });

  it('a subject that moved before the run started is a stale receipt too', async () => {
    const { outcome } = await runRpi({}, { ...PASSING, finalCi: receipt(true, B, B, [NPM_TEST_OK]) });
    expect(outcome.terminal).toBe('final_ci_stale_receipt');
    expect(outcome.report?.checked.at(-1)).toBe(
      `final CI: stale receipt (subject_changed_before_ci): converged ${A}, before ${B}, after ${B}; npm test (exit 0)`,
    );
  });

  it('a step that never ran reads final CI: not run', () => {
    expect(finalCiLine(null)).toBe('final CI: not run');
  });
});

describe('rpi report: Plan identities and runs the repair phase never stopped', () => {
  const FAIL_F1 = (request: Parameters<typeof leg>[0]) =>
    leg(request, 'FAIL', [{ id: 'parser:crlf', summary: 'CRLF input loses its last row' }], 'alpha');

  it("a failed repair reports NOT_PROVEN without a digest, keeping Plan's identities (decision 4)", async () => {
    const { outcome } = await runRpi(
      {},
      {
        plan: PLANNED,
        implement: (request) =>
          request.round === 0 ? { built: true, detail: null } : { built: false, detail: 'exit 1' },
        validateFresh: FAIL_F1,
      },
    );
    expect(outcome).toEqual({
      terminal: 'repair_failed',
      stopReason: null,
      converged: false,
      report: {
        schema_version: 'rpi-report.v1',
        status: 'NOT_PROVEN',
        intent_ref: 'issue-42',
        acceptance_digest: INTENT,
        subject_manifest_digest: null,
        verdict_ref: null,
        verdict_digest: null,
        checked: ['repair round 0: 1 open findings'],
        not_checked: ['validate'],
      },
      result: null,
      roundsUsed: 0,
      openFindings: [{ id: 'parser:crlf', summary: 'CRLF input loses its last row' }],
      rejection: [],
      stageNote: 'exit 1',
      failure: null,
      finalCi: null,
    });
  });

  it('an effect failing in a repair round leaves no report and no phase result', async () => {
    const { outcome } = await runRpi(
      {},
      {
        validateFresh: (request) => {
          if (request.round > 0) throw new Error('validator crashed');
          return FAIL_F1(request);
        },
      },
    );
    expect(outcome).toMatchObject({
      terminal: 'failed',
      stopReason: null,
      converged: false,
      report: null,
      result: null,
      roundsUsed: 0,
      failure: { stage: 'validateFresh', code: 'internal', message: 'validator crashed', input: false },
    });
  });

  it('a NOT_BUILT report carries the intent reference and acceptance digest Plan returned', async () => {
    const { outcome } = await runRpi(
      {},
      { plan: PLANNED, implement: () => ({ built: false, detail: 'exit 2' }) },
    );
    expect(outcome.terminal).toBe('not_built');
    expect(outcome.stageNote).toBe('exit 2');
    expect(outcome.report).toEqual({
      schema_version: 'rpi-report.v1',
      status: 'NOT_BUILT',
      intent_ref: 'issue-42',
      acceptance_digest: INTENT,
      subject_manifest_digest: null,
      verdict_ref: null,
      verdict_digest: null,
      checked: ['plan'],
      not_checked: ['validate'],
    });
  });
});
