/**
 * Issue 10 item 8: `loopchart cyber` never loses or leaks work. Each case runs the real command
 * on a real temporary repository with a real patcher child (a small sh script), and compares the
 * working tree with its pre-run state: every path with its kind (files, directories, symlinks,
 * FIFOs, sockets), permission bits and bytes.
 */
import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  lstatSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/commands.js';
import { isProcessAlive } from '../../src/effects/process-identity.js';
import { ISOLATED_GIT_ENV } from '../effects/temp-repo.js';
import { stringSinks } from '../support/string-sinks.js';

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'commit.gpgsign=false', ...args], {
    cwd,
    env: { ...process.env, ...ISOLATED_GIT_ENV },
    encoding: 'utf8',
  });
}

function write(root: string, path: string, text: string): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
}

/**
 * A repository whose scope `src/index` holds a committed store (broken), committed notes with an
 * uncommitted edit, an untracked file and a subdirectory; outside it a committed file and an
 * untracked draft.
 */
function makeRepo(): string {
  const root = mkdtempSync(join(tmpdir(), 'loopchart-reliability-cyber-'));
  git(root, 'init', '-q', '-b', 'main');
  write(root, 'src/index/store.txt', 'broken\n');
  write(root, 'src/index/notes.md', 'committed notes\n');
  write(root, 'src/index/sub/keep.txt', 'kept\n');
  write(root, 'src/other.txt', 'outside, committed\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'initial');
  write(root, 'src/index/notes.md', 'committed notes\nplus an uncommitted edit\n');
  write(root, 'src/index/scratch.tmp', 'untracked in scope\n');
  write(root, 'docs/draft.md', 'untracked outside the scope\n');
  return root;
}

/** Every path under `root` except `.git`: kind, permission bits and content hash or link target. */
function treeState(root: string): Record<string, string> {
  const state: Record<string, string> = {};
  const visit = (relative: string) => {
    const absolute = relative === '' ? root : join(root, relative);
    const stats = lstatSync(absolute);
    const mode = (stats.mode & 0o7777).toString(8);
    if (stats.isSymbolicLink()) state[relative] = `link ${readlinkSync(absolute)}`;
    else if (stats.isFile())
      state[relative] = `file ${mode} ${createHash('sha256').update(readFileSync(absolute)).digest('hex')}`;
    else if (stats.isDirectory()) {
      if (relative !== '') state[relative] = `dir ${mode}`;
      // A directory the patcher made unreadable still counts, by its mode.
      if ((stats.mode & 0o500) !== 0o500) return;
      for (const name of readdirSync(absolute).sort()) {
        if (relative === '' && name === '.git') continue;
        visit(relative === '' ? name : `${relative}/${name}`);
      }
    } else if (stats.isFIFO()) state[relative] = `fifo ${mode}`;
    else if (stats.isSocket()) state[relative] = `socket ${mode}`;
    else state[relative] = `special ${mode}`;
  };
  visit('');
  return state;
}

function only(state: Record<string, string>, keep: (path: string) => boolean): Record<string, string> {
  return Object.fromEntries(Object.entries(state).filter(([path]) => keep(path)));
}

const inScope = (path: string) => path === 'src/index' || path.startsWith('src/index/');

/** A patcher script running `body` in the worktree, then returning DONE; its directory is outside the repository. */
function patcher(body: string): { file: string; dir: string } {
  const dir = mkdtempSync(join(tmpdir(), 'loopchart-reliability-patcher-'));
  const file = join(dir, 'patch.sh');
  writeFileSync(
    file,
    [
      '#!/bin/sh',
      'set -e',
      `echo run >> "${join(dir, 'calls')}"`,
      body,
      'printf \'{"status":"DONE","summary":"tried"}\' > "$LOOPCHART_RETURN"',
      '',
    ].join('\n'),
  );
  chmodSync(file, 0o755);
  return { file, dir };
}

// Prints the store, so that different wrong contents are different failures.
const INVARIANT = 'cat src/index/store.txt; grep -qx fixed src/index/store.txt';

async function cyber(
  root: string,
  patcherFile: string,
  scope = 'src/index',
  budget = '1',
  extra: string[] = [],
) {
  const sinks = stringSinks();
  const code = await runCli(
    [
      'cyber',
      '--cwd',
      root,
      '--invariant',
      INVARIANT,
      '--off-happy-path',
      'the store after a crash mid-rebuild',
      '--scope',
      scope,
      '--budget',
      budget,
      '--patcher',
      patcherFile,
      '--json',
      '--patcher-timeout',
      '60',
      ...extra,
    ],
    sinks.io,
  );
  const stdout = sinks.out.stdout;
  return { code, stdout, json: JSON.parse(stdout) as { exitCode: number; record?: Record<string, unknown> } };
}

const started: number[] = [];
afterEach(() => {
  // A process a failing case left behind must not outlive the test.
  for (const pid of started.splice(0))
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // already gone
    }
});

