/**
 * Test support for the loop host: real temporary git repositories with a spec and a child script,
 * the loop commands run in-process with string sinks (or as real processes), and readers for the
 * results (commit subjects, the ledger, the status).
 */
import { execFileSync, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll } from 'vitest';
import { checkCommand } from '../../src/cli/check.js';
import type { CliCommand } from '../../src/cli/command.js';
import { reportCommandFailure } from '../../src/cli/command-failure.js';
import { demoCommand } from '../../src/cli/demo.js';
import { runCommand } from '../../src/cli/run.js';
import { statusCommand } from '../../src/cli/status.js';
import type { ChildScript } from '../../src/host/child-script.js';
import { bundledLoopCli, bundledScriptedChild } from './cli-bundle.js';
import { stringSinks } from './string-sinks.js';

/** Git settings for every git process of a test: an identity, no user or system config, no signing. */
export const GIT_TEST_ENV: Record<string, string> = {
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'loopchart test',
  GIT_AUTHOR_EMAIL: 'test@loopchart.invalid',
  GIT_COMMITTER_NAME: 'loopchart test',
  GIT_COMMITTER_EMAIL: 'test@loopchart.invalid',
  GIT_CONFIG_COUNT: '1',
  GIT_CONFIG_KEY_0: 'commit.gpgsign',
  GIT_CONFIG_VALUE_0: 'false',
};

/**
 * Puts {@link GIT_TEST_ENV} into this process's environment, so the runner's git processes and
 * the children it starts (which inherit it) commit with the test identity.
 */
export function useGitTestEnvironment(): void {
  Object.assign(process.env, GIT_TEST_ENV);
}

/**
 * Registers the hooks every loop e2e file needs and returns its repository factory: the git test
 * environment before the file's tests (and each variable in `unset` removed, so a developer's own
 * model settings cannot leak into a run), and every repository the factory created removed after
 * each test.
 */
export function useLoopRepos(unset: readonly string[] = []): (options: LoopRepoOptions) => LoopRepo {
  const repos: LoopRepo[] = [];
  beforeAll(() => {
    useGitTestEnvironment();
    for (const name of unset) delete process.env[name];
  });
  afterEach(() => {
    for (const repo of repos.splice(0)) repo.remove();
  });
  return (options) => {
    const created = createLoopRepo(options);
    repos.push(created);
    return created;
  };
}

/** A spec with one acceptance row per entry (`text` or `text\n  <disposition>`). */
export function specWith(rows: readonly string[], amendGrant = 'none'): string {
  const bullets = rows.map((row) => {
    const [text, disposition] = row.split('\n');
    return disposition === undefined ? `- [ ] ${text}` : `- [ ] ${text}\n  ${disposition.trim()}`;
  });
  return `# Test feature\n\n**Amend-grant:** ${amendGrant}\n\n## Acceptance criteria\n\nTicket T-1, checkbox list, rows verbatim:\n\n${bullets.join('\n')}\n`;
}

/** Options of {@link createLoopRepo}. */
export interface LoopRepoOptions {
  /** The spec text (default: two rows). */
  readonly spec?: string;
  /** Extra files of the first commit. */
  readonly files?: Readonly<Record<string, string>>;
  /** The child script. */
  readonly script: ChildScript;
}

/** A temporary repository prepared for the loop. */
export interface LoopRepo {
  readonly dir: string;
  readonly specPath: string;
  readonly ledgerPath: string;
  /** The script file (outside the repository). */
  readonly scriptPath: string;
  /** Runs git and returns stdout. */
  git(...args: string[]): string;
  write(path: string, content: string): void;
  read(path: string): string;
  /** Commit subjects since the first commit, oldest first. */
  subjects(): string[];
  /** The ledger on disk. */
  ledger(): string;
  /** `git status --porcelain`. */
  status(): string;
  /** The child command that replays the script with the bundled scripted child. */
  childCommand(): Promise<string>;
  /**
   * The `run` arguments every test starts from (worktree, spec, child). Tests that are not about
   * closure waive the conformance audit (`--no-conformance-review`); the waiver is left out when
   * `extra` names a conformance reviewer, or holds `--audit-closure` (dropped: it only asks for
   * the real default, the `closure-not-audited` stop).
   */
  runArgs(...extra: string[]): Promise<string[]>;
  remove(): void;
}

