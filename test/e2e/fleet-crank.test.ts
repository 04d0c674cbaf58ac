/**
 * Crank waves and rpi runs on a Restate fleet (docs/scale-out.md, decisions F10-F13): one real
 * `restate-server` from node_modules on free ports with a temporary data directory for the whole
 * file, `loopchart serve` workers as real processes, a bare git remote.
 *
 * A wave of four disjoint lanes is submitted with `loopchart submit --crank`. Each lane's
 * implementer says when it runs (a marker file), then waits for a gate; once all four run at the
 * same time (fanned out as separate invocations), the worker is SIGKILLed while every lane is
 * mid-way, and a replacement worker at the same address and work directory (the worker restarted)
 * takes the lanes over. Then the gate opens. The wave's report must equal a local
 * `loopchart crank` run of the same wave and commands computed here, no lane's paid action (the
 * line the implementer appends after the gate) may appear twice, and each lane's work must be on
 * its own branch and, merged, on the wave's. An rpi run submitted with `submit --rpi` must report
 * what a local `loopchart rpi` of the same intent reports. Every process is SIGKILLed in afterAll.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crankCommand } from '../../src/cli/crank.js';
import { rpiCommand } from '../../src/cli/rpi.js';
import { parseCliResult } from '../support/cli-result.js';
import { killProcessesIn } from '../support/demo-run.js';
import {
  bundledFleetCli,
  freePort,
  type RestateServer,
  type Started,
  startProcess,
  startRestate,
  stopAll,
  waitFor,
} from '../support/fleet.js';
import {
  disjointWave,
  rpiReport,
  sortedLines,
  waveReport,
  writeLaneScripts,
} from '../support/fleet-crank.js';
import { GIT_TEST_ENV } from '../support/loop-repo.js';
import { stringSinks } from '../support/string-sinks.js';

// biome-ignore lint/suspicious/noExplicitAny: a status or a --json result, read field by field
type Json = Record<string, any>;

const root = mkdtempSync(join(tmpdir(), 'loopchart-fleet-crank-'));
const SECRET = `planted-${randomBytes(12).toString('hex')}`;
const LANES = ['a', 'b', 'c', 'd'];
const WAVE_BRANCH = 'crank/wave';
const RPI_BRANCH = 'rpi/solo';
const INTENT = 'Write src/solo/out.txt.\n';
const paths = {
  operators: join(root, 'secrets', 'operators'),
  credential: join(root, 'secrets', 'alice'),
  fleetLog: join(root, 'fleet-calls.log'),
  fleetGates: join(root, 'fleet-gates'),
  localLog: join(root, 'local-calls.log'),
  localGates: join(root, 'local-gates'),
  wave: join(root, 'wave.json'),
  intent: join(root, 'intent.md'),
  workDir: join(root, 'worker'),
};

let restate: RestateServer;
let cliPath: string;
let agents: { implementer: string; validator: string };
let workerPort: number;
let remote: string;
let worker: Started;

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, env: { ...process.env, ...GIT_TEST_ENV }, encoding: 'utf8' });

/** The environment of the fleet's agents (the worker's), and of the local reference run. */
const agentEnv = (log: string, gates: string) => ({ FLEET_TEST_LOG: log, FLEET_TEST_GATES: gates });

async function fleet(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = startProcess(process.execPath, [cliPath, ...args], GIT_TEST_ENV);
  const code = await proc.ended;
  return { code: typeof code === 'number' ? code : -1, stdout: proc.stdout(), stderr: proc.output() };
}

function startWorker(register: boolean): Started {
  return startProcess(
    process.execPath,
    [
      cliPath,
      'serve',
      '--port',
      String(workerPort),
      '--identity-key',
      restate.identityKey,
      '--operators',
      paths.operators,
      '--work-dir',
      paths.workDir,
      '--implementer',
      agents.implementer,
      '--validator',
      agents.validator,
      ...(register ? ['--restate', restate.admin] : []),
    ],
    { ...GIT_TEST_ENV, ...agentEnv(paths.fleetLog, paths.fleetGates) },
  );
}

