/**
 * The fleet end to end (docs/scale-out.md): a real `restate-server` from node_modules on free ports
 * with a temporary data directory, `loopchart serve` workers as real processes, a bare git remote,
 * and the demo's loop-engine run submitted with `loopchart submit`.
 *
 * The smallest run that proves each guarantee: the worker is SIGKILLed (with its child) while the
 * first dispatch runs, and a fresh worker with an empty work directory (another machine, behind the
 * same address) takes the run over; the run's human stop is refused to an unknown operator and to a
 * wrong secret, then answered with `loopchart answer`; the pushed ledger, the `loop:` subjects and
 * the commit SHAs equal those of a local `loopchart run` of the same spec and scripted child (commit
 * dates fixed), so no step and no paid action (the script's `fixture-capture`) ran twice. Then an
 * unsigned request to the worker is refused, and the planted operator secret appears in no file
 * and no output of the fleet. Every process is SIGKILLed in afterAll, whatever happened.
 */
import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import {
  existsSync,
  mkdirSync,
  mkdtempSync,
  readdirSync,
  readFileSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { connect } from 'node:http2';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  DEMO_ANSWER,
  DEMO_PATHS,
  DEMO_SETTINGS,
  DEMO_VERIFICATION,
  prepareDemoRepository,
} from '../../src/host/demo.js';
import { bundledScriptedChild } from '../support/cli-bundle.js';
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
import { cli, GIT_TEST_ENV } from '../support/loop-repo.js';

const root = mkdtempSync(join(tmpdir(), 'loopchart-fleet-'));
const SECRET = `planted-${randomBytes(12).toString('hex')}`;
const FIXED_DATE = '2026-01-01T00:00:00Z';
const ENV = { ...GIT_TEST_ENV, GIT_AUTHOR_DATE: FIXED_DATE, GIT_COMMITTER_DATE: FIXED_DATE };
const BRANCH = 'loop/csv-export';
const outputs: string[] = [];

let restate: RestateServer;
let cliPath: string;
let childCommand: string;
let workerPort: number;
let remote: string;
let runId: string;
let secondWorker: Started;
const paths = {
  operators: join(root, 'secrets', 'operators'),
  credential: join(root, 'secrets', 'alice'),
  wrongSecret: join(root, 'secrets', 'alice-wrong'),
  stranger: join(root, 'secrets', 'mallory'),
};

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

function startWorker(workDir: string, register: boolean): Started {
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
      workDir,
      '--child',
      childCommand,
      '--json',
      ...(register ? ['--restate', restate.admin] : []),
    ],
    ENV,
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

beforeAll(async () => {
  mkdirSync(join(root, 'secrets'));
  writeFileSync(paths.operators, `# who may submit and answer\nalice ${SECRET}\n`);
  writeFileSync(paths.credential, `alice ${SECRET}\n`);
  writeFileSync(paths.wrongSecret, `alice not-the-${SECRET.slice(8)}\n`);
  writeFileSync(paths.stranger, `mallory ${SECRET}\n`);
  [restate, cliPath] = await Promise.all([startRestate(join(root, 'restate')), bundledFleetCli()]);
  workerPort = await freePort();
  // The same child as a local run; its first start waits a little, so the worker dies mid-dispatch.
  const child = `${process.execPath} ${await bundledScriptedChild()} ${DEMO_PATHS.script}`;
  const marker = join(root, 'first-dispatch');
  childCommand = `if [ ! -e ${marker} ]; then : > ${marker}; sleep 2; fi; ${child}`;
  const seed = prepareDemoRepository(join(root, 'seed'));
  remote = join(root, 'remote.git');
  git(root, 'clone', '-q', '--bare', seed.dir, remote);
  git(seed.dir, 'push', '-q', remote, `main:refs/heads/${BRANCH}`);
}, 120_000);

afterAll(async () => {
  await stopAll();
  killProcessesIn(root);
  rmSync(root, { recursive: true, force: true });
});