/** Asks {@link LoopRepo.runArgs} for no waiver: the run's real default without a conformance reviewer. */
export const AUDIT_CLOSURE = '--audit-closure';
const CLOSURE_ARGS = [
  AUDIT_CLOSURE,
  '--conformance-reviewer',
  '--conformance-reviewer-agent',
  '--no-conformance-review',
];

/** Creates a repository on `main` with the spec committed and the script written outside it. */
export function createLoopRepo(options: LoopRepoOptions): LoopRepo {
  const dir = mkdtempSync(join(tmpdir(), 'loopchart-e2e-'));
  const scriptDir = mkdtempSync(join(tmpdir(), 'loopchart-script-'));
  const scriptPath = join(scriptDir, 'script.json');
  writeFileSync(scriptPath, JSON.stringify(options.script, null, 2));
  const git = (...args: string[]) =>
    execFileSync('git', args, { cwd: dir, env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });
  const write = (path: string, content: string) => {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), content);
  };
  git('init', '-q', '-b', 'main');
  const specPath = 'docs/specs/feature.md';
  write(specPath, options.spec ?? specWith(['The first row', 'The second row']));
  write('README.md', 'test repository\n');
  for (const [path, content] of Object.entries(options.files ?? {})) write(path, content);
  git('add', '-A');
  git('commit', '-q', '-m', 'initial');
  const repo: LoopRepo = {
    dir,
    specPath,
    ledgerPath: 'docs/plans/feature.md',
    scriptPath,
    git,
    write,
    read: (path) => readFileSync(join(dir, path), 'utf8'),
    subjects: () => git('log', '--reverse', '--format=%s').trim().split('\n').slice(1),
    ledger: () => readFileSync(join(dir, 'docs/plans/feature.md'), 'utf8'),
    status: () => git('status', '--porcelain'),
    childCommand: async () => `${process.execPath} ${await bundledScriptedChild()} ${scriptPath}`,
    runArgs: async (...extra) => [
      '--worktree',
      dir,
      '--spec',
      specPath,
      '--child',
      await repo.childCommand(),
      '--verification',
      'true',
      '--transcript',
      join(scriptDir, 'transcript.jsonl'),
      ...(extra.some((arg) => CLOSURE_ARGS.includes(arg)) ? [] : ['--no-conformance-review']),
      ...extra.filter((arg) => arg !== AUDIT_CLOSURE),
    ],
    remove: () => {
      rmSync(dir, { recursive: true, force: true });
      rmSync(scriptDir, { recursive: true, force: true });
    },
  };
  return repo;
}

/** What a command printed and returned. */
export interface CliOutcome {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

const COMMANDS: Record<string, CliCommand> = {
  run: runCommand,
  status: statusCommand,
  check: checkCommand,
  demo: demoCommand,
};

/** Runs a loop command in this process with string sinks, reporting a failure as `runCli` does. */
export async function cli(
  name: 'run' | 'status' | 'check' | 'demo',
  args: readonly string[],
): Promise<CliOutcome> {
  const { io, out } = stringSinks();
  const command = COMMANDS[name] as CliCommand;
  let code: number;
  try {
    code = await command.run(args, io);
  } catch (error) {
    code = reportCommandFailure(io, name, args.includes('--json'), error);
  }
  return { code, ...out };
}

/** Runs the bundled loop CLI as a real process. */
export async function cliProcess(
  args: readonly string[],
  env: Readonly<Record<string, string>> = {},
): Promise<CliOutcome & { signal: NodeJS.Signals | null }> {
  const cliPath = await bundledLoopCli();
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [cliPath, ...args], {
      env: { ...process.env, ...GIT_TEST_ENV, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code, signal) => resolve({ code: code ?? -1, signal, stdout, stderr }));
  });
}
