/**
 * Receipt freshness of the final CI run (seed 002: "the full literal CI command set runs once on
 * the final integrated subject"): a receipt stands for the converged subject only when the digest
 * measured before the run and the digest measured after it both equal the converged digest.
 * Expected values are written by hand from that sentence.
 */
import { describe, expect, it } from 'vitest';
import { receiptFreshness } from '../../src/convergence/receipt-freshness.js';

const A = 'a'.repeat(64);
const B = 'b'.repeat(64);
const C = 'c'.repeat(64);

describe('receiptFreshness', () => {
  it('is fresh when before == after == converged', () => {
    expect(receiptFreshness(A, A, A)).toEqual({ fresh: true });
  });

  it('is stale when a CI command changed the subject', () => {
    expect(receiptFreshness(A, A, B)).toEqual({ fresh: false, reason: 'subject_changed_during_ci' });
  });

  it('is stale when the subject had moved before the run, even if the run left it alone', () => {
    expect(receiptFreshness(A, B, B)).toEqual({ fresh: false, reason: 'subject_changed_before_ci' });
  });

  it('names the earlier change when the subject moved both before and during the run', () => {
    expect(receiptFreshness(A, B, C)).toEqual({ fresh: false, reason: 'subject_changed_before_ci' });
  });

  it('is stale when the run changed the subject back to the converged digest from elsewhere', () => {
    // before differs, after happens to equal converged: the receipt still judged another subject.
    expect(receiptFreshness(A, B, A)).toEqual({ fresh: false, reason: 'subject_changed_before_ci' });
  });
});
