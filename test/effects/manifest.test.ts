import { createHash } from 'node:crypto';
import { chmodSync, mkdirSync, rmSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { canonicalJson, compareCodePoints } from '../../src/effects/canonical-json.js';
import { createGitPort, type GitPort } from '../../src/effects/git.js';
import { computeSubjectManifest, manifestDigest } from '../../src/effects/manifest.js';
import { createTempRepo, ISOLATED_GIT_ENV, type TempRepo } from './temp-repo.js';

const sha256 = (text: string) => createHash('sha256').update(text).digest('hex');

let repo: TempRepo;
let git: GitPort;
let base: string;

beforeEach(() => {
  repo = createTempRepo();
  base = repo.commit('subject', {
    '.gitignore': 'build/\n',
    'src/a.ts': 'export const a = 1;\n',
    'src/run.sh': '#!/bin/sh\n',
    'docs/readme.md': 'docs\n',
  });
  symlinkSync('a.ts', join(repo.dir, 'src', 'link.ts'));
  repo.git('add', 'src/link.ts');
  repo.git('commit', '-q', '-m', 'link');
  base = repo.git('rev-parse', 'HEAD').trim();
  git = createGitPort(repo.dir, { env: ISOLATED_GIT_ENV });
});
afterEach(() => repo.remove());

const digestNow = async (options: { roots?: string[]; exclusions?: string[] } = {}) =>
  (await computeSubjectManifest({ git, base, ...options })).canonical_manifest_digest;

describe('canonicalJson', () => {
  it('sorts keys at every depth and writes no whitespace', () => {
    expect(canonicalJson({ b: 1, a: [true, { d: null, c: 'é' }] })).toBe(
      '{"a":[true,{"c":"é","d":null}],"b":1}',
    );
    expect(() => canonicalJson(Number.NaN)).toThrow(TypeError);
  });

  it('orders by code point, not by UTF-16 unit', () => {
    // U+FF5E (one unit, 0xFF5E) sorts before U+1F600 (surrogates 0xD83D…) by code point only.
    expect(['\u{1F600}', '\uFF5E'].sort(compareCodePoints)).toEqual(['\uFF5E', '\u{1F600}']);
  });
});

describe('computeSubjectManifest', () => {
  it('lists files and symlinks with kinds, exec bits and content digests, sorted by path', async () => {
    chmodSync(join(repo.dir, 'src', 'run.sh'), 0o755);
    const manifest = await computeSubjectManifest({ git, base });
    expect(manifest.schema_version).toBe('subject-manifest.v1');
    expect(manifest.declared_roots).toEqual(['.']);
    expect(manifest.entries.map((e) => e.path)).toEqual([
      '.gitignore',
      'README.md',
      'docs/readme.md',
      'src/a.ts',
      'src/link.ts',
      'src/run.sh',
    ]);
    expect(manifest.entries).toContainEqual({
      path: 'src/a.ts',
      kind: 'file',
      executable: false,
      digest: sha256('export const a = 1;\n'),
    });
    expect(manifest.entries).toContainEqual({
      path: 'src/link.ts',
      kind: 'symlink',
      executable: false,
      digest: sha256('a.ts'),
    });
    expect(manifest.entries).toContainEqual({
      path: 'src/run.sh',
      kind: 'file',
      executable: true,
      digest: sha256('#!/bin/sh\n'),
    });
    expect(manifest.canonical_manifest_digest).toMatch(/^[0-9a-f]{64}$/);
    const { canonical_manifest_digest, ...rest } = manifest;
    expect(canonical_manifest_digest).toBe(sha256(canonicalJson(rest as never)));
    expect(manifestDigest({ ...manifest, git_metadata: { head: base } })).toBe(canonical_manifest_digest);
  });

  it('changes when one byte, an exec bit or a symlink target changes', async () => {
    const original = await digestNow();
    writeFileSync(join(repo.dir, 'src', 'a.ts'), 'export const a = 2;\n');
    const edited = await digestNow();
    expect(edited).not.toBe(original);
    writeFileSync(join(repo.dir, 'src', 'a.ts'), 'export const a = 1;\n');
    expect(await digestNow()).toBe(original);

    chmodSync(join(repo.dir, 'docs', 'readme.md'), 0o755);
    expect(await digestNow()).not.toBe(original);
    chmodSync(join(repo.dir, 'docs', 'readme.md'), 0o644);
    expect(await digestNow()).toBe(original);

    unlinkSync(join(repo.dir, 'src', 'link.ts'));
    symlinkSync('run.sh', join(repo.dir, 'src', 'link.ts'));
    expect(await digestNow()).not.toBe(original);
  });

  it('records deletions against the base and counts untracked files, but not ignored ones', async () => {
    const original = await digestNow();
    mkdirSync(join(repo.dir, 'build'));
    writeFileSync(join(repo.dir, 'build', 'out.js'), 'generated');
    expect(await digestNow()).toBe(original);

    writeFileSync(join(repo.dir, 'src', 'new.ts'), 'new');
    const withNew = await computeSubjectManifest({ git, base });
    expect(withNew.canonical_manifest_digest).not.toBe(original);
    expect(withNew.entries).toContainEqual({
      path: 'src/new.ts',
      kind: 'file',
      executable: false,
      digest: sha256('new'),
    });
    rmSync(join(repo.dir, 'src', 'new.ts'));

    rmSync(join(repo.dir, 'docs', 'readme.md'));
    const withDeletion = await computeSubjectManifest({ git, base });
    expect(withDeletion.entries).toContainEqual({
      path: 'docs/readme.md',
      kind: 'deletion',
      executable: false,
    });
    expect(withDeletion.canonical_manifest_digest).not.toBe(original);
  });

  it('never changes with git metadata: staging, committing, branches', async () => {
    writeFileSync(join(repo.dir, 'src', 'a.ts'), 'changed\n');
    writeFileSync(join(repo.dir, 'src', 'b.ts'), 'added\n');
    rmSync(join(repo.dir, 'docs', 'readme.md'));
    const dirty = await digestNow();
    repo.git('add', '-A');
    expect(await digestNow()).toBe(dirty);
    repo.git('commit', '-q', '-m', 'commit the subject');
    expect(await digestNow()).toBe(dirty);
    repo.git('checkout', '-q', '-b', 'another-branch');
    expect(await digestNow()).toBe(dirty);
  });

  it('limits entries to the declared roots and drops exclusions', async () => {
    const manifest = await computeSubjectManifest({ git, base, roots: ['src/'], exclusions: ['src/run.sh'] });
    expect(manifest.declared_roots).toEqual(['src']);
    expect(manifest.entries.map((e) => e.path)).toEqual(['src/a.ts', 'src/link.ts']);
    const before = manifest.canonical_manifest_digest;
    writeFileSync(join(repo.dir, 'docs', 'readme.md'), 'outside the roots');
    writeFileSync(join(repo.dir, 'src', 'run.sh'), 'excluded');
    expect(await digestNow({ roots: ['src'], exclusions: ['src/run.sh'] })).toBe(before);
  });

  it('rejects roots that leave the repository, are absolute or repeat', async () => {
    await expect(computeSubjectManifest({ git, base, roots: ['../x'] })).rejects.toBeInstanceOf(InputError);
    await expect(computeSubjectManifest({ git, base, roots: ['/etc'] })).rejects.toBeInstanceOf(InputError);
    await expect(computeSubjectManifest({ git, base, roots: ['src', 'src/'] })).rejects.toBeInstanceOf(
      InputError,
    );
    await expect(computeSubjectManifest({ git, base, roots: [] })).rejects.toBeInstanceOf(InputError);
  });
});
