/**
 * Issue 10 item 4: a process the child started with `setsid` and did not record in its jobs file
 * outlived an admitted (exit 0) dispatch without a word. After every dispatch, admitted or not,
 * the loop finds the child's leftovers by the dispatch's environment marker, terminates them, and
 * says so in the run's output and in `--json`.
 */
import { existsSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isProcessAlive } from '../../src/effects/process-identity.js';
import type { ChildScript } from '../../src/host/child-script.js';
import { killProcessesIn } from '../support/demo-run.js';
import { cli, createLoopRepo, type LoopRepo, specWith, useGitTestEnvironment } from '../support/loop-repo.js';
import { hostileChild, withChild } from './loop-hostile-child.js';

const repos: LoopRepo[] = [];
const sleepers: number[] = [];
beforeAll(() => useGitTestEnvironment());
afterEach(() => {
  for (const pid of sleepers.splice(0)) {
    try {
      process.kill(pid, 'SIGKILL');
    } catch {
      // gone, as expected
    }
  }
  for (const repo of repos.splice(0)) {
    killProcessesIn(repo.dir);
    repo.remove();
  }
});

/** A child that, after the scripted work, starts an unrecorded sleeper in a session of its own. */
async function leavesASleeper(repo: LoopRepo, whenSubject: string, exitCode = 0): Promise<string> {
  const pidFile = join(dirname(repo.scriptPath), 'sleeper.pid');
  return hostileChild(repo, {
    whenSubject,
    after: `setsid sh -c 'echo $$ > "${pidFile}.tmp" && mv "${pidFile}.tmp" "${pidFile}" && exec sleep 3600' </dev/null >/dev/null 2>&1 &
while [ ! -e '${pidFile}' ]; do sleep 0.05; done
exit ${exitCode}`,
  });
}

function sleeperOf(repo: LoopRepo): number {
  const pidFile = join(dirname(repo.scriptPath), 'sleeper.pid');
  expect(existsSync(pidFile)).toBe(true);
  const pid = Number(readFileSync(pidFile, 'utf8').trim());
  sleepers.push(pid);
  return pid;
}

const SCRIPT: ChildScript = {
  version: 1,
  targets: {
    seed: [{ do: 'seed', evidence: { '1': 'only; failing' } }],
    '1': [{ do: 'done', evidence: 'only; passes' }],
  },
};

describe("a child's unrecorded background process", () => {
  it('is terminated after an admitted dispatch, and the run says which process it ended', async () => {
    const repo = createLoopRepo({ spec: specWith(['The only row']), script: SCRIPT });
    repos.push(repo);
    const child = await leavesASleeper(repo, 'loop: seed');
    const out = await cli('run', [...withChild(await repo.runArgs('--allowance', '3'), child), '--json']);
    expect(out.code).toBe(0);
    // Admitted: no repair anywhere.
    expect(repo.subjects()).toEqual(['loop: seed ledger', 'loop: seed evidence', 'loop: row 1 done']);
    const sleeper = sleeperOf(repo);
    expect(isProcessAlive(sleeper)).not.toBe('alive');
    const json = JSON.parse(out.stdout) as { status: string; notices: string[] };
    expect(json.status).toBe('finished');
    expect(json.notices).toContain(`terminated 1 unrecorded child processes: ${sleeper} sleep 3600`);
  });

  it('is terminated after an interrupted dispatch too, and recovery goes on to its repair', async () => {
    const repo = createLoopRepo({ spec: specWith(['The only row']), script: SCRIPT });
    repos.push(repo);
    // The seed child commits, starts the sleeper, then fails: an interrupted return.
    const child = await leavesASleeper(repo, 'loop: seed', 1);
    const out = await cli('run', withChild(await repo.runArgs('--allowance', '3'), child));
    const sleeper = sleeperOf(repo);
    expect(isProcessAlive(sleeper)).not.toBe('alive');
    expect(out.stderr).toContain(`terminated 1 unrecorded child processes: ${sleeper} sleep 3600`);
    expect(out.code).toBe(0);
    expect(repo.subjects()).toEqual([
      'loop: seed ledger',
      'loop: repair seed',
      'loop: seed evidence',
      'loop: row 1 done',
    ]);
  });
});
