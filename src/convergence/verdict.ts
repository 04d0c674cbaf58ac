/**
 * The validation result a fresh validator returns: PASS, FAIL or NOT_PROVEN.
 *
 * A verdict is what a validator says about a subject. It is deliberately a different type from
 * the RPI report status (see report-status.ts): NOT_PLANNED and NOT_BUILT describe runs that never
 * reached a validator, so no validator can ever return them.
 */
export type Verdict = 'PASS' | 'FAIL' | 'NOT_PROVEN';

/** Every verdict, best first (the order of {@link verdictRank}). */
export const VERDICTS: readonly Verdict[] = ['PASS', 'NOT_PROVEN', 'FAIL'];

const RANK: Readonly<Record<Verdict, number>> = { PASS: 0, NOT_PROVEN: 1, FAIL: 2 };

/**
 * Rank used to merge the legs of one round worst-of: PASS (0) < NOT_PROVEN (1) < FAIL (2).
 *
 * @param verdict a verdict
 * @returns its rank; a higher rank is a worse result
 */
export function verdictRank(verdict: Verdict): number {
  return RANK[verdict];
}

/**
 * The worst of some verdicts: one FAIL leg makes the round FAIL, otherwise one NOT_PROVEN leg makes
 * it NOT_PROVEN.
 *
 * @param verdicts at least one verdict
 * @returns the verdict of highest {@link verdictRank}
 * @throws RangeError when `verdicts` is empty (a round always has at least one leg)
 */
export function worstVerdict(verdicts: readonly Verdict[]): Verdict {
  const [first, ...rest] = verdicts;
  if (first === undefined) throw new RangeError('worstVerdict needs at least one verdict');
  return rest.reduce<Verdict>((worst, v) => (RANK[v] > RANK[worst] ? v : worst), first);
}

/**
 * Whether a value is one of the three verdicts.
 *
 * @param value anything, typically a field read from a validator's JSON
 * @returns true for exactly `PASS`, `FAIL` and `NOT_PROVEN`
 */
export function isVerdict(value: unknown): value is Verdict {
  return value === 'PASS' || value === 'FAIL' || value === 'NOT_PROVEN';
}
