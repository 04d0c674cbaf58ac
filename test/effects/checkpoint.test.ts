import { execFileSync } from 'node:child_process';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  symlinkSync,
  unlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import {
  CheckpointUnavailableError,
  compareScopeEntries,
  createCheckpoint,
  loadCheckpoint,
  observeScope,
} from '../../src/effects/checkpoint.js';
import { createTempRepo, type TempRepo } from './temp-repo.js';
import { pick, snapshotTree } from './tree-snapshot.js';

const stores: string[] = [];
let work: string;
beforeEach(() => {
  work = mkdtempSync(join(tmpdir(), 'loopchart-checkpoint-test-'));
});
afterEach(() => {
  for (const store of stores.splice(0)) rmSync(store, { recursive: true, force: true });
  rmSync(work, { recursive: true, force: true });
});

const write = (root: string, path: string, content: string | Uint8Array) => {
  mkdirSync(dirname(join(root, path)), { recursive: true });
  writeFileSync(join(root, path), content);
};

async function checkpoint(worktree: string, scope: string[]) {
  const created = await createCheckpoint({ worktree, scope });
  stores.push(created.storeDir);
  return created;
}

describe('checkpoint of a scope in a git worktree', () => {
  let repo: TempRepo;
  beforeEach(() => {
    repo = createTempRepo();
    repo.commit('files', {
      '.gitignore': '*.cache\n',
      'src/a.ts': 'a1\n',
      'src/b.ts': 'b1\n',
      'other/keep.ts': 'k1\n',
    });
  });
  afterEach(() => repo.remove());

  it('restores uncommitted edits, untracked and ignored files byte for byte without git', async () => {
    // Pre-existing work that is not committed: the checkpoint must keep it, not HEAD.
    write(repo.dir, 'src/a.ts', 'a1 edited but not committed\n');
    write(repo.dir, 'src/untracked.ts', 'new file\n');
    write(repo.dir, 'src/build.cache', 'ignored bytes');
    repo.git('add', 'src/b.ts');
    const statusBefore = repo.git('status', '--porcelain', '--ignored');
    const headBefore = repo.git('rev-parse', 'HEAD');
    const indexBefore = readFileSync(join(repo.dir, '.git', 'index'));
    const scopeBefore = pick(snapshotTree(repo.dir), (p) => p.startsWith('src'));

    const saved = await checkpoint(repo.dir, ['src']);
    write(repo.dir, 'src/a.ts', 'candidate patch\n');
    rmSync(join(repo.dir, 'src', 'untracked.ts'));
    write(repo.dir, 'src/created/by/candidate.ts', 'x');
    rmSync(join(repo.dir, 'src', 'build.cache'));
    write(repo.dir, 'other/keep.ts', 'edited outside the scope after the checkpoint\n');

    expect((await saved.diff()).map((d) => `${d.change} ${d.path}`)).toEqual([
      'content src/a.ts',
      'removed src/build.cache',
      'added src/created',
      'added src/created/by',
      'added src/created/by/candidate.ts',
      'removed src/untracked.ts',
    ]);
    const report = await saved.restore();

    expect(report.restored).toBe(true);
    expect(report.remaining).toEqual([]);
    expect(await saved.verify()).toBe(true);
    expect(pick(snapshotTree(repo.dir), (p) => p.startsWith('src'))).toEqual(scopeBefore);
    expect(readFileSync(join(repo.dir, 'other', 'keep.ts'), 'utf8')).toBe(
      'edited outside the scope after the checkpoint\n',
    );
    expect(repo.git('rev-parse', 'HEAD')).toBe(headBefore);
    expect(readFileSync(join(repo.dir, '.git', 'index'))).toEqual(indexBefore);
    write(repo.dir, 'other/keep.ts', 'k1\n');
    expect(repo.git('status', '--porcelain', '--ignored')).toBe(statusBefore);
  });

  it('refuses the repository metadata and paths outside the worktree', async () => {
    await expect(createCheckpoint({ worktree: repo.dir, scope: ['.git'] })).rejects.toBeInstanceOf(
      InputError,
    );
    await expect(createCheckpoint({ worktree: repo.dir, scope: ['.git/hooks'] })).rejects.toBeInstanceOf(
      InputError,
    );
    await expect(createCheckpoint({ worktree: repo.dir, scope: ['../x'] })).rejects.toBeInstanceOf(
      InputError,
    );
    await expect(createCheckpoint({ worktree: repo.dir, scope: ['/etc'] })).rejects.toBeInstanceOf(
      InputError,
    );
    await expect(createCheckpoint({ worktree: repo.dir, scope: [] })).rejects.toBeInstanceOf(InputError);
  });

  it('leaves .git alone when the scope is the whole worktree', async () => {
    const saved = await checkpoint(repo.dir, ['.']);
    expect(saved.entries.some((e) => e.path === '.git' || e.path.startsWith('.git/'))).toBe(false);
    repo.commit('later', { 'src/a.ts': 'a2\n' });
    const head = repo.git('rev-parse', 'HEAD');
    const report = await saved.restore();
    expect(report.restored).toBe(true);
    expect(report.changed).toEqual(['src/a.ts']);
    expect(repo.git('rev-parse', 'HEAD')).toBe(head);
  });
});

