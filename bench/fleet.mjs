// Benchmark: loop-engine runs through a Restate fleet against the same runs made locally.
//
// A "no-op loop" is a one-row spec whose scripted child closes the row on the baseline at seed: the
// loop seeds, verifies (`true`) and finishes, with real git, a real child process and a real push.
// N runs (N = 8, 32) go through `restate-server` (node_modules) and 1 or 3 `loopchart serve`
// workers behind one address (test/support/fleet-balancer.ts, bundled here: an HTTP/2 proxy that
// gives each stream to the next live worker, decision F10); the same N runs are made one after
// another locally with `createRunner` (the baseline).
// Printed: each fleet wall time against the local one, the throughput (local time over fleet
// time), the time the fleet added per run ((fleet - local) / N), and the per-run overhead of one
// run alone through one worker, minus one local run (a single sample: noisy on a loaded machine).
// No assertions. Run `npm run build` first (it uses ../dist). Slow: several minutes.
import { execFile, execFileSync, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { promisify } from 'node:util';
import { loadNote, report } from './lib/measure.mjs';

const root = new URL('..', import.meta.url).pathname;
const library = await import('../dist/index.js');

const env = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@loopchart.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@loopchart.invalid',
};
Object.assign(process.env, env);
const cli = join(root, 'dist', 'cli.js');
const SPEC =
  '# Bench\n\n**Amend-grant:** none\n\n## Acceptance criteria\n\nTicket B-1, checkbox list, rows verbatim:\n\n- [ ] one\n';
const SCRIPT = {
  version: 1,
  targets: { seed: [{ do: 'seed', evidence: { 1: 'one; passes' }, closeOnBaseline: [1] }] },
};

