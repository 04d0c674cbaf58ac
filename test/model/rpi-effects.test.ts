/**
 * What the RPI statechart asks of its effects and what it makes of their answers: the input each
 * effect receives round by round, Plan identities it refuses (docs/decisions/rpi.md 7), a round
 * over another subject (decision 5), and effect errors turned into the run's JSON failure
 * (decision 6). Expected values are written by hand from docs/rpi.md (the run's steps, What the
 * commands see) and those decisions.
 */
import { describe, expect, it } from 'vitest';
import type { PlanOutcome, ValidateRequest } from '../../machines/rpi/index.js';
import { InputError } from '../../src/common/errors.js';
import { digest, leg, runRpi } from '../support/rpi-host.js';

const A = digest('a');
const B = digest('b');
const C = digest('c');

const CRLF = { id: 'parser:crlf', summary: 'CRLF input loses its last row' };
const BOM = { id: 'parser:bom', summary: 'a BOM is read as data' };

describe('rpi effects: what each effect is asked, round by round', () => {
  it('numbers every implement, measure and validate by its round and hands the repair the open findings', async () => {
    // Round 0 over A: two findings. Repair round 1 over B: one left. Repair round 2 over C: PASS.
    const verdicts: Record<string, { status: 'PASS' | 'FAIL'; findings: (typeof CRLF)[] }> = {
      [A]: { status: 'FAIL', findings: [CRLF, BOM] },
      [B]: { status: 'FAIL', findings: [CRLF] },
      [C]: { status: 'PASS', findings: [] },
    };
    const judge = (family: string) => (request: ValidateRequest) => {
      const verdict = verdicts[request.subjectDigest]!;
      return leg(request, verdict.status, verdict.findings, family);
    };
    const { outcome, calls } = await runRpi(
      { risky: 'yes', crossFamily: true },
      {
        measureSubject: ({ round }) => ({ digest: [A, B, C][round]!, changedPaths: ['src/parser.ts'] }),
        validateFresh: judge('alpha'),
        validateCrossFamily: judge('beta'),
      },
    );
    expect(outcome.terminal).toBe('converged');
    expect(outcome.roundsUsed).toBe(2);
    expect(calls).toEqual([
      { actor: 'plan', input: {} },
      { actor: 'implement', input: { round: 0, openFindings: [] } },
      { actor: 'measureSubject', input: { round: 0 } },
      { actor: 'validateFresh', input: { round: 0, leg: 'fresh', subjectDigest: A } },
      { actor: 'validateCrossFamily', input: { round: 0, leg: 'cross-family', subjectDigest: A } },
      { actor: 'implement', input: { round: 1, openFindings: [CRLF, BOM] } },
      { actor: 'measureSubject', input: { round: 1 } },
      { actor: 'validateFresh', input: { round: 1, leg: 'fresh', subjectDigest: B } },
      { actor: 'validateCrossFamily', input: { round: 1, leg: 'cross-family', subjectDigest: B } },
      { actor: 'implement', input: { round: 2, openFindings: [CRLF] } },
      { actor: 'measureSubject', input: { round: 2 } },
      { actor: 'validateFresh', input: { round: 2, leg: 'fresh', subjectDigest: C } },
      { actor: 'validateCrossFamily', input: { round: 2, leg: 'cross-family', subjectDigest: C } },
      { actor: 'finalCi', input: { subjectDigest: C } },
    ]);
  });

  it('asks no cross-family leg on a risky surface when none was offered: a PASS is diversity_unsatisfied', async () => {
    const { outcome, calls } = await runRpi({ risky: 'yes' });
    expect(outcome.terminal).toBe('diversity_unsatisfied');
    expect(calls.map((c) => c.actor)).toEqual(['plan', 'implement', 'measureSubject', 'validateFresh']);
  });

  it('refuses a round that judged another subject than the one measured (decision 5)', async () => {
    const { outcome, calls } = await runRpi(
      {},
      {
        validateFresh: (request) => ({ ...(leg(request, 'PASS', [], 'alpha') as object), subject_digest: B }),
      },
    );
    expect(outcome.terminal).toBe('round_rejected');
    expect(outcome.report).toBeNull();
    expect(outcome.rejection).toEqual([
      {
        code: 'rpi.round-subject-mismatch',
        line: 0,
        reason: `the round judged subject ${B}, but the subject measured is ${A}`,
      },
    ]);
    expect(calls.map((c) => c.actor)).not.toContain('finalCi');
  });
});