/** A run's recorded status, straight from the ingress (a CLI process per poll would cost a node start). */
async function statusOf(kind: 'rpi' | 'crank', id: string): Promise<Json | undefined> {
  const response = await fetch(`${restate.ingress}/${kind}/${id}/status`, { method: 'POST' });
  return response.ok ? ((await response.json()) as Json) : undefined;
}

async function finished(kind: 'rpi' | 'crank', id: string) {
  return waitFor(
    `the ${kind} run to finish`,
    async () => {
      const status = await statusOf(kind, id);
      return status?.phase === 'finished' ? status : undefined;
    },
    240_000,
  );
}

/** Runs `loopchart <command>` in this process on a fresh clone of `branch`'s first commit. */
async function localRun(
  command: typeof crankCommand,
  branch: string,
  args: (clone: string) => string[],
): Promise<Json> {
  const clone = join(root, `local-${branch.replace('/', '-')}`);
  git(root, 'clone', '-q', '--branch', branch, remote, clone);
  const saved = { ...process.env };
  Object.assign(process.env, GIT_TEST_ENV, agentEnv(paths.localLog, paths.localGates));
  try {
    const { io, out } = stringSinks();
    const code = await command.run([...args(clone), '--repo', clone, '--json'], io as never);
    const result = JSON.parse(out.stdout) as Json;
    expect(result.exitCode).toBe(code);
    return result;
  } finally {
    for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
    Object.assign(process.env, saved);
  }
}

beforeAll(async () => {
  mkdirSync(join(root, 'secrets'));
  mkdirSync(paths.fleetGates);
  mkdirSync(paths.localGates);
  writeFileSync(join(paths.localGates, 'go'), '');
  writeFileSync(paths.operators, `alice ${SECRET}\n`);
  writeFileSync(paths.credential, `alice ${SECRET}\n`);
  writeFileSync(paths.fleetLog, '');
  writeFileSync(paths.localLog, '');
  writeFileSync(paths.wave, JSON.stringify(disjointWave(LANES)));
  writeFileSync(paths.intent, INTENT);
  agents = writeLaneScripts(root);
  [restate, cliPath] = await Promise.all([startRestate(join(root, 'restate')), bundledFleetCli()]);
  workerPort = await freePort();
  const seed = join(root, 'seed');
  mkdirSync(join(seed, 'src', 'a'), { recursive: true });
  writeFileSync(join(seed, 'src', 'a', 'a.txt'), 'a\n');
  writeFileSync(join(seed, 'README.md'), 'lanes\n');
  git(root, 'init', '-q', '-b', 'main', seed);
  git(seed, 'add', '-A');
  git(seed, 'commit', '-q', '-m', 'seed');
  remote = join(root, 'remote.git');
  git(root, 'clone', '-q', '--bare', seed, remote);
  git(seed, 'push', '-q', remote, `main:refs/heads/${WAVE_BRANCH}`, `main:refs/heads/${RPI_BRANCH}`);
  worker = startWorker(true);
  await waitFor('the worker to register', async () =>
    worker.output().includes('serving at') ? true : undefined,
  );
}, 120_000);

afterAll(async () => {
  await stopAll();
  killProcessesIn(root);
  rmSync(root, { recursive: true, force: true });
});

