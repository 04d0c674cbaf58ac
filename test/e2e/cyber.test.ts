/**
 * `loopchart cyber` end to end on real temporary repositories, with scripted patchers (small sh
 * scripts) and shell checks: every terminal status and every stop class, each with a
 * byte-for-byte comparison of the scope with its pre-run state (pre-existing uncommitted edits
 * and untracked files included) and of everything outside the scope with its pre-run state.
 */
import { execFileSync, spawn } from 'node:child_process';
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
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/commands.js';
import { InputError } from '../../src/common/errors.js';
import { isProcessAlive } from '../../src/effects/process-identity.js';
import { parseTranscript } from '../../src/loop-protocol/transcript.js';
import { bundledCyberCli } from '../support/cli-bundle.js';
import { parseCliResult } from '../support/cli-result.js';

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'commit.gpgsign=false', ...args], {
    cwd,
    env: GIT_ENV,
    encoding: 'utf8',
  });
}

function write(root: string, path: string, text: string, mode?: number): void {
  mkdirSync(join(root, path, '..'), { recursive: true });
  writeFileSync(join(root, path), text);
  if (mode !== undefined) chmodSync(join(root, path), mode);
}

/**
 * A repository with a scope `src/index` holding a committed file, a committed file with an
 * uncommitted edit, an untracked file and an executable check script; outside the scope a
 * committed file, an uncommitted edit, an untracked file and an ignored build file.
 */
function makeRepo(store = 'broken'): string {
  const root = mkdtempSync(join(tmpdir(), 'loopchart-cyber-e2e-'));
  git(root, 'init', '-q', '-b', 'main');
  write(root, '.gitignore', 'build/\n');
  write(root, 'src/index/store.txt', `${store}\n`);
  write(root, 'src/index/notes.md', 'committed notes\n');
  write(root, 'src/index/flag.txt', 'no\n');
  write(root, 'src/index/check.sh', '#!/bin/sh\nexit 0\n', 0o755);
  write(root, 'src/other.txt', 'outside, committed\n');
  write(root, 'README.md', 'readme\n');
  git(root, 'add', '-A');
  git(root, 'commit', '-q', '-m', 'initial');
  // Pre-existing work the run must preserve byte for byte.
  write(root, 'src/index/notes.md', 'committed notes\nplus an uncommitted edit\n');
  write(root, 'src/index/scratch.tmp', 'untracked in scope\n');
  write(root, 'README.md', 'readme with an uncommitted edit\n');
  write(root, 'docs/draft.md', 'untracked outside the scope\n');
  write(root, 'build/out.bin', 'ignored build output\n');
  return root;
}

type Entry = string;

/** Every path under `root` except `.git`: kind, permission bits and content hash or link target. */
function treeState(root: string): Map<string, Entry> {
  const state = new Map<string, Entry>();
  const visit = (relative: string) => {
    const absolute = relative === '' ? root : join(root, relative);
    const stats = lstatSync(absolute);
    const mode = (stats.mode & 0o7777).toString(8);
    if (stats.isSymbolicLink()) state.set(relative, `link ${readlinkSync(absolute)}`);
    else if (stats.isFile())
      state.set(
        relative,
        `file ${mode} ${createHash('sha256').update(readFileSync(absolute)).digest('hex')}`,
      );
    else if (stats.isDirectory()) {
      if (relative !== '') state.set(relative, `dir ${mode}`);
      for (const name of readdirSync(absolute).sort()) {
        if (relative === '' && name === '.git') continue;
        visit(relative === '' ? name : `${relative}/${name}`);
      }
    }
  };
  visit('');
  return state;
}

function inScope(path: string, scope: readonly string[]): boolean {
  return scope.some((entry) => path === entry || path.startsWith(`${entry}/`));
}

function part(state: Map<string, Entry>, keep: (path: string) => boolean): Record<string, Entry> {
  return Object.fromEntries([...state].filter(([path]) => keep(path)));
}

