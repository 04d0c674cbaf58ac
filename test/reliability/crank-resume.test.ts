/**
 * Issue 19: `loopchart crank` resumes from its step journal and its lanes' journals. The real
 * command runs as a process on a real temporary repository; the lanes' implementer and validator
 * (sh scripts) and the wave acceptance append one line per invocation to a file. The wave is killed
 * with SIGKILL (the LOOPCHART_CRASH_AFTER hook) right after each of its side effects in turn, from
 * a fresh repository each time, and rerun with the same command: the evidence must equal an
 * uninterrupted run of the same wave, every command must have run exactly as often as there (a lane
 * that returned is never run again, the acceptance runs once after all lanes), and the user's files
 * must be untouched. A further case kills the wave by hand while one lane is mid-way and the others
 * have returned.
 */
import { execFileSync } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStepJournal } from '../../src/host/step-journal.js';
import { createTempRepo, ISOLATED_GIT_ENV, type TempRepo } from '../effects/temp-repo.js';
import {
  chainOfCrashes,
  crashThenResume,
  journalState,
  type ProcessOutcome,
  runRpiCli,
  startRpiCli,
} from '../support/resume-run.js';

const CRASH_CHAINS = process.env.LOOPCHART_CRASH_EXHAUSTIVE === '1';

let scripts: string;
const repos: TempRepo[] = [];
const LOG = '.git/calls.log';

// A lane's implementer writes its lane's file; with a gate file for its lane it waits for it first.
const IMPLEMENTER = `
echo "implement $LOOPCHART_LANE $LOOPCHART_ROUND" >> ${LOG}
echo $$ >> ${LOG}.pids.$LOOPCHART_LANE
if [ -n "$1" ] && [ "$LOOPCHART_LANE" = "$2" ]; then while [ ! -e "$1" ]; do sleep 0.05; done; fi
mkdir -p "src/$LOOPCHART_LANE" && echo "done by $LOOPCHART_LANE" > "src/$LOOPCHART_LANE/out.txt"
`;
// Lane b's validator finds f1; the others pass.
const VALIDATOR = `
echo "validate $LOOPCHART_LANE $LOOPCHART_ROUND" >> ${LOG}
if [ "$LOOPCHART_LANE" = b ]; then
  printf '{"status":"FAIL","findings":[{"id":"f1"}],"subject_digest":"%s","evidence_refs":[]}\\n' "$LOOPCHART_SUBJECT_DIGEST"
  exit 1
fi
printf '{"status":"PASS","findings":[],"subject_digest":"%s","evidence_refs":[]}\\n' "$LOOPCHART_SUBJECT_DIGEST"
`;

beforeAll(() => {
  scripts = mkdtempSync(join(tmpdir(), 'loopchart-crank-resume-'));
  writeFileSync(join(scripts, 'implement.sh'), IMPLEMENTER);
  writeFileSync(join(scripts, 'validate.sh'), VALIDATOR);
  Object.assign(process.env, ISOLATED_GIT_ENV);
});
afterAll(() => {
  for (const repo of repos) repo.remove();
  rmSync(scripts, { recursive: true, force: true });
});

const lane = (id: string) => ({
  id,
  scope: `src/${id}/**`,
  brief: `lane ${id}`,
  acceptance: 'true',
  regen_surfaces: [],
});

function subject(lanes: readonly string[], gate?: { file: string; lane: string }) {
  const repo = createTempRepo('loopchart-crank-resume-repo-');
  repos.push(repo);
  repo.commit('lanes', { 'src/a/a.txt': 'a\n', 'notes/user.txt': 'the user’s notes\n' });
  repo.write('scratch.txt', 'untracked work of the user\n');
  writeFileSync(join(repo.dir, LOG), '');
  const wavePath = join(repo.dir, '.git', 'wave.json');
  writeFileSync(
    wavePath,
    JSON.stringify({ lanes: lanes.map(lane), repair_rounds: 0, acceptance: `echo acceptance >> ${LOG}` }),
  );
  const sh = (script: string, ...rest: string[]) =>
    ['sh', join(scripts, script), ...rest].map((a) => JSON.stringify(a)).join(' ');
  return {
    repo,
    args: [
      'crank',
      '--wave',
      wavePath,
      '--implementer',
      sh('implement.sh', gate?.file ?? '', gate?.lane ?? ''),
      '--validator',
      sh('validate.sh'),
      '--repo',
      repo.dir,
      '--json',
    ],
  };
}

