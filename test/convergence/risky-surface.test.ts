import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import {
  canonicalChangedPath,
  isRiskySurface,
  RISKY_SURFACE_PATTERNS,
  RISKY_SURFACES,
  riskyPaths,
} from '../../src/convergence/risky-surface.js';

describe('risky-surface classification', () => {
  // One path per surface the protocol lists, and one near miss for each.
  const risky = [
    'cli/internal/gates/scope.go',
    'scripts/check-cathedral-cut.sh',
    'tests/unit/a.bats',
    'skills/rpi/scripts/run_once.py',
    'skills/cc-hooks/policies/deny.yaml',
    'lib/hook-helpers.sh',
    '.github/workflows/ci.yml',
    'scripts/security-gate.sh',
  ];
  const safe = [
    'cli/internal/gatesx/a.go',
    'scripts/nested/check-x.sh',
    'scripts/check-x.py',
    'src/tests/a.ts',
    'skills/rpi/SKILL.md',
    'skills/cc-hooks/README.md',
    'library/x',
    '.github/CODEOWNERS',
    'scripts/security-gate.sh.bak',
    'docs/lib/x.md',
  ];

  it('every listed surface is recognised', () => {
    for (const path of risky) expect(isRiskySurface([path]), path).toBe(true);
  });

  it('near misses are not risky', () => {
    for (const path of safe) expect(isRiskySurface([path]), path).toBe(false);
    expect(isRiskySurface(safe)).toBe(false);
  });

  it('one risky path makes the whole change risky', () => {
    expect(isRiskySurface([...safe, 'tests/x'])).toBe(true);
    expect(riskyPaths([...safe, 'tests/x', 'lib/y'])).toEqual(['tests/x', 'lib/y']);
  });

  it('no changed path is not risky', () => {
    expect(isRiskySurface([])).toBe(false);
  });

  it('./ prefixes and backslash separators do not hide a risky path', () => {
    expect(canonicalChangedPath('./tests/a')).toBe('tests/a');
    expect(isRiskySurface(['./././lib/a'])).toBe(true);
    expect(isRiskySurface(['skills\\rpi\\scripts\\x.py'])).toBe(true);
  });

  it('is exported as data: eight surfaces, each glob with its pattern', () => {
    expect(RISKY_SURFACES.map((s) => s.glob)).toEqual([
      'cli/internal/gates/**',
      'scripts/check-*.sh',
      'tests/**',
      'skills/*/scripts/**',
      'skills/cc-hooks/policies/**',
      'lib/**',
      '.github/workflows/**',
      'scripts/security-gate.sh',
    ]);
    expect(RISKY_SURFACE_PATTERNS).toHaveLength(8);
    RISKY_SURFACES.forEach((surface, i) => {
      expect(surface.pattern.test(risky[i] as string)).toBe(true);
    });
  });

  it('risky-surface.paths-invalid: paths must be a list of strings', () => {
    expect(() => isRiskySurface('tests/a' as unknown as string[])).toThrow(InputError);
    expect(() => isRiskySurface([1] as unknown as string[])).toThrow(/list of strings/);
  });
});
