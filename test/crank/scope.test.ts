import { describe, expect, it } from 'vitest';
import { firstOverlap, scopePrefix, scopesOverlap } from '../../src/crank/scope.js';

describe('scope prefix', () => {
  it('is the literal path up to the first glob component', () => {
    expect(scopePrefix('src/lib/**')).toBe('src/lib');
    expect(scopePrefix('src/lib/*.ts')).toBe('src/lib');
    expect(scopePrefix('src/l?b/x')).toBe('src');
    expect(scopePrefix('src/[ab]/x')).toBe('src');
    expect(scopePrefix('src/{a,b}/x')).toBe('src');
    expect(scopePrefix('docs/README.md')).toBe('docs/README.md');
  });

  it('drops ./ and empty components', () => {
    expect(scopePrefix('./src//lib/')).toBe('src/lib');
  });

  it('is the whole repository when nothing literal comes first', () => {
    expect(scopePrefix('**')).toBe('.');
    expect(scopePrefix('*.md')).toBe('.');
    expect(scopePrefix('.')).toBe('.');
    expect(scopePrefix('./')).toBe('.');
  });
});

describe('scope overlap', () => {
  it('src/** overlaps src/lib/**', () => {
    expect(scopesOverlap('src/**', 'src/lib/**')).toBe(true);
    expect(scopesOverlap('src/lib/**', 'src/**')).toBe(true);
  });

  it('. overlaps everything', () => {
    expect(scopesOverlap('.', 'docs/a.md')).toBe(true);
    expect(scopesOverlap('**/*.ts', 'docs/a.md')).toBe(true);
  });

  it('equal prefixes overlap ignoring case', () => {
    expect(scopesOverlap('Src/**', 'src/*.ts')).toBe(true);
    expect(scopesOverlap('SRC/Lib/**', 'src/lib/a.ts')).toBe(true);
  });

  it('globs in the same directory overlap: their reach is unknown', () => {
    expect(scopesOverlap('src/a*.ts', 'src/b*.ts')).toBe(true);
  });

  it('sibling directories and name prefixes that are not directory prefixes are disjoint', () => {
    expect(scopesOverlap('src/**', 'docs/**')).toBe(false);
    expect(scopesOverlap('src/**', 'srcx/**')).toBe(false);
    expect(scopesOverlap('src/lib/**', 'src/libx/**')).toBe(false);
  });

  it('firstOverlap finds the first overlapping pair across two lists', () => {
    expect(firstOverlap(['docs/**', 'src/a.ts'], ['test/**', 'src/**'])).toEqual(['src/a.ts', 'src/**']);
    expect(firstOverlap(['docs/**'], ['src/**'])).toBeNull();
    expect(firstOverlap([], ['src/**'])).toBeNull();
  });
});