interface CliRun {
  code: number;
  stdout: string;
  stderr: string;
}

async function cyber(args: string[]): Promise<CliRun> {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  };
  try {
    const code = await runCli(['cyber', ...args], io);
    return { code, stdout, stderr };
  } catch (error) {
    // As the executable maps it (src/cli/main.ts).
    return {
      code: error instanceof InputError ? 2 : 1,
      stdout,
      stderr: `${stderr}${(error as Error).message}`,
    };
  }
}

/** A patcher script: `body` runs in the worktree with $N set to the attempt number. */
function patcher(root: string, body: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopchart-patcher-'));
  const file = join(dir, 'patch.sh');
  writeFileSync(
    file,
    [
      '#!/bin/sh',
      'set -e',
      'N=$(sed -n \'s/^  "attempt": \\([0-9]*\\),$/\\1/p\' "$LOOPCHART_TASK")',
      `echo "$N" >> "${join(dir, 'calls')}"`,
      body,
      'printf \'{"status":"DONE","summary":"attempt %s"}\' "$N" > "$LOOPCHART_RETURN"',
      '',
    ].join('\n'),
  );
  chmodSync(file, 0o755);
  void root;
  return file;
}

function calls(patcherFile: string): string[] {
  const file = join(patcherFile, '..', 'calls');
  return existsSync(file) ? readFileSync(file, 'utf8').trim().split('\n') : [];
}

const SCOPE = ['src/index'];
// The invariant prints the store so that different wrong contents are different failures.
const INVARIANT = 'cat src/index/store.txt; grep -qx fixed src/index/store.txt';

function baseArgs(
  root: string,
  patcherFile: string,
  extra: string[] = [],
  scope = SCOPE.join(','),
): string[] {
  return [
    '--cwd',
    root,
    '--invariant',
    INVARIANT,
    '--statement',
    'a rebuilt index answers every stored key',
    '--off-happy-path',
    'index recovery after a crash mid-rebuild',
    '--scope',
    scope,
    '--patcher',
    patcherFile,
    '--json',
    ...extra,
  ];
}

interface Outcome {
  run: CliRun;
  json: {
    exitCode: number;
    transcript: string;
    record: { status: string; stopClass?: string; why?: string; success: boolean; [key: string]: unknown };
  };
  before: Map<string, Entry>;
  after: Map<string, Entry>;
}

async function runScenario(root: string, args: string[]): Promise<Outcome> {
  const before = treeState(root);
  const run = await cyber(args);
  const after = treeState(root);
  return { run, json: parseCliResult(run.stdout), before, after };
}

/** The scope equals its pre-run state byte for byte, and nothing outside it changed. */
function expectUntouched(outcome: Outcome, outsideChangedByPatcher: readonly string[] = []): void {
  const scoped = (path: string) => inScope(path, SCOPE);
  expect(part(outcome.after, scoped)).toEqual(part(outcome.before, scoped));
  const outside = (path: string) => !scoped(path) && !outsideChangedByPatcher.some((p) => inScope(path, [p]));
  expect(part(outcome.after, outside)).toEqual(part(outcome.before, outside));
}

/** Whether `pid` has exited (gone or zombie), polling briefly while a killed process winds down. */
async function exitedEventually(pid: number): Promise<boolean> {
  for (let i = 0; i < 100; i++) {
    if (isProcessAlive(pid) !== 'alive') return true;
    await new Promise((wake) => setTimeout(wake, 50));
  }
  return false;
}

