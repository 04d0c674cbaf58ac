import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { canonicalChangedPath, isRiskySurface, riskyPaths } from '../../src/convergence/risky-surface.js';

// Reference §1.8 names the risky surfaces as globs over repository-relative paths: each starts at
// the repository root, and the two file surfaces name one file each. A path that only contains a
// surface's name deeper down, or that extends a file's name, is not that surface.

describe('risky surfaces start at the repository root', () => {
  const deeper = [
    'vendor/cli/internal/gates/scope.go',
    'vendor/skills/rpi/scripts/run_once.py',
    'vendor/skills/cc-hooks/policies/deny.yaml',
    'docs/.github/workflows/ci.yml',
    'vendor/scripts/security-gate.sh',
    'vendor/tests/a.bats',
    'vendor/lib/x.sh',
    'vendor/scripts/check-x.sh',
  ];
  for (const path of deeper)
    it(`${path} is not risky`, () => {
      expect(isRiskySurface([path])).toBe(false);
    });

  it('a file surface is that file, not a longer name', () => {
    expect(isRiskySurface(['scripts/check-cut.sh'])).toBe(true);
    expect(isRiskySurface(['scripts/check-cut.sh.orig'])).toBe(false);
    expect(isRiskySurface(['scripts/check-cut.shx'])).toBe(false);
    expect(isRiskySurface(['scripts/security-gate.sh'])).toBe(true);
    expect(isRiskySurface(['old-scripts/security-gate.sh'])).toBe(false);
  });
});

describe('one file has one canonical spelling', () => {
  it('drops `.` and empty segments wherever they are, and turns backslashes into slashes', () => {
    expect(canonicalChangedPath('./tests/a')).toBe('tests/a');
    expect(canonicalChangedPath('.github/./workflows/ci.yml')).toBe('.github/workflows/ci.yml');
    expect(canonicalChangedPath('lib//x.sh')).toBe('lib/x.sh');
    expect(canonicalChangedPath('skills\\rpi\\.\\scripts\\x.py')).toBe('skills/rpi/scripts/x.py');
    // A dot that is part of a name is kept.
    expect(canonicalChangedPath('.github/workflows/.ci.yml')).toBe('.github/workflows/.ci.yml');
    expect(canonicalChangedPath('src/a./b')).toBe('src/a./b');
  });

  it('a risky path spelled with an inner ./ is still risky, and is reported as given', () => {
    expect(riskyPaths(['docs/a.md', '.github/./workflows/ci.yml'])).toEqual(['.github/./workflows/ci.yml']);
    expect(isRiskySurface(['tests//unit/a.bats'])).toBe(true);
  });

  it('a list that is not of strings is refused with its code', () => {
    for (const bad of ['tests/a', [1], null])
      try {
        isRiskySurface(bad as unknown as string[]);
        expect.unreachable();
      } catch (error) {
        expect(error).toBeInstanceOf(InputError);
        expect((error as InputError).code).toBe('risky-surface.paths-invalid');
      }
  });
});
