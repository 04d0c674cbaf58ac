/**
 * Did-you-mean for the CLI: the known name closest to what the user typed, by edit distance
 * (insertions, deletions, substitutions and swaps of two adjacent characters each cost 1).
 */

/** Optimal string alignment distance between `a` and `b`. */
export function editDistance(a: string, b: string): number {
  const rows = a.length + 1;
  const cols = b.length + 1;
  const d: number[][] = Array.from({ length: rows }, (_, i) =>
    Array.from({ length: cols }, (_, j) => (i === 0 ? j : j === 0 ? i : 0)),
  );
  for (let i = 1; i < rows; i++)
    for (let j = 1; j < cols; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      const row = d[i] as number[];
      const above = d[i - 1] as number[];
      let best = Math.min(
        (above[j] as number) + 1,
        (row[j - 1] as number) + 1,
        (above[j - 1] as number) + cost,
      );
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1])
        best = Math.min(best, ((d[i - 2] as number[])[j - 2] as number) + 1);
      row[j] = best;
    }
  return (d[rows - 1] as number[])[cols - 1] as number;
}

/**
 * The candidate closest to `typed`, or null when none is close enough: at most a third of the
 * longer name may differ (at least 1, at most 3 edits), or `typed` is a prefix of exactly one
 * candidate. Ties go to the earlier candidate.
 */
export function closest(typed: string, candidates: readonly string[]): string | null {
  const prefixed = candidates.filter((c) => typed.length >= 2 && c.startsWith(typed));
  if (prefixed.length === 1) return prefixed[0] as string;
  let best: string | null = null;
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const candidate of candidates) {
    const distance = editDistance(typed, candidate);
    const limit = Math.min(3, Math.max(1, Math.floor(Math.max(typed.length, candidate.length) / 3)));
    if (distance <= limit && distance < bestDistance) {
      best = candidate;
      bestDistance = distance;
    }
  }
  return best;
}
