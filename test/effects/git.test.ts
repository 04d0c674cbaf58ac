import { chmodSync, existsSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { CommandFailedError } from '../../src/effects/command-error.js';
import { blobObjectName, createGitPort, type GitPort } from '../../src/effects/git.js';
import { createTempRepo, ISOLATED_GIT_ENV, type TempRepo } from './temp-repo.js';

let repo: TempRepo;
let git: GitPort;

beforeEach(() => {
  repo = createTempRepo();
  git = createGitPort(repo.dir, { env: ISOLATED_GIT_ENV });
});
afterEach(() => repo.remove());

describe('GitPort reads', () => {
  it('resolves HEAD and counts the git processes it spawns', async () => {
    expect(git.processCount).toBe(0);
    const head = await git.revParseHead();
    expect(head).toBe(repo.git('rev-parse', 'HEAD').trim());
    expect(git.processCount).toBe(1);
    await git.revListCount(head, 'HEAD');
    expect(git.processCount).toBe(2);
  });

  it('lists untracked files one by one, unquoted, and leaves ignored files out', async () => {
    expect(await git.statusPorcelain()).toEqual([]);
    repo.write('.gitignore', 'build/\n');
    repo.write('build/out.js', 'x');
    repo.write('new dir/héllo wörld.txt', 'x');
    repo.write('README.md', 'changed\n');
    const status = await git.statusPorcelain();
    expect(status).toContainEqual({ xy: ' M', path: 'README.md' });
    expect(status).toContainEqual({ xy: '??', path: 'new dir/héllo wörld.txt' });
    expect(status).toContainEqual({ xy: '??', path: '.gitignore' });
    expect(status.map((e) => e.path)).not.toContain('build/out.js');
    expect(status).toHaveLength(3);
  });

  it('reads HEAD and the status in one process, entry for entry what statusPorcelain reads', async () => {
    repo.write('.gitignore', 'build/\n');
    repo.write('build/out.js', 'x');
    repo.write('new dir/héllo wörld.txt', 'x');
    repo.write('README.md', 'changed\n');
    repo.write('staged.txt', 'staged\n');
    repo.git('add', 'staged.txt');
    repo.write('staged.txt', 'staged, then changed\n');
    const before = git.processCount;
    const state = await git.worktreeState();
    expect(git.processCount).toBe(before + 1);
    expect(state.head).toBe(repo.git('rev-parse', 'HEAD').trim());
    // The reference: git's own v1 porcelain, read here by the test.
    const v1 = repo
      .git('status', '--porcelain=v1', '-z', '--untracked-files=all', '--ignored=no', '--no-renames')
      .split('\0')
      .filter((r) => r.length > 0)
      .map((r) => ({ xy: r.slice(0, 2), path: r.slice(3) }));
    expect([...state.entries].sort((a, b) => a.path.localeCompare(b.path))).toEqual(
      v1.sort((a, b) => a.path.localeCompare(b.path)),
    );
    expect(state.entries).toContainEqual({ xy: 'AM', path: 'staged.txt' });
    expect(state.entries).toContainEqual({ xy: ' M', path: 'README.md' });
  });

  it('reads no HEAD on a branch without commits', async () => {
    const empty = createTempRepo('loopchart-effects-empty-');
    try {
      empty.git('checkout', '-q', '--orphan', 'fresh');
      empty.git('rm', '-q', '-r', '--cached', '.');
      const state = await createGitPort(empty.dir, { env: ISOLATED_GIT_ENV }).worktreeState();
      expect(state.head).toBeNull();
      expect(state.entries).toEqual([{ xy: '??', path: 'README.md' }]);
    } finally {
      empty.remove();
    }
  });

  it('names the new blob of each changed path in the log, as git hash-object names the content', async () => {
    const base = repo.git('rev-parse', 'HEAD').trim();
    repo.commit('two files', { 'a.txt': 'alpha\n', 'dir/b.txt': 'beta\n' });
    repo.git('rm', '-q', 'a.txt');
    repo.git('commit', '-q', '-m', 'delete a');
    const commits = await git.logRange('HEAD', [base]);
    expect(commits.map((c) => c.paths)).toEqual([['a.txt', 'dir/b.txt'], ['a.txt']]);
    const hashed = (path: string) => repo.git('hash-object', path).trim();
    expect(commits[0]?.blobs).toEqual({ 'a.txt': expect.any(String), 'dir/b.txt': hashed('dir/b.txt') });
    expect(blobObjectName('alpha\n')).toBe(commits[0]?.blobs?.['a.txt']);
    expect(blobObjectName(Buffer.from('beta\n'))).toBe(hashed('dir/b.txt'));
    expect(commits[1]?.blobs).toEqual({ 'a.txt': '0'.repeat(40) });
  });

  it('counts commits between two revisions and answers ancestry', async () => {
    const base = await git.revParseHead();
    const first = repo.commit('one', { 'a.txt': 'a' });
    repo.commit('two', { 'b.txt': 'b' });
    expect(await git.revListCount(base)).toBe(2);
    expect(await git.revListCount(first, 'HEAD')).toBe(1);
    expect(await git.isAncestor(base, 'HEAD')).toBe(true);
    expect(await git.isAncestor('HEAD', base)).toBe(false);
  });

  it('reads every commit since base, oldest first, with subject, body and paths, in one process', async () => {
    const base = await git.revParseHead();
    repo.write('src/a b.ts', 'a');
    repo.write('docs/ünï.md', 'u');
    repo.git('add', '-A');
    repo.git('commit', '-q', '-m', 'loop: row 1 done', '-m', 'pending: 1 | home | abc\niteration: 1');
    repo.git('commit', '-q', '--allow-empty', '-m', 'loop: marker');
    repo.git('mv', 'src/a b.ts', 'src/renamed.ts');
    repo.git('rm', '-q', 'docs/ünï.md');
    repo.git('commit', '-q', '-m', 'move and delete');
    const shas = repo.git('rev-list', '--reverse', `${base}..HEAD`).trim().split('\n');

    const before = git.processCount;
    const log = await git.logSince(base);
    expect(git.processCount - before).toBe(1);

    expect(log.map((c) => c.sha)).toEqual(shas);
    expect(log[0]).toEqual({
      sha: shas[0],
      subject: 'loop: row 1 done',
      body: 'pending: 1 | home | abc\niteration: 1',
      paths: expect.arrayContaining(['src/a b.ts', 'docs/ünï.md']),
    });
    expect(log[0]?.paths).toHaveLength(2);
    expect(log[1]).toEqual({ sha: shas[1], subject: 'loop: marker', body: '', paths: [] });
    expect([...(log[2]?.paths ?? [])].sort()).toEqual(['docs/ünï.md', 'src/a b.ts', 'src/renamed.ts']);
    expect(await git.logSince('HEAD')).toEqual([]);
  });

  it('reads the body of one commit as committed', async () => {
    repo.git('commit', '-q', '--allow-empty', '-m', 'subject', '-m', 'line one\nline two');
    expect(await git.commitBody('HEAD')).toBe('line one\nline two');
    repo.git('commit', '-q', '--allow-empty', '-m', 'no body');
    expect(await git.commitBody('HEAD')).toBe('');
  });

  it('reads many blobs in one cat-file process, null for anything that is not a blob', async () => {
    const first = repo.commit('files', { 'a.txt': 'alpha\n', 'dir/b c.txt': 'beta\nsecond line' });
    repo.commit('change', { 'a.txt': 'alpha 2\n' });
    const before = git.processCount;
    const blobs = await git.readBlobs([
      { rev: first, path: 'a.txt' },
      { rev: 'HEAD', path: 'a.txt' },
      { rev: 'HEAD', path: 'dir/b c.txt' },
      { rev: 'HEAD', path: 'missing.txt' },
      { rev: 'HEAD', path: 'dir' },
      { rev: 'no-such-branch', path: 'a.txt' },
      { rev: 'HEAD', path: 'README.md' },
    ]);
    expect(git.processCount - before).toBe(1);
    expect(blobs).toEqual(['alpha\n', 'alpha 2\n', 'beta\nsecond line', null, null, null, 'hello\n']);
    expect(await git.readBlobs([])).toEqual([]);
  });

  it('lists worktree paths (tracked and untracked, not ignored) and tree paths', async () => {
    repo.commit('files', { 'src/a.ts': 'a', 'src/b.ts': 'b', '.gitignore': 'dist/\n' });
    repo.write('src/new.ts', 'n');
    repo.write('dist/out.js', 'o');
    expect((await git.listWorktreePaths(['src'])).sort()).toEqual(['src/a.ts', 'src/b.ts', 'src/new.ts']);
    expect((await git.listWorktreePaths(['.'])).sort()).toEqual([
      '.gitignore',
      'README.md',
      'src/a.ts',
      'src/b.ts',
      'src/new.ts',
    ]);
    expect((await git.listTreePaths('HEAD', ['src'])).sort()).toEqual(['src/a.ts', 'src/b.ts']);
  });
});

describe('GitPort writes', () => {
  it('commits exactly the given paths with the exact subject and body', async () => {
    repo.commit('files', { 'ledger.md': 'v1\n', 'other.txt': 'o1\n', 'gone.txt': 'g\n' });
    repo.write('ledger.md', 'v2\n');
    repo.write('other.txt', 'o2\n');
    repo.write('created.txt', 'c\n');
    rmSync(join(repo.dir, 'gone.txt'));
    const body = 'pending: seed | home | abc\niteration: 3\n# not a comment\n\n  indented';

    const sha = await git.commitFiles({
      paths: ['ledger.md', 'created.txt', 'gone.txt'],
      subject: 'loop: repair seed',
      body,
    });

    expect(sha).toBe(repo.git('rev-parse', 'HEAD').trim());
    expect(repo.git('log', '-1', '--format=%B')).toBe(`loop: repair seed\n\n${body}\n\n`);
    expect(await git.commitBody(sha)).toBe(body);
    const changed = repo.git('show', '--name-only', '--format=', sha).trim().split('\n').sort();
    expect(changed).toEqual(['created.txt', 'gone.txt', 'ledger.md']);
    // The unrelated edit is still only in the working tree.
    expect(await git.statusPorcelain()).toEqual([{ xy: ' M', path: 'other.txt' }]);
  });

  it('commits tracked edits and deletions in one process, and adds a path git does not know first', async () => {
    repo.commit('tracked', { 'keep.txt': 'one\n', 'gone.txt': 'bye\n' });
    repo.write('keep.txt', 'two\n');
    rmSync(join(repo.dir, 'gone.txt'));
    const before = git.processCount;
    const sha = await git.commitFiles({
      paths: ['keep.txt', 'gone.txt'],
      subject: 'edit and delete',
      body: '',
    });
    expect(git.processCount).toBe(before + 1);
    expect(sha).toBe(repo.git('rev-parse', 'HEAD').trim());
    expect(repo.git('show', '--name-status', '--format=', 'HEAD').trim().split('\n').sort()).toEqual([
      'D\tgone.txt',
      'M\tkeep.txt',
    ]);
    repo.write('fresh.txt', 'new\n');
    repo.write('keep.txt', 'three\n');
    const next = await git.commitFiles({
      paths: ['fresh.txt', 'keep.txt'],
      subject: 'add and edit',
      body: 'b',
    });
    expect(next).toBe(repo.git('rev-parse', 'HEAD').trim());
    expect(repo.git('show', '--name-status', '--format=', 'HEAD').trim().split('\n').sort()).toEqual([
      'A\tfresh.txt',
      'M\tkeep.txt',
    ]);
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('leaves changes staged for other paths staged and out of the commit', async () => {
    repo.write('staged.txt', 'mine\n');
    repo.git('add', 'staged.txt');
    repo.write('ledger.md', 'x\n');
    await git.commitFiles({ paths: ['ledger.md'], subject: 'loop: record', body: '' });
    expect(repo.git('show', '--name-only', '--format=', 'HEAD').trim()).toBe('ledger.md');
    expect(await git.statusPorcelain()).toEqual([{ xy: 'A ', path: 'staged.txt' }]);
  });

  it('makes an empty marker commit, and refuses one while something is staged', async () => {
    const before = await git.revParseHead();
    const marker = await git.commitFiles({
      paths: [],
      subject: 'loop: marker',
      body: 'why',
      allowEmpty: true,
    });
    expect(await git.revListCount(before, marker)).toBe(1);
    expect(repo.git('show', '--name-only', '--format=', marker).trim()).toBe('');

    repo.write('staged.txt', 'mine\n');
    repo.git('add', 'staged.txt');
    const refused = git.commitFiles({ paths: [], subject: 'loop: marker', body: '', allowEmpty: true });
    await expect(refused).rejects.toBeInstanceOf(InputError);
    await expect(refused).rejects.toMatchObject({ code: 'git.index-not-empty' });
    expect(await git.revParseHead()).toBe(marker);
    expect(await git.statusPorcelain()).toEqual([{ xy: 'A ', path: 'staged.txt' }]);
  });

  it('rejects an unusable subject, path or revision before running git', async () => {
    const count = git.processCount;
    await expect(git.commitFiles({ paths: ['a'], subject: 'two\nlines', body: '' })).rejects.toBeInstanceOf(
      InputError,
    );
    await expect(git.commitFiles({ paths: ['../x'], subject: 's', body: '' })).rejects.toBeInstanceOf(
      InputError,
    );
    await expect(git.commitFiles({ paths: [], subject: 's', body: '' })).rejects.toBeInstanceOf(InputError);
    await expect(git.resetHard('--hard')).rejects.toBeInstanceOf(InputError);
    await expect(git.readBlobs([{ rev: 'HEAD', path: 'a\nb' }])).rejects.toBeInstanceOf(InputError);
    expect(git.processCount).toBe(count);
  });

  it('reports a failing hook with the command, exit code and output tail', async () => {
    const hook = join(repo.dir, '.git', 'hooks', 'pre-commit');
    writeFileSync(hook, '#!/bin/sh\necho "hook says no" >&2\nexit 3\n');
    chmodSync(hook, 0o755);
    repo.write('ledger.md', 'x\n');
    const error = await git
      .commitFiles({ paths: ['ledger.md'], subject: 's', body: '' })
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CommandFailedError);
    const failed = error as CommandFailedError;
    expect(failed.code).toBe('git.failed');
    expect(failed.command).toMatch(/^git .*commit/);
    expect(failed.exitCode).toBe(1);
    expect(failed.outputTail).toContain('hook says no');
    expect(failed.message).toContain('hook says no');
  });

  it('reports an unknown revision as a failed git command', async () => {
    await expect(git.revParse('no-such-branch')).rejects.toMatchObject({
      name: 'CommandFailedError',
      code: 'git.failed',
      exitCode: 1,
    });
  });

  it('resets hard and cleans untracked files while leaving ignored files alone', async () => {
    const base = repo.commit('ignore', { '.gitignore': '*.log\n', 'tracked.txt': 'v1\n' });
    repo.commit('later', { 'tracked.txt': 'v2\n', 'later.txt': 'l\n' });
    repo.write('debug.log', 'keep me');
    repo.write('stray/new.txt', 'x');
    repo.write('tracked.txt', 'dirty\n');

    await git.resetHard(base);
    const removed = await git.cleanFd();

    expect(removed).toEqual(['stray/']);
    expect(await git.revParseHead()).toBe(base);
    expect(await git.statusPorcelain()).toEqual([]);
    expect(readFileSync(join(repo.dir, 'tracked.txt'), 'utf8')).toBe('v1\n');
    expect(existsSync(join(repo.dir, 'later.txt'))).toBe(false);
    expect(readFileSync(join(repo.dir, 'debug.log'), 'utf8')).toBe('keep me');
  });

  it('ignores an inherited GIT_DIR that points at another repository', async () => {
    const other = createTempRepo();
    other.commit('other only', { 'x.txt': 'x' });
    const expected = repo.git('rev-parse', 'HEAD').trim();
    expect(other.git('rev-parse', 'HEAD').trim()).not.toBe(expected);
    const saved = process.env.GIT_DIR;
    process.env.GIT_DIR = join(other.dir, '.git');
    try {
      const port = createGitPort(repo.dir, { env: ISOLATED_GIT_ENV });
      expect(await port.revParseHead()).toBe(expected);
    } finally {
      if (saved === undefined) delete process.env.GIT_DIR;
      else process.env.GIT_DIR = saved;
      other.remove();
    }
  });
});