function calls(repo: TempRepo): string[] {
  return readFileSync(join(repo.dir, LOG), 'utf8')
    .split('\n')
    .filter((line) => line !== '')
    .sort();
}

/** The evidence without the paths of this run's own files (transcripts, logs). */
function evidence(stdout: string) {
  const json = JSON.parse(stdout) as {
    exitCode: number;
    lanes: Record<string, unknown>[];
    acceptance: unknown;
    conflicts: unknown;
    startOrder: unknown;
  };
  return {
    exitCode: json.exitCode,
    lanes: json.lanes.map(({ transcript: _t, ...rest }) => rest),
    acceptance: json.acceptance,
    conflicts: json.conflicts,
    startOrder: json.startOrder,
  };
}

function userFiles(repo: TempRepo) {
  return {
    notes: readFileSync(join(repo.dir, 'notes/user.txt'), 'utf8'),
    scratch: readFileSync(join(repo.dir, 'scratch.txt'), 'utf8'),
    head: repo.git('log', '--format=%s'),
    status: repo.git('status', '--porcelain'),
  };
}

// Each lane's implementer and validator once (repair_rounds 0), the acceptance once: by hand.
const expectedCalls = (lanes: readonly string[]) =>
  [...lanes.flatMap((id) => [`implement ${id} 0`, `validate ${id} 0`]), 'acceptance'].sort();

