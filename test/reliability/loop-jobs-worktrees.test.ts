/**
 * Issue 10 item 3: two clones of one repository sit on the same base commit, so their dispatches
 * share base and iteration. Each run reads, cleans and deletes only its own worktree's jobs file:
 * run A, which finishes while run B's child is still working, never signals the background job B's
 * child recorded, and B ends that job itself once its dispatch is admitted.
 */
import { execFileSync } from 'node:child_process';
import {
  existsSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { isProcessAlive, readStartIdentity } from '../../src/effects/process-identity.js';
import type { ChildScript } from '../../src/host/child-script.js';
import { eventually } from '../effects/processes.js';
import { bundledScriptedChild } from '../support/cli-bundle.js';
import { killProcessesIn } from '../support/demo-run.js';
import {
  cli,
  cliProcess,
  createLoopRepo,
  GIT_TEST_ENV,
  type LoopRepo,
  specWith,
  useGitTestEnvironment,
} from '../support/loop-repo.js';

const repos: LoopRepo[] = [];
const dirs: string[] = [];
const jobs: number[] = [];
beforeAll(() => useGitTestEnvironment());
afterEach(() => {
  for (const pid of jobs.splice(0)) {
    try {
      process.kill(-pid, 'SIGKILL');
    } catch {
      // gone
    }
  }
  for (const dir of dirs) killProcessesIn(dir);
  for (const repo of repos.splice(0)) {
    killProcessesIn(repo.dir);
    repo.remove();
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

/** The script of both runs: the seed starts and records a background job. */
const SCRIPT: ChildScript = {
  version: 1,
  targets: {
    seed: [{ do: 'seed', evidence: { '1': 'only; failing' }, background: true }],
    '1': [{ do: 'done', evidence: 'only; passes' }],
  },
};

/** Live `sleep 3600` processes whose working directory is `dir` (the scripted child's jobs). */
function sleepersIn(dir: string): number[] {
  return readdirSync('/proc')
    .filter((name) => /^\d+$/.test(name))
    .filter((name) => {
      try {
        return (
          readlinkSync(`/proc/${name}/cwd`) === dir &&
          readFileSync(`/proc/${name}/cmdline`, 'utf8') === 'sleep\u00003600\u0000' &&
          isProcessAlive(Number(name)) === 'alive'
        );
      } catch {
        return false;
      }
    })
    .map(Number);
}

/** The process line's pid of a jobs file (protocol: `<pid> <start identity> <command>`). */
function recordedPid(file: string): number {
  const line = readFileSync(file, 'utf8')
    .split('\n')
    .find((l) => /^\d+ \S+ sleep 3600$/.test(l));
  if (line === undefined) throw new Error(`no job line in ${file}`);
  return Number(line.split(' ')[0]);
}

describe('jobs files of two worktrees on the same base', () => {
  it("run A never signals the job run B's child recorded; each run ends only its own", async () => {
    const a = createLoopRepo({ spec: specWith(['The only row']), script: SCRIPT });
    repos.push(a);
    const sync = mkdtempSync(join(tmpdir(), 'loopchart-two-clones-'));
    dirs.push(sync);
    const b = join(sync, 'clone-b');
    execFileSync('git', ['clone', '-q', a.dir, b], { env: { ...process.env, ...GIT_TEST_ENV } });
    expect(execFileSync('git', ['rev-parse', 'HEAD'], { cwd: b, encoding: 'utf8' })).toBe(
      a.git('rev-parse', 'HEAD'),
    );

    // B's child: the scripted seed (which records its job), then it tells the test where its jobs
    // file is and waits until the test releases it, so B's dispatch is in flight while A runs.
    const scriptB = join(sync, 'script-b.json');
    writeFileSync(scriptB, JSON.stringify(SCRIPT));
    const childB = join(sync, 'child-b.sh');
    writeFileSync(
      childB,
      `#!/bin/sh
${process.execPath} ${await bundledScriptedChild()} '${scriptB}' || exit $?
case "$(git log -1 --format=%s)" in 'loop: seed'*) ;; *) exit 0 ;; esac
printf '%s\\n' "$LOOPCHART_JOBS" > '${sync}/b-jobs-path.tmp' && mv '${sync}/b-jobs-path.tmp' '${sync}/b-jobs-path'
i=0
while [ ! -e '${sync}/release' ] && [ $i -lt 3000 ]; do sleep 0.1; i=$((i+1)); done
`,
    );
    const runB = cliProcess([
      'run',
      '--worktree',
      b,
      '--spec',
      a.specPath,
      '--child',
      `sh '${childB}'`,
      '--verification',
      'true',
      '--transcript',
      join(sync, 'transcript-b.jsonl'),
      '--no-conformance-review',
    ]);
    await eventually(() => existsSync(join(sync, 'b-jobs-path')));
    const jobsB = readFileSync(join(sync, 'b-jobs-path'), 'utf8').trim();
    const jobB = recordedPid(jobsB);
    jobs.push(jobB);
    const identityB = readStartIdentity(jobB);
    expect(identityB).not.toBeNull();
    expect(sleepersIn(b)).toEqual([jobB]);

    // A: the same base, the same iteration numbers, its own recorded job; it runs to the end.
    const runA = await cli('run', await a.runArgs('--allowance', '3'));
    expect(runA.code).toBe(0);
    expect(a.subjects()).toEqual(['loop: seed ledger', 'loop: seed evidence', 'loop: row 1 done']);
    // A ended the job its own child recorded.
    expect(sleepersIn(a.dir)).toEqual([]);

    // B's job still runs, unsignalled, and B's jobs file is still there for B.
    expect(isProcessAlive(jobB)).toBe('alive');
    expect(readStartIdentity(jobB)).toBe(identityB);
    expect(existsSync(jobsB)).toBe(true);
    // The file names keep the protocol's form and tell the worktrees apart.
    expect(basename(jobsB)).toMatch(/^loop-[0-9a-f]{40}-0-[0-9a-f]{16}\.jobs$/);
    expect(basename(jobsB)).toContain(`loop-${a.git('rev-parse', 'HEAD~3').trim()}-0-`);

    // Released, B finishes and ends its own job.
    writeFileSync(join(sync, 'release'), '');
    const endB = await runB;
    expect(endB.code).toBe(0);
    expect(isProcessAlive(jobB)).not.toBe('alive');
    expect(existsSync(jobsB)).toBe(false);
  });
});