describe("rpi effects: Plan's identities (decision 7)", () => {
  const REFUSED = {
    stage: 'planning',
    code: 'rpi.plan-identity-invalid',
    message:
      'Plan returned an intent reference that is blank or an acceptance digest that is not 64 lowercase hex',
    input: true,
    findings: [],
  };

  const refusedCases: readonly [string, PlanOutcome][] = [
    ['an empty intent reference', { planned: true, intentRef: '', acceptanceDigest: null }],
    ['a blank intent reference', { planned: true, intentRef: '  \t', acceptanceDigest: null }],
    [
      'an upper-case acceptance digest',
      { planned: true, intentRef: 'issue-42', acceptanceDigest: 'E'.repeat(64) },
    ],
    [
      'a 63-character acceptance digest',
      { planned: true, intentRef: 'issue-42', acceptanceDigest: 'e'.repeat(63) },
    ],
    // Outside the typed contract, as an untyped host may answer: still refused, never implemented.
    [
      'an intent reference that is not text',
      { planned: true, intentRef: 42, acceptanceDigest: null } as never,
    ],
    ['an outcome that says neither planned nor not planned', { intentRef: 'issue-42' } as never],
  ];

  for (const [name, plan] of refusedCases) {
    it(`ends in failed on ${name}, before the implementer runs`, async () => {
      const { outcome, calls } = await runRpi({}, { plan: () => plan });
      expect(outcome.terminal).toBe('failed');
      expect(outcome.failure).toEqual(REFUSED);
      expect(outcome.report).toBeNull();
      expect(calls.map((c) => c.actor)).toEqual(['plan']);
    });
  }

  it('accepts unknown identities (both null) and reports them as null', async () => {
    const { outcome } = await runRpi(
      {},
      { plan: () => ({ planned: true, intentRef: null, acceptanceDigest: null }) },
    );
    expect(outcome.terminal).toBe('converged');
    expect(outcome.report).toMatchObject({ status: 'PASS', intent_ref: null, acceptance_digest: null });
  });
});

describe('rpi effects: an effect that fails becomes the run failure as JSON (decision 6)', () => {
  it('keeps a coded input error whole: its code, message, findings, and input: true', async () => {
    const { outcome } = await runRpi(
      {},
      {
        implement: (request) => {
          if (request.round === 0) return { built: true, detail: null };
          throw new InputError('rpi.findings-unwritable', 'cannot write the findings file', [
            { code: 'fs.eacces', line: 0, reason: 'permission denied' },
          ]);
        },
        validateFresh: (request) => leg(request, 'FAIL', [CRLF], 'alpha'),
      },
    );
    expect(outcome.terminal).toBe('failed');
    expect(outcome.failure).toEqual({
      stage: 'repairing',
      code: 'rpi.findings-unwritable',
      message: 'cannot write the findings file\npermission denied (fs.eacces)',
      input: true,
      findings: [{ code: 'fs.eacces', line: 0, reason: 'permission denied' }],
    });
  });

  const internal = (stage: string, message: string) => ({
    stage,
    code: 'internal',
    message,
    input: false,
    findings: [],
  });

  it('describes a rejected string as itself', async () => {
    const { outcome } = await runRpi(
      {},
      {
        plan: () => {
          throw 'plan command not found';
        },
      },
    );
    expect(outcome.failure).toEqual(internal('planning', 'plan command not found'));
  });

  it('describes a rejected null as null, without failing itself', async () => {
    const { outcome } = await runRpi(
      {},
      {
        measureSubject: () => {
          throw null;
        },
      },
    );
    expect(outcome.terminal).toBe('failed');
    expect(outcome.failure).toEqual(internal('measuring', 'null'));
  });

  it("takes a rejected object's own message when it is text", async () => {
    const { outcome } = await runRpi(
      {},
      {
        validateFresh: () => {
          throw { message: 'disk full' };
        },
      },
    );
    expect(outcome.failure).toEqual(internal('validateFresh', 'disk full'));
  });

  it('describes a rejected object whose message is not text by its data, not by its toString', async () => {
    const { outcome } = await runRpi(
      {},
      {
        finalCi: () => {
          throw { message: 42, toString: () => 'quota exceeded' };
        },
      },
    );
    expect(outcome.terminal).toBe('failed');
    expect(outcome.failure).toEqual(internal('finalCi', '{"message":42}'));
  });

  it('describes rejected plain data by its JSON, never as [object Object] (decision 6)', async () => {
    const { outcome } = await runRpi(
      {},
      {
        plan: () => {
          throw { reason: 'rate limited', retryAfter: 30 };
        },
      },
    );
    expect(outcome.terminal).toBe('failed');
    expect(outcome.failure).toEqual(internal('planning', '{"reason":"rate limited","retryAfter":30}'));
  });

  it('ends in failed, without a crash, on a rejected value String() cannot print', async () => {
    const { outcome } = await runRpi(
      {},
      {
        measureSubject: () => {
          throw { toString: false };
        },
      },
    );
    expect(outcome.terminal).toBe('failed');
    expect(outcome.failure).toEqual(internal('measuring', '{"toString":false}'));
  });
});
