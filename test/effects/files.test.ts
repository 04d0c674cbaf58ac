import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import {
  FileAccessError,
  isInsideDirectory,
  makeTempDir,
  makeTempFile,
  readFileIfExists,
  writeFileAtomic,
} from '../../src/effects/files.js';

let dir: string;
beforeEach(() => {
  dir = mkdtempSync(join(tmpdir(), 'loopchart-files-'));
});
afterEach(() => rmSync(dir, { recursive: true, force: true }));

describe('writeFileAtomic', () => {
  it('creates and replaces a file and leaves no temporary file behind', async () => {
    const path = join(dir, 'ledger.md');
    await writeFileAtomic(path, 'one\n');
    await writeFileAtomic(path, new TextEncoder().encode('two\n'));
    expect(readFileSync(path, 'utf8')).toBe('two\n');
    expect(readdirSync(dir)).toEqual(['ledger.md']);
  });

  it('keeps the mode of the file it replaces, or applies an explicit one', async () => {
    const path = join(dir, 'script.sh');
    writeFileSync(path, 'old', { mode: 0o755 });
    await writeFileAtomic(path, 'new');
    expect(statSync(path).mode & 0o777).toBe(0o755);
    await writeFileAtomic(path, 'newer', { mode: 0o600 });
    expect(statSync(path).mode & 0o777).toBe(0o600);
  });

  it('fails with a named error and creates nothing when the directory is missing', async () => {
    const path = join(dir, 'missing', 'x.txt');
    await expect(writeFileAtomic(path, 'x')).rejects.toBeInstanceOf(FileAccessError);
    expect(existsSync(join(dir, 'missing'))).toBe(false);
  });
});

describe('readFileIfExists', () => {
  it('returns the text, null when absent, and a named error otherwise', async () => {
    writeFileSync(join(dir, 'a.txt'), 'héllo');
    expect(await readFileIfExists(join(dir, 'a.txt'))).toBe('héllo');
    expect(await readFileIfExists(join(dir, 'nope.txt'))).toBeNull();
    await expect(readFileIfExists(dir)).rejects.toBeInstanceOf(FileAccessError);
  });
});

describe('temporary paths', () => {
  it('creates distinct empty directories and files, like mktemp', async () => {
    const a = await makeTempDir('verify-', { parent: dir });
    const b = await makeTempDir('verify-', { parent: dir });
    expect(a).not.toBe(b);
    expect(readdirSync(a)).toEqual([]);
    const file = await makeTempFile('return-', '.json', { parent: dir });
    expect(file.startsWith(join(dir, 'return-'))).toBe(true);
    expect(file.endsWith('.json')).toBe(true);
    expect(readFileSync(file, 'utf8')).toBe('');
    expect(statSync(file).mode & 0o777).toBe(0o600);
  });

  it('refuses a path inside the repository, removing what it created', async () => {
    const repo = join(dir, 'repo');
    mkdirSync(repo);
    await expect(makeTempDir('x-', { parent: repo, outside: repo })).rejects.toBeInstanceOf(InputError);
    await expect(makeTempFile('x-', '', { parent: repo, outside: repo })).rejects.toBeInstanceOf(InputError);
    expect(readdirSync(repo)).toEqual([]);
    // Through a symlink the same directory is still inside.
    symlinkSync(repo, join(dir, 'link'));
    await expect(makeTempDir('x-', { parent: join(dir, 'link'), outside: repo })).rejects.toBeInstanceOf(
      InputError,
    );
    expect(await makeTempDir('x-', { parent: dir, outside: repo })).toMatch(/x-/);
  });

  it('compares containment after resolving symlinks', async () => {
    mkdirSync(join(dir, 'repo', 'sub'), { recursive: true });
    symlinkSync(join(dir, 'repo'), join(dir, 'alias'));
    expect(await isInsideDirectory(join(dir, 'alias', 'sub'), join(dir, 'repo'))).toBe(true);
    expect(await isInsideDirectory(join(dir, 'repo'), join(dir, 'repo'))).toBe(true);
    expect(await isInsideDirectory(join(dir, 'repository-other'), join(dir, 'repo'))).toBe(false);
    expect(await isInsideDirectory(dir, join(dir, 'repo'))).toBe(false);
  });
});
