import { describe, expect, it } from 'vitest';
import {
  checkRound,
  familyKey,
  inspectRound,
  normalizeRound,
} from '../../src/convergence/normalize-round.js';
import { locate, RoundShapeError } from '../../src/convergence/round-shape-error.js';
import { A, B, fail, type Leg, notProven, pass } from './fixtures.js';

// Reference §1.4 gives one sentence per round-shape error; a validator author acts on it, so each
// message must say what is wrong (the reference's key words) and where (leg and field). The
// patterns below are the reference's wording, reduced to the words that carry the meaning.

function without(leg: Leg, key: string): Leg {
  const copy = { ...leg };
  delete copy[key];
  return copy;
}

function thrown(round: unknown): RoundShapeError {
  try {
    normalizeRound(round);
  } catch (error) {
    if (error instanceof RoundShapeError) return error;
    throw error;
  }
  throw new Error('expected a RoundShapeError');
}

const cases: [string, unknown, string, RegExp][] = [
  [
    'not a round',
    'PASS',
    'round.not-a-list',
    /^a validation round must be one validate leg .*or a list of them, not a string$/,
  ],
  ['an empty list', [], 'round.empty', /^a validation round must contain at least one validate leg$/],
  [
    'a leg that is a number',
    [pass(A), 7],
    'round.leg-not-an-object',
    /^leg 1: each validate leg must be an object, not a number$/,
  ],
  [
    'a status outside the set',
    { ...pass(A), status: 'OK' },
    'round.status-invalid',
    /^leg 0, status: .*PASS, FAIL or NOT_PROVEN/,
  ],
  [
    'no findings key',
    without(pass(A), 'findings'),
    'round.findings-missing',
    /^leg 0, findings: .*findings list \(empty on PASS\)/,
  ],
  [
    'findings not a list',
    { ...pass(A), findings: 'none' },
    'round.findings-not-a-list',
    /^leg 0, findings: findings must be a list, not a string$/,
  ],
  [
    'a finding not an object',
    { ...fail(A, []), findings: [null] },
    'round.finding-not-an-object',
    /^leg 0, findings\[0\]: each finding must be an object, not null$/,
  ],
  [
    'a blank finding id',
    { ...fail(A, []), findings: [{ id: 'f1' }, { id: ' ' }] },
    'round.finding-id-invalid',
    /^leg 0, findings\[1\]\.id: .*stable non-blank string id/,
  ],
  [
    'a duplicate id',
    { ...fail(A, []), findings: [{ id: 'f1' }, { id: 'f1' }] },
    'round.duplicate-finding-id',
    /^leg 0, findings\[1\]\.id: finding id "f1" appears twice in one validate leg$/,
  ],
  [
    'a PASS with findings',
    { ...pass(A), findings: [{ id: 'f1' }] },
    'round.pass-with-findings',
    /^leg 0, findings: a PASS leg cannot carry open findings$/,
  ],
  [
    'a FAIL without findings',
    fail(A, []),
    'round.fail-without-findings',
    /^leg 0, findings: a FAIL leg must name at least one finding$/,
  ],
  [
    'no evidence_refs key',
    without(pass(A), 'evidence_refs'),
    'round.evidence-refs-missing',
    /^leg 0, evidence_refs: .*evidence_refs list \(empty if there is none\)/,
  ],
  [
    'evidence_refs a scalar',
    { ...pass(A), evidence_refs: 'log' },
    'round.evidence-refs-not-a-list',
    /^leg 0, evidence_refs: evidence_refs must be a list, not a string$/,
  ],
  [
    'a blank evidence label',
    { ...pass(A), evidence_refs: ['  '] },
    'round.evidence-ref-missing',
    /^leg 0, evidence_refs\[0\]: an evidence label must be a non-blank string$/,
  ],
  [
    'a binding without ref',
    { ...pass(A), evidence_refs: ['ok', { resolves: ['f1'] }] },
    'round.evidence-ref-missing',
    /^leg 0, evidence_refs\[1\]\.ref: .*binding must carry a non-blank ref/,
  ],
  [
    'resolves not a list of ids',
    { ...pass(A), evidence_refs: [{ ref: 'r', resolves: [''] }] },
    'round.evidence-resolves-invalid',
    /^leg 0, evidence_refs\[0\]\.resolves: .*resolves must be a list of finding ids/,
  ],
  [
    'an evidence digest in upper case',
    { ...pass(A), evidence_refs: [{ ref: 'r', subject_digest: 'A'.repeat(64) }] },
    'round.evidence-digest-invalid',
    /^leg 0, evidence_refs\[0\]\.subject_digest: .*64 lowercase hex/,
  ],
  [
    'an evidence entry of another type',
    { ...pass(A), evidence_refs: [3] },
    'round.evidence-entry-invalid',
    /^leg 0, evidence_refs\[0\]: .*string label or a binding object, not a number$/,
  ],
  [
    'no digest',
    without(pass(A), 'subject_digest'),
    'round.digest-missing',
    /^leg 0, subject_digest: .*subject digest/,
  ],
  [
    'a short digest',
    { ...pass(A), subject_digest: 'abc' },
    'round.digest-invalid',
    /^leg 0, subject_digest: .*64 lowercase hex/,
  ],
  [
    'a bad manifest digest',
    { ...without(pass(A), 'subject_digest'), subject_manifest_digest: 'x' },
    'round.digest-invalid',
    /^leg 0, subject_manifest_digest: /,
  ],
  [
    'a blank family',
    { ...pass(A), validator_family: ' ' },
    'round.validator-family-invalid',
    /^leg 0, validator_family: validator_family must be a non-blank string$/,
  ],
  [
    'checked not strings',
    { ...pass(A), checked: [1] },
    'round.checked-invalid',
    /^leg 0, checked: checked must be a list of non-blank strings$/,
  ],
  [
    'not_checked blank',
    { ...pass(A), not_checked: [''] },
    'round.not-checked-invalid',
    /^leg 0, not_checked: not_checked must be a list of non-blank strings$/,
  ],
  [
    'legs on two digests',
    [pass(A), pass(B)],
    'round.legs-disagree-digest',
    new RegExp(`^leg 1, subject_digest: .*disagree about the subject digest \\(${B} is not ${A}\\)$`),
  ],
];

