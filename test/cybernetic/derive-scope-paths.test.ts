import { describe, expect, it } from 'vitest';
import { deriveScope, scopeCovers } from '../../src/cybernetic/derive-scope.js';

// docs/cybernetic-loop.md step 2 and decisions/cybernetic.md C21: a path a failing check prints
// names the file the recorded scope would name; `.` segments and repeated slashes anywhere are
// dropped, a leading `/` is kept (an absolute path names no repository file).
const FILES = ['src/index/btree.ts', 'src/store.ts', 'README.md'];
const derived = (output: string) => deriveScope([{ name: 'invariant', output }], FILES, ['src']).derived;

describe('the paths a failing check prints', () => {
  it('name the same file with "." segments or repeated slashes anywhere', () => {
    expect(derived('FAIL src/./index/btree.ts:3')).toEqual(['src/index/btree.ts']);
    expect(derived('FAIL src//index/btree.ts:3')).toEqual(['src/index/btree.ts']);
    expect(derived('FAIL ./src/./index//./btree.ts')).toEqual(['src/index/btree.ts']);
    expect(derived('see src/store.ts.')).toEqual(['src/store.ts']);
  });

  it('name no repository file when absolute', () => {
    expect(derived('FAIL /src/store.ts:1')).toEqual([]);
  });

  it('are read the same way in a declared scope', () => {
    expect(scopeCovers(['src/./index'], 'src/index/btree.ts')).toBe(true);
    expect(scopeCovers(['src//index/'], 'src/index/btree.ts')).toBe(true);
    expect(scopeCovers(['src/./index'], 'src/store.ts')).toBe(false);
  });
});
