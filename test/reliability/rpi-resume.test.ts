/**
 * Issue 19: `loopchart rpi` resumes from its step journal. The real command runs as a process on a
 * real temporary repository with scripted sh commands (Plan, implementer, validator, final CI) that
 * append one line per invocation to a file outside the repository. The run is killed with SIGKILL
 * (the LOOPCHART_CRASH_AFTER hook) right after each of its side effects in turn, from a fresh
 * repository each time, and rerun with the same command: the final report must equal an
 * uninterrupted run of the same input, every command must have run exactly as often as in that
 * run (no repair round or validation spent twice, no finished command run again), and the files
 * the loop does not own must be untouched. Further cases kill the runner by hand while a command
 * runs (the command survives, or dies with it), and check the named refusals.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { readStepJournal } from '../../src/host/step-journal.js';
import { createTempRepo, ISOLATED_GIT_ENV, type TempRepo } from '../effects/temp-repo.js';
import {
  chainOfCrashes,
  comparableResult,
  crashThenResume,
  journalState,
  runRpiCli,
  startRpiCli,
} from '../support/resume-run.js';

const CRASH_CHAINS = process.env.LOOPCHART_CRASH_EXHAUSTIVE === '1';

const FIXED_DATE = '2026-01-01T00:00:00Z';
let scripts: string;
const repos: TempRepo[] = [];

// The implementer: round 0 writes v1, round 1 writes v2 and commits it (the run's base stays the
// HEAD it started on). With a gate file it waits for the file first (the test kills the runner
// meanwhile); `$PIDS` gets its pid.
const IMPLEMENTER = `
log="$1"; gate="$2"
echo "implement $LOOPCHART_ROUND" >> "$log"
echo $$ >> "$log.pids"
if [ -n "$gate" ]; then while [ ! -e "$gate" ]; do sleep 0.05; done; fi
if [ "$LOOPCHART_ROUND" = 0 ]; then echo v1 > src/app.txt; else echo v2 > src/app.txt; git add src/app.txt && git commit -q -m repair; fi
`;
// The validator: FAIL with f1 at round 0, PASS after.
const VALIDATOR = `
echo "validate $LOOPCHART_ROUND $LOOPCHART_LEG" >> "$1"
if [ "$LOOPCHART_ROUND" = 0 ]; then
  printf '{"status":"FAIL","findings":[{"id":"f1"}],"subject_digest":"%s","evidence_refs":[]}\\n' "$LOOPCHART_SUBJECT_DIGEST"
  exit 1
fi
printf '{"status":"PASS","findings":[],"subject_digest":"%s","evidence_refs":[]}\\n' "$LOOPCHART_SUBJECT_DIGEST"
`;

beforeAll(() => {
  scripts = mkdtempSync(join(tmpdir(), 'loopchart-rpi-resume-'));
  writeFileSync(join(scripts, 'implement.sh'), IMPLEMENTER);
  writeFileSync(join(scripts, 'validate.sh'), VALIDATOR);
  Object.assign(process.env, ISOLATED_GIT_ENV, {
    GIT_AUTHOR_DATE: FIXED_DATE,
    GIT_COMMITTER_DATE: FIXED_DATE,
  });
});
afterAll(() => {
  for (const repo of repos) repo.remove();
  rmSync(scripts, { recursive: true, force: true });
});

interface Subject {
  readonly repo: TempRepo;
  readonly log: string;
  readonly args: string[];
}

let counter = 0;
/** A fresh repository with the user's own files (tracked outside the roots, untracked) and the command. */
function subject(options: { gate?: string; validator?: string } = {}): Subject {
  counter += 1;
  const repo = createTempRepo('loopchart-rpi-resume-repo-');
  repos.push(repo);
  repo.commit('subject', { 'src/app.txt': 'v0\n', 'notes/user.txt': 'the user’s notes\n' });
  repo.write('scratch.txt', 'untracked work of the user\n');
  // Under the git directory, so commands name it the same way in every repository (the final CI
  // command is part of the report) and git never lists it.
  const logName = '.git/calls.log';
  const log = join(repo.dir, logName);
  writeFileSync(log, '');
  const sh = (script: string, ...rest: string[]) =>
    ['sh', join(scripts, script), ...rest].map((a) => JSON.stringify(a)).join(' ');
  return {
    repo,
    log,
    args: [
      'rpi',
      '--plan',
      `echo plan >> ${logName}`,
      '--implementer',
      sh('implement.sh', logName, options.gate ?? ''),
      '--validator',
      options.validator ?? sh('validate.sh', logName),
      '--final-ci',
      `echo ci >> ${logName}`,
      '--repair-rounds',
      '1',
      '--root',
      'src',
      '--repo',
      repo.dir,
      '--json',
    ],
  };
}

function calls(log: string): string[] {
  return readFileSync(log, 'utf8')
    .split('\n')
    .filter((line) => line !== '');
}

