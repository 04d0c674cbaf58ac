/**
 * A fleet worker: an HTTP/2 endpoint serving the `loop`, `fleet`, `rpi` and `crank` objects to a
 * Restate server.
 * It loads `@restatedev/restate-sdk` here, with a dynamic import: nothing else in loopchart does.
 */
import { createServer, type Http2Server, type ServerHttp2Session } from 'node:http2';
import { InputError } from '../common/errors.js';
import { createFleetObjects, type LoopObjectSettings } from './loop-object.js';
import { createRpiObjects } from './rpi-objects.js';
import type { RpiAgents } from './rpi-step.js';

/** Options of {@link startWorker}. */
export interface WorkerOptions extends LoopObjectSettings {
  /** The address to listen on (default 127.0.0.1). */
  readonly host?: string;
  /** The port (0: any free port). */
  readonly port: number;
  /** Request-identity public keys (`publickeyv1_…`): only requests signed by these are served. */
  readonly identityKeys: readonly string[];
  /** The Restate admin URL to register the endpoint with (optional: the operator may register it). */
  readonly admin?: string;
  /** The URL Restate calls the worker at (default `http://<host>:<port>`). */
  readonly advertise?: string;
  /** The agent commands of rpi runs and crank lanes (absent: the worker refuses them). */
  readonly agents?: RpiAgents;
}

/** A running worker. */
export interface Worker {
  readonly port: number;
  /** The URL the worker registered (or would register) with Restate. */
  readonly url: string;
  close(): Promise<void>;
}

/**
 * The SDK uses `Promise.withResolvers` (Node 22); Node 20, which loopchart supports, lacks it.
 * Installed only in a serving process, only when missing.
 */
function ensurePromiseWithResolvers(): void {
  const P = Promise as unknown as { withResolvers?: unknown };
  if (typeof P.withResolvers === 'function') return;
  P.withResolvers = function withResolvers<T>() {
    let resolve!: (value: T | PromiseLike<T>) => void;
    let reject!: (reason?: unknown) => void;
    const promise = new Promise<T>((res, rej) => {
      resolve = res;
      reject = rej;
    });
    return { promise, resolve, reject };
  };
}

/** Loads the Restate SDK, or says how to install it. */
export async function loadRestateSdk(): Promise<typeof import('@restatedev/restate-sdk')> {
  ensurePromiseWithResolvers();
  try {
    return await import('@restatedev/restate-sdk');
  } catch {
    throw new InputError(
      'fleet.sdk-missing',
      'loopchart serve needs @restatedev/restate-sdk: npm install @restatedev/restate-sdk@^1.17.2',
    );
  }
}

/**
 * Starts a worker and, with `admin`, registers it with the Restate server (a re-registration of
 * the same URL with the same services is accepted).
 *
 * @throws InputError `fleet.identity-key` without identity keys, `fleet.register` when the admin
 *   refuses the registration
 */
export async function startWorker(options: WorkerOptions): Promise<Worker> {
  if (options.identityKeys.length === 0 || options.identityKeys.some((k) => !k.startsWith('publickeyv1_')))
    throw new InputError(
      'fleet.identity-key',
      'serve: give the Restate server request-identity key (--identity-key publickeyv1_…), so only the server can call the worker',
    );
  const sdk = await loadRestateSdk();
  const { loop, fleet } = createFleetObjects(sdk, options);
  const { rpi, crank } = createRpiObjects(sdk, options);
  const handler = sdk.createEndpointHandler({
    services: [loop, fleet, rpi, crank],
    identityKeys: [...options.identityKeys],
    // The SDK logs to stdout by default; stdout is the command's result. Warnings and errors go to
    // stderr, prefixed with the invocation; per-invocation chatter only with LOOPCHART_FLEET_LOG=info.
    logger: (meta, message, ...rest) => {
      const verbose = process.env.LOOPCHART_FLEET_LOG === 'info';
      if (meta.replaying || (!verbose && meta.level !== 'warn' && meta.level !== 'error')) return;
      const where = meta.context === undefined ? '' : ` ${meta.context.invocationTarget}`;
      process.stderr.write(`[restate ${meta.level}${where}] ${[message, ...rest].map(String).join(' ')}\n`);
    },
  });
  const host = options.host ?? '127.0.0.1';
  const server: Http2Server = createServer(handler);
  const sessions = new Set<ServerHttp2Session>();
  server.on('session', (session) => {
    sessions.add(session);
    session.once('close', () => sessions.delete(session));
  });
  const port = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(options.port, host, () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : options.port);
    });
  });
  const url = options.advertise ?? `http://${host}:${port}`;
  const close = async () => {
    // Restate keeps its HTTP/2 sessions open; they would keep close() (and the process) waiting.
    // An invocation cut here is retried by Restate, on this worker or another.
    server.close();
    for (const session of sessions) session.destroy();
  };
  if (options.admin !== undefined) {
    try {
      await registerDeployment(options.admin, url);
    } catch (error) {
      await close();
      throw error;
    }
  }
  return { port, url, close };
}

/** Registers `url` with the Restate admin API. */
export async function registerDeployment(admin: string, url: string): Promise<void> {
  const response = await fetch(new URL('/deployments', admin), {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ uri: url }),
  }).catch((error: Error) => {
    throw new InputError('fleet.register', `cannot reach the Restate admin at ${admin}: ${error.message}`);
  });
  if (!response.ok)
    throw new InputError(
      'fleet.register',
      `the Restate admin refused to register ${url} (${response.status}): ${(await response.text()).slice(0, 300)}`,
    );
}
