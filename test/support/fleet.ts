/**
 * Test support for the fleet (docs/scale-out.md): the Restate server from node_modules on free
 * ports with a temporary data directory and its own request-identity key, the fleet commands
 * bundled into one file run as real processes, and a registry of every process started so that
 * `stopAll` ends them whatever happened.
 */
import { type ChildProcess, spawn } from 'node:child_process';
import { generateKeyPairSync } from 'node:crypto';
import { mkdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { createServer } from 'node:net';
import { join } from 'node:path';
import { build } from 'esbuild';
import { requestIdentityPublicKey } from '../../src/fleet/credentials.js';
import { ESM_REQUIRE_BANNER, TEST_BUNDLE_OPTIONS } from './cli-bundle.js';

const repoRoot = join(import.meta.dirname, '..', '..');
let bundled: Promise<string> | undefined;

/**
 * The fleet commands (`serve`, `submit`, `answer`, `runs`, `reserve`) bundled into one ESM file,
 * with the options of the other test bundles (cli-bundle.ts). The Restate SDKs stay external, so
 * the file lives under node_modules/.cache, where node resolves them.
 */
export function bundledFleetCli(): Promise<string> {
  bundled ??= (async () => {
    const outdir = join(repoRoot, 'node_modules', '.cache', 'loopchart-fleet-test');
    mkdirSync(outdir, { recursive: true });
    const outfile = join(outdir, `fleet-cli-${process.pid}.mjs`);
    await build({
      ...TEST_BUNDLE_OPTIONS,
      entryPoints: [join(import.meta.dirname, 'fleet-cli-entry.ts')],
      outfile,
      format: 'esm',
      external: ['@restatedev/*'],
      banner: { js: ESM_REQUIRE_BANNER },
    });
    return outfile;
  })();
  return bundled;
}

/** A free TCP port on 127.0.0.1 (closed again before it is returned). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      const port = typeof address === 'object' && address !== null ? address.port : 0;
      server.close(() => resolve(port));
    });
  });
}

/** A process the test started, with everything it printed. */
export interface Started {
  readonly child: ChildProcess;
  /** stdout and stderr, interleaved. */
  output(): string;
  /** stdout alone. */
  stdout(): string;
  /** Resolves with the exit code (or the signal) once the process has ended. */
  readonly ended: Promise<number | NodeJS.Signals>;
}

const started: Started[] = [];

/** Starts a process, recording it for {@link stopAll}. */
export function startProcess(
  command: string,
  args: readonly string[],
  env: Readonly<Record<string, string>>,
  cwd?: string,
): Started {
  const child = spawn(command, args, {
    env: { ...process.env, ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
    ...(cwd === undefined ? {} : { cwd }),
  });
  let output = '';
  let stdout = '';
  child.stdout?.on('data', (chunk) => {
    output += chunk;
    stdout += chunk;
  });
  child.stderr?.on('data', (chunk) => (output += chunk));
  // 'close' waits for stdio to close, which a background job the process left holding its pipes
  // would delay forever: after 'exit', give the pipes a moment, then settle.
  const ended = new Promise<number | NodeJS.Signals>((resolve) => {
    child.on('close', (code, signal) => resolve(code ?? signal ?? -1));
    child.on('exit', (code, signal) => setTimeout(() => resolve(code ?? signal ?? -1), 1000).unref());
  });
  const entry = { child, output: () => output, stdout: () => stdout, ended };
  started.push(entry);
  return entry;
}

/** SIGKILLs every process this file started that is still running, and waits for each to end. */
export async function stopAll(): Promise<void> {
  for (const entry of started)
    if (entry.child.exitCode === null && entry.child.signalCode === null) entry.child.kill('SIGKILL');
  await Promise.all(started.map((entry) => entry.ended));
}

/**
 * Waits (polling every `everyMs`) until `probe` returns a value other than undefined; throws with
 * `what` after `limitMs`. A probe that asks the fleet is itself an invocation on a worker: poll it
 * slowly.
 */
export async function waitFor<T>(
  what: string,
  probe: () => Promise<T | undefined>,
  limitMs = 60_000,
  everyMs = 150,
): Promise<T> {
  const until = Date.now() + limitMs;
  for (;;) {
    const value = await probe().catch(() => undefined);
    if (value !== undefined) return value;
    if (Date.now() > until) throw new Error(`gave up waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, everyMs));
  }
}

/** A running Restate server. */
export interface RestateServer {
  readonly admin: string;
  readonly ingress: string;
  /** The `publickeyv1_…` key workers must require (`serve --identity-key`). */
  readonly identityKey: string;
  readonly process: Started;
}

/**
 * Starts `restate-server` from node_modules with its data under `dir`, on free ports, signing its
 * requests to workers with a fresh Ed25519 key; resolves once admin and ingress answer.
 */
export async function startRestate(dir: string): Promise<RestateServer> {
  mkdirSync(dir, { recursive: true });
  const require = createRequire(import.meta.url);
  const binary = require.resolve(
    `@restatedev/restate-server-${process.platform}-${process.arch}/bin/restate-server`,
  );
  const keyPath = join(dir, 'identity.pem');
  const pem = generateKeyPairSync('ed25519').privateKey.export({ type: 'pkcs8', format: 'pem' }).toString();
  writeFileSync(keyPath, pem, { mode: 0o600 });
  const [fabric, admin, ingress] = [await freePort(), await freePort(), await freePort()];
  const config = join(dir, 'restate.toml');
  writeFileSync(
    config,
    [
      `base-dir = ${JSON.stringify(join(dir, 'data'))}`,
      `bind-address = "127.0.0.1:${fabric}"`,
      `advertised-address = "http://127.0.0.1:${fabric}/"`,
      'listen-mode = "tcp"',
      'disable-telemetry = true',
      'default-num-partitions = 1',
      // The default budget is 2 GiB of RocksDB memory: a test server needs a sliver of it.
      'rocksdb-total-memory-size = "256 MiB"',
      'log-filter = "warn"',
      '[admin]',
      `bind-address = "127.0.0.1:${admin}"`,
      'disable-web-ui = true',
      '[ingress]',
      `bind-address = "127.0.0.1:${ingress}"`,
      '[worker.invoker]',
      `request-identity-private-key-pem-file = ${JSON.stringify(keyPath)}`,
      '',
    ].join('\n'),
  );
  const proc = startProcess(
    binary,
    ['--config-file', config, '--no-logo', '--log-disable-ansi-codes', 'true'],
    {},
  );
  const server = {
    admin: `http://127.0.0.1:${admin}`,
    ingress: `http://127.0.0.1:${ingress}`,
    identityKey: requestIdentityPublicKey(pem),
    process: proc,
  };
  await waitFor('the Restate server', async () => {
    if (proc.child.exitCode !== null) throw new Error(`restate-server exited: ${proc.output()}`);
    const [a, i] = await Promise.all([
      fetch(`${server.admin}/health`),
      fetch(`${server.ingress}/restate/health`),
    ]);
    return a.ok && i.ok ? true : undefined;
  });
  return server;
}
