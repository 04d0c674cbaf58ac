/**
 * `loopchart cyber` derives the smallest scope from what the failing invariant prints: a declared
 * scope wider than that is refused (exit 2) unless `--scope-reason` says why, and the run contract
 * of the run directory records the declared scope, the derived one and the reason.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/commands.js';
import { stringSinks } from '../support/string-sinks.js';

function makeRepo() {
  const outside = mkdtempSync(join(tmpdir(), 'loopchart-cyber-scope-'));
  const repo = join(outside, 'repo');
  mkdirSync(join(repo, 'src', 'a'), { recursive: true });
  mkdirSync(join(repo, 'src', 'b'), { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  writeFileSync(join(repo, 'src', 'a', 'x.txt'), 'broken\n');
  writeFileSync(join(repo, 'src', 'a', 'y.txt'), 'y\n');
  writeFileSync(join(repo, 'src', 'b', 'z.txt'), 'z\n');
  execFileSync('git', ['add', '-A'], { cwd: repo });
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
      '-m',
      'i',
    ],
    { cwd: repo },
  );
  const patcher = join(outside, 'patcher.sh');
  writeFileSync(
    patcher,
    `echo ok > src/a/x.txt\nprintf '{"status":"DONE","summary":"fix x"}' > "$LOOPCHART_RETURN"\n`,
  );
  return { outside, repo, patcher, marker: join(outside, 'patched') };
}

const INVARIANT = 'grep -qx ok src/a/x.txt || { echo "src/a/x.txt: expected ok"; exit 1; }';

async function cyber(repo: string, patcher: string, scope: string, extra: string[] = []) {
  const { out, io } = stringSinks();
  const code = await runCli(
    [
      'cyber',
      '--cwd',
      repo,
      '--invariant',
      INVARIANT,
      '--off-happy-path',
      'x is broken',
      '--scope',
      scope,
      '--budget',
      '1',
      '--patcher',
      `sh ${patcher}`,
      '--json',
      ...extra,
    ],
    io,
  );
  return { code, json: JSON.parse(out.stdout) as Record<string, unknown>, stderr: out.stderr };
}

describe('cyber: the derived scope', () => {
  it('refuses a declared scope wider than the files the failing check names, naming both', async () => {
    const { repo, patcher } = makeRepo();
    const run = await cyber(repo, patcher, 'src');
    expect(run.code).toBe(2);
    expect(run.json).toMatchObject({ error: { code: 'cybernetic.scope-wider-than-needed' } });
    const message = (run.json.error as { message: string }).message;
    expect(message).toContain('the smallest scope they touch is src/a/x.txt');
    expect(message).toContain('src/a/y.txt, src/b/z.txt');
    // Nothing ran: the patcher never touched x.
    expect(readFileSync(join(repo, 'src', 'a', 'x.txt'), 'utf8')).toBe('broken\n');
  });

  it('runs with --scope-reason and records the declared scope, the derived one and the reason', async () => {
    const { repo, patcher } = makeRepo();
    const run = await cyber(repo, patcher, 'src', ['--scope-reason', 'the fix may need a helper in src/b']);
    expect(run.code).toBe(0);
    const transcript = run.json.transcript as string;
    const contract = JSON.parse(readFileSync(join(transcript, '..', 'contract.json'), 'utf8'));
    expect(contract.scopeDerivation).toMatchObject({
      declared: ['src'],
      derived: ['src/a/x.txt'],
      sources: { 'src/a/x.txt': ['invariant'] },
      wider: ['src/a/y.txt', 'src/b/z.txt'],
      reason: 'the fix may need a helper in src/b',
    });
  });

  it('runs a scope no wider than needed without a reason', async () => {
    const { repo, patcher } = makeRepo();
    const run = await cyber(repo, patcher, 'src/a/x.txt');
    expect(run.code).toBe(0);
    const contract = JSON.parse(
      readFileSync(join(run.json.transcript as string, '..', 'contract.json'), 'utf8'),
    );
    expect(contract.scopeDerivation).toMatchObject({ derived: ['src/a/x.txt'], wider: [], reason: null });
    expect(existsSync(join(repo, 'src', 'a', 'x.txt'))).toBe(true);
  });
});
