/**
 * A small HTTP/2 cleartext load balancer for the fleet tests and the benchmark: several
 * `loopchart serve` workers behind the one address Restate knows (decision F10 in
 * docs/decisions/scale-out.md, and docs/scale-out.md).
 *
 * Restate pins an invocation to the deployment address it started on and talks to a worker over
 * one long-lived HTTP/2 connection, many invocations as streams on it. A TCP balancer would pin all
 * of them to whichever worker got the connection, so this one balances streams: each incoming
 * stream goes to the next worker in turn (round robin) that accepts a connection, skipping a dead
 * one, and both bodies are piped as they flow (the Restate protocol streams in both directions).
 * A worker that dies mid-stream resets the stream it carried; Restate retries that invocation and
 * the balancer gives the retry to a live worker.
 */
import {
  type ClientHttp2Session,
  connect,
  createServer,
  type Http2Server,
  type IncomingHttpHeaders,
  type OutgoingHttpHeaders,
  type ServerHttp2Stream,
} from 'node:http2';

/** A running balancer. */
export interface Balancer {
  /** The address to register with Restate. */
  readonly url: string;
  readonly port: number;
  /** How many streams went to each worker port so far. */
  readonly forwarded: ReadonlyMap<number, number>;
  close(): Promise<void>;
}

/** Headers that describe one HTTP/2 hop, not the request: never copied to the other side. */
const HOP_HEADERS = new Set([
  ':status',
  'connection',
  'keep-alive',
  'transfer-encoding',
  'upgrade',
  'http2-settings',
]);

function copyHeaders(headers: IncomingHttpHeaders): OutgoingHttpHeaders {
  const out: OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers))
    if (!HOP_HEADERS.has(name) && value !== undefined) out[name] = value;
  return out;
}

/**
 * Starts a balancer on 127.0.0.1 (a free port unless `port` is given) in front of the workers
 * listening on `workerPorts` (127.0.0.1).
 */
export async function startBalancer(workerPorts: readonly number[], port = 0): Promise<Balancer> {
  const sessions = new Map<number, Promise<ClientHttp2Session>>();
  const forwarded = new Map<number, number>(workerPorts.map((p) => [p, 0]));
  let next = 0;

  /** A connected session to the worker on `workerPort`, or a rejection when it refuses. */
  const sessionTo = (workerPort: number): Promise<ClientHttp2Session> => {
    const open = sessions.get(workerPort);
    if (open !== undefined) return open;
    const opening = new Promise<ClientHttp2Session>((resolve, reject) => {
      const session = connect(`http://127.0.0.1:${workerPort}`);
      const forget = () => {
        if (sessions.get(workerPort) === opening) sessions.delete(workerPort);
      };
      session.once('connect', () => resolve(session));
      session.once('error', (error) => {
        forget();
        reject(error);
      });
      session.once('close', forget);
      session.once('goaway', forget);
    });
    opening.catch(() => undefined);
    sessions.set(workerPort, opening);
    return opening;
  };

  /** The next live worker's session, round robin; throws when none accepts a connection. */
  const pick = async (): Promise<[number, ClientHttp2Session]> => {
    for (let tried = 0; tried < workerPorts.length; tried += 1) {
      const workerPort = workerPorts[next++ % workerPorts.length] as number;
      try {
        const session = await sessionTo(workerPort);
        if (!session.closed && !session.destroyed) return [workerPort, session];
      } catch {
        // dead: try the next one
      }
    }
    throw new Error('no worker accepts a connection');
  };

  const forward = async (stream: ServerHttp2Stream, headers: IncomingHttpHeaders) => {
    stream.pause();
    let target: [number, ClientHttp2Session];
    try {
      target = await pick();
    } catch {
      if (!stream.destroyed) stream.respond({ ':status': 503 }, { endStream: true });
      return;
    }
    const [workerPort, session] = target;
    forwarded.set(workerPort, (forwarded.get(workerPort) ?? 0) + 1);
    const upstream = session.request(copyHeaders(headers));
    upstream.on('response', (responseHeaders) => {
      if (stream.destroyed) return;
      stream.respond({ ...copyHeaders(responseHeaders), ':status': responseHeaders[':status'] ?? 502 });
      upstream.pipe(stream);
    });
    // A broken side resets the other, so Restate sees the invocation's stream fail and retries it.
    upstream.on('error', () => stream.destroy());
    upstream.on('close', () => {
      if (!stream.destroyed && !stream.headersSent) stream.respond({ ':status': 502 }, { endStream: true });
      else if (!stream.writableEnded && upstream.rstCode !== 0) stream.destroy();
    });
    stream.on('error', () => upstream.destroy());
    stream.on('close', () => {
      if (!upstream.destroyed) upstream.close();
    });
    stream.pipe(upstream);
    stream.resume();
  };

  const server: Http2Server = createServer();
  server.on('stream', (stream, headers) => {
    forward(stream, headers).catch(() => stream.destroy());
  });
  const live = new Set<import('node:http2').ServerHttp2Session>();
  server.on('session', (session) => {
    live.add(session);
    session.once('close', () => live.delete(session));
  });
  const bound = await new Promise<number>((resolve, reject) => {
    server.once('error', reject);
    server.listen(port, '127.0.0.1', () => {
      const address = server.address();
      resolve(typeof address === 'object' && address !== null ? address.port : port);
    });
  });
  return {
    url: `http://127.0.0.1:${bound}`,
    port: bound,
    forwarded,
    close: async () => {
      server.close();
      for (const session of live) session.destroy();
      for (const opening of sessions.values()) (await opening.catch(() => null))?.destroy();
      sessions.clear();
    },
  };
}
