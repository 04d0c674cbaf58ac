/**
 * The bounded working-tree scope of a cybernetic run: repository-relative paths recorded before
 * mutation. A path is inside the scope when it equals a scope entry or lies under one (entries
 * name files or directories alike). A change anywhere else is scope widening.
 *
 * Normalized form: POSIX separators, no `.` segments, no empty segments, no trailing slash; no
 * entry lies under another; sorted by code unit. Two scopes that cover the same paths are equal.
 */
export type Scope = readonly string[];

/** Why one scope path was refused; `code` is a finding code. */
export interface ScopePathProblem {
  readonly code: string;
  readonly reason: string;
}

/**
 * Normalizes one repository-relative path.
 *
 * @param raw the caller's path, e.g. `./src//index.ts`
 * @returns the normalized path (`src/index.ts`), or the problem: absolute paths, `..` segments,
 *   backslashes, whitespace at the edge of the path or of any segment, NUL, a `.git` segment in any letter case (the repository's
 *   git directory, or a nested repository's), and paths that name the whole repository are refused
 */
export function normalizeScopePath(
  raw: string,
): { ok: true; path: string } | ({ ok: false } & ScopePathProblem) {
  const quoted = JSON.stringify(raw);
  if (raw.trim() === '')
    return { ok: false, code: 'cybernetic.scope.path-empty', reason: 'a scope path is empty' };
  if (raw !== raw.trim())
    return {
      ok: false,
      code: 'cybernetic.scope.path-whitespace',
      reason: `scope path ${quoted} has leading or trailing whitespace`,
    };
  if (raw.includes('\0'))
    return { ok: false, code: 'cybernetic.scope.path-invalid', reason: `scope path ${quoted} contains NUL` };
  if (raw.includes('\\'))
    return {
      ok: false,
      code: 'cybernetic.scope.path-backslash',
      reason: `scope path ${quoted} uses a backslash; write repository paths with "/"`,
    };
  if (raw.startsWith('/') || /^[A-Za-z]:/.test(raw))
    return {
      ok: false,
      code: 'cybernetic.scope.path-absolute',
      reason: `scope path ${quoted} is absolute; scope paths are relative to the repository root`,
    };
  const segments = raw.split('/').filter((segment) => segment !== '' && segment !== '.');
  // Judge each segment's edges too: "a /" would otherwise normalize to "a ", which a second
  // normalization refuses, and a scope must survive its own round trip.
  if (segments.some((segment) => segment !== segment.trim()))
    return {
      ok: false,
      code: 'cybernetic.scope.path-whitespace',
      reason: `scope path ${quoted} has a segment with leading or trailing whitespace`,
    };
  if (segments.includes('..'))
    return {
      ok: false,
      code: 'cybernetic.scope.path-parent',
      reason: `scope path ${quoted} climbs out with ".."; scope paths stay inside the repository`,
    };
  if (segments.some((segment) => segment.toLowerCase() === '.git'))
    return {
      ok: false,
      code: 'cybernetic.scope.path-git-dir',
      reason: `scope path ${quoted} names a git directory; the repository's metadata is never part of a scope`,
    };
  if (segments.length === 0)
    return {
      ok: false,
      code: 'cybernetic.scope.path-whole-repository',
      reason: `scope path ${quoted} names the whole repository; record the smallest scope that can restore the invariant`,
    };
  return { ok: true, path: segments.join('/') };
}

/** True when `path` (already normalized) equals `entry` or lies under it. */
function covers(entry: string, path: string): boolean {
  return path === entry || path.startsWith(`${entry}/`);
}

/**
 * Normalizes a list of scope paths into a {@link Scope}: each path normalized, duplicates and
 * paths under another entry dropped, the rest sorted.
 *
 * @param paths normalized paths (see {@link normalizeScopePath})
 * @returns the minimal sorted scope
 */
export function minimalScope(paths: readonly string[]): Scope {
  const sorted = [...new Set(paths)].sort();
  const kept: string[] = [];
  for (const path of sorted) if (!kept.some((entry) => covers(entry, path))) kept.push(path);
  return kept;
}

/**
 * Whether a changed path lies inside the scope. Paths that do not normalize (absolute, `..`)
 * are never inside.
 *
 * @param scope the recorded scope
 * @param path a repository-relative path a candidate changed
 */
export function isInScope(scope: Scope, path: string): boolean {
  const normalized = normalizeScopePath(path);
  if (!normalized.ok) return false;
  return scope.some((entry) => covers(entry, normalized.path));
}

/**
 * The changed paths that lie outside the scope, in the order given, without duplicates.
 *
 * @param scope the recorded scope
 * @param paths repository-relative paths a candidate changed
 * @returns the paths whose change would be scope widening (empty when all are inside)
 */
export function pathsOutsideScope(scope: Scope, paths: readonly string[]): string[] {
  return [...new Set(paths)].filter((path) => !isInScope(scope, path));
}
