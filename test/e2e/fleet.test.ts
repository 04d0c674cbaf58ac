/**
 * The fleet end to end (docs/scale-out.md): a real `restate-server` from node_modules on free ports
 * with a temporary data directory, three `loopchart serve` workers as real processes behind the
 * test balancer (test/support/fleet-balancer.ts, one registered address), bare git remotes, six
 * loop-engine runs submitted at once with `loopchart submit` (the demo's, with a human stop, one
 * whose scripted child makes a paid action, and four one-row loops) and one crank wave.
 *
 * The smallest fleet that proves each guarantee once: the worker running the paid child is
 * SIGKILLed (with its child) after the paid action and before the step's push, picked without
 * timing (the child names its clone in a marker file and waits); a live worker takes the run over
 * and its child is refused the reservation, so the action (which appends to a counter file outside
 * every clone) ran once. The demo's stop is refused to an unknown operator and a wrong secret, then
 * answered with `loopchart answer`. Every run's pushed ledger, `loop:` subjects and commit SHAs
 * equal those of a local `loopchart run` of the same spec and child from the same commit (commit
 * dates fixed). Then a crank wave of four lanes (the lane scripts of test/support/fleet-crank.ts)
 * fans out over the two live workers; a worker running a lane is SIGKILLed while its implementers,
 * which have paid (through `loopchart reserve`), wait at their gate, the lanes move to the last
 * worker and are refused their reservations, and the wave's report equals a local
 * `loopchart crank` run's, each lane's paid line written once. Then an unsigned request to a
 * worker is refused, a worker stops on SIGTERM with its
 * result, and the planted operator secret appears in no file and no output of the fleet. Every
 * process is SIGKILLed in afterAll, whatever happened.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  readlinkSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:http2';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { crankCommand } from '../../src/cli/crank.js';
import type { ChildScript } from '../../src/host/child-script.js';
import {
  DEMO_ANSWER,
  DEMO_PATHS,
  DEMO_SETTINGS,
  DEMO_VERIFICATION,
  prepareDemoRepository,
} from '../../src/host/demo.js';
import { defaultLedgerPath } from '../../src/host/run-paths.js';
import { bundledLoopCli, bundledScriptedChild } from '../support/cli-bundle.js';
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
import { type Balancer, startBalancer } from '../support/fleet-balancer.js';
import { disjointWave, sortedLines, waveReport, writeLaneScripts } from '../support/fleet-crank.js';
import { cli, GIT_TEST_ENV } from '../support/loop-repo.js';
import { stringSinks } from '../support/string-sinks.js';

const root = mkdtempSync(join(tmpdir(), 'loopchart-fleet-'));
const SECRET = `planted-${randomBytes(12).toString('hex')}`;
const FIXED_DATE = '2026-01-01T00:00:00Z';
const ENV = { ...GIT_TEST_ENV, GIT_AUTHOR_DATE: FIXED_DATE, GIT_COMMITTER_DATE: FIXED_DATE };
const outputs: string[] = [];
const WORKERS = 3;

/** One submitted run: where its branch lives and what `submit` (and the local run) are given. */
interface RunPlan {
  readonly name: string;
  readonly remote: string;
  readonly branch: string;
  readonly spec: string;
  readonly ledger: string;
  readonly options: readonly string[];
  id?: string;
}

const one = (title: string, row: string) =>
  `# ${title}\n\n**Amend-grant:** none\n\n## Acceptance criteria\n\nTicket T-1, checkbox list, rows verbatim:\n\n- [ ] ${row}\n`;