describe('each round-shape error says what and where (reference §1.4)', () => {
  for (const [name, round, code, message] of cases)
    it(`${code}: ${name}`, () => {
      const findings = checkRound(round);
      expect(findings[0]).toMatchObject({ code, line: 0 });
      expect(findings[0]?.reason).toMatch(message);
      const error = thrown(round);
      expect(error.code).toBe(code);
      expect(error.message.split('\n')[0]).toBe(`invalid validation round: ${findings[0]?.reason}`);
      expect(error.findings).toEqual(findings);
    });

  it('describes the value that is not a round by its kind', () => {
    const reason = (value: unknown) => checkRound(value)[0]?.reason;
    expect(reason(null)).toMatch(/, not null$/);
    expect(reason(undefined)).toMatch(/, not undefined$/);
    expect(reason(true)).toMatch(/, not a boolean$/);
    expect(reason(new Map())).toMatch(/, not a Map$/);
    expect(reason(new Date(0))).toMatch(/, not a Date$/);
    expect(checkRound([[]])[0]?.reason).toMatch(/, not a Array$/);
  });

  it('names every problem of a round, in check order, and throws for the first', () => {
    const round = [{ ...fail(A, []), validator_family: '', checked: 'x' }, 'leg'];
    expect(checkRound(round).map((f) => f.code)).toEqual([
      'round.fail-without-findings',
      'round.validator-family-invalid',
      'round.checked-invalid',
      'round.leg-not-an-object',
    ]);
    const error = thrown(round);
    expect(error.code).toBe('round.fail-without-findings');
    expect(error.findings).toHaveLength(4);
    expect(inspectRound(round).round).toBeNull();
  });

  it('a well-formed round has no problem', () => {
    expect(checkRound([notProven(A, ['f1']), pass(A)])).toEqual([]);
    expect(inspectRound(pass(A)).problems).toEqual([]);
  });
});

describe('the location prefix', () => {
  it('is leg, then field, joined by a comma, or nothing', () => {
    const problem = { code: 'round.empty' as const, message: 'm' };
    expect(locate({ ...problem, legIndex: 2, field: 'findings[0].id' })).toBe('leg 2, findings[0].id: ');
    expect(locate({ ...problem, legIndex: 0, field: null })).toBe('leg 0: ');
    expect(locate({ ...problem, legIndex: null, field: 'x' })).toBe('x: ');
    expect(locate({ ...problem, legIndex: null, field: null })).toBe('');
  });
});

describe('optional keys that are null count as absent (reference §1.3)', () => {
  it('a null validator_family, resolves or evidence subject_digest is not an error and is dropped', () => {
    const round = normalizeRound({
      ...notProven(A, ['f1']),
      validator_family: null,
      evidence_refs: [{ ref: 'r1', resolves: null, subject_digest: null }],
    });
    expect(round.families).toEqual([]);
    expect(round.evidenceRefs).toEqual([{ ref: 'r1' }]);
  });

  it('a null status falls back to verdict; a null subject_digest to subject_manifest_digest', () => {
    const leg = { ...without(pass(A), 'status'), status: null, verdict: 'NOT_PROVEN' };
    expect(normalizeRound(leg).status).toBe('NOT_PROVEN');
    const manifest = { ...pass(A), subject_digest: null, subject_manifest_digest: B };
    expect(normalizeRound(manifest).subjectDigest).toBe(B);
  });

  it('checked and not_checked may be absent (empty) but not null', () => {
    expect(normalizeRound(pass(A))).toMatchObject({ checked: [], notChecked: [] });
    expect(checkRound({ ...pass(A), checked: null }).map((f) => f.code)).toEqual(['round.checked-invalid']);
  });
});

describe('families are compared trimmed and case-folded', () => {
  it('Codex and " codex " are one family; the first spelling is kept', () => {
    expect(familyKey('  CoDex ')).toBe('codex');
    const round = normalizeRound([
      pass(A, { family: 'Codex' }),
      pass(A, { family: ' codex ' }),
      pass(A, { family: 'claude' }),
    ]);
    expect(round.families).toEqual(['Codex', 'claude']);
  });
});
