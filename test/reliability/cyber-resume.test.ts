/**
 * Issue 19: `loopchart cyber` resumes. A real `loopchart cyber` process (the bundled CLI) is
 * killed with SIGKILL at an effect boundary (the LOOPCHART_CRASH_AT / LOOPCHART_CRASH_AFTER test
 * hooks of src/host/crash-hook.ts), the same command is run again, and the resumed run must end
 * exactly like an uninterrupted run of the same input on an identical repository: the same
 * terminal record and transcript (paths and clock aside), the same budget spent, the same scope,
 * and nothing outside the scope changed. A worktree that is not where the journal left it is
 * refused by name (exit 2) and left as it is.
 *
 * The scenario (one patcher, two budgets), written from the protocol:
 * - candidate 1 writes a wrong store and a junk file: nothing newly passes, so it is reverted
 *   (candidate-regression), and its budget unit stays spent;
 * - candidate 2 fixes the flag and adds a cache file: check-1 newly passes, so it is kept;
 * - candidate 3 fixes the store: every check passes together, `restored` with 3 units spent.
 * With a budget of 2 the run stops after candidate 2 as `non-converged` / `budget-exhaustion`
 * and the whole scope goes back to the checkpoint.
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
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/effects/process-identity.js';
import { ISOLATED_GIT_ENV } from '../effects/temp-repo.js';
import { bundledCyberCli } from '../support/cli-bundle.js';
import { parseCliResult } from '../support/cli-result.js';
import { killProcessesIn } from '../support/demo-run.js';

const CRASH_CHAINS = process.env.LOOPCHART_CRASH_EXHAUSTIVE === '1';

const root = mkdtempSync(join(tmpdir(), 'loopchart-cyber-resume-'));
afterAll(() => {
  killProcessesIn(root);
  rmSync(root, { recursive: true, force: true });
});

const FIXED_DATE = '2026-01-01T00:00:00Z';
const GIT_ENV: Record<string, string> = {
  ...ISOLATED_GIT_ENV,
  GIT_AUTHOR_DATE: FIXED_DATE,
  GIT_COMMITTER_DATE: FIXED_DATE,
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'commit.gpgsign=false', ...args], {
    cwd,
    env: { ...process.env, ...GIT_ENV },
    encoding: 'utf8',
  });
}

function write(dir: string, path: string, text: string): void {
  mkdirSync(join(dir, path, '..'), { recursive: true });
  writeFileSync(join(dir, path), text);
}

let repos = 0;
/** A repository whose scope `src/index` holds pre-existing edits; the outside has some too. */
function makeRepo(): string {
  repos += 1;
  const dir = join(root, `repo-${repos}`);
  mkdirSync(dir);
  git(dir, 'init', '-q', '-b', 'main');
  write(dir, 'src/index/store.txt', 'broken\n');
  write(dir, 'src/index/flag.txt', 'no\n');
  write(dir, 'src/index/notes.md', 'committed notes\n');
  write(dir, 'src/other.txt', 'outside, committed\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'initial');
  write(dir, 'src/index/notes.md', 'committed notes\nplus an uncommitted edit\n');
  write(dir, 'src/index/scratch.tmp', 'untracked in scope\n');
  write(dir, 'docs/draft.md', 'untracked outside the scope\n');
  return dir;
}

/** The patcher: what each attempt writes (see the header); it logs every call. */
const patcherDir = join(root, 'patcher');
const patcherFile = join(patcherDir, 'patch.sh');
mkdirSync(patcherDir);
writeFileSync(
  patcherFile,
  [
    '#!/bin/sh',
    'set -e',
    'N=$(sed -n \'s/^  "attempt": \\([0-9]*\\),$/\\1/p\' "$LOOPCHART_TASK")',
    'echo "$PWD $N" >> "$(dirname "$0")/calls"',
    // A test that wants a patcher left running by the killed run plants a one-shot flag: that
    // call writes half a candidate, says where it runs, and never ends on its own.
    'if rm "$(dirname "$0")/hang-$(basename "$PWD")" 2>/dev/null; then',
    '  printf "half\\n" > src/index/store.txt; echo $$ > "$(dirname "$0")/hung-$(basename "$PWD")"',
    '  while :; do sleep 1; done',
    'fi',
    'case "$N" in',
    '  1) printf "wrong\\n" > src/index/store.txt; printf "junk\\n" > src/index/junk.txt ;;',
    '  2) printf "ok\\n" > src/index/flag.txt; mkdir -p src/index/cache; printf "c\\n" > src/index/cache/new.txt ;;',
    '  3) printf "fixed\\n" > src/index/store.txt ;;',
    'esac',
    'printf \'{"status":"DONE","summary":"attempt %s"}\' "$N" > "$LOOPCHART_RETURN"',
    '',
  ].join('\n'),
);
chmodSync(patcherFile, 0o755);

/** The attempts the patcher was called for in `dir`, in call order. */
function calls(dir: string): string[] {
  const file = join(patcherDir, 'calls');
  if (!existsSync(file)) return [];
  return readFileSync(file, 'utf8')
    .trim()
    .split('\n')
    .filter((line) => line.startsWith(`${dir} `))
    .map((line) => line.slice(dir.length + 1));
}

function args(dir: string, budget: number): string[] {
  return [
    'cyber',
    '--cwd',
    dir,
    '--invariant',
    'cat src/index/store.txt; grep -qx fixed src/index/store.txt',
    '--statement',
    'a rebuilt index answers every stored key',
    '--off-happy-path',
    'index recovery after a crash mid-rebuild',
    '--check',
    'cat src/index/flag.txt; grep -qx ok src/index/flag.txt',
    '--scope',
    'src/index',
    '--budget',
    String(budget),
    '--patcher',
    patcherFile,
    '--json',
  ];
}

interface Outcome {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

async function cyber(argv: string[], env: Record<string, string> = {}): Promise<Outcome> {
  const cli = await bundledCyberCli();
  const child = spawn(process.execPath, [cli, ...argv], {
    env: { ...process.env, ...GIT_ENV, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
  return new Promise((done) => child.on('close', (code, signal) => done({ code, signal, stdout, stderr })));
}

/** Every path under `dir` except `.git`: kind, permission bits and content hash. */
function treeState(dir: string): Record<string, string> {
  const state: Record<string, string> = {};
  const visit = (relative: string) => {
    const absolute = relative === '' ? dir : join(dir, relative);
    const stats = lstatSync(absolute);
    const mode = (stats.mode & 0o7777).toString(8);
    if (stats.isSymbolicLink()) state[relative] = `link ${readlinkSync(absolute)}`;
    else if (stats.isFile())
      state[relative] = `file ${mode} ${createHash('sha256').update(readFileSync(absolute)).digest('hex')}`;
    else if (stats.isDirectory()) {
      if (relative !== '') state[relative] = `dir ${mode}`;
      for (const name of readdirSync(absolute).sort()) {
        if (relative === '' && name === '.git') continue;
        visit(relative === '' ? name : `${relative}/${name}`);
      }
    } else state[relative] = `special ${mode}`;
  };
  visit('');
  return state;
}

const inScope = (path: string) => path === 'src/index' || path.startsWith('src/index/');
function part(state: Record<string, string>, keep: (path: string) => boolean): Record<string, string> {
  return Object.fromEntries(Object.entries(state).filter(([path]) => keep(path)));
}

/** Text with the repository's path and the run id replaced, so two repositories' runs compare. */
function normalized(text: string, dir: string): string {
  return text
    .split(dir)
    .join('<repo>')
    .replace(/loopchart\/cyber\/\d{8}T\d{6}Z-[0-9a-f]{6}/g, 'loopchart/cyber/<run>');
}

interface Final {
  readonly exitCode: number;
  /** The terminal record as --json prints it, normalized. */
  readonly record: unknown;
  /** The transcript's records without their timestamps, normalized. */
  readonly transcript: unknown[];
  readonly tree: Record<string, string>;
  /** The distinct attempts the patcher was called for. */
  readonly attempts: string[];
}

function finalOf(dir: string, outcome: Outcome): Final & { resumed: boolean } {
  const json = parseCliResult(outcome.stdout) as {
    exitCode: number;
    resumed: boolean;
    transcript: string;
    record: unknown;
  };
  const transcript = readFileSync(json.transcript, 'utf8')
    .trim()
    .split('\n')
    .map((line) => {
      const { timestamp: _timestamp, ...rest } = JSON.parse(line) as Record<string, unknown>;
      return JSON.parse(normalized(JSON.stringify(rest), dir)) as unknown;
    });
  return {
    exitCode: json.exitCode,
    resumed: json.resumed,
    record: JSON.parse(normalized(JSON.stringify(json.record), dir)),
    transcript,
    tree: treeState(dir),
    attempts: [...new Set(calls(dir))],
  };
}

const reference = new Map<number, Final & { before: Record<string, string> }>();

/** The uninterrupted run of the scenario with this budget, on its own fresh repository. */
async function uninterrupted(budget: number) {
  const dir = makeRepo();
  const before = treeState(dir);
  const outcome = await cyber(args(dir, budget));
  expect(outcome.signal, outcome.stderr).toBeNull();
  const final = finalOf(dir, outcome);
  expect(final.resumed).toBe(false);
  return { ...final, before };
}

interface Summary {
  status: string;
  stopClass?: string;
  budget: { limit: number; spent: number };
  attempts: { decision: { decision: string } }[];
}

beforeAll(async () => {
  reference.set(3, await uninterrupted(3));
  reference.set(2, await uninterrupted(2));
  // The references themselves follow the protocol (expected values written from the header).
  const restored = reference.get(3)?.record as Summary;
  expect(reference.get(3)?.exitCode).toBe(0);
  expect(restored.status).toBe('restored');
  expect(restored.budget).toMatchObject({ limit: 3, spent: 3 });
  expect(restored.attempts.map((a) => a.decision.decision)).toEqual(['revert', 'keep', 'keep']);
  expect(reference.get(3)?.attempts).toEqual(['1', '2', '3']);
  const stopped = reference.get(2)?.record as Summary;
  expect(reference.get(2)?.exitCode).toBe(4);
  expect(stopped).toMatchObject({ status: 'non-converged', stopClass: 'budget-exhaustion' });
  expect(stopped.budget).toMatchObject({ limit: 2, spent: 2 });
  expect(stopped.attempts.map((a) => a.decision.decision)).toEqual(['revert', 'keep']);
  const stoppedRun = reference.get(2);
  expect(stoppedRun?.tree).toEqual(stoppedRun?.before);
}, 600_000);

/** The resumed run ended like the uninterrupted one, and nothing the loop does not own changed. */
function expectSameEnd(dir: string, before: Record<string, string>, outcome: Outcome, budget: number): void {
  const expected = reference.get(budget);
  if (expected === undefined) throw new Error('no reference run');
  expect(outcome.signal, outcome.stderr).toBeNull();
  const got = finalOf(dir, outcome);
  expect(got.resumed).toBe(true);
  expect(got.exitCode).toBe(expected.exitCode);
  expect(got.record).toEqual(expected.record);
  expect((got.record as Summary).budget.spent).toBe((expected.record as Summary).budget.spent);
  expect(got.transcript).toEqual(expected.transcript);
  expect(got.tree).toEqual(expected.tree);
  expect(part(got.tree, (path) => !inScope(path))).toEqual(part(before, (path) => !inScope(path)));
  expect(got.attempts).toEqual(expected.attempts);
  expect(existsSync(join(dir, '.git/loopchart/cyber/current.json'))).toBe(false);
}

async function crashThenResume(budget: number, boundary: string): Promise<void> {
  const dir = makeRepo();
  const before = treeState(dir);
  try {
    const crashed = await cyber(args(dir, budget), { LOOPCHART_CRASH_AT: boundary });
    expect(crashed.signal, `${boundary}: ${crashed.stderr}`).toBe('SIGKILL');
    const resumed = await cyber(args(dir, budget));
    expect(resumed.stderr).toContain('resum');
    expectSameEnd(dir, before, resumed, budget);
  } finally {
    killProcessesIn(dir);
  }
}

describe('loopchart cyber killed at an effect boundary resumes to the uninterrupted end', () => {
  // The boundaries the protocol cares most about, each from a fresh repository, in a run that
  // ends restored (candidate 1 reverted, 2 kept, 3 restores); the sweep below goes through every
  // side effect of that run in turn.
  it.each([
    ['after the checkpoint', 'done createCheckpoint'],
    ['mid-patch (the patcher running; its candidate is reverted later)', 'spawned patcher#1'],
    ['after candidate 1 was checked, before the revert was recorded', 'done runChecks#2'],
    ['mid-revert (one path restored)', 'reverted path#1'],
    ['after candidate 2 was checked, before the keep was recorded', 'done runChecks#3'],
    ['after the terminal record', 'end'],
  ])('restored run: %s', async (_name, boundary) => crashThenResume(3, boundary), 300_000);

  // Each boundary of the final restoration of a non-converged run.
  it.each([
    ['mid-restoration (one path restored)', 'restored path#1'],
    ['mid-restoration (two paths restored)', 'restored path#2'],
    ['after the restoration, before the terminal record', 'done restoreCheckpoint'],
    ['after the terminal record', 'end'],
  ])('non-converged run: %s', async (_name, boundary) => crashThenResume(2, boundary), 300_000);

  // Every side effect in turn, as the loop engine's crash test does (test/e2e/loop-crash.test.ts):
  // each process is killed after its first new side effect and the next one resumes.
  // The chain of every side effect runs with `npm run test:crash` (LOOPCHART_CRASH_EXHAUSTIVE=1),
  // outside `npm test`, to keep CI within its time (docs/proof.md, Crash tests).
  it.runIf(CRASH_CHAINS)(
    'a run killed right after each of its side effects in turn (a new process each time) ends the same',
    async () => {
      const dir = makeRepo();
      const before = treeState(dir);
      const journal = () => {
        const pointer = join(dir, '.git/loopchart/cyber/current.json');
        if (!existsSync(pointer)) return '';
        const runDir = (JSON.parse(readFileSync(pointer, 'utf8')) as { runDir: string }).runDir;
        return readFileSync(join(runDir, 'journal.jsonl'), 'utf8');
      };
      // Progress is a new journal line: a kill after a restored path or a launch changes the tree
      // (a killed patcher may even finish on its own), but the resumed run redoes that step.
      // Each process is killed after its `depth`-th side effect; when a kill left no new journal
      // line (a relaunched check, a path restored again), the next process goes one further.
      let depth = 1;
      let kills = 0;
      let last = journal();
      try {
        for (let run = 0; run < 200; run += 1) {
          const outcome = await cyber(args(dir, 3), { LOOPCHART_CRASH_AFTER: String(depth) });
          if (outcome.signal !== 'SIGKILL') {
            expectSameEnd(dir, before, outcome, 3);
            break;
          }
          kills += 1;
          const now = journal();
          depth = now === last ? depth + 1 : 1;
          last = now;
        }
        // Every side effect of the uninterrupted run was a kill point at least once: journal lines
        // (begin, start and outcome of 11 steps: echo, checkpoint, baseline, 3 patches with their
        // check runs, 1 revert, 1 keep, then end: 24), launches (2 checks x 4 runs + 3 patchers:
        // 11) and the 2 paths the revert restores: 37.
        expect(kills).toBeGreaterThanOrEqual(37);
      } finally {
        killProcessesIn(dir);
      }
    },
    900_000,
  );
});

describe('what a killed run left running', () => {
  it('a patcher still running from the killed run is stopped before the resumed run touches the scope', async () => {
    const dir = makeRepo();
    const before = treeState(dir);
    const name = dir.split('/').pop() as string;
    const pidFile = join(patcherDir, `hung-${name}`);
    writeFileSync(join(patcherDir, `hang-${name}`), '');
    try {
      const crashed = await cyber(args(dir, 3), { LOOPCHART_CRASH_AT: 'spawned patcher#1' });
      expect(crashed.signal).toBe('SIGKILL');
      // Bounded wait until the orphaned patcher runs with half a candidate written.
      for (let i = 0; i < 600 && !existsSync(pidFile); i++) await new Promise((r) => setTimeout(r, 50));
      const pid = Number(readFileSync(pidFile, 'utf8').trim());
      expect(isProcessAlive(pid)).toBe('alive');
      expect(readFileSync(join(dir, 'src/index/store.txt'), 'utf8')).toBe('half\n');
      const resumed = await cyber(args(dir, 3));
      expectSameEnd(dir, before, resumed, 3);
      expect(isProcessAlive(pid)).not.toBe('alive');
    } finally {
      killProcessesIn(dir);
    }
  }, 300_000);
});

describe('a worktree that is not where the journal left it is refused by name, and left alone', () => {
  async function refused(boundary: string, meddle: (dir: string) => void, argv?: (dir: string) => string[]) {
    const dir = makeRepo();
    try {
      const crashed = await cyber(args(dir, 3), { LOOPCHART_CRASH_AT: boundary });
      expect(crashed.signal).toBe('SIGKILL');
      meddle(dir);
      const tree = treeState(dir);
      const head = git(dir, 'rev-parse', 'HEAD');
      const outcome = await cyber(argv?.(dir) ?? args(dir, 3));
      expect(outcome.code, outcome.stderr).toBe(2);
      expect(treeState(dir)).toEqual(tree);
      expect(git(dir, 'rev-parse', 'HEAD')).toBe(head);
      return parseCliResult(outcome.stdout) as { error: { code: string; message: string } };
    } finally {
      killProcessesIn(dir);
    }
  }

  it('HEAD moved since the last recorded step: cybernetic.resume-mismatch', async () => {
    const result = await refused('done runChecks#2', (dir) =>
      git(dir, 'commit', '-q', '--allow-empty', '-m', 'moved'),
    );
    expect(result.error.code).toBe('cybernetic.resume-mismatch');
    expect(result.error.message).toContain('HEAD moved');
  }, 300_000);

  it('a person edited the scope after the keep: cybernetic.resume-mismatch naming the path', async () => {
    const result = await refused('done retainCandidate', (dir) =>
      write(dir, 'src/index/notes.md', 'a person edited this after the crash\n'),
    );
    expect(result.error.code).toBe('cybernetic.resume-mismatch');
    expect(result.error.message).toContain('src/index/notes.md (content)');
  }, 300_000);

  it('mid-revert, a path the candidate never touched changed: the revert is not resumed', async () => {
    const result = await refused('reverted path#1', (dir) => write(dir, 'src/index/scratch.tmp', 'edited\n'));
    expect(result.error.code).toBe('cybernetic.resume-mismatch');
    expect(result.error.message).toContain('src/index/scratch.tmp');
  }, 300_000);

  it('another command while a run is unfinished: cybernetic.unfinished-run', async () => {
    const result = await refused(
      'done applyCandidate#1',
      () => undefined,
      (dir) => args(dir, 4),
    );
    expect(result.error.code).toBe('cybernetic.unfinished-run');
    expect(result.error.message).toContain('request');
  }, 300_000);
});
