/**
 * One mutating writer per checkout for every loop: while another live runner holds the worktree
 * lock (the loop engine's, `<git dir>/loopchart/lock`), `rpi`, `crank`, `cyber` and `loop` refuse
 * to start (exit 2, `host.worktree-locked`) and run none of the user's commands; crank's lanes run
 * under the wave's own lock instead of taking it again.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/commands.js';
import { acquireWorktreeLock } from '../../src/host/worktree-lock.js';
import { stringSinks } from '../support/string-sinks.js';

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

function makeRepo() {
  const outside = mkdtempSync(join(tmpdir(), 'loopchart-writer-lock-'));
  const repo = join(outside, 'repo');
  mkdirSync(join(repo, 'src', 'a'), { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  writeFileSync(join(repo, 'src', 'a', 'a.txt'), 'a\n');
  writeFileSync(join(repo, 'value.txt'), '3\n');
  execFileSync('git', ['add', '-A'], { cwd: repo });
  execFileSync('git', ['-c', 'commit.gpgsign=false', 'commit', '-q', '-m', 'initial'], {
    cwd: repo,
    env: GIT_ENV,
  });
  const lockPath = join(repo, '.git', 'loopchart', 'lock');
  return { outside, repo, lockPath, marker: join(outside, 'ran') };
}

async function cli(args: string[]) {
  const { out, io } = stringSinks();
  const code = await runCli(args, io);
  return { code, ...out };
}

/** Each loop's command line, with every user command touching `marker` if it ever runs. */
function commandLines(repo: string, outside: string, marker: string): Record<string, string[]> {
  const wave = join(outside, 'wave.json');
  writeFileSync(
    wave,
    JSON.stringify({
      lanes: [
        { id: 'a', scope: 'src/a/**', brief: 'lane a', acceptance: `touch ${marker}`, regen_surfaces: [] },
      ],
      repair_rounds: 1,
      acceptance: `touch ${marker}`,
    }),
  );
  const contract = join(outside, 'contract.md');
  writeFileSync(
    contract,
    [
      'Outcome: value.txt reaches 0',
      'Observable source: cat value.txt',
      'Allowed actions: edit value.txt',
      'Actor and sole writer: the act command',
      'Evaluator or guard: true',
      'Iteration or poll budget: 2',
      `State location: approved_path ${join(outside, 'state')}`,
    ].join('\n'),
  );
  const touch = `touch ${marker}`;
  return {
    rpi: ['rpi', '--repo', repo, '--implementer', touch, '--validator', touch, '--plan', touch],
    crank: ['crank', '--repo', repo, '--wave', wave, '--implementer', touch, '--validator', touch],
    cyber: [
      'cyber',
      '--cwd',
      repo,
      '--invariant',
      touch,
      '--off-happy-path',
      'a locked checkout',
      '--scope',
      'src',
      '--budget',
      '1',
      '--patcher',
      touch,
    ],
    loop: [
      'loop',
      '--contract',
      contract,
      '--cwd',
      repo,
      '--observe',
      touch,
      '--act',
      touch,
      '--verify',
      touch,
    ],
  };
}

describe('the writer lock of every mutating loop', () => {
  for (const name of ['rpi', 'crank', 'cyber', 'loop']) {
    it(`${name} refuses a checkout another live runner holds, and runs nothing`, async () => {
      const { repo, outside, lockPath, marker } = makeRepo();
      const held = await acquireWorktreeLock(lockPath);
      try {
        const run = await cli([...(commandLines(repo, outside, marker)[name] as string[]), '--json']);
        expect(run.code).toBe(2);
        expect(JSON.parse(run.stdout)).toMatchObject({ error: { code: 'host.worktree-locked' } });
        expect(existsSync(marker)).toBe(false);
      } finally {
        await held.release();
      }
      // The refused run left the holder's lock alone.
      expect(existsSync(lockPath)).toBe(false);
    });
  }

  it('runs crank lanes under the wave lock: a lane sees the lock of its own process', async () => {
    const { repo, outside } = makeRepo();
    const seen = join(outside, 'lock-seen.json');
    const wave = join(outside, 'wave.json');
    writeFileSync(
      wave,
      JSON.stringify({
        lanes: [{ id: 'a', scope: 'src/a/**', brief: 'lane a', acceptance: 'true', regen_surfaces: [] }],
        repair_rounds: 1,
        acceptance: 'true',
      }),
    );
    const validator = join(outside, 'validator.mjs');
    writeFileSync(
      validator,
      `console.log(JSON.stringify({ status: 'PASS', findings: [], subject_digest: process.env.LOOPCHART_SUBJECT_DIGEST, evidence_refs: [] }));\n`,
    );
    const run = await cli([
      'crank',
      '--repo',
      repo,
      '--wave',
      wave,
      '--implementer',
      `cp .git/loopchart/lock ${seen} && echo changed > src/a/a.txt`,
      '--validator',
      `node ${validator}`,
      '--json',
    ]);
    expect(run.stderr).not.toContain('worktree-locked');
    expect(run.code).toBe(0);
    expect((JSON.parse(readFileSync(seen, 'utf8')) as { pid: number }).pid).toBe(process.pid);
    expect(existsSync(join(repo, '.git', 'loopchart', 'lock'))).toBe(false);
  });
});