const NOOP_SPEC = 'docs/specs/noop.md';
const PAID_SPEC = 'docs/specs/capture.md';
/** Closes its one row on the baseline at the seed. */
const NOOP_SCRIPT: ChildScript = {
  version: 1,
  targets: {
    seed: [{ do: 'seed', evidence: { '1': 'noop-test; passes on baseline' }, closeOnBaseline: [1] }],
  },
};
/** The row dispatch records the paid action that the child wrapper makes before it. */
const PAID_SCRIPT: ChildScript = {
  version: 1,
  targets: {
    seed: [{ do: 'seed', evidence: { '1': 'capture-test; 1 failing: nothing captured' } }],
    '1': [
      {
        do: 'done',
        evidence: 'capture-test; 1 passed; the capture is stored',
        files: { 'src/capture.txt': 'captured\n' },
        spend: ['ran capture (1 of 1)'],
      },
    ],
  },
  reviews: { 'whole-diff': [{ verdict: 'SHIP' }] },
};
const demoOptions = [
  '--ledger',
  DEMO_PATHS.ledger,
  '--verification',
  DEMO_VERIFICATION,
  '--allowance',
  String(DEMO_SETTINGS.allowance),
  '--impl-model',
  DEMO_SETTINGS.implModel,
  '--no-conformance-review',
];
const runs: RunPlan[] = [
  {
    name: 'demo',
    remote: join(root, 'demo.git'),
    branch: 'loop/csv-export',
    spec: DEMO_PATHS.spec,
    ledger: DEMO_PATHS.ledger,
    options: demoOptions,
  },
  {
    name: 'paid',
    remote: join(root, 'paid.git'),
    branch: 'loop/capture',
    spec: PAID_SPEC,
    ledger: defaultLedgerPath(PAID_SPEC),
    options: ['--verification', 'test -f src/capture.txt', '--no-conformance-review'],
  },
  ...[1, 2, 3, 4].map((n) => ({
    name: `noop-${n}`,
    remote: join(root, 'noop.git'),
    branch: `loop/noop-${n}`,
    spec: NOOP_SPEC,
    ledger: defaultLedgerPath(NOOP_SPEC),
    options: ['--verification', 'true', '--no-conformance-review'],
  })),
];
const byName = (name: string) => runs.find((r) => r.name === name) as RunPlan;

let restate: RestateServer;
let balancer: Balancer;
let cliPath: string;
const workers: Array<{ port: number; dir: string; process: Started }> = [];
const paths = {
  operators: join(root, 'secrets', 'operators'),
  credential: join(root, 'secrets', 'alice'),
  wrongSecret: join(root, 'secrets', 'alice-wrong'),
  stranger: join(root, 'secrets', 'mallory'),
};
const paid = {
  /** One line per paid action the fleet's children made (outside every clone). */
  counter: join(root, 'paid-actions'),
  /** The same for the local reference run. */
  localCounter: join(root, 'paid-actions-local'),
  /** Written by the first paid child, with its clone, once its action ran; it then waits. */
  armed: join(root, 'paid-armed'),
};
let fleetChild: string;
let localChild: string;
/** The crank wave: four disjoint lanes whose implementers wait for a gate (test/support/fleet-crank.ts). */
const LANES = ['a', 'b', 'c', 'd'];
const wave = {
  remote: join(root, 'crank.git'),
  branch: 'crank/wave',
  file: join(root, 'wave.json'),
  fleetLog: join(root, 'crank-calls.log'),
  fleetGates: join(root, 'crank-gates'),
  localLog: join(root, 'crank-calls-local.log'),
  localGates: join(root, 'crank-gates-local'),
};
let agents: { implementer: string; validator: string };
/** The worker SIGKILLed after the paid action (the crank wave's victim must be another). */
let paidVictim = -1;

/** Runs a fleet command to its end; its output is kept for the secret check. */
async function fleet(args: readonly string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = startProcess(process.execPath, [cliPath, ...args], ENV);
  let stdout = '';
  let stderr = '';
  proc.child.stdout?.on('data', (chunk) => (stdout += chunk));
  proc.child.stderr?.on('data', (chunk) => (stderr += chunk));
  const code = await proc.ended;
  outputs.push(stdout, stderr);
  return { code: typeof code === 'number' ? code : -1, stdout, stderr };
}

function startWorker(index: number, register: boolean): Started {
  const worker = workers[index] as (typeof workers)[number];
  return startProcess(
    process.execPath,
    [
      cliPath,
      'serve',
      '--port',
      String(worker.port),
      '--identity-key',
      restate.identityKey,
      '--operators',
      paths.operators,
      '--work-dir',
      worker.dir,
      '--child',
      fleetChild,
      '--implementer',
      agents.implementer,
      '--validator',
      agents.validator,
      '--json',
      ...(register ? ['--restate', restate.admin, '--advertise', balancer.url] : []),
    ],
    { ...ENV, FLEET_TEST_LOG: wave.fleetLog, FLEET_TEST_GATES: wave.fleetGates },
  );
}

async function runsJson(): Promise<
  Array<{
    runId: string;
    phase: string;
    stopId: string | null;
    answers: Array<{ by: string; reply: string }>;
  }>
