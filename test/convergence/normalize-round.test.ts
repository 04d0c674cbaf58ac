import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { checkRound, normalizeRound } from '../../src/convergence/normalize-round.js';
import { ROUND_SHAPE_CODES, RoundShapeError } from '../../src/convergence/round-shape-error.js';
import { A, B, binding, fail, type Leg, leg, notProven, pass } from './fixtures.js';

/** Asserts that a round is refused with `code`, at `legIndex`/`field`, both thrown and as a finding. */
function expectShapeError(round: unknown, code: string, legIndex: number | null, field: string | null) {
  expect(checkRound(round).map((f) => f.code)).toContain(code);
  let thrown: unknown;
  try {
    normalizeRound(round);
  } catch (error) {
    thrown = error;
  }
  expect(thrown).toBeInstanceOf(RoundShapeError);
  expect(thrown).toBeInstanceOf(InputError);
  const error = thrown as RoundShapeError;
  expect(error.code).toBe(code);
  expect(error.legIndex).toBe(legIndex);
  expect(error.field).toBe(field);
  expect(error.findings.length).toBeGreaterThan(0);
}

function without(leg: Leg, key: string): Leg {
  const copy = { ...leg };
  delete copy[key];
  return copy;
}

describe('round shape errors (one named code each)', () => {
  it('round.not-a-list: a string, a number or null is not a round', () => {
    for (const value of ['PASS', 42, null, undefined, true])
      expectShapeError(value, 'round.not-a-list', null, null);
  });

  it('round.not-a-list: byte arrays and maps are not legs', () => {
    expectShapeError(new Uint8Array([1, 2]), 'round.not-a-list', null, null);
    expectShapeError(new Map(), 'round.not-a-list', null, null);
  });

  it('round.empty: an empty list of legs', () => {
    expectShapeError([], 'round.empty', null, null);
  });

  it('round.leg-not-an-object: a list entry that is not an object', () => {
    expectShapeError([pass(A), 'PASS'], 'round.leg-not-an-object', 1, null);
  });

  it('round.status-invalid: a verdict outside PASS/FAIL/NOT_PROVEN, or none at all', () => {
    expectShapeError({ ...pass(A), status: 'OK' }, 'round.status-invalid', 0, 'status');
    expectShapeError({ ...pass(A), status: 'pass' }, 'round.status-invalid', 0, 'status');
    expectShapeError(without(pass(A), 'status'), 'round.status-invalid', 0, 'status');
  });

  it('round.status-invalid: status wins over verdict, so a bad status is not rescued by a good verdict', () => {
    expectShapeError({ ...pass(A), status: 'MAYBE', verdict: 'PASS' }, 'round.status-invalid', 0, 'status');
  });

  it('round.findings-missing: the findings key is required even on PASS', () => {
    expectShapeError(without(pass(A), 'findings'), 'round.findings-missing', 0, 'findings');
  });

  it('round.findings-not-a-list: findings given as an object or null', () => {
    expectShapeError({ ...pass(A), findings: { id: 'f1' } }, 'round.findings-not-a-list', 0, 'findings');
    expectShapeError({ ...pass(A), findings: null }, 'round.findings-not-a-list', 0, 'findings');
  });

  it('round.finding-not-an-object: a bare string finding', () => {
    expectShapeError(
      { ...fail(A, ['f1']), findings: ['f1'] },
      'round.finding-not-an-object',
      0,
      'findings[0]',
    );
  });

  it('round.finding-id-invalid: a blank, missing or numeric id', () => {
    for (const id of ['', '   ', undefined, 7]) {
      expectShapeError(
        { ...fail(A, ['f1']), findings: [{ id: 'f1' }, { id, summary: 'x' }] },
        'round.finding-id-invalid',
        0,
        'findings[1].id',
      );
    }
  });

  it('round.duplicate-finding-id: one leg names the same id twice', () => {
    const round = { ...fail(A, ['f1']), findings: [{ id: 'f1' }, { id: 'f2' }, { id: 'f1' }] };
    expectShapeError(round, 'round.duplicate-finding-id', 0, 'findings[2].id');
    expect(checkRound(round)[0]?.reason).toContain('"f1"');
  });

  it('round.duplicate-finding-id is per leg: the same id in two legs merges', () => {
    expect(checkRound([fail(A, ['f1']), fail(A, ['f1'])])).toEqual([]);
  });

  it('round.pass-with-findings: a PASS leg cannot carry open findings', () => {
    expectShapeError(leg('PASS', A, ['f1']), 'round.pass-with-findings', 0, 'findings');
  });

  it('round.fail-without-findings: a FAIL leg must name a finding', () => {
    expectShapeError(fail(A, []), 'round.fail-without-findings', 0, 'findings');
  });

  it('NOT_PROVEN without findings is a valid leg', () => {
    expect(checkRound(notProven(A, []))).toEqual([]);
  });

  it('round.evidence-refs-missing: the evidence_refs key is required', () => {
    expectShapeError(without(pass(A), 'evidence_refs'), 'round.evidence-refs-missing', 0, 'evidence_refs');
  });

  it('round.evidence-refs-not-a-list: a scalar label is not a list', () => {
    expectShapeError(
      { ...pass(A), evidence_refs: 'log.txt' },
      'round.evidence-refs-not-a-list',
      0,
      'evidence_refs',
    );
  });

  it('round.evidence-ref-missing: a binding without a ref, or a blank label', () => {
    expectShapeError(
      pass(A, { evidence: [{ subject_digest: A }] }),
      'round.evidence-ref-missing',
      0,
      'evidence_refs[0].ref',
    );
    expectShapeError(pass(A, { evidence: ['ok', ' '] }), 'round.evidence-ref-missing', 0, 'evidence_refs[1]');
  });

  it('round.evidence-resolves-invalid: resolves must list finding ids', () => {
    expectShapeError(
      pass(A, { evidence: [{ ref: 'r', resolves: 'f1' }] }),
      'round.evidence-resolves-invalid',
      0,
      'evidence_refs[0].resolves',
    );
    expectShapeError(
      pass(A, { evidence: [{ ref: 'r', resolves: ['f1', ''] }] }),
      'round.evidence-resolves-invalid',
      0,
      'evidence_refs[0].resolves',
    );
  });

  it('round.evidence-digest-invalid: a bound digest must be 64 lowercase hex', () => {
    expectShapeError(
      pass(A, { evidence: [{ ref: 'r', subject_digest: A.toUpperCase() }] }),
      'round.evidence-digest-invalid',
      0,
      'evidence_refs[0].subject_digest',
    );
  });

  it('round.evidence-entry-invalid: a number is neither a label nor a binding', () => {
    expectShapeError(pass(A, { evidence: [3] }), 'round.evidence-entry-invalid', 0, 'evidence_refs[0]');
  });

  it('round.digest-missing: no subject digest, or null', () => {
    expectShapeError(without(pass(A), 'subject_digest'), 'round.digest-missing', 0, 'subject_digest');
    expectShapeError({ ...pass(A), subject_digest: null }, 'round.digest-missing', 0, 'subject_digest');
  });

  it('round.digest-invalid: uppercase, short, or newline-terminated digests are refused', () => {
    for (const digest of ['C'.repeat(64), 'a'.repeat(63), `${A}\n`, `sha256:${A}`]) {
      expectShapeError({ ...pass(A), subject_digest: digest }, 'round.digest-invalid', 0, 'subject_digest');
    }
  });

  it('subject_manifest_digest is an accepted spelling of the digest', () => {
    const round = { ...without(pass(A), 'subject_digest'), subject_manifest_digest: B };
    expect(normalizeRound(round).subjectDigest).toBe(B);
  });

  it('round.validator-family-invalid: a family must be a non-blank string', () => {
    expectShapeError(
      { ...pass(A), validator_family: '' },
      'round.validator-family-invalid',
      0,
      'validator_family',
    );
    expectShapeError(
      { ...pass(A), validator_family: 1 },
      'round.validator-family-invalid',
      0,
      'validator_family',
    );
  });

  it('round.checked-invalid and round.not-checked-invalid: lists of non-blank strings', () => {
    expectShapeError({ ...pass(A), checked: 'tests' }, 'round.checked-invalid', 0, 'checked');
    expectShapeError({ ...pass(A), checked: null }, 'round.checked-invalid', 0, 'checked');
    expectShapeError({ ...pass(A), not_checked: [''] }, 'round.not-checked-invalid', 0, 'not_checked');
  });

  it('round.legs-disagree-digest: legs of one round judged different subjects', () => {
    expectShapeError([fail(A, ['f1']), pass(A), pass(B)], 'round.legs-disagree-digest', 2, 'subject_digest');
  });

  it('every documented code is produced by some test input above', () => {
    // Guards against a code that exists in the list but can never be raised.
    const inputs: unknown[] = [
      'x',
      [],
      [1],
      { ...pass(A), status: 'x' },
      without(pass(A), 'findings'),
      { ...pass(A), findings: 1 },
      { ...fail(A, ['f']), findings: [1] },
      { ...fail(A, ['f']), findings: [{ id: '' }] },
      { ...fail(A, ['f']), findings: [{ id: 'f' }, { id: 'f' }] },
      leg('PASS', A, ['f']),
      fail(A, []),
      without(pass(A), 'evidence_refs'),
      { ...pass(A), evidence_refs: 1 },
      pass(A, { evidence: [{}] }),
      pass(A, { evidence: [{ ref: 'r', resolves: 1 }] }),
      pass(A, { evidence: [{ ref: 'r', subject_digest: 'x' }] }),
      pass(A, { evidence: [1] }),
      without(pass(A), 'subject_digest'),
      { ...pass(A), subject_digest: 'x' },
      { ...pass(A), validator_family: 2 },
      { ...pass(A), checked: 1 },
      { ...pass(A), not_checked: 1 },
      [pass(A), pass(B)],
    ];
    const produced = new Set(inputs.flatMap((input) => checkRound(input).map((f) => f.code)));
    expect([...produced].sort()).toEqual([...ROUND_SHAPE_CODES].sort());
  });
});