describe('a crank wave on a Restate fleet', () => {
  let waveId: string;

  it('refuses a wave whose lanes overlap, and a loop run on a worker without a child, before anything is queued', async () => {
    const overlapping = join(root, 'overlapping.json');
    // No regen_surfaces declared: unknown overlap counts as overlap (docs/rpi.md), so the lanes
    // could not run at once on separate branches.
    writeFileSync(
      overlapping,
      JSON.stringify({
        lanes: [
          { id: 'x', scope: 'src/x/**', brief: 'x', acceptance: 'true' },
          { id: 'y', scope: 'src/y/**', brief: 'y', acceptance: 'true' },
        ],
        repair_rounds: 0,
        acceptance: 'true',
      }),
    );
    const args = ['--remote', remote, '--branch', 'crank/other', '--ingress', restate.ingress];
    const refused = await fleet([
      'submit',
      '--crank',
      overlapping,
      ...args,
      '--credential',
      paths.credential,
      '--json',
    ]);
    expect(refused.code, refused.stderr).toBe(2);
    const error = parseCliResult(refused.stdout).error;
    expect(error.code).toBe('fleet.rejected');
    expect(error.message).toContain('fleet.lanes-conflict');
    expect(error.message).toContain('x and y (regen-unknown)');

    // This worker was started without --child: it refuses loop runs, before anything is queued.
    const loop = await fleet([
      'submit',
      '--spec',
      'docs/spec.md',
      ...args,
      '--credential',
      paths.credential,
      '--json',
    ]);
    expect(loop.code, loop.stderr).toBe(2);
    expect(parseCliResult(loop.stdout).error.message).toContain('fleet.not-configured');
  }, 60_000);

  it('fans the lanes out, survives its worker being SIGKILLed mid-lane, and reports what a local crank reports', async () => {
    const submitted = await fleet([
      'submit',
      '--crank',
      paths.wave,
      '--remote',
      remote,
      '--branch',
      WAVE_BRANCH,
      '--ingress',
      restate.ingress,
      '--credential',
      paths.credential,
      '--json',
    ]);
    expect(submitted.code, submitted.stderr).toBe(0);
    const result = parseCliResult(submitted.stdout);
    expect(result).toMatchObject({ command: 'submit', kind: 'crank', submittedBy: 'alice' });
    waveId = result.runId;

    // All four lanes' implementers run at the same time: separate invocations, in parallel.
    await waitFor(
      'every lane to be running',
      async () =>
        LANES.every((id) => existsSync(join(paths.fleetGates, `running-${id}`))) ? true : undefined,
      120_000,
    );
    worker.child.kill('SIGKILL');
    await worker.ended;
    // Mid-lane: no lane has made its paid action, nothing was pushed but the wave's branch.
    expect(sortedLines(readFileSync(paths.fleetLog, 'utf8'))).toEqual(
      LANES.map((id) => `implement ${id} 0`).sort(),
    );
    expect(git(remote, 'branch', '--list').trim().split('\n').length).toBe(3);

    // The worker restarted: the same address, the same work directory, not registered again.
    worker = startWorker(false);
    writeFileSync(join(paths.fleetGates, 'go'), '');
    const status = await finished('crank', waveId);

    const local = await localRun(crankCommand, WAVE_BRANCH, () => [
      '--wave',
      paths.wave,
      '--implementer',
      agents.implementer,
      '--validator',
      agents.validator,
    ]);
    // Written by hand from the scripts: lanes a, c, d PASS, lane b FAILs with f1 and no repair
    // round, the acceptance passes, so the wave exits 4.
    expect(local.lanes.map((lane: { status: string }) => lane.status)).toEqual([
      'PASS',
      'FAIL',
      'PASS',
      'PASS',
    ]);
    expect(local.exitCode).toBe(4);
    expect(local.acceptance.passed).toBe(true);
    expect(
      waveReport({
        ...status.result.evidence,
        exitCode: status.result.exitCode,
        terminal: status.result.terminal,
      }),
    ).toEqual(waveReport(local as never));

    // Each lane's implementer started once and paid once; each validator ran once; the acceptance once.
    const expected = [
      ...LANES.flatMap((id) => [`implement ${id} 0`, `paid ${id}`, `validate ${id} 0`]),
      'acceptance',
    ].sort();
    expect(sortedLines(readFileSync(paths.fleetLog, 'utf8'))).toEqual(expected);
    expect(sortedLines(readFileSync(paths.localLog, 'utf8'))).toEqual(expected);

    // Each lane's work on its own branch, and all of it, merged, on the wave's branch.
    for (const [i, id] of LANES.entries()) {
      const branch = `${WAVE_BRANCH}.lane-${i + 1}-${id}`;
      expect(git(remote, 'show', `${branch}:src/${id}/out.txt`)).toBe(`done by ${id}\n`);
      expect(git(remote, 'ls-tree', '-r', '--name-only', branch).trim().split('\n').sort()).toEqual(
        ['README.md', 'src/a/a.txt', `src/${id}/out.txt`].sort(),
      );
      expect(status.lanes[i]).toMatchObject({ id, branch, head: git(remote, 'rev-parse', branch).trim() });
    }
    for (const id of LANES)
      expect(git(remote, 'show', `${WAVE_BRANCH}:src/${id}/out.txt`)).toBe(`done by ${id}\n`);
    expect(status.result.head).toBe(git(remote, 'rev-parse', WAVE_BRANCH).trim());

    // A lane runs only when the wave calls it: the ingress refuses it, and nothing runs.
    const intruder = await fetch(`${restate.ingress}/rpi/${waveId}.9/lane`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        wave: { remote, branch: WAVE_BRANCH, wave: disjointWave(LANES) },
        waveId,
        index: 0,
        base: status.base,
      }),
    });
    expect(intruder.status).toBeGreaterThanOrEqual(400);
    expect(intruder.status).toBeLessThan(500);
    expect(existsSync(join(paths.workDir, `${waveId}.9`))).toBe(false);
    expect((await statusOf('rpi', `${waveId}.9`))?.phase).toBe('unknown');
  }, 360_000);
});

