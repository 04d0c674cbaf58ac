/**
 * Issue 10 item 7: user errors end with exit 2 and a named error, never exit 1 (internal error),
 * and nothing is written where it must not be (never inside the git directory).
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/commands.js';
import { parseCliResult } from '../support/cli-result.js';
import {
  createLoopRepo,
  GIT_TEST_ENV,
  type LoopRepo,
  specWith,
  useGitTestEnvironment,
} from '../support/loop-repo.js';
import { stringSinks } from '../support/string-sinks.js';

const repos: LoopRepo[] = [];
const dirs: string[] = [];
beforeAll(() => useGitTestEnvironment());
afterEach(() => {
  for (const repo of repos.splice(0)) repo.remove();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

function repo(): LoopRepo {
  const r = createLoopRepo({ script: { version: 1, targets: { seed: [{ do: 'crash' }] } } });
  repos.push(r);
  return r;
}

async function run(args: string[]): Promise<{ code: number; stdout: string; stderr: string; error: string }> {
  const { io, out } = stringSinks();
  const code = await runCli([...args, '--json'], io);
  const parsed = out.stdout.trim() === '' ? {} : (JSON.parse(out.stdout) as { error?: { code?: string } });
  return { code, ...out, error: parsed.error?.code ?? '' };
}

describe('user errors are named, exit 2, and write nothing', () => {
  it('--spec naming a directory', async () => {
    const r = repo();
    const out = await run(['run', ...(await r.runArgs()).map((a) => (a === r.specPath ? 'docs' : a))]);
    expect(out.code).toBe(2);
    expect(out.error).toBe('run.path');
    expect(out.stderr).toContain('is a directory');
    expect(r.subjects()).toEqual([]);
  });

  it('a repository without commits', async () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopchart-reliability-empty-'));
    dirs.push(dir);
    execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: dir, env: { ...process.env, ...GIT_TEST_ENV } });
    mkdirSync(join(dir, 'docs'));
    const out = await run([
      'run',
      '--worktree',
      dir,
      '--spec',
      'docs/spec.md',
      '--child',
      'true',
      '--verification',
      'true',
    ]);
    expect(out.code).toBe(2);
    expect(out.error).toBe('run.no-commits');
  });

  it('--ledger naming a file that is not a ledger', async () => {
    const r = repo();
    const out = await run(['run', ...(await r.runArgs('--ledger', 'README.md'))]);
    expect(out.code).toBe(2);
    expect(out.error).toBe('run.ledger');
    expect(r.read('README.md')).toBe('test repository\n');
    expect(r.subjects()).toEqual([]);
  });

  it('--ledger inside the git directory, and nothing is written there', async () => {
    const r = repo();
    const out = await run(['run', ...(await r.runArgs('--ledger', '.git/x.md'))]);
    expect(out.code).toBe(2);
    expect(out.error).toBe('run.path');
    expect(existsSync(join(r.dir, '.git/x.md'))).toBe(false);
    expect(r.subjects()).toEqual([]);
  });

  it('--spec or --ledger reaching the git directory by another spelling, and nothing is written there', async () => {
    const r = repo();
    for (const extra of [
      ['--ledger', 'docs/../.git/y.md'],
      ['--ledger', './.git/loopchart/z.md'],
    ]) {
      const out = await run(['run', ...(await r.runArgs(...extra))]);
      expect(out.code, extra.join(' ')).toBe(2);
      expect(out.error).toBe('run.path');
    }
    const spec = await run([
      'run',
      ...(await r.runArgs()).map((a) => (a === r.specPath ? '.git/spec.md' : a)),
    ]);
    expect(spec.code).toBe(2);
    expect(spec.error).toBe('run.path');
    expect(existsSync(join(r.dir, '.git/y.md'))).toBe(false);
    expect(existsSync(join(r.dir, '.git/loopchart/z.md'))).toBe(false);
    expect(existsSync(join(r.dir, '.git/spec.md'))).toBe(false);
    expect(r.subjects()).toEqual([]);
  });

  it('a spec declaring two legs, run without the companion checkout: named, exit 2, nothing seeded', async () => {
    const r = createLoopRepo({
      spec: `${specWith(['The web row', 'The api row'])}\n## Legs\n\n- web (home): 1\n- api: 2\n`,
      script: { version: 1, targets: { seed: [{ do: 'crash' }] } },
    });
    repos.push(r);
    const out = await run(['run', ...(await r.runArgs())]);
    expect(out.code).toBe(2);
    const json = JSON.parse(out.stdout) as { status: string; findings: { code: string; reason: string }[] };
    expect(json.status).toBe('invalid');
    // The error names the member without a checkout and the option that gives it.
    const error = (json as unknown as { error?: { code: string; message: string } }).error;
    expect(error?.code).toBe('run.leg-missing');
    expect(error?.message).toContain('--leg api=');
    expect(r.subjects()).toEqual([]);
    expect(existsSync(join(r.dir, r.ledgerPath))).toBe(false);
    // One member is a single-leg run: it seeds as before.
    const single = createLoopRepo({
      spec: `${specWith(['The only row'])}\n## Legs\n\n- web: all\n`,
      script: {
        version: 1,
        targets: {
          seed: [{ do: 'seed', evidence: { '1': 'only; failing' } }],
          '1': [{ do: 'done', evidence: 'only; passes' }],
        },
      },
    });
    repos.push(single);
    const ok = await run(['run', ...(await single.runArgs())]);
    expect(ok.code, ok.stderr).toBe(0);
    expect(single.ledger()).not.toMatch(/^seeded \S+:|^base \S+:|^## Leg mapping/m);
  });

  it('an empty or blank --child', async () => {
    const r = repo();
    for (const child of ['', '   ']) {
      const args = await r.runArgs();
      args[args.indexOf('--child') + 1] = child;
      const out = await run(['run', ...args]);
      expect(out.code).toBe(2);
      expect(out.error).toBe('cli.usage');
    }
    expect(r.subjects()).toEqual([]);
    expect(existsSync(join(r.dir, r.ledgerPath))).toBe(false);
  });

  it('--answer given to a run that reaches no stop is reported as unused, in the output and in --json', async () => {
    const r = createLoopRepo({
      spec: specWith(['The only row']),
      script: {
        version: 1,
        targets: {
          seed: [{ do: 'seed', evidence: { '1': 'only; failing' } }],
          '1': [{ do: 'done', evidence: 'only; passes' }],
        },
      },
    });
    repos.push(r);
    const out = await run(['run', ...(await r.runArgs('--answer', 'retry 1 | try harder'))]);
    expect(out.code).toBe(0);
    const json = parseCliResult(out.stdout);
    expect(json.status).toBe('finished');
    expect(json.unusedAnswer).toBe('retry 1 | try harder');
    expect(json.answered).toBeUndefined();
    expect(r.subjects()).toEqual(['loop: seed ledger', 'loop: seed evidence', 'loop: row 1 done']);

    // Without --json the run says so on stderr; a finished run has nothing left to answer.
    const { io, out: human } = stringSinks();
    const code = await runCli(['run', ...(await r.runArgs('--answer', 'stop'))], io);
    expect(code).toBe(0);
    expect(human.stderr).toContain(
      'loopchart: --answer "stop" was not used: the run reached no stop to answer',
    );
  });

  it('check names a ledger that does not exist instead of calling it clean', async () => {
    const r = repo();
    const { io, out } = stringSinks();
    const code = await runCli(['check', '--worktree', r.dir, '--spec', r.specPath], io);
    expect(code).toBe(0);
    expect(out.stdout).not.toContain('docs/plans/feature.md check clean');
    expect(out.stdout).toContain('no ledger at docs/plans/feature.md');
  });

  it('a ledger whose base a shallow clone lacks', async () => {
    const r = repo();
    // Seed a ledger on a later commit, then clone shallowly so the base commit is missing.
    r.write('later.txt', 'later\n');
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'later');
    const base = r.git('rev-parse', 'HEAD~1').trim();
    const ledger = `# Loop ledger\n\n**Spec:** ${r.specPath}\n\nbase: ${base}\nverification: true\nchecks: commands\niterations: 0\nallowance: 3\n\n| row | status | attempts | evidence |\n| --- | --- | --- | --- |\n| 1 | open | 0 | |\n| 2 | open | 0 | |\n\n## Decisions\n`;
    r.write(r.ledgerPath, ledger);
    r.git('add', '-A');
    r.git('commit', '-q', '-m', 'loop: seed ledger');
    const clone = mkdtempSync(join(tmpdir(), 'loopchart-reliability-shallow-'));
    dirs.push(clone);
    execFileSync('git', ['clone', '-q', '--depth', '1', `file://${r.dir}`, clone], {
      env: { ...process.env, ...GIT_TEST_ENV },
    });
    const out = await run(['run', '--worktree', clone, '--spec', r.specPath, '--child', 'true']);
    expect(out.code).toBe(2);
    expect(out.error).toBe('run.base-missing');
    expect(out.stdout).toContain(base);
    const status = await run(['status', '--worktree', clone, '--spec', r.specPath]);
    expect(status.code).toBe(2);
    expect(status.error).toBe('run.base-missing');
    expect(status.stdout).toContain(base);
    // Nothing was written: the clone is exactly as cloned.
    expect(execFileSync('git', ['status', '--porcelain'], { cwd: clone, encoding: 'utf8' })).toBe('');
    expect(execFileSync('git', ['log', '--format=%s'], { cwd: clone, encoding: 'utf8' })).toBe(
      'loop: seed ledger\n',
    );
  });
});
