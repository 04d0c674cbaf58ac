import { describe, expect, it } from 'vitest';
import { isInScope, minimalScope, normalizeScopePath } from '../../src/cybernetic/index.js';

// docs/cybernetic-loop.md: the scope is the smallest set of repository paths that can restore the
// invariant; a path outside the repository, in its git directory, or the whole repository is
// refused. Bad input gets a named code and a reason that quotes what was given.
describe('scope path refusals', () => {
  const cases: [string, string, RegExp][] = [
    ['', 'cybernetic.scope.path-empty', /empty/],
    ['  ', 'cybernetic.scope.path-empty', /empty/],
    [' src', 'cybernetic.scope.path-whitespace', /" src".*whitespace/],
    ['src/a\0b', 'cybernetic.scope.path-invalid', /NUL/],
    ['src\\a', 'cybernetic.scope.path-backslash', /"src\\\\a".*backslash/],
    ['/etc', 'cybernetic.scope.path-absolute', /"\/etc".*absolute/],
    ['C:/work', 'cybernetic.scope.path-absolute', /"C:\/work".*absolute/],
    ['src/ a', 'cybernetic.scope.path-whitespace', /"src\/ a".*segment/],
    ['src/../..', 'cybernetic.scope.path-parent', /"src\/\.\.\/\.\.".*\.\./],
    ['a/.git/hooks', 'cybernetic.scope.path-git-dir', /"a\/\.git\/hooks".*git/],
    ['src/.GIT', 'cybernetic.scope.path-git-dir', /git/],
    ['./.', 'cybernetic.scope.path-whole-repository', /"\.\/\.".*whole repository/],
  ];

  for (const [raw, code, reason] of cases) {
    it(`${JSON.stringify(raw)}: ${code}`, () => {
      const result = normalizeScopePath(raw);
      expect(result).toMatchObject({ ok: false, code });
      if (!result.ok) expect(result.reason).toMatch(reason);
    });
  }

  it('whitespace at the edges of the whole path is reported as such, not as a segment', () => {
    const result = normalizeScopePath('src/a ');
    expect(result).toMatchObject({ ok: false, code: 'cybernetic.scope.path-whitespace' });
    if (!result.ok) expect(result.reason).not.toMatch(/segment/);
  });

  it('a drive letter counts only at the start; a .git-like name is not the git directory', () => {
    expect(normalizeScopePath('notes/c:/a')).toEqual({ ok: true, path: 'notes/c:/a' });
    expect(normalizeScopePath('src/.github/workflows')).toEqual({ ok: true, path: 'src/.github/workflows' });
    expect(normalizeScopePath('a/..b')).toEqual({ ok: true, path: 'a/..b' });
  });
});

describe('minimal scope', () => {
  it('keeps each path once, sorted, and drops what an entry already covers', () => {
    expect(minimalScope(['src/b.ts', 'src', 'lib/x', 'src/b.ts', 'lib/xy'])).toEqual([
      'lib/x',
      'lib/xy',
      'src',
    ]);
  });

  it('an entry covers itself and what lies below it, not a longer name', () => {
    const scope = minimalScope(['src/index']);
    expect(isInScope(scope, 'src/index')).toBe(true);
    expect(isInScope(scope, 'src/index/a.ts')).toBe(true);
    expect(isInScope(scope, 'src/indexes/a.ts')).toBe(false);
    expect(isInScope(scope, 'src')).toBe(false);
  });
});