describe('loopchart cyber rollback (issue 10, item 8)', () => {
  it('a FIFO the patcher creates inside the scope is removed and the scope restored byte for byte (exit 4)', async () => {
    const root = makeRepo();
    const { file } = patcher('mkfifo src/index/pipe; printf "wrong\\n" > src/index/store.txt');
    const before = treeState(root);
    const run = await cyber(root, file);
    expect(run.code).toBe(4);
    expect(run.json.record).toMatchObject({ status: 'non-converged', stopClass: 'budget-exhaustion' });
    expect(existsSync(join(root, 'src/index/pipe'))).toBe(false);
    expect(treeState(root)).toEqual(before);
  });

  it('a kept candidate holding a FIFO is checkpointed as the retained state; the FIFO is recreated on revert and removed at the rollback (exit 4)', async () => {
    const root = makeRepo();
    const { file, dir } = patcher(
      [
        `N=$(wc -l < "CALLS")`,
        // Candidate 1 makes check-1 pass and leaves a FIFO: kept. Candidate 2 removes the FIFO and
        // fixes nothing: reverted to the retained state, which must bring the FIFO back, as
        // candidate 3 records before it fails too. Then the budget is spent.
        '[ "$N" = 3 ] && [ -p src/index/pipe ] && echo fifo-back >> "REVERTS"',
        'if [ "$N" = 1 ]; then mkfifo -m 640 src/index/pipe; printf ok > src/index/flag.txt; fi',
        'if [ "$N" = 2 ]; then rm src/index/pipe; fi',
        'if [ "$N" != 1 ]; then printf "wrong-$N\\n" > src/index/store.txt; fi',
      ].join('\n'),
    );
    // The script names its own directory's files.
    const script = readFileSync(file, 'utf8')
      .replaceAll('CALLS', join(dir, 'calls'))
      .replaceAll('REVERTS', join(dir, 'reverts'));
    writeFileSync(file, script);
    const before = treeState(root);
    const run = await cyber(root, file, 'src/index', '3', ['--check', 'test -f src/index/flag.txt']);
    expect(run.code).toBe(4);
    const record = run.json.record as {
      status: string;
      stopClass: string;
      attempts: { decision: { decision: string } }[];
    };
    expect(record.status).toBe('non-converged');
    expect(record.stopClass).toBe('budget-exhaustion');
    expect(record.attempts.map((a) => a.decision.decision)).toEqual(['keep', 'revert', 'revert']);
    expect(readFileSync(join(dir, 'reverts'), 'utf8')).toBe('fifo-back\n');
    expect(treeState(root)).toEqual(before);
  });

  it('every other kind of change inside the scope is undone: socket, symlink, new and re-moded directories, kind and mode changes', async () => {
    const root = makeRepo();
    const socketScript = `require('node:net').createServer().listen('src/index/sock', () => process.exit(0))`;
    const { file } = patcher(
      [
        `"${process.execPath}" -e "${socketScript}"`,
        'ln -s ../other.txt src/index/link',
        'mkdir -p src/index/new/deeper && printf x > src/index/new/deeper/f.txt && chmod 500 src/index/new/deeper',
        'chmod 700 src/index/sub',
        'rm src/index/notes.md && mkdir src/index/notes.md',
        'chmod 600 src/index/scratch.tmp',
        'mkdir src/index/locked && chmod 000 src/index/locked',
        'printf "wrong\\n" > src/index/store.txt',
      ].join('\n'),
    );
    const before = treeState(root);
    const run = await cyber(root, file);
    expect(lstatSync(join(root, 'src/index/sub')).isDirectory()).toBe(true);
    expect(run.code).toBe(4);
    expect(run.json.record).toMatchObject({ status: 'non-converged', stopClass: 'budget-exhaustion' });
    expect(treeState(root)).toEqual(before);
  });

  it('a scope that cannot be restored ends recovery-failure (exit 5) naming each remaining path, FIFO included', async () => {
    const root = makeRepo();
    // The parent of the scope becomes a symlink: the loop refuses to restore through it and must
    // say what still differs, including the FIFO it cannot capture.
    const { file } = patcher(
      'mkfifo src/index/pipe; printf "wrong\\n" > src/index/store.txt; mv src src-real; ln -s src-real src',
    );
    const run = await cyber(root, file);
    expect(run.code).toBe(5);
    const record = run.json.record as { status: string; remainingDelta: string[]; error: string };
    expect(record.status).toBe('recovery-failure');
    expect(record.remainingDelta).toEqual(
      expect.arrayContaining([
        expect.stringContaining('src/index/pipe'),
        expect.stringContaining('src/index/store.txt'),
      ]),
    );
  });

  it('a writer the patcher started with setsid is stopped before the rollback, which then holds', async () => {
    const root = makeRepo();
    const dir = mkdtempSync(join(tmpdir(), 'loopchart-reliability-writer-'));
    const { file } = patcher(
      [
        // A new session and process group: killing the patcher's group does not reach it.
        `setsid sh -c 'while :; do echo late >> src/index/notes.md; sleep 0.05; done' </dev/null >/dev/null 2>&1 &`,
        `echo $! > "${join(dir, 'writer.pid')}"`,
        // Let it write once before the patcher returns.
        'while ! grep -q late src/index/notes.md; do sleep 0.05; done',
        'printf "wrong\\n" > src/index/store.txt',
      ].join('\n'),
    );
    const before = treeState(root);
    const run = await cyber(root, file);
    const writer = Number(readFileSync(join(dir, 'writer.pid'), 'utf8'));
    started.push(writer);
    expect(isProcessAlive(writer)).not.toBe('alive');
    expect(run.code).toBe(4);
    expect(run.json.record).toMatchObject({ status: 'non-converged' });
    expect(treeState(root)).toEqual(before);
  });

  it('a change outside the scope is reported as remaining delta with a non-clean exit (5), and left in place', async () => {
    const root = makeRepo();
    const { file } = patcher(
      'printf "fixed\\n" > src/index/store.txt; printf "widened\\n" > src/other.txt; printf new > stray.txt',
    );
    const before = treeState(root);
    const run = await cyber(root, file);
    expect(run.code).toBe(5);
    const record = run.json.record as { status: string; stopClass: string; remainingDelta: string[] };
    expect(record).toMatchObject({ status: 'recovery-failure', stopClass: 'scope-widening' });
    expect(record.remainingDelta).toEqual(
      expect.arrayContaining([
        expect.stringContaining('src/other.txt'),
        expect.stringContaining('stray.txt'),
      ]),
    );
    // The loop never touches what lies outside its scope: the patcher's bytes stay, for the person to judge.
    expect(readFileSync(join(root, 'src/other.txt'), 'utf8')).toBe('widened\n');
    const after = treeState(root);
    expect(only(after, inScope)).toEqual(only(before, inScope));
  });

  it.each(['.git', '.git/hooks', './.git', 'src/index,.git'])(
    '--scope %s is invalid input (exit 2, named finding); nothing runs, nothing under .git changes',
    async (scope) => {
      const root = makeRepo();
      const { file, dir } = patcher('printf "fixed\\n" > src/index/store.txt');
      const gitBefore = git(root, 'rev-parse', 'HEAD');
      const before = treeState(root);
      const run = await cyber(root, file, scope);
      expect(run.code).toBe(2);
      const record = run.json.record as { status: string; findings: { code: string }[] };
      expect(record.status).toBe('invalid-input');
      expect(record.findings.map((f) => f.code)).toContain('cybernetic.scope.path-git-dir');
      expect(existsSync(join(dir, 'calls'))).toBe(false);
      expect(treeState(root)).toEqual(before);
      expect(git(root, 'rev-parse', 'HEAD')).toBe(gitBefore);
    },
  );

  it('a scope over a git directory kept inside the worktree under another name is invalid input (exit 2, named error)', async () => {
    const root = mkdtempSync(join(tmpdir(), 'loopchart-reliability-cyber-sep-'));
    mkdirSync(join(root, 'meta'));
    git(root, 'init', '-q', '-b', 'main', `--separate-git-dir=${join(root, 'meta', 'repo.git')}`);
    write(root, 'src/index/store.txt', 'broken\n');
    git(root, 'add', 'src');
    git(root, 'commit', '-q', '-m', 'initial');
    const { file, dir } = patcher('printf "fixed\\n" > src/index/store.txt');
    const head = git(root, 'rev-parse', 'HEAD');
    for (const scope of ['meta', 'meta/repo.git/hooks']) {
      const run = await cyber(root, file, scope);
      expect(run.code).toBe(2);
      expect(run.json).toMatchObject({ status: 'invalid', error: { code: 'cybernetic.scope-git-dir' } });
    }
    expect(existsSync(join(dir, 'calls'))).toBe(false);
    expect(git(root, 'rev-parse', 'HEAD')).toBe(head);
  });
});
