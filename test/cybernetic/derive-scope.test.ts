import { describe, expect, it } from 'vitest';
import { deriveScope, scopeCovers } from '../../src/cybernetic/derive-scope.js';

const FILES = ['src/a/x.ts', 'src/a/y.ts', 'src/b/z.ts', 'README.md', 'config/app.json'];

describe('deriveScope', () => {
  it('derives the files the failing checks name, with line suffixes, ./ and sentence ends', () => {
    const derivation = deriveScope(
      [
        { name: 'invariant', output: 'FAIL ./src/a/x.ts:12:3 expected 1\nsee config/app.json.' },
        { name: 'check-1', output: 'error in src/a/x.ts (line 4)' },
      ],
      FILES,
      ['src/a/x.ts', 'config'],
    );
    expect(derivation.derived).toEqual(['config/app.json', 'src/a/x.ts']);
    expect(derivation.sources).toEqual({
      'config/app.json': ['invariant'],
      'src/a/x.ts': ['check-1', 'invariant'],
    });
    // `config` covers only config/app.json, which is derived: not wider.
    expect(derivation.wider).toEqual([]);
  });

  it('names what a declared scope covers beyond the derived one', () => {
    const derivation = deriveScope([{ name: 'invariant', output: 'src/a/x.ts: bad' }], FILES, ['src'], null);
    expect(derivation.derived).toEqual(['src/a/x.ts']);
    expect(derivation.wider).toEqual(['src/a/y.ts', 'src/b/z.ts']);
    const whole = deriveScope([{ name: 'invariant', output: 'src/a/x.ts: bad' }], FILES, ['.'], 'why');
    expect(whole.wider).toEqual(['README.md', 'config/app.json', 'src/a/y.ts', 'src/b/z.ts']);
    expect(whole.reason).toBe('why');
  });

  it('judges nothing when the output names no repository file', () => {
    const derivation = deriveScope(
      [{ name: 'invariant', output: 'expected ok, got broken; src/zz.ts' }],
      FILES,
      ['.'],
    );
    expect(derivation.derived).toEqual([]);
    expect(derivation.wider).toEqual([]);
  });

  it('scopeCovers: an entry covers itself and what is below it, never a sibling with the same prefix', () => {
    expect(scopeCovers(['src/a'], 'src/a/x.ts')).toBe(true);
    expect(scopeCovers(['src/a'], 'src/ab/x.ts')).toBe(false);
    expect(scopeCovers(['.'], 'README.md')).toBe(true);
    expect(scopeCovers(['./src/a/'], 'src/a/x.ts')).toBe(true);
  });
});