describe('loopchart cyber (end to end)', () => {
  it('already-holds: every check passes before mutation; no patch, nothing changes', async () => {
    const root = makeRepo('fixed');
    const file = patcher(root, 'printf broken > src/index/store.txt');
    const outcome = await runScenario(
      root,
      baseArgs(root, file, ['--check', 'test -f src/index/notes.md', '--budget', '3']),
    );
    expect(outcome.run.code).toBe(0);
    expect(outcome.json.record.status).toBe('already-holds');
    expect(outcome.json.record.success).toBe(true);
    expect(calls(file)).toEqual([]);
    expectUntouched(outcome);
  });

  it('restored: the kept candidate stays, the rest of the scope and the outside are untouched', async () => {
    const root = makeRepo();
    const file = patcher(root, 'printf "fixed\\n" > src/index/store.txt');
    const outcome = await runScenario(
      root,
      baseArgs(root, file, ['--check', 'test -f src/index/notes.md', '--budget', '3']),
    );
    expect(outcome.run.code).toBe(0);
    expect(outcome.json.record.status).toBe('restored');
    expect(calls(file)).toEqual(['1']);
    expect(readFileSync(join(root, 'src/index/store.txt'), 'utf8')).toBe('fixed\n');
    // Only the patched file differs; pre-existing edits and untracked files in scope are intact.
    const scopedOthers = (path: string) => inScope(path, SCOPE) && path !== 'src/index/store.txt';
    expect(part(outcome.after, scopedOthers)).toEqual(part(outcome.before, scopedOthers));
    const outside = (path: string) => !inScope(path, SCOPE);
    expect(part(outcome.after, outside)).toEqual(part(outcome.before, outside));
  });

  it('non-converged / budget-exhaustion: every candidate fails differently; the checkpoint is restored', async () => {
    const root = makeRepo();
    const file = patcher(
      root,
      'printf "wrong-$N\\n" > src/index/store.txt; echo extra >> src/index/notes.md',
    );
    const outcome = await runScenario(root, baseArgs(root, file, ['--budget', '2']));
    expect(outcome.run.code).toBe(4);
    expect(outcome.json.record).toMatchObject({ status: 'non-converged', stopClass: 'budget-exhaustion' });
    expect(calls(file)).toEqual(['1', '2']);
    expectUntouched(outcome);
  });

  it('non-converged / repeated-equivalent-failure: two candidates fail the same way', async () => {
    const root = makeRepo();
    const file = patcher(root, 'printf "still-broken\\n" > src/index/store.txt; rm src/index/scratch.tmp');
    const outcome = await runScenario(root, baseArgs(root, file, ['--budget', '5']));
    expect(outcome.run.code).toBe(4);
    expect(outcome.json.record).toMatchObject({
      status: 'non-converged',
      stopClass: 'repeated-equivalent-failure',
    });
    expect(calls(file)).toEqual(['1', '2']);
    expectUntouched(outcome);
  });

  it('non-converged / oscillation: the results return to the baseline failing set after a kept candidate', async () => {
    const root = makeRepo();
    const file = patcher(
      root,
      'if [ "$N" = 1 ]; then printf "ok\\n" > src/index/flag.txt; else printf "no\\n" > src/index/flag.txt; printf "x-$N\\n" > src/index/store.txt; fi',
    );
    const outcome = await runScenario(
      root,
      baseArgs(root, file, ['--check', 'grep -qx ok src/index/flag.txt', '--budget', '4']),
    );
    expect(outcome.run.code).toBe(4);
    expect(outcome.json.record).toMatchObject({ status: 'non-converged', stopClass: 'oscillation' });
    const attempts = outcome.json.record.attempts as { decision: { decision: string } }[];
    expect(attempts.map((a) => a.decision.decision)).toEqual(['keep', 'revert']);
    expectUntouched(outcome);
  });

  it('non-converged / unavailable-check: a candidate makes a check unexecutable; its mode is restored too', async () => {
    const root = makeRepo();
    const file = patcher(root, 'chmod a-x src/index/check.sh; printf "fixed\\n" > src/index/store.txt');
    const outcome = await runScenario(
      root,
      baseArgs(root, file, ['--check', './src/index/check.sh', '--budget', '3']),
    );
    expect(outcome.run.code).toBe(4);
    expect(outcome.json.record).toMatchObject({ status: 'non-converged', stopClass: 'unavailable-check' });
    expect(lstatSync(join(root, 'src/index/check.sh')).mode & 0o777).toBe(0o755);
    expectUntouched(outcome);
  });

  it('non-converged / unavailable-check before mutation: the patcher never runs', async () => {
    const root = makeRepo();
    const file = patcher(root, 'printf "fixed\\n" > src/index/store.txt');
    const outcome = await runScenario(
      root,
      baseArgs(root, file, ['--check', 'loopchart-no-such-tool --verify', '--budget', '3']),
    );
    expect(outcome.run.code).toBe(4);
    expect(outcome.json.record).toMatchObject({ status: 'non-converged', stopClass: 'unavailable-check' });
    expect(calls(file)).toEqual([]);
    expectUntouched(outcome);
  });

  it('recovery-failure / scope-widening: a change outside the scope stops the run even though the checks pass, and remains as delta', async () => {
    const root = makeRepo();
    const file = patcher(
      root,
      'printf "fixed\\n" > src/index/store.txt; printf "widened\\n" > src/other.txt',
    );
    const outcome = await runScenario(root, baseArgs(root, file, ['--budget', '3']));
    // The loop restores its scope but owns nothing outside it: the outside change is remaining
    // working-tree delta, so the rollback is not clean (exit 5, not 4).
    expect(outcome.run.code).toBe(5);
    expect(outcome.json.record).toMatchObject({ status: 'recovery-failure', stopClass: 'scope-widening' });
    expect(outcome.json.record.why).toContain('src/other.txt');
    expect(outcome.json.record.remainingDelta).toEqual([
      'src/other.txt (outside the scope, left as the candidate made it)',
    ]);
    // The loop restores its scope and leaves the outside alone: the widened file keeps the patcher's bytes.
    expect(readFileSync(join(root, 'src/other.txt'), 'utf8')).toBe('widened\n');
    expectUntouched(outcome, ['src/other.txt']);
  });

  it('recovery-failure: the patcher turns a parent of the scope into a symlink, so the scope cannot be restored', async () => {
    const root = makeRepo();
    const file = patcher(
      root,
      'mv src src-real; ln -s src-real src; printf "fixed\\n" > src-real/index/store.txt',
    );
    const before = treeState(root);
    const run = await cyber(baseArgs(root, file, ['--budget', '3']));
    const json = parseCliResult(run.stdout);
    expect(run.code).toBe(5);
    expect(json.record.status).toBe('recovery-failure');
    expect(json.record.success).toBe(false);
    expect(json.record.stopClass).toBe('scope-widening');
    expect(json.record.failedOperation).toContain('src/index');
    expect(json.record.error).toContain('not a directory');
    // Outside the scope the loop touched nothing the patcher did not: src-real is still there.
    const after = treeState(root);
    expect(after.get('src')).toBe('link src-real');
    const untouched = (path: string) => !path.startsWith('src') && path !== 'src';
    expect(part(after, untouched)).toEqual(part(before, untouched));
  });

  it('non-converged / checkpoint-unavailable: a scope reached through a symlink cannot be checkpointed', async () => {
    const root = makeRepo();
    symlinkSync('src/index', join(root, 'linked'));
    const file = patcher(root, 'printf "fixed\\n" > src/index/store.txt');
    const before = treeState(root);
    const run = await cyber(baseArgs(root, file, ['--budget', '3'], 'linked/store.txt'));
    expect(run.code).toBe(4);
    expect(parseCliResult(run.stdout).record).toMatchObject({
      status: 'non-converged',
      stopClass: 'checkpoint-unavailable',
    });
    expect(calls(file)).toEqual([]);
    expect(treeState(root)).toEqual(before);
  });

  it('invalid-input: a budget that is not a finite positive integer is refused before any mutation', async () => {
    const root = makeRepo();
    const file = patcher(root, 'printf "fixed\\n" > src/index/store.txt');
    for (const budget of ['0', '2.5', 'Infinity', 'many']) {
      const before = treeState(root);
      const run = await cyber(baseArgs(root, file, ['--budget', budget]));
      expect(run.code).toBe(2);
      const record = parseCliResult(run.stdout).record;
      expect(record.status).toBe('invalid-input');
      expect(record.findings.map((f: { code: string }) => f.code).join(' ')).toMatch(/cybernetic\.budget\./);
      expect(treeState(root)).toEqual(before);
    }
    expect(calls(file)).toEqual([]);
  });

  it('text output: the frozen contract, each candidate and one terminal record; the transcript is complete', async () => {
    const root = makeRepo();
    const file = patcher(root, 'printf "fixed\\n" > src/index/store.txt');
    const transcript = join(mkdtempSync(join(tmpdir(), 'loopchart-transcript-')), 'run.jsonl');
    const run = await cyber([
      ...baseArgs(root, file, ['--budget', '2', '--transcript', transcript]).filter((a) => a !== '--json'),
    ]);
    expect(run.code).toBe(0);
    expect(run.stdout).toMatch(/^Frozen run contract/);
    expect(run.stdout).toContain(
      "invariant [invariant]: /bin/sh -c 'cat src/index/store.txt; grep -qx fixed src/index/store.txt'",
    );
    expect(run.stdout).toContain('candidate 1 [candidate-1] aiming at invariant');
    expect(run.stdout.match(/^cybernetic run: /gm)).toHaveLength(1);
    const parsed = parseTranscript(readFileSync(transcript, 'utf8'));
    expect(parsed.findings).toEqual([]);
    expect(new Set(parsed.records.map((r) => r.machine))).toEqual(new Set(['cybernetic-loop']));
    const last = parsed.records.at(-1);
    expect(last?.decision).toBe('stop');
    expect(last?.terminalCheck).toMatchObject({ rule: 'restored', success: true });
  });

  it('interrupted (SIGINT): the running patcher is killed, the scope restored, exit 130', async () => {
    const root = makeRepo();
    const marks = mkdtempSync(join(tmpdir(), 'loopchart-interrupt-'));
    // The patcher breaks the scope, says it is running (its pid), then waits far longer than the test.
    const file = patcher(
      root,
      `printf "half-written\\n" > src/index/store.txt; echo $$ > "${join(marks, 'pid')}"; sleep 300`,
    );
    const before = treeState(root);
    const cli = await bundledCyberCli();
    const child = spawn(process.execPath, [cli, 'cyber', ...baseArgs(root, file, ['--budget', '2'])], {
      env: GIT_ENV,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    const exited = new Promise<number | null>((done) => child.on('exit', (code) => done(code)));
    // Wait (bounded) until the patcher is running with the scope half-written.
    const pidFile = join(marks, 'pid');
    for (let i = 0; i < 600 && !existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 50));
    expect(existsSync(pidFile), `patcher never started: ${stderr}`).toBe(true);
    const patcherPid = Number(readFileSync(pidFile, 'utf8').trim());
    expect(readFileSync(join(root, 'src/index/store.txt'), 'utf8')).toBe('half-written\n');

    child.kill('SIGINT');
    const code = await exited;
    expect(code, stderr).toBe(130);
    expect(stderr).toContain('SIGINT: stopping the running command and restoring the scope');
    expect(parseCliResult(stdout)).toMatchObject({ command: 'cyber', exitCode: 130, interrupted: 'SIGINT' });
    // The patcher's process is gone and the scope is byte for byte what it was; nothing outside changed.
    // Exited: gone, or a zombie that init has not reaped yet (the test runs under any PID 1).
    expect(await exitedEventually(patcherPid)).toBe(true);
    expectUntouched({
      run: { code: code ?? -1, stdout, stderr },
      json: parseCliResult(stdout),
      before,
      after: treeState(root),
    });
  });
});
