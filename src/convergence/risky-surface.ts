import { InputError } from '../common/errors.js';

/**
 * One risky surface: changes here need a cross-family validator before a PASS converges.
 * `glob` is how the protocol names the surface; `pattern` is the test applied to a
 * repository-relative path.
 */
export interface RiskySurface {
  readonly glob: string;
  readonly pattern: RegExp;
}

/**
 * The risky surfaces of the RPI protocol (reference §1.8): gate code, check scripts, tests, skill
 * scripts, hook policies, shared libraries, CI workflows and the security gate. An explicit list,
 * because "whatever the security gate scans" is the whole repository and so no predicate at all.
 */
export const RISKY_SURFACES: readonly RiskySurface[] = [
  { glob: 'cli/internal/gates/**', pattern: /^cli\/internal\/gates\// },
  // Top level of scripts/ only: scripts/sub/check-x.sh is not a check script.
  { glob: 'scripts/check-*.sh', pattern: /^scripts\/check-[^/]*\.sh$/ },
  { glob: 'tests/**', pattern: /^tests\// },
  { glob: 'skills/*/scripts/**', pattern: /^skills\/[^/]+\/scripts\// },
  { glob: 'skills/cc-hooks/policies/**', pattern: /^skills\/cc-hooks\/policies\// },
  { glob: 'lib/**', pattern: /^lib\// },
  { glob: '.github/workflows/**', pattern: /^\.github\/workflows\// },
  { glob: 'scripts/security-gate.sh', pattern: /^scripts\/security-gate\.sh$/ },
];

/** The patterns of {@link RISKY_SURFACES} alone. */
export const RISKY_SURFACE_PATTERNS: readonly RegExp[] = RISKY_SURFACES.map((s) => s.pattern);

/**
 * A changed path as the patterns read it: `/` separators, no `.` segment and no empty segment, so
 * that the same file reported as `./tests/a`, `tests\a`, `tests//a` or `.github/./workflows/ci.yml`
 * is still recognised.
 *
 * @param path a repository-relative path
 * @returns the path in canonical spelling
 */
export function canonicalChangedPath(path: string): string {
  return path
    .replaceAll('\\', '/')
    .split('/')
    .filter((segment) => segment !== '.' && segment !== '')
    .join('/');
}

function checkPaths(paths: unknown): readonly string[] {
  if (!Array.isArray(paths) || !paths.every((p) => typeof p === 'string')) {
    throw new InputError('risky-surface.paths-invalid', 'changed paths must be a list of strings');
  }
  return paths;
}

/**
 * The changed paths that touch a risky surface.
 *
 * @param paths repository-relative changed paths (author-reported and validator-derived, unioned)
 * @returns the risky ones, as given, in order
 * @throws InputError `risky-surface.paths-invalid` when `paths` is not a list of strings
 */
export function riskyPaths(paths: readonly string[]): string[] {
  return checkPaths(paths).filter((path) => {
    const canonical = canonicalChangedPath(path);
    return RISKY_SURFACE_PATTERNS.some((pattern) => pattern.test(canonical));
  });
}

/**
 * Whether a change touches a risky surface: any one risky path is enough.
 *
 * @param paths repository-relative changed paths
 * @returns true when at least one path matches {@link RISKY_SURFACES}
 * @throws InputError `risky-surface.paths-invalid` when `paths` is not a list of strings
 */
export function isRiskySurface(paths: readonly string[]): boolean {
  return riskyPaths(paths).length > 0;
}