describe('an rpi run on a Restate fleet', () => {
  it('reports what a local rpi run of the same intent reports, and pushes the work to its branch', async () => {
    const submitted = await fleet([
      'submit',
      '--rpi',
      '--remote',
      remote,
      '--branch',
      RPI_BRANCH,
      '--intent',
      paths.intent,
      '--intent-ref',
      'issue-7',
      '--repair-rounds',
      '0',
      '--ingress',
      restate.ingress,
      '--credential',
      paths.credential,
      '--json',
    ]);
    expect(submitted.code, submitted.stderr).toBe(0);
    const runId = parseCliResult(submitted.stdout).runId;
    const status = await finished('rpi', runId);
    const local = await localRun(rpiCommand, RPI_BRANCH, () => [
      '--implementer',
      agents.implementer,
      '--validator',
      agents.validator,
      '--intent',
      paths.intent,
      '--intent-ref',
      'issue-7',
      '--repair-rounds',
      '0',
    ]);
    expect(local).toMatchObject({ exitCode: 0, terminal: 'converged', converged: true });
    expect(local.report.intent_ref).toBe('issue-7');
    expect(rpiReport(status.result)).toEqual(rpiReport(local));
    expect(git(remote, 'show', `${RPI_BRANCH}:src/solo/out.txt`)).toBe('done by solo\n');

    // A run whose branch is not on the remote fails with the named error, and is not retried.
    const missing = await fleet([
      'submit',
      '--rpi',
      '--remote',
      remote,
      '--branch',
      'rpi/missing',
      '--ingress',
      restate.ingress,
      '--credential',
      paths.credential,
      '--json',
    ]);
    expect(missing.code, missing.stderr).toBe(0);
    const failed = await waitFor('the run without a branch to fail', async () => {
      const status = await statusOf('rpi', parseCliResult(missing.stdout).runId);
      return status?.phase === 'failed' ? status : undefined;
    });
    expect(failed.error).toContain('fleet.branch-missing');

    // `loopchart runs --json` lists the wave and the rpi runs with their results.
    const runs = await fleet(['runs', '--ingress', restate.ingress, '--json']);
    expect(runs.code, runs.stderr).toBe(0);
    const listed = parseCliResult(runs.stdout).runs as Json[];
    expect(listed.map((run) => [run.kind, run.phase])).toEqual([
      ['crank', 'finished'],
      ['rpi', 'finished'],
      ['rpi', 'failed'],
    ]);
    expect(listed[1]?.result.report).toEqual(local.report);
    // And for people: the kind, the branch, the phase and result, each lane on its branch.
    const text = await fleet(['runs', '--ingress', restate.ingress]);
    expect(text.code, text.stderr).toBe(0);
    const lines = text.stdout.split('\n');
    expect(lines).toContain(
      `${listed[0]?.runId}  crank ${WAVE_BRANCH}  finished, evidenced (exit 4) at ${git(remote, 'rev-parse', WAVE_BRANCH).slice(0, 12)}`,
    );
    expect(lines).toContain(`  lane b on ${WAVE_BRANCH}.lane-2-b: FAIL`);
    expect(lines).toContain(
      `${runId}  rpi ${RPI_BRANCH}  finished, converged (exit 0) at ${git(remote, 'rev-parse', RPI_BRANCH).slice(0, 12)}`,
    );
    expect(lines.some((line) => line.includes('fleet.branch-missing'))).toBe(true);
  }, 240_000);
});