describe('one pass names every problem', () => {
  it('reports problems of several legs and fields at once, the first one thrown', () => {
    const round = [
      without(fail(A, ['f1']), 'evidence_refs'),
      { ...pass(A), checked: 'x', subject_digest: 'nope' },
    ];
    const codes = checkRound(round).map((f) => f.code);
    expect(codes).toEqual(['round.evidence-refs-missing', 'round.digest-invalid', 'round.checked-invalid']);
    expect(() => normalizeRound(round)).toThrow(/leg 0, evidence_refs/);
  });

  it('a finding reason names the leg and the field', () => {
    const [f] = checkRound([pass(A), fail(B, [])]);
    expect(f?.reason).toMatch(/^leg 1, findings: /);
    expect(f?.line).toBe(0);
  });
});

describe('merging legs', () => {
  it('status is the worst leg: PASS < NOT_PROVEN < FAIL', () => {
    expect(normalizeRound([pass(A), pass(A)]).status).toBe('PASS');
    expect(normalizeRound([pass(A), notProven(A, [])]).status).toBe('NOT_PROVEN');
    expect(normalizeRound([notProven(A, ['f']), fail(A, ['g']), pass(A)]).status).toBe('FAIL');
  });

  it('open ids are the union in first-seen order; the last leg wording wins for a shared id', () => {
    const round = [
      { ...fail(A, []), findings: [{ id: 'f1', summary: 'old' }, { id: 'f2' }] },
      { ...notProven(A, []), findings: [{ id: 'f3' }, { id: 'f1', summary: 'new', file: 'x.ts' }] },
    ];
    const merged = normalizeRound(round);
    expect(merged.openIds).toEqual(['f1', 'f2', 'f3']);
    expect(merged.openFindings[0]).toEqual({ id: 'f1', summary: 'new', file: 'x.ts' });
  });

  it('evidence is deduped by ref, the first entry wins, and bare labels become { ref }', () => {
    const merged = normalizeRound([
      pass(A, { evidence: ['log', binding('r1', A, ['f1'])] }),
      pass(A, { evidence: [binding('log', A, ['f9']), binding('r1', B, []), 'r2'] }),
    ]);
    expect(merged.evidenceRefs).toEqual([{ ref: 'log' }, binding('r1', A, ['f1']), { ref: 'r2' }]);
  });

  it('null resolves and subject_digest on a binding read as absent', () => {
    const merged = normalizeRound(
      pass(A, { evidence: [{ ref: 'r', resolves: null, subject_digest: null }] }),
    );
    expect(merged.evidenceRefs).toEqual([{ ref: 'r' }]);
  });

  it('families are distinct, compared trimmed and case-folded, first spelling kept', () => {
    const merged = normalizeRound([
      pass(A, { family: 'claude' }),
      pass(A, { family: 'Claude ' }),
      pass(A, { family: 'codex' }),
      pass(A),
    ]);
    expect(merged.families).toEqual(['claude', 'codex']);
  });

  it('checked and not_checked are concatenated in leg order, without dedup', () => {
    const merged = normalizeRound([
      pass(A, { checked: ['unit tests'], not_checked: ['perf'] }),
      pass(A, { checked: ['unit tests', 'lint'] }),
    ]);
    expect(merged.checked).toEqual(['unit tests', 'unit tests', 'lint']);
    expect(merged.notChecked).toEqual(['perf']);
  });

  it('a single leg and a one-leg list normalize the same', () => {
    expect(normalizeRound(fail(A, ['f1']))).toEqual(normalizeRound([fail(A, ['f1'])]));
  });

  it('verdict is an accepted spelling of status', () => {
    expect(normalizeRound({ ...without(fail(A, ['f1']), 'status'), verdict: 'FAIL' }).status).toBe('FAIL');
  });

  it('does not alias the input: mutating the leg afterwards leaves the round unchanged', () => {
    const input = fail(A, ['f1']);
    const merged = normalizeRound(input);
    (input.findings as { id: string }[])[0]!.id = 'changed';
    expect(merged.openIds).toEqual(['f1']);
    expect(merged.openFindings[0]?.id).toBe('f1');
  });
});
