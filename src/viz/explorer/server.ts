/**
 * The explorer's server, on the loopback interface only: the page, a small JSON API that steps
 * the session of each machine (the server computes every step) and, with a live hub, the
 * `/live` stream of a running actor. Requests must name this server as their Host (no DNS
 * rebinding), and POSTs must be JSON from the page's own origin.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { AnyStateMachine } from 'xstate';
import { InputError, LoopchartError } from '../../common/errors.js';
import type { MachineModel } from '../../graph/machine-model.js';
import type { Explanation } from '../../graph/models/explanations.js';
import type { PathSuite } from '../../graph/path-suite-schema.js';
import { toDot } from '../dot.js';
import { toSvg } from '../svg.js';
import { VIEWER_HOST } from '../viewer/serve.js';
import type { LiveHub } from './live.js';
import { EXPLORER_CSP, renderExplorerPage } from './page.js';
import { createExplorerSession, type ExplorerSession } from './session.js';

/** A machine the explorer can show. */
export interface ExplorerTarget {
  readonly name: string;
  readonly machine: AnyStateMachine;
  /** Its path-generation model; without one, events are sent bare and the context is projected. */
  readonly model?: MachineModel;
  readonly suite?: PathSuite;
  readonly explain?: Explanation;
}

/** Options of {@link serveExplorer}. */
export interface ExplorerServerOptions {
  /** The machines, the first one shown by default. */
  readonly targets: readonly ExplorerTarget[];
  /** The port; 0 (default) picks a free one. */
  readonly port?: number;
  /** Serve a live run instead of simulating: `/` follows the hub's machine. */
  readonly live?: LiveHub;
}

/** A running explorer server. */
export interface ExplorerServer {
  /** `http://127.0.0.1:<port>/`. */
  readonly url: string;
  readonly port: number;
  /** Ends live streams, drops connections and resolves once closed. */
  close(): Promise<void>;
}

const MAX_BODY = 64 * 1024;

function sendJson(response: ServerResponse, status: number, value: unknown): void {
  response
    .writeHead(status, { 'content-type': 'application/json; charset=utf-8', 'cache-control': 'no-store' })
    .end(JSON.stringify(value));
}

async function readJson(request: IncomingMessage): Promise<Record<string, unknown>> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    size += (chunk as Buffer).length;
    if (size > MAX_BODY) throw new InputError('explore.request', 'request body too large');
    chunks.push(chunk as Buffer);
  }
  const text = Buffer.concat(chunks).toString('utf8');
  if (text.trim() === '') return {};
  const value = JSON.parse(text) as unknown;
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new InputError('explore.request', 'the request body must be a JSON object');
  return value as Record<string, unknown>;
}

/**
 * Serves the explorer on 127.0.0.1.
 *
 * @throws InputError (`explore.serve.port`) when the port is taken or not allowed
 */
