/**
 * The smallest scope a cybernetic run needs, derived from what its failing checks say: the
 * repository files their output names (a path, alone or followed by `:line`). A declared scope
 * that covers files the derived one does not is wider than needed; the run refuses it unless the
 * person gives a reason (docs/decisions/loop-command.md, LC11). Pure: the host lists the files and
 * runs the checks.
 */

/** What a failing check printed. */
export interface FailingCheckOutput {
  readonly name: string;
  readonly output: string;
}

/** The derived scope and how it relates to the declared one; recorded in the run contract. */
export interface ScopeDerivation {
  /** The scope as declared (`--scope`). */
  readonly declared: readonly string[];
  /** The files the failing checks name, sorted; empty when their output names none. */
  readonly derived: readonly string[];
  /** For each derived file, the checks whose output named it. */
  readonly sources: Readonly<Record<string, readonly string[]>>;
  /** Files the declared scope covers and the derived one does not (empty when not wider). */
  readonly wider: readonly string[];
  /** The person's reason for a declared scope wider than needed, or null. */
  readonly reason: string | null;
}

/** A path-like token: what a check prints for a file, without line and column suffixes. */
const TOKEN = /[A-Za-z0-9_@+~.\-/]+/g;

/**
 * A path as the recorded scope reads it (docs/cybernetic-loop.md step 2): `.` segments and empty
 * ones (repeated slashes) dropped, except the empty first segment of an absolute path; then a
 * trailing `/` or `.` (a sentence end) dropped.
 */
function normalize(path: string): string {
  let p = path
    .split('/')
    .filter((segment, i) => segment !== '.' && (segment !== '' || i === 0))
    .join('/');
  while (p.endsWith('/') || p.endsWith('.')) p = p.slice(0, -1);
  return p;
}

/**
 * Whether `scope` covers `file`: `.` covers everything, an entry covers itself and what is below it.
 *
 * @param scope repository-relative scope entries
 * @param file a repository-relative file
 */
export function scopeCovers(scope: readonly string[], file: string): boolean {
  return scope.some((raw) => {
    const entry = normalize(raw);
    return entry === '' || file === entry || file.startsWith(`${entry}/`);
  });
}

/**
 * Derives the smallest scope from the failing checks' output and compares the declared scope.
 *
 * @param failing each failing check's name and output
 * @param files the repository's files (tracked and untracked, not ignored), repository-relative
 * @param declared the declared scope
 * @param reason the person's reason for a wider scope, if given
 * @returns the derivation; `wider` lists what the declared scope covers beyond the derived one
 *   (always empty when no file could be derived: nothing then says the scope is too wide)
 */
export function deriveScope(
  failing: readonly FailingCheckOutput[],
  files: readonly string[],
  declared: readonly string[],
  reason: string | null = null,
): ScopeDerivation {
  const known = new Set(files);
  const sources = new Map<string, Set<string>>();
  for (const check of failing)
    for (const match of check.output.matchAll(TOKEN)) {
      const path = normalize(match[0]);
      if (!known.has(path)) continue;
      const named = sources.get(path) ?? new Set<string>();
      named.add(check.name);
      sources.set(path, named);
    }
  const derived = [...sources.keys()].sort();
  const wider =
    derived.length === 0
      ? []
      : files.filter((file) => scopeCovers(declared, file) && !scopeCovers(derived, file)).sort();
  return {
    declared: [...declared],
    derived,
    sources: Object.fromEntries(derived.map((path) => [path, [...(sources.get(path) ?? [])].sort()])),
    wider,
    reason,
  };
}