describe('loopchart crank resumes after a SIGKILL', () => {
  const lanes = ['a', 'b'];
  let expected: ReturnType<typeof evidence>;
  let expectedFiles: ReturnType<typeof userFiles>;
  beforeAll(async () => {
    const reference = subject(lanes);
    const uninterrupted = await runRpiCli(reference.args);
    expect(uninterrupted.code, uninterrupted.stderr).toBe(4);
    expected = evidence(uninterrupted.stdout);
    expect(expected.lanes.map((l) => l.status)).toEqual(['PASS', 'FAIL']);
    expect(calls(reference.repo)).toEqual(expectedCalls(lanes));
    expectedFiles = userFiles(reference.repo);
  }, 300_000);

  function expectLikeUninterrupted(run: ReturnType<typeof subject>, last: ProcessOutcome) {
    expect(last.code, last.stderr).toBe(4);
    expect(evidence(last.stdout)).toEqual(expected);
    // No lane command and no acceptance ran twice or was skipped.
    expect(calls(run.repo)).toEqual(expectedCalls(lanes));
    expect(userFiles(run.repo)).toEqual(expectedFiles);
  }

  // The chain of every side effect runs with `npm run test:crash` (LOOPCHART_CRASH_EXHAUSTIVE=1),
  // outside `npm test`, to keep CI within its time (docs/proof.md, Crash tests).
  it.runIf(CRASH_CHAINS)(
    'ends like the uninterrupted wave when killed right after each of its side effects in turn',
    async () => {
      const run = subject(lanes);
      const { last, kills } = await chainOfCrashes(run.args, () => waveState(run.repo));
      expectLikeUninterrupted(run, last);
      // The wave's journal; per lane its start, its journal, launch, spawn and record of its
      // implementation and validation, its measurement, its end and its return; the acceptance's
      // launch, spawn and record; the end and the report.
      expect(kills).toBeGreaterThanOrEqual(1 + 2 * (1 + 1 + 6 + 1 + 2 + 1) + 3 + 2);
    },
    900_000,
  );

  it.each(['lane a: implement:0', 'lane b: validate:0:fresh', 'acceptance:1'])(
    'uses the result of %s when the wave was killed after it ended but before it was recorded',
    async (key) => {
      const run = subject(lanes);
      const { killed, last } = await crashThenResume(run.args, `${key} ended`);
      expect(killed).toBe(true);
      expect(JSON.parse(last.stdout).resumed).toBe(true);
      expectLikeUninterrupted(run, last);
    },
    300_000,
  );

  // Slow: a fresh repository for every crash point (LOOPCHART_CRASH_EXHAUSTIVE=1).
  it.runIf(process.env.LOOPCHART_CRASH_EXHAUSTIVE === '1')(
    'ends like the uninterrupted wave when killed once after any side effect, from a fresh repository each time',
    async () => {
      for (let crashAfter = 1; crashAfter < 120; crashAfter += 1) {
        const run = subject(lanes);
        const { killed, last } = await crashThenResume(run.args, crashAfter);
        expectLikeUninterrupted(run, last);
        if (!killed) break;
      }
    },
    7_200_000,
  );

  it('resumes only the lane that was killed mid-way; the lanes that returned are reused, the acceptance runs once', async () => {
    const lanes = ['a', 'b', 'c'];
    const reference = subject(lanes);
    const uninterrupted = await runRpiCli(reference.args);
    const expected = evidence(uninterrupted.stdout);

    const gate = join(scripts, 'gate-c');
    const run = subject(lanes, { file: gate, lane: 'c' });
    const first = await startRpiCli(run.args);
    // Lanes a and b returned (their validators ran and the wave recorded them), c's implementer runs.
    const waveDir = join(run.repo.dir, '.git', 'loopchart', 'crank');
    await until(async () => {
      if (!calls(run.repo).includes('implement c 0')) return false;
      const [id] = readdirSync(waveDir);
      const journal = id === undefined ? null : await readStepJournal(join(waveDir, id));
      return ['lane:a', 'lane:b'].every((key) =>
        journal?.steps.some((s) => s.key === key && s.state === 'done'),
      );
    });
    // The runner and lane c's implementer die together (a lost machine).
    const pid = Number(readFileSync(join(run.repo.dir, `${LOG}.pids.c`), 'utf8').trim());
    process.kill(first.pid, 'SIGKILL');
    const group = Number(execFileSync('ps', ['-o', 'pgid=', '-p', String(pid)], { encoding: 'utf8' }).trim());
    process.kill(-group, 'SIGKILL');
    await first.done;
    writeFileSync(gate, '');

    const last = await runRpiCli(run.args);
    expect(last.code, last.stderr).toBe(4);
    expect(JSON.parse(last.stdout).resumed).toBe(true);
    expect(evidence(last.stdout)).toEqual(expected);
    // a and b ran once each; only c's implementation, which never ended, ran again.
    expect(calls(run.repo)).toEqual([...expectedCalls(lanes), 'implement c 0'].sort());
  }, 300_000);

  it('refuses to resume a wave whose wave file changed (exit 2), running nothing', async () => {
    const run = subject(['a', 'b']);
    // Killed right after the wave's journal was created, before any lane started.
    const killed = await runRpiCli(run.args, { LOOPCHART_CRASH_AFTER: '1' });
    expect(killed.signal).toBe('SIGKILL');
    expect(calls(run.repo)).toEqual([]);
    const wavePath = String(run.args[2]);
    const wave = JSON.parse(readFileSync(wavePath, 'utf8')) as { repair_rounds: number };
    writeFileSync(wavePath, JSON.stringify({ ...wave, repair_rounds: 1 }));
    const refused = await runRpiCli(run.args);
    expect(refused.code).toBe(2);
    expect(JSON.parse(refused.stdout).error.code).toBe('crank.resume-input-changed');
    expect(calls(run.repo)).toEqual([]);
  }, 300_000);
});

/** The wave's durable state: its journal and its lanes' journals. */
async function waveState(repo: TempRepo): Promise<string> {
  const home = join(repo.dir, '.git', 'loopchart', 'crank');
  const lanesOf = (id: string) => {
    try {
      return readdirSync(join(home, id, 'lanes')).sort();
    } catch {
      return [];
    }
  };
  const wave = await journalState(repo, 'crank');
  let ids: string[] = [];
  try {
    ids = readdirSync(home).sort();
  } catch {
    return wave;
  }
  const laneStates = [];
  for (const id of ids)
    for (const lane of lanesOf(id)) {
      const journal = await readStepJournal(join(home, id, 'lanes', lane));
      laneStates.push(
        journal === null ? null : [journal.steps.map((s) => [s.key, s.state]), journal.reported],
      );
    }
  return JSON.stringify([wave, laneStates]);
}

/** Waits (bounded) until `ready` holds; the order comes from files, never from time. */
async function until(ready: () => boolean | Promise<boolean>): Promise<void> {
  for (let i = 0; i < 1200 && !(await ready()); i += 1) await new Promise((r) => setTimeout(r, 50));
  expect(await ready()).toBe(true);
}