> {
  const out = await fleet(['runs', '--ingress', restate.ingress, '--json']);
  expect(out.code, out.stderr).toBe(0);
  return parseCliResult(out.stdout).runs;
}

/** The run's phase, read from the ingress directly (polling through a CLI process costs a node start). */
async function phaseOf(id: string): Promise<string | undefined> {
  const response = await fetch(`${restate.ingress}/loop/${id}/status`, { method: 'POST' });
  return response.ok ? ((await response.json()) as { phase: string }).phase : undefined;
}

const git = (cwd: string, ...args: string[]) =>
  execFileSync('git', args, { cwd, env: { ...process.env, ...ENV }, encoding: 'utf8' });

/** The crank lanes ($LOOPCHART_LANE) of the processes whose working directory is under `dir`. */
function lanesRunningIn(dir: string): string[] {
  const lanes = new Set<string>();
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    try {
      const cwd = readlinkSync(join('/proc', pid, 'cwd'));
      if (cwd !== dir && !cwd.startsWith(`${dir}/`)) continue;
      const lane = readFileSync(join('/proc', pid, 'environ'), 'utf8')
        .split('\0')
        .find((entry) => entry.startsWith('LOOPCHART_LANE='));
      if (lane !== undefined) lanes.add(lane.slice('LOOPCHART_LANE='.length));
    } catch {
      // gone, or not ours
    }
  }
  return [...lanes].sort();
}

/**
 * The child every worker runs: the scripted child, and in the paid repository (it holds
 * `.loopchart/paid`) a row dispatch first reserves and makes one paid action, as
 * docs/child-contract.md asks of a child. `armed` makes the fleet's first paid child name its clone
 * and wait once its action ran, so the test can kill its worker at that point.
 */
function paidChildWrapper(file: string, loopCli: string, scripted: string, counter: string, armed: boolean) {
  const tool = `${process.execPath} ${loopCli} child`;
  writeFileSync(
    file,
    [
      '#!/bin/sh',
      `if [ -e .loopchart/paid ] && [ "$(${tool} show --field kind 2>/dev/null)" = row ]; then`,
      `  if ${tool} spend reserve capture --bound 1 >/dev/null 2>&1; then`,
      `    echo "$PWD" >> ${counter}`,
      ...(armed
        ? [
            `    if [ ! -e ${paid.armed} ]; then`,
            `      echo "$PWD" > ${paid.armed}.tmp && mv ${paid.armed}.tmp ${paid.armed}`,
            '      exec sleep 600',
            '    fi',
          ]
        : []),
      `    ${tool} spend ran capture --bound 1 >/dev/null`,
      '  fi',
      'fi',
      `exec ${process.execPath} ${scripted} ${DEMO_PATHS.script}`,
      '',
    ].join('\n'),
  );
  chmodSync(file, 0o755);
  return file;
}

/** A repository holding `spec` and `script` (at the demo script's path), committed on main. */
function prepareRepository(dir: string, spec: string, specText: string, script: ChildScript, extra = {}) {
  const files: Record<string, string> = {
    'README.md': '# fleet test\n',
    [spec]: specText,
    [DEMO_PATHS.script]: `${JSON.stringify(script, null, 2)}\n`,
    ...extra,
  };
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(dir, path)), { recursive: true });
    writeFileSync(join(dir, path), text);
  }
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'fleet test: spec');
  return dir;
}

