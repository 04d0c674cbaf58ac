/**
 * End-to-end: the resolution rules of verify and restore on real repositories with the scripted
 * child as a real child process (gauntlet-protocol §3.1, §3.2, §3.18): gate-produced changes are
 * committed after a failing gate set too, so the verification repair plans on the HEAD that
 * includes them; the verification repair task carries the blocking-call contract.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { cli, createLoopRepo, type LoopRepo, useGitTestEnvironment } from '../support/loop-repo.js';

const repos: LoopRepo[] = [];
beforeAll(() => {
  useGitTestEnvironment();
  delete process.env.LOOPCHART_IMPL_MODEL;
  delete process.env.LOOPCHART_MAIN_MODEL;
});
afterEach(() => {
  for (const repo of repos.splice(0)) repo.remove();
});

function repo(options: Parameters<typeof createLoopRepo>[0]): LoopRepo {
  const created = createLoopRepo(options);
  repos.push(created);
  return created;
}

const seedClosesAll = {
  do: 'seed' as const,
  evidence: { '1': 'one; passes', '2': 'two; passes' },
  closeOnBaseline: [1, 2],
};

describe('the verification repair', () => {
  it('plans on the HEAD that includes the failing gate set’s committed changes, and carries the blocking-call contract', async () => {
    const r = repo({
      files: { 'stamp.txt': 'runs:\n' },
      script: {
        version: 1,
        targets: {
          seed: [seedClosesAll],
          verify: [{ do: 'verify-fix', files: { 'fixed.txt': 'fixed\n' } }],
        },
      },
    });
    // The gate appends to a tracked file on every run, and fails until fixed.txt exists.
    const verifyTaskFile = join(r.scriptPath, '..', 'verify-task.json');
    const child = await r.childCommand();
    const recording = `if grep -q '"kind": "verify"' "$LOOPCHART_TASK"; then cp "$LOOPCHART_TASK" '${verifyTaskFile}'; fi; ${child}`;
    const args = await r.runArgs(
      '--allowance',
      '2',
      '--impl-model',
      'test/model',
      '--gate',
      'echo ran >> stamp.txt; test -f fixed.txt',
    );
    args[args.indexOf('--child') + 1] = recording;
    const out = await cli('run', args);
    expect(out.code).toBe(0);
    // §3.18 step 1: "Commit verification-produced tracked changes, including gate-produced changes".
    expect(r.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: verification changes',
      'loop: verification fix',
      'loop: repair verification',
      'loop: verification changes',
    ]);
    const changes = r.git('log', '--reverse', '--format=%H', '--grep', '^loop: verification changes$');
    const firstChanges = changes.trim().split('\n')[0];
    const [marker] = r
      .git('log', '--format=%b%x00', '--grep', '^loop: repair verification$')
      .split('\x00')
      .map((b) => b.trim());
    // HEAD_BEFORE of the repair is the commit of the failing run's gate-produced change.
    expect(marker?.split('\n')[0]).toBe(`pending: verify | home | ${firstChanges}`);
    expect(r.status()).toBe('');
    const verifyTask = JSON.parse(readFileSync(verifyTaskFile, 'utf8')) as {
      kind: string;
      verification: { blockingCalls: string } | null;
    };
    expect(verifyTask.kind).toBe('verify');
    // The protocol's words (§3.18 step 1), written here by hand.
    expect(verifyTask?.verification?.blockingCalls).toBe(
      'bound every blocking command with `timeout -k 30 <n>`, n <= 600; background and poll longer work',
    );
  }, 60_000);
});
