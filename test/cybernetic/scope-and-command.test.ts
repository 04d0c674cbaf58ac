import { describe, expect, it } from 'vitest';
import {
  isInScope,
  minimalScope,
  normalizeScopePath,
  parseCheckCommand,
  pathsOutsideScope,
  renderCheckCommand,
} from '../../src/cybernetic/index.js';

describe('scope', () => {
  const scope = minimalScope(['src/index', 'src/store.ts']);

  it('treats an entry as a file or a directory prefix, never a name prefix', () => {
    expect(isInScope(scope, 'src/index')).toBe(true);
    expect(isInScope(scope, 'src/index/btree.ts')).toBe(true);
    expect(isInScope(scope, 'src/indexer.ts')).toBe(false);
    expect(isInScope(scope, 'src/store.ts')).toBe(true);
    expect(isInScope(scope, 'src/store.ts.bak')).toBe(false);
  });

  it('normalizes the changed path before comparing, and never admits escapes', () => {
    expect(isInScope(scope, './src//index/a.ts')).toBe(true);
    expect(isInScope(scope, 'src/index/../../etc/passwd')).toBe(false);
    expect(isInScope(scope, '/src/index/a.ts')).toBe(false);
  });

  it('lists the paths outside the scope once each, in the order given', () => {
    expect(pathsOutsideScope(scope, ['README.md', 'src/index/a.ts', 'package.json', 'README.md'])).toEqual([
      'README.md',
      'package.json',
    ]);
  });

  it('normalizes a single path', () => {
    expect(normalizeScopePath('./a/./b//c/')).toEqual({ ok: true, path: 'a/b/c' });
  });

  it('refuses a segment with whitespace at its edge, so a normalized path normalizes to itself', () => {
    // Found by the property suite: "\u000e /" passed the whole-string check and normalized to "\u000e ".
    for (const raw of ['\u000e /', 'src /a', 'src/ a', 'a/ /b'])
      expect(normalizeScopePath(raw)).toMatchObject({ ok: false, code: 'cybernetic.scope.path-whitespace' });
    expect(normalizeScopePath('my dir/a b.ts')).toEqual({ ok: true, path: 'my dir/a b.ts' });
  });
});

describe('check commands', () => {
  it('splits a plain command string on whitespace', () => {
    expect(parseCheckCommand('  npm   run test ')).toEqual({ ok: true, command: ['npm', 'run', 'test'] });
  });

  it('keeps an argument vector byte for byte, including spaces inside arguments', () => {
    expect(parseCheckCommand(['node', 'a b.js', ''])).toEqual({ ok: true, command: ['node', 'a b.js', ''] });
  });

  it('refuses shell syntax in strings and non-string vectors', () => {
    for (const text of ['a && b', 'a > out', 'echo $HOME', 'ls *.ts', 'cd ~', 'a;b', 'a`b`'])
      expect(parseCheckCommand(text)).toMatchObject({
        ok: false,
        code: 'cybernetic.check.command-needs-argv',
      });
    expect(parseCheckCommand(['a', 1])).toMatchObject({
      ok: false,
      code: 'cybernetic.check.command-invalid',
    });
    expect(parseCheckCommand(42)).toMatchObject({ ok: false, code: 'cybernetic.check.command-invalid' });
  });

  it('renders arguments so their boundaries are unambiguous', () => {
    expect(renderCheckCommand(['npm', 'test', '--', 'a b', "it's", ''])).toBe(
      `npm test -- 'a b' 'it'\\''s' ''`,
    );
  });
});