describe('checkpoint details', () => {
  it('deletes a scope path that did not exist at the checkpoint', async () => {
    const saved = await checkpoint(work, ['generated', 'single.txt']);
    expect(saved.entries).toEqual([]);
    write(work, 'generated/x/y.txt', 'y');
    write(work, 'single.txt', 's');
    const report = await saved.restore();
    expect(report.restored).toBe(true);
    expect(existsSync(join(work, 'generated'))).toBe(false);
    expect(existsSync(join(work, 'single.txt'))).toBe(false);
  });

  it('restores modes, symlink targets and kinds, and reports what it changed', async () => {
    write(work, 's/tool.sh', '#!/bin/sh\n');
    chmodSync(join(work, 's', 'tool.sh'), 0o755);
    symlinkSync('tool.sh', join(work, 's', 'link'));
    write(work, 's/dir/file', 'f');
    const before = snapshotTree(work);
    const saved = await checkpoint(work, ['s']);

    chmodSync(join(work, 's', 'tool.sh'), 0o644);
    unlinkSync(join(work, 's', 'link'));
    symlinkSync('/etc/passwd', join(work, 's', 'link'));
    rmSync(join(work, 's', 'dir'), { recursive: true });
    write(work, 's/dir', 'now a file');
    expect(await saved.diff()).toEqual([
      { path: 's/dir', change: 'kind' },
      { path: 's/dir/file', change: 'removed' },
      { path: 's/link', change: 'target' },
      { path: 's/tool.sh', change: 'mode' },
    ]);

    const report = await saved.restore();
    expect(report).toEqual({
      restored: true,
      changed: ['s/dir', 's/dir/file', 's/link', 's/tool.sh'],
      remaining: [],
    });
    expect(snapshotTree(work)).toEqual(before);
  });

  it('reopens from its store after the process that made it is gone', async () => {
    write(work, 'scope/a.txt', 'original');
    const saved = await checkpoint(work, ['scope']);
    write(work, 'scope/a.txt', 'changed');
    const reopened = await loadCheckpoint(saved.storeDir);
    expect(await reopened.verify()).toBe(false);
    expect((await reopened.restore()).restored).toBe(true);
    expect(readFileSync(join(work, 'scope', 'a.txt'), 'utf8')).toBe('original');
    await reopened.dispose();
    expect(existsSync(saved.storeDir)).toBe(false);
    await expect(loadCheckpoint(saved.storeDir)).rejects.toBeInstanceOf(CheckpointUnavailableError);
  });

  it('stops before mutation when a scope cannot be captured exactly, leaving no store behind', async () => {
    const storesBefore = readdirSync(tmpdir()).filter((name) => name.startsWith('loopchart-checkpoint-'));
    mkdirSync(join(work, 'pipes'));
    // A socket cannot be recreated by restoring (a FIFO can: see the next test).
    const socket = join(work, 'pipes', 'sock');
    execFileSync(process.execPath, [
      '-e',
      `require('node:net').createServer().listen(${JSON.stringify(socket)}, () => process.exit(0))`,
    ]);
    expect(lstatSync(socket).isSocket()).toBe(true);
    await expect(createCheckpoint({ worktree: work, scope: ['pipes'] })).rejects.toBeInstanceOf(
      CheckpointUnavailableError,
    );
    const outside = mkdtempSync(join(tmpdir(), 'loopchart-outside-'));
    try {
      symlinkSync(outside, join(work, 'escape'));
      await expect(createCheckpoint({ worktree: work, scope: ['escape/file.txt'] })).rejects.toBeInstanceOf(
        CheckpointUnavailableError,
      );
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
    const storesAfter = readdirSync(tmpdir()).filter((name) => name.startsWith('loopchart-checkpoint-'));
    expect(storesAfter.filter((name) => !storesBefore.includes(name))).toEqual([]);
  });

  it('checkpoints a FIFO by type and mode and recreates it when it was removed, replaced or re-moded', async () => {
    mkdirSync(join(work, 'pipes'));
    execFileSync('mkfifo', ['-m', '640', join(work, 'pipes', 'fifo')]);
    const saved = await checkpoint(work, ['pipes']);
    expect(await saved.verify()).toBe(true);
    const fifo = join(work, 'pipes', 'fifo');
    const state = () => {
      const stats = lstatSync(fifo);
      return { fifo: stats.isFIFO(), mode: stats.mode & 0o7777 };
    };
    rmSync(fifo);
    writeFileSync(fifo, 'now a file');
    expect(await saved.diff()).toEqual([{ path: 'pipes/fifo', change: 'kind' }]);
    expect((await saved.restore()).restored).toBe(true);
    expect(state()).toEqual({ fifo: true, mode: 0o640 });
    chmodSync(fifo, 0o600);
    expect(await saved.diff()).toEqual([{ path: 'pipes/fifo', change: 'mode' }]);
    expect((await saved.restore()).restored).toBe(true);
    expect(state()).toEqual({ fifo: true, mode: 0o640 });
    rmSync(fifo);
    expect((await saved.restore()).restored).toBe(true);
    expect(state()).toEqual({ fifo: true, mode: 0o640 });
  });

  it('refuses to restore through a scope parent that became a symlink', async () => {
    write(work, 'src/x.ts', 'x');
    const saved = await checkpoint(work, ['src/x.ts']);
    const outside = mkdtempSync(join(tmpdir(), 'loopchart-outside-'));
    try {
      rmSync(join(work, 'src'), { recursive: true });
      symlinkSync(outside, join(work, 'src'));
      const report = await saved.restore();
      expect(report.restored).toBe(false);
      expect(report.error).toMatch(/not a directory/);
      expect(existsSync(join(outside, 'x.ts'))).toBe(false);
    } finally {
      rmSync(outside, { recursive: true, force: true });
    }
  });
});

// Random edits, creations, deletions, mode and symlink changes inside the scope, and edits
// outside it, then restore: the scope equals the checkpoint and the outside keeps its edits.
const SCOPE_PATHS = ['scope/a', 'scope/b', 'scope/d', 'scope/d/c', 'scope/d/e', 'scope/d/e/f', 'solo.txt'];
const operation = fc.oneof(
  fc.record({
    op: fc.constant('write'),
    path: fc.constantFrom(...SCOPE_PATHS),
    bytes: fc.uint8Array({ maxLength: 64 }),
  }),
  fc.record({ op: fc.constant('remove'), path: fc.constantFrom(...SCOPE_PATHS) }),
  fc.record({ op: fc.constant('mkdir'), path: fc.constantFrom(...SCOPE_PATHS) }),
  fc.record({
    op: fc.constant('chmod'),
    path: fc.constantFrom(...SCOPE_PATHS),
    mode: fc.constantFrom(0o600, 0o644, 0o755, 0o700),
  }),
  fc.record({
    op: fc.constant('symlink'),
    path: fc.constantFrom(...SCOPE_PATHS),
    target: fc.constantFrom('a', '../outside.txt', '/nowhere'),
  }),
);
type Operation = { op: string; path: string; bytes?: Uint8Array; mode?: number; target?: string };

function apply(root: string, { op, path, bytes, mode, target }: Operation): void {
  const absolute = join(root, path);
  try {
    if (op === 'write') {
      mkdirSync(dirname(absolute), { recursive: true });
      writeFileSync(absolute, bytes as Uint8Array);
    } else if (op === 'remove') rmSync(absolute, { recursive: true, force: true });
    else if (op === 'mkdir') mkdirSync(absolute, { recursive: true });
    else if (op === 'chmod') chmodSync(absolute, mode as number);
    else if (op === 'symlink') {
      mkdirSync(dirname(absolute), { recursive: true });
      symlinkSync(target as string, absolute);
    }
  } catch {
    // Conflicting operations (a file where a directory is, an existing link) simply do nothing.
  }
}

describe('checkpoint property', () => {
  it('restore makes the scope equal to the checkpoint and leaves everything else as it is', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(operation, { maxLength: 12 }),
        fc.array(operation, { maxLength: 20 }),
        async (setup, edits) => {
          const root = mkdtempSync(join(work, 'run-'));
          write(root, 'outside.txt', 'outside');
          write(root, 'scope-sibling/x', 'sibling');
          for (const step of setup) apply(root, step);
          const inScope = (p: string) => p === 'solo.txt' || p === 'scope' || p.startsWith('scope/');
          const before = pick(snapshotTree(root), inScope);

          const saved = await createCheckpoint({ worktree: root, scope: ['scope', 'solo.txt'] });
          try {
            for (const step of edits) apply(root, step);
            write(root, 'outside.txt', `changed after ${edits.length} edits`);
            const outsideBefore = pick(snapshotTree(root), (p) => !inScope(p));

            const report = await saved.restore();

            expect(report.error).toBeUndefined();
            expect(report.restored).toBe(true);
            expect(pick(snapshotTree(root), inScope)).toEqual(before);
            expect(pick(snapshotTree(root), (p) => !inScope(p))).toEqual(outsideBefore);
            expect(await saved.diff()).toEqual([]);
          } finally {
            await saved.dispose();
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});

describe('observing a scope without copying it (what a resumable host records)', () => {
  it('observeScope records what a checkpoint records, and compareScopeEntries names each change', async () => {
    write(work, 'scope/a.txt', 'a\n');
    write(work, 'scope/sub/b.txt', 'b\n');
    const checkpoint = await createCheckpoint({
      worktree: work,
      scope: ['scope'],
      storeDir: join(work, '..', `${work.split('/').pop()}-store`),
    });
    stores.push(checkpoint.storeDir);
    const seen = await observeScope(work, ['scope/']);
    expect(seen).toEqual(checkpoint.entries);
    write(work, 'scope/a.txt', 'changed\n');
    write(work, 'scope/c.txt', 'new\n');
    rmSync(join(work, 'scope/sub/b.txt'));
    expect(compareScopeEntries(seen, await observeScope(work, ['scope']))).toEqual([
      { path: 'scope/a.txt', change: 'content' },
      { path: 'scope/c.txt', change: 'added' },
      { path: 'scope/sub/b.txt', change: 'removed' },
    ]);
  });

  it('restore tells onChanged each path it changed, as it changes it', async () => {
    write(work, 'scope/a.txt', 'a\n');
    write(work, 'scope/b.txt', 'b\n');
    const checkpoint = await createCheckpoint({
      worktree: work,
      scope: ['scope'],
      storeDir: join(work, '..', `${work.split('/').pop()}-store`),
    });
    stores.push(checkpoint.storeDir);
    write(work, 'scope/a.txt', 'changed\n');
    write(work, 'scope/new.txt', 'new\n');
    const heard: string[] = [];
    const report = await checkpoint.restore({ onChanged: (path) => heard.push(path) });
    expect(report.restored).toBe(true);
    expect([...heard].sort()).toEqual(['scope/a.txt', 'scope/new.txt']);
    expect([...heard].sort()).toEqual([...report.changed]);
  });
});