/** The numbers of runs (LOOPCHART_BENCH_FLEET_SIZES=2 for a quick check of the benchmark itself). */
const SIZES = (process.env.LOOPCHART_BENCH_FLEET_SIZES ?? '8,32').split(',').map(Number);
const processes = [];
function start(command, args) {
  const child = spawn(command, args, { env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  child.stdout.on('data', (c) => (output += c));
  child.stderr.on('data', (c) => (output += c));
  processes.push(child);
  return { child, output: () => output };
}
function stopAll() {
  for (const child of processes) if (child.exitCode === null) child.kill('SIGKILL');
}
process.on('exit', stopAll);
for (const signal of ['SIGINT', 'SIGTERM'])
  process.on(signal, () => {
    stopAll();
    process.exit(130);
  });

function freePort() {
  return new Promise((resolve) => {
    const server = createServer();
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}
async function until(what, probe, limitMs = 600_000, everyMs = 100) {
  const end = Date.now() + limitMs;
  for (;;) {
    if (await probe().catch(() => false)) return;
    if (Date.now() > end) throw new Error(`gave up waiting for ${what}`);
    await new Promise((r) => setTimeout(r, everyMs));
  }
}

const work = mkdtempSync(join(tmpdir(), 'loopchart-bench-fleet-'));

/** The tests' stream balancer (TypeScript), bundled into this run's folder. */
async function loadBalancer() {
  const { build } = await import('esbuild');
  const outfile = join(work, 'fleet-balancer.mjs');
  await build({
    entryPoints: [join(root, 'test', 'support', 'fleet-balancer.ts')],
    outfile,
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node20',
    logLevel: 'silent',
  });
  return (await import(outfile)).startBalancer;
}
const startBalancer = await loadBalancer();
const git = (cwd, ...args) =>
  execFileSync('git', args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] }).toString();
const seed = join(work, 'seed');
mkdirSync(join(seed, 'docs', 'specs'), { recursive: true });
git(seed, 'init', '-q', '-b', 'main');
writeFileSync(join(seed, 'docs', 'specs', 'bench.md'), SPEC);
git(seed, 'add', '-A');
git(seed, 'commit', '-q', '-m', 'bench spec');
const scriptPath = join(work, 'script.json');
writeFileSync(scriptPath, JSON.stringify(SCRIPT));
const child = `${process.execPath} ${cli} scripted-child ${scriptPath}`;

let localCount = 0;
async function localRuns(n) {
  const start = performance.now();
  for (let i = 0; i < n; i += 1) {
    localCount += 1;
    const dir = join(work, `local-${localCount}`);
    git(work, 'clone', '-q', seed, dir);
    const result = await library
      .createRunner({
        worktree: dir,
        spec: 'docs/specs/bench.md',
        child,
        verification: 'true',
        transcript: false,
        waiveConformanceReview: true,
      })
      .run();
    if (result.status !== 'finished') throw new Error(`local run ${result.status}: ${result.message ?? ''}`);
  }
  return performance.now() - start;
}

async function fleet(workers) {
  const dir = join(work, `restate-${workers}`);
  mkdirSync(dir);
  const require = createRequire(import.meta.url);
  const binary = require.resolve(
    `@restatedev/restate-server-${process.platform}-${process.arch}/bin/restate-server`,
  );
  const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  writeFileSync(join(dir, 'key.pem'), pem);
  const [fabric, admin, ingress] = [await freePort(), await freePort(), await freePort()];
  writeFileSync(
    join(dir, 'restate.toml'),
    `base-dir = "${join(dir, 'data')}"\nbind-address = "127.0.0.1:${fabric}"\nadvertised-address = "http://127.0.0.1:${fabric}/"\nlisten-mode = "tcp"\ndisable-telemetry = true\ndefault-num-partitions = 4\nlog-filter = "warn,restate_service_client=info"\nlog-disable-ansi-codes = true\n[admin]\nbind-address = "127.0.0.1:${admin}"\ndisable-web-ui = true\n[ingress]\nbind-address = "127.0.0.1:${ingress}"\n[worker.invoker]\nrequest-identity-private-key-pem-file = "${join(dir, 'key.pem')}"\n`,
  );
  const server = start(binary, ['--config-file', join(dir, 'restate.toml'), '--no-logo']);
  const own = [server.child];
  const adminUrl = `http://127.0.0.1:${admin}`;
  const ingressUrl = `http://127.0.0.1:${ingress}`;
  await until(
    'restate',
    async () => (await fetch(`${adminUrl}/health`)).ok && (await fetch(`${ingressUrl}/restate/health`)).ok,
  );
  // The server names its request-identity key in its log when it loads it.
  await until('the identity key', async () => /publickeyv1_\w+/.test(server.output()));
  const identityKey = /publickeyv1_\w+/.exec(server.output())[0];
  const operators = join(dir, 'operators');
  writeFileSync(operators, 'bench bench-secret-0123456789\n');
  const ports = [];
  for (let w = 0; w < workers; w += 1) {
    const port = await freePort();
    ports.push(port);
    const worker = start(process.execPath, [
      cli,
      'serve',
      '--port',
      String(port),
      '--identity-key',
      identityKey,
      '--operators',
      operators,
      '--work-dir',
      join(dir, `worker-${w}`),
      '--child',
      child,
    ]);
    own.push(worker.child);
    await until('a worker', async () => worker.output().includes('serving at'));
  }
  const lb = await startBalancer(ports);
  const registered = await fetch(`${adminUrl}/deployments`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ uri: lb.url }),
  });
  if (!registered.ok) throw new Error(`registration: ${await registered.text()}`);
  const remote = join(dir, 'remote.git');
  git(work, 'clone', '-q', '--bare', seed, remote);
  const submitAll = async (names) => {
    // The branches exist before the clock starts; the runs are submitted all at once, each with
    // its own `loopchart submit` process (asynchronously: the balancer runs in this event loop).
    for (const name of names) git(seed, 'push', '-q', remote, `main:refs/heads/${name}`);
    const start = performance.now();
    const submit = async (name) => {
      const { stdout } = await promisify(execFile)(
        process.execPath,
        [
          cli,
          'submit',
          '--ingress',
          ingressUrl,
          '--credential',
          operators,
          '--remote',
          remote,
          '--spec',
          'docs/specs/bench.md',
          '--branch',
          name,
          '--verification',
          'true',
          '--no-conformance-review',
        ],
        { env },
      );
      return stdout.trim();
    };
    const ids = await Promise.all(names.map(submit));
    // Each status read is an invocation on a worker: ask only about the runs not yet finished, twice
    // a second, so the polling does not compete with the runs it waits for.
    let waiting = ids;
    await until(
      'the runs',
      async () => {
        const phases = await Promise.all(
          waiting.map(
            async (id) =>
              (await (await fetch(`${ingressUrl}/loop/${id}/status`, { method: 'POST' })).json()).phase,
          ),
        );
        if (phases.some((p) => p === 'failed' || p === 'invalid')) throw new Error(`a run ended ${phases}`);
        waiting = waiting.filter((_, i) => phases[i] !== 'finished');
        return waiting.length === 0;
      },
      600_000,
      500,
    );
    return performance.now() - start;
  };
  // Closing a fleet stops its server and workers, so an idle fleet never competes with the next.
  return {
    submitAll,
    close: () => {
      const spread = [...lb.forwarded.values()].join(' / ');
      console.log(`  streams per worker (${workers} worker${workers === 1 ? '' : 's'}): ${spread}`);
      lb.close();
      for (const child of own) child.kill('SIGKILL');
    },
  };
}

export async function benchFleet() {
  try {
    await localRuns(1); // warm-up: the first run loads and compiles the library
    const one = await localRuns(1);
    const single = await fleet(1);
    const alone = await single.submitAll(['warm']).then(() => single.submitAll(['alone']));
    report('per-run overhead of the fleet (1 worker)', alone - one, 'one local run', one, 'ms');
    for (const n of SIZES) {
      const local = await localRuns(n);
      const oneWorker = await single.submitAll(Array.from({ length: n }, (_, i) => `one-${n}-${i}`));
      report(`${n} runs through 1 worker (wall time)`, oneWorker, `${n} local runs in a row`, local);
      console.log(`  throughput through 1 worker: ${(local / oneWorker).toFixed(2)}x the local runs'`);
      console.log(`  time the fleet added per run (1 worker): ${((oneWorker - local) / n).toFixed(0)} ms`);
    }
    single.close();
    const three = await fleet(3);
    for (const n of SIZES) {
      const local = await localRuns(n);
      const threeWorkers = await three.submitAll(Array.from({ length: n }, (_, i) => `three-${n}-${i}`));
      report(`${n} runs through 3 workers (wall time)`, threeWorkers, `${n} local runs in a row`, local);
      console.log(`  throughput through 3 workers: ${(local / threeWorkers).toFixed(2)}x the local runs'`);
      console.log(
        `  time the fleet added per run (3 workers): ${((threeWorkers - local) / n).toFixed(0)} ms`,
      );
    }
    three.close();
  } finally {
    stopAll();
    rmSync(work, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(`== bench/fleet.mjs (${loadNote()})`);
  await benchFleet();
}