export async function serveExplorer(options: ExplorerServerOptions): Promise<ExplorerServer> {
  const targets = new Map(options.targets.map((t) => [t.name, t]));
  const first = options.live?.name ?? options.targets[0]?.name;
  if (first === undefined) throw new InputError('explore.machine', 'no machine to explore');
  const sessions = new Map<string, ExplorerSession>();
  const svgs = new Map<string, Promise<string>>();
  let port = 0;

  const targetOf = (name: string | null): ExplorerTarget => {
    const target = targets.get(name ?? first);
    if (target === undefined)
      throw new InputError(
        'explore.machine',
        `unknown machine "${name}"; this explorer shows ${[...targets.keys()].join(', ')}`,
      );
    return target;
  };
  const sessionOf = (name: string | null): ExplorerSession => {
    const target = targetOf(name);
    let session = sessions.get(target.name);
    if (session === undefined) {
      session = createExplorerSession(target.name, target.machine, target.model ?? {}, {
        ...(target.suite === undefined ? {} : { suite: target.suite }),
        ...(target.explain === undefined ? {} : { explain: target.explain }),
      });
      sessions.set(target.name, session);
    }
    return session;
  };
  const svgOf = (target: ExplorerTarget): Promise<string> => {
    let svg = svgs.get(target.name);
    if (svg === undefined) {
      svg = toSvg(toDot(target.machine));
      svgs.set(target.name, svg);
    }
    return svg;
  };

  const handle = async (request: IncomingMessage, response: ServerResponse): Promise<void> => {
    const host = request.headers.host ?? '';
    if (host !== `${VIEWER_HOST}:${port}` && host !== `localhost:${port}`) {
      response.writeHead(421, { 'content-type': 'text/plain; charset=utf-8' }).end('wrong host\n');
      return;
    }
    const url = new URL(request.url ?? '/', `http://${host}`);
    const machine = url.searchParams.get('machine');
    const route = `${request.method} ${url.pathname}`;
    if (request.method === 'POST') {
      const origin = request.headers.origin;
      const type = request.headers['content-type'] ?? '';
      if ((origin !== undefined && origin !== `http://${host}`) || !type.startsWith('application/json')) {
        sendJson(response, 403, { error: 'only the explorer page may post, as JSON' });
        return;
      }
    }
    switch (route) {
      case 'GET /':
      case 'GET /index.html': {
        const live = options.live !== undefined && machine === null;
        const target = live ? undefined : targetOf(machine);
        const name = live ? (options.live as LiveHub).name : (target as ExplorerTarget).name;
        const drawn = live ? (options.live as LiveHub).machine : (target as ExplorerTarget).machine;
        const svg = await (target === undefined ? (svgs.get(name) ?? toSvg(toDot(drawn))) : svgOf(target));
        const html = renderExplorerPage({
          machine: name,
          machines: live ? [name] : [...targets.keys()],
          svg,
          mode: live ? 'live' : 'simulate',
        });
        response
          .writeHead(200, {
            'content-type': 'text/html; charset=utf-8',
            'cache-control': 'no-store',
            'content-security-policy': EXPLORER_CSP,
          })
          .end(html);
        return;
      }
      case 'GET /live':
        if (options.live === undefined) break;
        options.live.attach(response);
        return;
      case 'GET /api/machines':
        sendJson(response, 200, { machines: [...targets.keys()], live: options.live?.name ?? null });
        return;
      case 'GET /api/view':
        sendJson(response, 200, sessionOf(machine).view());
        return;
      case 'POST /api/send': {
        const body = await readJson(request);
        sendJson(response, 200, sessionOf(machine).send(Number(body.index)));
        return;
      }
      case 'POST /api/back':
        await readJson(request);
        sendJson(response, 200, sessionOf(machine).back());
        return;
      case 'POST /api/forward':
        await readJson(request);
        sendJson(response, 200, sessionOf(machine).forward());
        return;
      case 'POST /api/go': {
        const body = await readJson(request);
        sendJson(response, 200, sessionOf(machine).go(Number(body.position)));
        return;
      }
      case 'POST /api/reset':
        await readJson(request);
        sendJson(response, 200, sessionOf(machine).reset());
        return;
      case 'GET /api/paths': {
        const suite = sessionOf(machine).suite();
        sendJson(response, 200, {
          machine: suite.machine,
          strategy: suite.strategy,
          paths: suite.paths.map((p) => ({ id: p.id, description: p.description, steps: p.steps.length })),
        });
        return;
      }
      case 'POST /api/path': {
        const body = await readJson(request);
        sendJson(response, 200, sessionOf(machine).loadPath(String(body.id)));
        return;
      }
      case 'GET /api/coverage':
        sendJson(response, 200, sessionOf(machine).coverage());
        return;
      default:
        break;
    }
    sendJson(response, 404, { error: `not found: ${route}` });
  };

  const server: Server = createServer((request, response) => {
    handle(request, response).catch((error: unknown) => {
      if (response.headersSent) {
        response.end();
        return;
      }
      const known = error instanceof LoopchartError || error instanceof SyntaxError;
      sendJson(response, known ? 400 : 500, {
        error: error instanceof Error ? error.message : String(error),
        ...(error instanceof LoopchartError ? { code: (error as { code?: string }).code } : {}),
      });
    });
  });
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'EADDRINUSE' ? 'is in use' : `cannot be used (${error.message})`;
      reject(new InputError('explore.serve.port', `port ${options.port ?? 0} on ${VIEWER_HOST} ${reason}`));
    };
    server.once('error', onError);
    server.listen(options.port ?? 0, VIEWER_HOST, () => {
      server.off('error', onError);
      resolve();
    });
  });
  port = (server.address() as AddressInfo).port;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${VIEWER_HOST}:${port}/`,
    port,
    close() {
      closing ??= (async () => {
        await options.live?.close();
        await new Promise<void>((resolve) => {
          server.close(() => resolve());
          server.closeAllConnections();
        });
      })();
      return closing;
    },
  };
}