beforeAll(async () => {
  mkdirSync(join(root, 'secrets'));
  writeFileSync(paths.operators, `# who may submit and answer\nalice ${SECRET}\n`);
  writeFileSync(paths.credential, `alice ${SECRET}\n`);
  writeFileSync(paths.wrongSecret, `alice not-the-${SECRET.slice(8)}\n`);
  writeFileSync(paths.stranger, `mallory ${SECRET}\n`);
  let loopCli: string;
  let scripted: string;
  [restate, cliPath, loopCli, scripted] = await Promise.all([
    startRestate(join(root, 'restate')),
    bundledFleetCli(),
    bundledLoopCli(),
    bundledScriptedChild(),
  ]);
  fleetChild = paidChildWrapper(join(root, 'fleet-child.sh'), loopCli, scripted, paid.counter, true);
  localChild = paidChildWrapper(join(root, 'local-child.sh'), loopCli, scripted, paid.localCounter, false);

  const seeds = {
    demo: prepareDemoRepository(join(root, 'seed-demo')).dir,
    paid: prepareRepository(
      join(root, 'seed-paid'),
      PAID_SPEC,
      one('Capture', 'The capture is stored'),
      PAID_SCRIPT,
      {
        '.loopchart/paid': 'this repository makes a paid action\n',
      },
    ),
    noop: prepareRepository(
      join(root, 'seed-noop'),
      NOOP_SPEC,
      one('Nothing', 'Nothing changes'),
      NOOP_SCRIPT,
    ),
  };
  for (const run of runs) {
    const seed = seeds[run.name.startsWith('noop') ? 'noop' : (run.name as 'demo' | 'paid')];
    if (!existsSync(run.remote)) git(root, 'clone', '-q', '--bare', seed, run.remote);
    git(seed, 'push', '-q', run.remote, `main:refs/heads/${run.branch}`);
  }

  agents = writeLaneScripts(root, `${JSON.stringify(process.execPath)} ${JSON.stringify(cliPath)}`);
  mkdirSync(wave.fleetGates);
  mkdirSync(wave.localGates);
  writeFileSync(join(wave.localGates, 'go'), '');
  writeFileSync(wave.fleetLog, '');
  writeFileSync(wave.localLog, '');
  writeFileSync(wave.file, JSON.stringify(disjointWave(LANES)));
  const crankSeed = prepareRepository(join(root, 'seed-crank'), 'src/a/a.txt', 'a\n', NOOP_SCRIPT);
  git(root, 'clone', '-q', '--bare', crankSeed, wave.remote);
  git(crankSeed, 'push', '-q', wave.remote, `main:refs/heads/${wave.branch}`);

  for (let i = 0; i < WORKERS; i += 1)
    workers.push({ port: await freePort(), dir: join(root, `worker-${i}`), process: undefined as never });
  balancer = await startBalancer(workers.map((w) => w.port));
  // Two workers first, then the one that registers the balancer's address (discovery goes through it).
  for (const i of [1, 2, 0]) {
    const worker = workers[i] as (typeof workers)[number];
    worker.process = startWorker(i, i === 0);
    await waitFor(`worker ${i} to serve`, async () =>
      worker.process.output().includes('serving at') ? true : undefined,
    );
  }
}, 180_000);

afterAll(async () => {
  await stopAll();
  await balancer?.close();
  killProcessesIn(root);
  rmSync(root, { recursive: true, force: true });
});

