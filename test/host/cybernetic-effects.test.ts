/**
 * The effects behind the cybernetic loop's actors, on real child processes and real git
 * repositories: how a check's ending becomes what the pure core judges, how a change outside the
 * scope is seen, and the patcher's child conventions.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Check } from '../../src/cybernetic/check.js';
import { shellCheckCommand } from '../../src/cybernetic/shell-check.js';
import { describePatcherRun, runCandidatePatcher } from '../../src/effects/candidate-patcher.js';
import { failureSignature, runCheckSet } from '../../src/effects/check-runner.js';
import { createGitPort } from '../../src/effects/git.js';
import { isProcessAlive } from '../../src/effects/process-identity.js';
import { createOutsideScopeWatch, HEAD_MOVED_PATH } from '../../src/effects/scope-watch.js';
import { resolveWorktreeRoot } from '../../src/effects/worktree-root.js';

function temp(prefix: string): string {
  return mkdtempSync(join(tmpdir(), prefix));
}

function shellCheck(name: string, text: string, passExitCode = 0): Check {
  return {
    name,
    role: 'existing',
    command: shellCheckCommand(text) as Check['command'],
    pass: { kind: 'exit-code', exitCode: passExitCode },
  };
}

function repo(): string {
  const root = temp('loopchart-effects-repo-');
  const git = (...args: string[]) =>
    execFileSync(
      'git',
      ['-c', 'commit.gpgsign=false', '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', ...args],
      {
        cwd: root,
      },
    );
  git('init', '-q', '-b', 'main');
  mkdirSync(join(root, 'src/index'), { recursive: true });
  writeFileSync(join(root, 'src/index/a.txt'), 'a\n');
  writeFileSync(join(root, 'src/b.txt'), 'b\n');
  writeFileSync(join(root, '.gitignore'), 'build/\n');
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  return root;
}

describe('runCheckSet', () => {
  it('turns each ending into the execution the pure core judges, running every check', async () => {
    const cwd = temp('loopchart-checks-');
    writeFileSync(join(cwd, 'not-executable.sh'), '#!/bin/sh\nexit 0\n');
    chmodSync(join(cwd, 'not-executable.sh'), 0o644);
    const checks: Check[] = [
      shellCheck('passes', 'echo fine'),
      shellCheck('fails', 'echo "2 tests failed"; exit 3'),
      shellCheck('not-found', 'loopchart-no-such-tool --run'),
      shellCheck('not-executable', './not-executable.sh'),
      shellCheck('expects-127', 'exit 127', 127),
      {
        name: 'argv-missing',
        role: 'existing',
        command: ['/nonexistent/loopchart-tool'],
        pass: { kind: 'exit-code', exitCode: 0 },
      },
      shellCheck('hangs', 'sleep 30'),
    ];
    const run = await runCheckSet({
      checks,
      run: 0,
      cwd,
      logDir: temp('loopchart-logs-'),
      timeoutMs: 300,
      killGraceMs: 200,
    });
    const e = run.executions;
    expect(Object.keys(e)).toEqual(checks.map((c) => c.name));
    expect(e.passes).toMatchObject({ kind: 'exited', exitCode: 0 });
    expect(e.fails).toMatchObject({ kind: 'exited', exitCode: 3 });
    expect(e['not-found']).toMatchObject({ kind: 'not-executed' });
    expect((e['not-found'] as { reason: string }).reason).toContain('exit 127: command not found');
    expect(e['not-executable']).toMatchObject({ kind: 'not-executed' });
    expect((e['not-executable'] as { reason: string }).reason).toContain('exit 126');
    // A shell exit code that is the pass criterion is a result, not "could not run".
    expect(e['expects-127']).toMatchObject({ kind: 'exited', exitCode: 127 });
    expect(e['argv-missing']).toMatchObject({ kind: 'not-executed' });
    // Killed on its time limit: a failure of the check (C6), not an unavailable one.
    expect(e.hangs?.kind).toBe('terminated');
    expect(readFileSync(run.evidence[1]?.logPath as string, 'utf8')).toBe('2 tests failed\n');
  });

  it('gives equal failures equal signatures and different failures different ones', async () => {
    const cwd = temp('loopchart-checks-');
    const logDir = temp('loopchart-logs-');
    const sig = async (run: number, text: string) => {
      const result = await runCheckSet({ checks: [shellCheck('c', text)], run, cwd, logDir });
      return (result.executions.c as { signature: string }).signature;
    };
    const first = await sig(1, 'echo "missing key 7"; exit 1');
    expect(await sig(2, 'echo "missing key 7"; exit 1')).toBe(first);
    expect(await sig(3, 'echo "missing key 8"; exit 1')).not.toBe(first);
    // The worktree path in the output does not make a failure different.
    expect(failureSignature(`${cwd}/x failed`, [cwd])).toBe(
      failureSignature('/elsewhere/x failed', ['/elsewhere']),
    );
  });
});

describe('createOutsideScopeWatch', () => {
  it('reports changes outside the scope only: tracked, untracked and HEAD; not ignored files', async () => {
    const root = repo();
    const watch = createOutsideScopeWatch(createGitPort(root), ['src/index']);
    const before = await watch.observe();
    writeFileSync(join(root, 'src/index/a.txt'), 'changed inside\n');
    writeFileSync(join(root, 'src/index/new.txt'), 'new inside\n');
    mkdirSync(join(root, 'build'));
    writeFileSync(join(root, 'build/out.bin'), 'ignored\n');
    expect(watch.changedBetween(before, await watch.observe())).toEqual([]);
    writeFileSync(join(root, 'src/b.txt'), 'changed outside\n');
    writeFileSync(join(root, 'notes.md'), 'untracked outside\n');
    const after = await watch.observe();
    expect(watch.changedBetween(before, after)).toEqual(['notes.md', 'src/b.txt']);
    execFileSync(
      'git',
      [
        '-c',
        'commit.gpgsign=false',
        '-c',
        'user.name=T',
        '-c',
        'user.email=t@example.invalid',
        'commit',
        '-q',
        '--allow-empty',
        '-m',
        'x',
      ],
      { cwd: root },
    );
    expect(watch.changedBetween(after, await watch.observe())).toEqual([HEAD_MOVED_PATH]);
  });

  it('works in a repository without commits', async () => {
    const root = temp('loopchart-effects-empty-');
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: root });
    const watch = createOutsideScopeWatch(createGitPort(root), ['lib']);
    const before = await watch.observe();
    writeFileSync(join(root, 'outside.txt'), 'x\n');
    expect(watch.changedBetween(before, await watch.observe())).toEqual(['outside.txt']);
  });
});

describe('runCandidatePatcher', () => {
  it('hands the task and return files through LOOPCHART_TASK and LOOPCHART_RETURN, in the worktree', async () => {
    const worktree = temp('loopchart-patcher-tree-');
    const dir = temp('loopchart-patcher-run-');
    const run = await runCandidatePatcher({
      command:
        'node -e \'const t=JSON.parse(require("fs").readFileSync(process.env.LOOPCHART_TASK,"utf8"));require("fs").writeFileSync("seen.txt",String(t.target));require("fs").writeFileSync(process.env.LOOPCHART_RETURN,JSON.stringify({status:"DONE",summary:"aimed at "+t.target}))\'',
      worktree,
      dir,
      task: { target: 'invariant' },
    });
    expect(run).toMatchObject({
      outcome: 'exited',
      exitCode: 0,
      returned: 'DONE',
      summary: 'aimed at invariant',
    });
    expect(readFileSync(join(worktree, 'seen.txt'), 'utf8')).toBe('invariant');
    expect(describePatcherRun(run)).toBe('aimed at invariant');
  });

  it('reports a patcher that returns nothing, or something else than DONE', async () => {
    const worktree = temp('loopchart-patcher-tree-');
    const silent = await runCandidatePatcher({
      command: 'exit 4',
      worktree,
      dir: temp('loopchart-patcher-run-'),
      task: {},
    });
    expect(silent.returned).toBeNull();
    expect(describePatcherRun(silent)).toBe('patcher exited 4 without a return: no summary given');
    const blocked = await runCandidatePatcher({
      command: 'printf \'{"status":"BLOCKED"}\' > "$LOOPCHART_RETURN"',
      worktree,
      dir: temp('loopchart-patcher-run-'),
      task: {},
    });
    expect(describePatcherRun(blocked)).toBe('patcher returned BLOCKED: no summary given');
  });

  it('terminates processes the patcher leaves running, so nothing edits the tree behind the checks', async () => {
    const worktree = temp('loopchart-patcher-tree-');
    const run = await runCandidatePatcher({
      command: '(sleep 30; echo late > late.txt) & printf \'{"status":"DONE"}\' > "$LOOPCHART_RETURN"',
      worktree,
      dir: temp('loopchart-patcher-run-'),
      task: {},
      killGraceMs: 500,
    });
    expect(run.lingeringTerminated.length).toBeGreaterThan(0);
    // Gone, or a zombie waiting for a parent that is not ours to reap: either way no longer running.
    for (const pid of run.lingeringTerminated) expect(isProcessAlive(pid)).not.toBe('alive');
    expect(existsSync(join(worktree, 'late.txt'))).toBe(false);
  });
});

describe('resolveWorktreeRoot', () => {
  it('finds the root from a subdirectory and refuses a directory outside git', async () => {
    const root = repo();
    expect(await resolveWorktreeRoot(join(root, 'src/index'))).toBe(
      execFileSync('git', ['rev-parse', '--show-toplevel'], { cwd: root, encoding: 'utf8' }).trim(),
    );
    await expect(resolveWorktreeRoot(temp('loopchart-no-git-'))).rejects.toThrow(/not inside a git worktree/);
  });
});
