/**
 * Overlap of write scopes and regen surfaces, decided on literal path prefixes. A glob's reach is
 * approximated by the path up to its first glob component; any doubt counts as overlap, because
 * two lanes that might touch the same file must not run at once.
 */

/** The whole repository: a prefix that overlaps everything. */
export const WHOLE_REPOSITORY = '.';

// `*`, `?` and `[` start a glob component; `{` (brace sets) does too, so `src/{a,b}` cannot pass
// for a literal directory that overlaps neither `src/a` nor `src/b`.
const GLOB_COMPONENT = /[*?[{]/;

/**
 * The literal path prefix of a scope entry: its components up to (not including) the first one
 * that contains a glob character. `./` and empty components are dropped.
 *
 * @param entry a repository-relative path or glob, e.g. `src/lib/**`
 * @returns the prefix, e.g. `src/lib`; {@link WHOLE_REPOSITORY} when nothing literal precedes the
 *   first glob component (e.g. `**` or `*.md`) or the entry names the repository root
 */
export function scopePrefix(entry: string): string {
  const literal: string[] = [];
  for (const component of entry.split('/')) {
    if (component === '' || component === '.') continue;
    if (GLOB_COMPONENT.test(component)) break;
    literal.push(component);
  }
  return literal.length === 0 ? WHOLE_REPOSITORY : literal.join('/');
}

/**
 * Whether two scope entries may touch the same path: either prefix is the whole repository, the
 * prefixes are equal ignoring case, or one is a directory prefix of the other (ignoring case).
 * Case is ignored because a case-insensitive file system makes `Src/` and `src/` one directory.
 *
 * @param a a scope entry
 * @param b another scope entry
 * @returns true when they overlap or might
 */
export function scopesOverlap(a: string, b: string): boolean {
  const pa = scopePrefix(a).toLowerCase();
  const pb = scopePrefix(b).toLowerCase();
  if (pa === WHOLE_REPOSITORY || pb === WHOLE_REPOSITORY) return true;
  return pa === pb || pa.startsWith(`${pb}/`) || pb.startsWith(`${pa}/`);
}

/**
 * The first overlapping pair between two lists of scope entries.
 *
 * @param as entries of one lane
 * @param bs entries of another lane
 * @returns the first pair `[a, b]` that overlaps, or null when the lists are disjoint
 */
export function firstOverlap(as: readonly string[], bs: readonly string[]): readonly [string, string] | null {
  for (const a of as) for (const b of bs) if (scopesOverlap(a, b)) return [a, b];
  return null;
}
