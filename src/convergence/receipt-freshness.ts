/**
 * Receipt freshness of RPI's final CI run. The full CI command set runs once on the integrated
 * subject after convergence; its receipt stands for that subject only when the subject digest
 * measured just before the run and just after it both equal the digest the repair phase converged
 * on. Pure: no I/O.
 */

/** Why a final CI receipt does not stand for the converged subject. */
export type StaleReceiptReason =
  /** The subject changed between convergence and the start of the CI run. */
  | 'subject_changed_before_ci'
  /** The subject changed while the CI commands ran (a command wrote into the subject). */
  | 'subject_changed_during_ci';

/** The verdict on one receipt: fresh, or stale with the reason. */
export type ReceiptFreshness =
  | { readonly fresh: true }
  | { readonly fresh: false; readonly reason: StaleReceiptReason };

/**
 * Judges a final CI receipt against the converged subject.
 *
 * @param convergedDigest the subject digest the repair phase converged on
 * @param digestBefore the subject digest measured right before the CI commands ran
 * @param digestAfter the subject digest measured right after they finished
 * @returns fresh when before == after == converged; otherwise stale, naming the first change
 *   (before the run is checked first: a receipt over a subject that already moved says nothing)
 */
export function receiptFreshness(
  convergedDigest: string,
  digestBefore: string,
  digestAfter: string,
): ReceiptFreshness {
  if (digestBefore !== convergedDigest) return { fresh: false, reason: 'subject_changed_before_ci' };
  if (digestAfter !== digestBefore) return { fresh: false, reason: 'subject_changed_during_ci' };
  return { fresh: true };
}