/** What the loop does not own, and what it leaves behind: HEAD's history and the user's files. */
function worktreeState(repo: TempRepo) {
  return {
    log: repo.git('log', '--format=%H %s'),
    status: repo.git('status', '--porcelain'),
    notes: readFileSync(join(repo.dir, 'notes/user.txt'), 'utf8'),
    scratch: readFileSync(join(repo.dir, 'scratch.txt'), 'utf8'),
  };
}

// The protocol's expected calls for this scenario, written by hand: Plan once, the implementation,
// a FAIL at round 0, one repair, a PASS at round 1, the final CI once.
const EXPECTED_CALLS = ['plan', 'implement 0', 'validate 0 fresh', 'implement 1', 'validate 1 fresh', 'ci'];

let reference: { result: Record<string, unknown>; state: ReturnType<typeof worktreeState> };

describe('loopchart rpi resumes after a SIGKILL', () => {
  beforeAll(async () => {
    const run = subject();
    const outcome = await runRpiCli(run.args);
    expect(outcome.code).toBe(0);
    expect(calls(run.log)).toEqual(EXPECTED_CALLS);
    reference = { result: comparableResult(outcome.stdout), state: worktreeState(run.repo) };
    expect(reference.result).toMatchObject({ terminal: 'converged', roundsUsed: 1, exitCode: 0 });
    expect(JSON.parse(outcome.stdout).resumed).toBe(false);
  }, 300_000);

  // The chain of every side effect runs with `npm run test:crash` (LOOPCHART_CRASH_EXHAUSTIVE=1),
  // outside `npm test`, to keep CI within its time (docs/proof.md, Crash tests).
  it.runIf(CRASH_CHAINS)(
    'ends like the uninterrupted run when killed right after each of its side effects in turn',
    async () => {
      const run = subject();
      const { last, kills } = await chainOfCrashes(run.args, () => journalState(run.repo, 'rpi'));
      expect(last.code, last.stderr).toBe(0);
      expect(comparableResult(last.stdout)).toEqual(reference.result);
      // Every command ran exactly as often as in the uninterrupted run: no round, validation or CI
      // run spent twice, none skipped.
      expect(calls(run.log)).toEqual(EXPECTED_CALLS);
      expect(worktreeState(run.repo)).toEqual(reference.state);
      // The journal; launch, spawn and record of Plan, two implementations, two validations and the
      // CI command; three measurements and two around the CI; the end and the report.
      expect(kills).toBeGreaterThanOrEqual(1 + 6 * 3 + 5 + 2);
    },
    600_000,
  );

  it.each(['plan', 'implement:0', 'validate:0:fresh', 'implement:1', 'validate:1:fresh', 'final-ci:1'])(
    'uses the result of %s when the run was killed after it ended but before it was recorded',
    async (key) => {
      const run = subject();
      const { killed, last } = await crashThenResume(run.args, `${key} ended`);
      expect(killed).toBe(true);
      expect(last.code, last.stderr).toBe(0);
      expect(JSON.parse(last.stdout).resumed).toBe(true);
      expect(comparableResult(last.stdout)).toEqual(reference.result);
      expect(calls(run.log)).toEqual(EXPECTED_CALLS);
      expect(worktreeState(run.repo)).toEqual(reference.state);
    },
    300_000,
  );

  // Slow: a fresh repository for every crash point (LOOPCHART_CRASH_EXHAUSTIVE=1).
  it.runIf(process.env.LOOPCHART_CRASH_EXHAUSTIVE === '1')(
    'ends like the uninterrupted run when killed once after any side effect, from a fresh repository each time',
    async () => {
      for (let crashAfter = 1; crashAfter < 80; crashAfter += 1) {
        const run = subject();
        const { killed, last } = await crashThenResume(run.args, crashAfter);
        expect(last.code, `${last.stderr} (crash after ${crashAfter})`).toBe(0);
        expect(comparableResult(last.stdout), `crash after ${crashAfter}`).toEqual(reference.result);
        expect(calls(run.log), `crash after ${crashAfter}`).toEqual(EXPECTED_CALLS);
        expect(worktreeState(run.repo), `crash after ${crashAfter}`).toEqual(reference.state);
        if (!killed) break;
      }
    },
    3_600_000,
  );

  it('replays a recorded effect error: a run killed after a validator record was refused ends with the same error', async () => {
    const garbage = `echo "validate $LOOPCHART_ROUND $LOOPCHART_LEG" >> .git/calls.log; echo 'not a record'`;
    const reference = subject({ validator: garbage });
    const expected = await runRpiCli(reference.args);
    expect(expected.code).toBe(2);
    expect(JSON.parse(expected.stdout).error.code).toBe('rpi.validator-output-not-json');

    const run = subject({ validator: garbage });
    const { killed, last } = await crashThenResume(run.args, 'validate:0:fresh done');
    expect(killed).toBe(true);
    expect(last.code).toBe(2);
    const { transcript: _t, resumed, ...rest } = JSON.parse(last.stdout);
    const { transcript: _u, resumed: _r, ...want } = JSON.parse(expected.stdout);
    expect(resumed).toBe(true);
    // The message names the run's own log file; everything else is the uninterrupted run's.
    const strip = (value: { error: { message: string } }) => ({
      ...value,
      error: { ...value.error, message: value.error.message.replace(/\(log: .*\)$/, '') },
    });
    expect(strip(rest)).toEqual(strip(want));
    expect(calls(run.log)).toEqual(['plan', 'implement 0', 'validate 0 fresh']);
  }, 300_000);

  it('waits for a command that outlived its runner and uses its result, never running it twice', async () => {
    const gate = join(scripts, `gate-${counter + 1}`);
    const run = subject({ gate });
    const first = await startRpiCli(run.args);
    await until(() => calls(run.log).includes('implement 0'));
    process.kill(first.pid, 'SIGKILL');
    expect((await first.done).signal).toBe('SIGKILL');
    // The implementer still runs, waiting for the gate: the resumed run must wait for it.
    const second = await startRpiCli(run.args);
    writeFileSync(gate, '');
    const last = await second.done;
    expect(last.code, last.stderr).toBe(0);
    expect(comparableResult(last.stdout)).toEqual(reference.result);
    expect(calls(run.log)).toEqual(EXPECTED_CALLS);
    expect(worktreeState(run.repo)).toEqual(reference.state);
  }, 180_000);

  it('runs a command again only when it died with its runner, in the same round, spending no budget', async () => {
    const gate = join(scripts, `gate-${counter + 1}`);
    const run = subject({ gate });
    const first = await startRpiCli(run.args);
    await until(() => calls(run.log).includes('implement 0'));
    // A lost machine: the runner and the command's whole process group die.
    const pid = Number(readFileSync(`${run.log}.pids`, 'utf8').trim().split('\n')[0]);
    process.kill(first.pid, 'SIGKILL');
    killGroupOf(pid);
    await first.done;
    writeFileSync(gate, '');
    const last = await runRpiCli(run.args);
    expect(last.code, last.stderr).toBe(0);
    expect(comparableResult(last.stdout)).toEqual(reference.result);
    // The implementation ran twice (its first run never ended); every other command once.
    expect(calls(run.log)).toEqual(['plan', 'implement 0', ...EXPECTED_CALLS.slice(1)]);
    expect(worktreeState(run.repo)).toEqual(reference.state);
  }, 180_000);

  it('refuses to resume when HEAD moved, the subject changed or the command differs (exit 2), and --fresh starts over', async () => {
    // Killed right after round 0's validation was recorded (side effect 14: the journal, then
    // launch, spawn, end and record of Plan and of the implementation, the measurement, then the
    // validator's four): nothing that writes is in flight.
    const run = subject();
    const killed = await runRpiCli(run.args, { LOOPCHART_CRASH_AFTER: '14' });
    expect(killed.signal).toBe('SIGKILL');
    const runs = join(run.repo.dir, '.git', 'loopchart', 'rpi');
    const [runId, ...others] = readdirSync(runs);
    expect(others).toEqual([]);
    const journal = await readStepJournal(join(runs, String(runId)));
    expect(journal?.steps.at(-1)).toMatchObject({ key: 'validate:0:fresh', state: 'done' });
    const callsBefore = calls(run.log);
    expect(callsBefore).toEqual(EXPECTED_CALLS.slice(0, 3));

    run.repo.write('src/app.txt', 'edited by someone else\n');
    const changed = await runRpiCli(run.args);
    expect(changed.code).toBe(2);
    expect(JSON.parse(changed.stdout).error.code).toBe('rpi.resume-subject-changed');
    run.repo.write('src/app.txt', 'v1\n');

    const other = await runRpiCli(run.args.map((a) => (a === '1' ? '2' : a)));
    expect(other.code).toBe(2);
    expect(JSON.parse(other.stdout).error.code).toBe('rpi.resume-input-changed');

    run.repo.commit('a commit the run does not own', { 'notes/other.txt': 'x\n' });
    const moved = await runRpiCli(run.args);
    expect(moved.code).toBe(2);
    expect(JSON.parse(moved.stdout).error.code).toBe('rpi.resume-head-moved');
    // The refusals ran nothing and changed nothing.
    expect(calls(run.log)).toEqual(callsBefore);
    expect(readFileSync(join(run.repo.dir, 'src/app.txt'), 'utf8')).toBe('v1\n');

    const fresh = await runRpiCli([...run.args, '--fresh']);
    expect(fresh.code, fresh.stderr).toBe(0);
    expect(JSON.parse(fresh.stdout).resumed).toBe(false);
    expect(existsSync(join(run.repo.dir, 'notes/other.txt'))).toBe(true);
  }, 300_000);
});

/** Waits (bounded) until `ready` holds; the test's order comes from files, never from time. */
async function until(ready: () => boolean): Promise<void> {
  for (let i = 0; i < 600 && !ready(); i += 1) await new Promise((r) => setTimeout(r, 50));
  expect(ready()).toBe(true);
}

function killGroupOf(pid: number): void {
  const group = Number(execFileSync('ps', ['-o', 'pgid=', '-p', String(pid)], { encoding: 'utf8' }).trim());
  process.kill(-group, 'SIGKILL');
}
