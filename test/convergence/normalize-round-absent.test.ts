import { describe, expect, it } from 'vitest';
import { inspectRound, normalizeRound } from '../../src/convergence/normalize-round.js';
import { A, B, pass } from './fixtures.js';

// docs/convergence.md: a leg carries `subject_digest` or, failing that, `subject_manifest_digest`;
// `round.digest-missing` is a leg whose digest is absent or null; `status` is read before
// `verdict`. A key whose value is null or undefined is absent.
describe('a null or undefined key is an absent key', () => {
  it('both digest keys null is a missing digest, reported on subject_digest (not an invalid one)', () => {
    const leg = { ...pass(A), subject_digest: null, subject_manifest_digest: null };
    expect(inspectRound(leg).problems).toEqual([
      {
        code: 'round.digest-missing',
        legIndex: 0,
        field: 'subject_digest',
        message: 'each validate leg must carry the subject digest it judged (subject_digest)',
      },
    ]);
  });

  it('an undefined subject_digest gives way to subject_manifest_digest', () => {
    expect(
      normalizeRound({ ...pass(A), subject_digest: undefined, subject_manifest_digest: B }).subjectDigest,
    ).toBe(B);
  });

  it('an undefined status gives way to verdict', () => {
    const { status: _, ...rest } = pass(A);
    expect(normalizeRound({ ...rest, status: undefined, verdict: 'NOT_PROVEN' }).status).toBe('NOT_PROVEN');
  });
});