describe('six loop-engine runs on a Restate fleet of three workers', () => {
  it('runs them all; the worker running the paid child dies after the paid action and before its push, and no action is made twice', async () => {
    const submitted = await Promise.all(
      runs.map((run) =>
        fleet([
          'submit',
          '--ingress',
          restate.ingress,
          '--credential',
          paths.credential,
          '--remote',
          run.remote,
          '--spec',
          run.spec,
          '--branch',
          run.branch,
          ...run.options,
          '--json',
        ]),
      ),
    );
    for (const [i, out] of submitted.entries()) {
      expect(out.code, out.stderr).toBe(0);
      const result = parseCliResult(out.stdout);
      expect(result).toMatchObject({
        command: 'submit',
        status: 'finished',
        exitCode: 0,
        submittedBy: 'alice',
      });
      (runs[i] as RunPlan).id = result.runId;
    }
    const paidRun = byName('paid');

    // The paid child made its action and waits: its clone says which worker runs it.
    const clone = await waitFor(
      'the paid action',
      async () => (existsSync(paid.armed) ? readFileSync(paid.armed, 'utf8').trim() : undefined),
      120_000,
    );
    const victim = workers.findIndex((w) => clone.startsWith(`${w.dir}/`));
    expect(victim).toBeGreaterThanOrEqual(0);
    paidVictim = victim;
    expect(clone).toBe(join((workers[victim] as (typeof workers)[number]).dir, paidRun.id as string));
    const killed = (workers[victim] as (typeof workers)[number]).process;
    killed.child.kill('SIGKILL');
    killProcessesIn((workers[victim] as (typeof workers)[number]).dir);
    await killed.ended;
    // Before the step's push: the remote branch is still the spec commit alone; the action ran once.
    expect(git(paidRun.remote, 'rev-list', '--count', paidRun.branch).trim()).toBe('1');
    expect(readFileSync(paid.counter, 'utf8').trim().split('\n')).toEqual([clone]);

    await waitFor(
      'the runs to end (the demo at its human stop)',
      async () => {
        const phases = await Promise.all(runs.map((run) => phaseOf(run.id as string)));
        if (phases.some((p) => p === 'failed' || p === 'invalid')) throw new Error(`a run ended ${phases}`);
        return phases.every((p, i) => p === ((runs[i] as RunPlan).name === 'demo' ? 'stopped' : 'finished'))
          ? true
          : undefined;
      },
      240_000,
      1000,
    );
    // A live worker re-ran the paid step from the pushed branch and was refused the reservation.
    expect(readFileSync(paid.counter, 'utf8').trim().split('\n')).toEqual([clone]);
    const rerun = workers.filter((_, i) => i !== victim).map((w) => join(w.dir, paidRun.id as string));
    expect(rerun.filter((dir) => existsSync(dir))).toHaveLength(1);
    const reservations = git(
      paidRun.remote,
      'for-each-ref',
      '--format=%(contents:subject)',
      'refs/loopchart-spend',
    );
    expect(reservations.trim()).toBe('ran capture (1 of 1)');
    // Streams, not connections, were balanced: every worker served some.
    for (const w of workers) expect(balancer.forwarded.get(w.port)).toBeGreaterThan(0);
    const demo = (await runsJson()).find((r) => r.runId === byName('demo').id);
    expect(demo?.stopId).toBe(`${byName('demo').id}.0`);
    expect(demo?.answers).toEqual([]);
  }, 420_000);

  it('refuses an answer without the credential, and changes nothing', async () => {
    const { id, remote, branch } = byName('demo');
    const before = git(remote, 'rev-parse', branch);
    for (const credential of [paths.stranger, paths.wrongSecret]) {
      const refused = await fleet([
        'answer',
        id as string,
        DEMO_ANSWER,
        '--ingress',
        restate.ingress,
        '--credential',
        credential,
        '--json',
      ]);
      expect(refused.code).toBe(2);
      expect(parseCliResult(refused.stdout).error.code).toBe('fleet.refused');
    }
    // Straight to the ingress, no signature at all.
    const raw = await fetch(`${restate.ingress}/loop/${id}/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reply: DEMO_ANSWER, stopId: `${id}.0` }),
    });
    expect(raw.status).toBe(401);
    const run = (await runsJson()).find((r) => r.runId === id);
    expect(run).toMatchObject({ phase: 'stopped', answers: [] });
    expect(git(remote, 'rev-parse', branch)).toBe(before);
  }, 60_000);

  it('answers the stop with loopchart answer, and records who answered', async () => {
    const { id, branch, remote } = byName('demo');
    const answered = await fleet([
      'answer',
      id as string,
      DEMO_ANSWER,
      '--ingress',
      restate.ingress,
      '--credential',
      paths.credential,
      '--json',
    ]);
    expect(answered.code, answered.stderr).toBe(0);
    expect(parseCliResult(answered.stdout)).toMatchObject({
      command: 'answer',
      runId: id,
      stopId: `${id}.0`,
      answeredBy: 'alice',
    });
    await waitFor(
      'the run to finish',
      async () => ((await phaseOf(id as string)) === 'finished' ? true : undefined),
      180_000,
      1000,
    );
    const run = (await runsJson()).find((r) => r.runId === id);
    expect(run?.answers).toEqual([expect.objectContaining({ by: 'alice', reply: DEMO_ANSWER })]);
    // Who answered, on the commit the stop was shown at, beside the branch.
    const notes = git(remote, 'log', '--format=%N', `--notes=refs/notes/loopchart-answers/${branch}`, branch);
    expect(notes).toContain('answered-by: alice');
    expect(notes).toContain(`reply: ${DEMO_ANSWER}`);
  }, 240_000);

  it('gives every run the ledger, loop: subjects and SHAs of a local run of the same spec and child', async () => {
    const saved = Object.fromEntries(Object.keys(ENV).map((k) => [k, process.env[k]]));
    Object.assign(process.env, ENV);
    try {
      // One local reference per spec (the four no-op runs start from the same commit).
      for (const name of ['demo', 'paid', 'noop-1']) {
        const reference = byName(name);
        const local = join(root, `local-${name}`);
        git(root, 'clone', '-q', '--branch', reference.branch, reference.remote, local);
        git(
          local,
          'reset',
          '-q',
          '--hard',
          git(reference.remote, 'rev-list', '--max-parents=0', reference.branch).trim(),
        );
        const args = [
          '--worktree',
          local,
          '--spec',
          reference.spec,
          '--child',
          localChild,
          ...reference.options,
          '--transcript',
          join(root, `local-${name}.jsonl`),
        ];
        if (name === 'demo') {
          expect((await cli('run', args)).code).toBe(3);
          expect((await cli('run', [...args, '--answer', DEMO_ANSWER])).code).toBe(0);
        } else expect((await cli('run', args)).code).toBe(0);
        const ledger = readFileSync(join(local, reference.ledger), 'utf8');
        const log = git(local, 'log', '--format=%H %s');
        expect(log).toContain(' loop: ');
        for (const run of runs.filter((r) => r.spec === reference.spec)) {
          expect(git(run.remote, 'show', `${run.branch}:${run.ledger}`), run.name).toBe(ledger);
          expect(git(run.remote, 'log', '--format=%H %s', run.branch), run.name).toBe(log);
        }
      }
    } finally {
      for (const [k, v] of Object.entries(saved))
        if (v === undefined) delete process.env[k];
        else process.env[k] = v;
    }
    // The local paid child made its action once, and each ledger records it once.
    expect(readFileSync(paid.localCounter, 'utf8').trim().split('\n')).toHaveLength(1);
    const { remote, branch, ledger } = byName('paid');
    expect(git(remote, 'show', `${branch}:${ledger}`).match(/ran capture \(1 of 1\)/g)).toHaveLength(1);
    const { remote: demoRemote, branch: demoBranch } = byName('demo');
    expect(
      git(demoRemote, 'show', `${demoBranch}:${DEMO_PATHS.ledger}`).match(/ran fixture-capture/g),
    ).toHaveLength(1);
  }, 240_000);

  it('fans a crank wave of four lanes out over the workers; another worker dies mid-lane, and the report equals a local crank run', async () => {
    const submitted = await fleet([
      'submit',
      '--crank',
      wave.file,
      '--remote',
      wave.remote,
      '--branch',
      wave.branch,
      '--ingress',
      restate.ingress,
      '--credential',
      paths.credential,
      '--json',
    ]);
    expect(submitted.code, submitted.stderr).toBe(0);
    const waveId = parseCliResult(submitted.stdout).runId as string;
    await waitFor(
      'every lane to be running',
      async () =>
        LANES.every((id) => existsSync(join(wave.fleetGates, `running-${id}`))) ? true : undefined,
      180_000,
    );
    // Mid-lane: the implementers wait at their gate. The lanes each live worker runs, read from the
    // processes whose working directory is one of its clones.
    const lanesOn = workers.map((w) => lanesRunningIn(w.dir));
    const victim = lanesOn.findIndex((lanes, i) => i !== paidVictim && lanes.length > 0);
    expect(victim).toBeGreaterThanOrEqual(0);
    expect(victim).not.toBe(paidVictim);
    const moved = lanesOn[victim] as string[];
    const killed = (workers[victim] as (typeof workers)[number]).process;
    killed.child.kill('SIGKILL');
    killProcessesIn((workers[victim] as (typeof workers)[number]).dir);
    await killed.ended;
    // Every lane has paid (its reservation is on the wave's remote) before it waits at its gate.
    expect(sortedLines(readFileSync(wave.fleetLog, 'utf8')).filter((l) => l.startsWith('paid'))).toEqual(
      LANES.map((id) => `paid ${id}`),
    );
    writeFileSync(join(wave.fleetGates, 'go'), '');
    const status = await waitFor(
      'the wave to finish',
      async () => {
        const response = await fetch(`${restate.ingress}/crank/${waveId}/status`, { method: 'POST' });
        // biome-ignore lint/suspicious/noExplicitAny: a status, read field by field
        const body = response.ok ? ((await response.json()) as Record<string, any>) : undefined;
        return body?.phase === 'finished' ? body : undefined;
      },
      240_000,
      1000,
    );

    // The same wave and agents, run locally by `loopchart crank` from the same commit.
    const local = join(root, 'local-crank');
    git(root, 'clone', '-q', '--branch', wave.branch, wave.remote, local);
    git(local, 'reset', '-q', '--hard', git(wave.remote, 'rev-list', '--max-parents=0', wave.branch).trim());
    const saved = { ...process.env };
    Object.assign(process.env, GIT_TEST_ENV, {
      FLEET_TEST_LOG: wave.localLog,
      FLEET_TEST_GATES: wave.localGates,
    });
    // biome-ignore lint/suspicious/noExplicitAny: a --json result, read field by field
    let report: Record<string, any>;
    try {
      const { io, out } = stringSinks();
      const args = [
        '--wave',
        wave.file,
        '--implementer',
        agents.implementer,
        '--validator',
        agents.validator,
      ];
      const code = await crankCommand.run([...args, '--repo', local, '--json'], io as never);
      report = JSON.parse(out.stdout);
      expect(report.exitCode).toBe(code);
    } finally {
      for (const key of Object.keys(process.env)) if (!(key in saved)) delete process.env[key];
      Object.assign(process.env, saved);
    }
    // By hand from the lane scripts: lane b's validator fails it, the others pass, the acceptance
    // passes, so the wave exits 4.
    expect(report.lanes.map((lane: { status: string }) => lane.status)).toEqual([
      'PASS',
      'FAIL',
      'PASS',
      'PASS',
    ]);
    expect(report.exitCode).toBe(4);
    expect(
      waveReport({
        ...status.result.evidence,
        exitCode: status.result.exitCode,
        terminal: status.result.terminal,
      }),
    ).toEqual(waveReport(report as never));
    // Every lane paid once and was validated once; the lanes on the dead worker started again, on
    // another worker, and were refused their reservation: one reservation ref per lane.
    expect(
      git(wave.remote, 'for-each-ref', '--format=%(refname)', 'refs/loopchart-spend/').trim().split('\n'),
    ).toHaveLength(LANES.length);
    const once = [...LANES.flatMap((id) => [`paid ${id}`, `validate ${id} 0`]), 'acceptance'];
    const started = [...LANES, ...moved].map((id) => `implement ${id} 0`);
    expect(sortedLines(readFileSync(wave.fleetLog, 'utf8'))).toEqual([...once, ...started].sort());
    expect(sortedLines(readFileSync(wave.localLog, 'utf8'))).toEqual(
      [...once, ...LANES.map((id) => `implement ${id} 0`)].sort(),
    );
    for (const id of LANES)
      expect(git(wave.remote, 'show', `${wave.branch}:src/${id}/out.txt`)).toBe(`done by ${id}\n`);
  }, 420_000);

  it('refuses a request to a worker that the Restate server did not sign', async () => {
    const live = workers.find(
      (w) => w.process.child.exitCode === null && w.process.child.signalCode === null,
    );
    const session = connect(`http://127.0.0.1:${live?.port}`);
    try {
      const status = await new Promise<number>((resolve, reject) => {
        const request = session.request({ ':method': 'GET', ':path': '/discover' });
        request.on('response', (headers) => resolve(Number(headers[':status'])));
        request.on('error', reject);
        request.end();
      });
      expect(status).toBe(401);
    } finally {
      session.close();
    }
  });

  it('serve stops on SIGTERM with its --json result', async () => {
    const worker = workers.find(
      (w) => w.process.child.exitCode === null && w.process.child.signalCode === null,
    )?.process as Started;
    worker.child.kill('SIGTERM');
    await waitFor(
      'the result of serve',
      async () => (worker.stdout().includes('"serve"') ? true : undefined),
      20_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}: ${worker.output().slice(-2000)}`);
    });
    const code = await Promise.race([worker.ended, new Promise((r) => setTimeout(() => r('hung'), 15_000))]);
    expect(code, worker.output().slice(-3000)).toBe(0);
    expect(parseCliResult(worker.stdout())).toMatchObject({
      command: 'serve',
      status: 'finished',
      exitCode: 0,
    });
  });

  it('never writes the planted operator secret outside the credential files, nor prints it', async () => {
    await stopAll();
    for (const w of workers) outputs.push(w.process.output());
    const files: string[] = [];
    const walk = (dir: string) => {
      for (const name of readdirSync(dir)) {
        const path = join(dir, name);
        const stat = statSync(path, { throwIfNoEntry: false });
        if (stat?.isDirectory()) walk(path);
        else if (stat?.isFile()) files.push(path);
      }
    };
    walk(root);
    const secretFiles = new Set(Object.values(paths));
    const holding = files.filter(
      (path) => !secretFiles.has(path) && readFileSync(path).includes(Buffer.from(SECRET)),
    );
    expect(holding).toEqual([]);
    expect(files.filter((path) => path.includes(join('restate', 'data'))).length).toBeGreaterThan(0);
    const printed = [...outputs, restate.process.output()].filter((text) => text.includes(SECRET));
    expect(printed).toEqual([]);
  });
});
