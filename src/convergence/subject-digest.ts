/**
 * A subject-manifest digest (and every other digest of the RPI contract): 64 lowercase hex
 * characters, sha256. Uppercase hex and trailing newlines are refused: the identity is the exact
 * string, so two spellings of one digest must not compare unequal later.
 */
export const SUBJECT_DIGEST_PATTERN = /^[0-9a-f]{64}$/;

/**
 * Whether a value is a valid digest under {@link SUBJECT_DIGEST_PATTERN}.
 *
 * @param value anything
 * @returns true only for a string of exactly 64 lowercase hex characters
 */
export function isSubjectDigest(value: unknown): value is string {
  return typeof value === 'string' && SUBJECT_DIGEST_PATTERN.test(value);
}