describe('a loop-engine run on a Restate fleet', () => {
  it('survives its worker being SIGKILLed mid-dispatch, and reaches the human stop on a fresh worker', async () => {
    const first = startWorker(join(root, 'worker-1'), true);
    await waitFor('the first worker to register', async () =>
      first.output().includes('serving at') ? true : undefined,
    );
    const submitted = await fleet([
      'submit',
      '--ingress',
      restate.ingress,
      '--credential',
      paths.credential,
      '--remote',
      remote,
      '--spec',
      DEMO_PATHS.spec,
      '--ledger',
      DEMO_PATHS.ledger,
      '--branch',
      BRANCH,
      '--verification',
      DEMO_VERIFICATION,
      '--allowance',
      String(DEMO_SETTINGS.allowance),
      '--impl-model',
      DEMO_SETTINGS.implModel,
      '--no-conformance-review',
      '--json',
    ]);
    expect(submitted.code, submitted.stderr).toBe(0);
    const result = parseCliResult(submitted.stdout);
    expect(result).toMatchObject({
      command: 'submit',
      status: 'finished',
      exitCode: 0,
      submittedBy: 'alice',
    });
    runId = result.runId;

    // Mid-dispatch: the runner has recorded its first dispatch in the worker's clone.
    const dispatches = join(root, 'worker-1', runId, '.git', 'loopchart', 'dispatches');
    await waitFor('the first dispatch', async () =>
      existsSync(dispatches) && readdirSync(dispatches).length > 0 ? true : undefined,
    );
    first.child.kill('SIGKILL');
    killProcessesIn(join(root, 'worker-1'));
    await first.ended;
    // Nothing of the interrupted step was pushed: the branch is still the spec commit alone.
    expect(git(remote, 'rev-list', '--count', BRANCH).trim()).toBe('1');

    // Another machine behind the same address: an empty work directory, already registered.
    const second = startWorker(join(root, 'worker-2'), false);
    secondWorker = second;
    await waitFor('the run to stop for a human', async () =>
      (await phaseOf(runId)) === 'stopped' ? true : undefined,
    );
    expect(second.child.exitCode).toBeNull();
    const runs = await runsJson();
    const run = runs.find((r) => r.runId === runId);
    expect(run?.stopId).toBe(`${runId}.0`);
    expect(run?.answers).toEqual([]);
  }, 180_000);

  it('refuses an answer without the credential, and changes nothing', async () => {
    const before = git(remote, 'rev-parse', BRANCH);
    for (const credential of [paths.stranger, paths.wrongSecret]) {
      const refused = await fleet([
        'answer',
        runId,
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
    const raw = await fetch(`${restate.ingress}/loop/${runId}/answer`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ reply: DEMO_ANSWER, stopId: `${runId}.0` }),
    });
    expect(raw.status).toBe(401);
    const run = (await runsJson()).find((r) => r.runId === runId);
    expect(run).toMatchObject({ phase: 'stopped', answers: [] });
    expect(git(remote, 'rev-parse', BRANCH)).toBe(before);
  }, 60_000);

  it('answers the stop with loopchart answer; the run ends with the ledger, subjects and SHAs of a local run', async () => {
    const answered = await fleet([
      'answer',
      runId,
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
      runId,
      stopId: `${runId}.0`,
      answeredBy: 'alice',
    });
    await waitFor(
      'the run to finish',
      async () => ((await phaseOf(runId)) === 'finished' ? true : undefined),
      120_000,
    );
    const run = (await runsJson()).find((r) => r.runId === runId);
    expect(run?.answers).toEqual([expect.objectContaining({ by: 'alice', reply: DEMO_ANSWER })]);

    // The same spec and scripted child, run locally from the same commit (the reference).
    const local = join(root, 'local');
    git(root, 'clone', '-q', '--branch', BRANCH, remote, local);
    git(local, 'reset', '-q', '--hard', git(remote, 'rev-list', '--max-parents=0', BRANCH).trim());
    Object.assign(process.env, ENV);
    const args = [
      '--worktree',
      local,
      '--spec',
      DEMO_PATHS.spec,
      '--ledger',
      DEMO_PATHS.ledger,
      '--child',
      `${process.execPath} ${await bundledScriptedChild()} ${DEMO_PATHS.script}`,
      '--verification',
      DEMO_VERIFICATION,
      '--allowance',
      String(DEMO_SETTINGS.allowance),
      '--impl-model',
      DEMO_SETTINGS.implModel,
      '--no-conformance-review',
      '--transcript',
      join(root, 'local-transcript.jsonl'),
    ];
    expect((await cli('run', args)).code).toBe(3);
    expect((await cli('run', [...args, '--answer', DEMO_ANSWER])).code).toBe(0);

    const fleetLedger = git(remote, 'show', `${BRANCH}:${DEMO_PATHS.ledger}`);
    expect(fleetLedger).toBe(readFileSync(join(local, DEMO_PATHS.ledger), 'utf8'));
    const fleetLog = git(remote, 'log', '--format=%H %s', BRANCH);
    expect(fleetLog).toBe(git(local, 'log', '--format=%H %s'));
    expect(fleetLog).toContain(' loop: ');
    // The script's one paid action, recorded once.
    expect(fleetLedger.match(/ran fixture-capture/g)).toHaveLength(1);
    // Who answered, on the commit the stop was shown at, beside the branch.
    const notes = git(remote, 'log', '--format=%N', `--notes=refs/notes/loopchart-answers/${BRANCH}`, BRANCH);
    expect(notes).toContain('answered-by: alice');
    expect(notes).toContain(`reply: ${DEMO_ANSWER}`);
  }, 240_000);

  it('refuses a request to a worker that the Restate server did not sign', async () => {
    const session = connect(`http://127.0.0.1:${workerPort}`);
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
    secondWorker.child.kill('SIGTERM');
    await waitFor(
      'the result of serve',
      async () => (secondWorker.stdout().includes('"serve"') ? true : undefined),
      20_000,
    ).catch((error: Error) => {
      throw new Error(`${error.message}: ${secondWorker.output().slice(-2000)}`);
    });
    const code = await Promise.race([
      secondWorker.ended,
      new Promise((r) => setTimeout(() => r('hung'), 15_000)),
    ]);
    expect(code, secondWorker.output().slice(-3000)).toBe(0);
    outputs.push(secondWorker.output());
    expect(parseCliResult(secondWorker.stdout())).toMatchObject({
      command: 'serve',
      status: 'finished',
      exitCode: 0,
    });
  });

  it('never writes the planted operator secret outside the credential files, nor prints it', async () => {
    await stopAll();
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
