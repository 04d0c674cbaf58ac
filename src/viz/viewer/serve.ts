/**
 * Serving the viewer page on the loopback interface only. The page is rebuilt on every request,
 * so reloading the browser shows the records a running loop has appended since.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { InputError } from '../../common/errors.js';
import { VIEWER_CSP } from './page.js';

/** A running viewer server. */
export interface ViewerServer {
  /** `http://127.0.0.1:<port>/`. */
  readonly url: string;
  readonly port: number;
  /** Stops accepting connections, drops open ones and resolves once the server is closed. */
  close(): Promise<void>;
}

/** Options of {@link serveViewer}. */
export interface ServeViewerOptions {
  /** The port; 0 (the default) lets the system pick a free one. */
  readonly port?: number;
}

/** The loopback address the viewer binds; it is never reachable from another machine. */
export const VIEWER_HOST = '127.0.0.1';

/**
 * Serves `page()` at `/` on 127.0.0.1.
 *
 * @param page builds the HTML for each request; a thrown error becomes a 500 with its message
 * @throws InputError (`view.serve.port`) when the port is taken or not allowed
 */
export async function serveViewer(
  page: () => Promise<string>,
  options: ServeViewerOptions = {},
): Promise<ViewerServer> {
  const server: Server = createServer((request, response) => {
    const path = (request.url ?? '/').split('?')[0];
    if (request.method !== 'GET' && request.method !== 'HEAD') {
      response.writeHead(405, { allow: 'GET, HEAD' }).end();
      return;
    }
    if (path !== '/' && path !== '/index.html') {
      response.writeHead(404, { 'content-type': 'text/plain; charset=utf-8' }).end('not found\n');
      return;
    }
    page().then(
      (html) => {
        response
          .writeHead(200, {
            'content-type': 'text/html; charset=utf-8',
            'cache-control': 'no-store',
            'content-security-policy': VIEWER_CSP,
          })
          .end(request.method === 'HEAD' ? undefined : html);
      },
      (error: unknown) => {
        response
          .writeHead(500, { 'content-type': 'text/plain; charset=utf-8' })
          .end(`loopchart: ${error instanceof Error ? error.message : String(error)}\n`);
      },
    );
  });
  await new Promise<void>((resolve, reject) => {
    const onError = (error: NodeJS.ErrnoException) => {
      const reason = error.code === 'EADDRINUSE' ? 'is in use' : `cannot be used (${error.message})`;
      reject(new InputError('view.serve.port', `port ${options.port ?? 0} on ${VIEWER_HOST} ${reason}`));
    };
    server.once('error', onError);
    server.listen(options.port ?? 0, VIEWER_HOST, () => {
      server.off('error', onError);
      resolve();
    });
  });
  const { port } = server.address() as AddressInfo;
  let closing: Promise<void> | undefined;
  return {
    url: `http://${VIEWER_HOST}:${port}/`,
    port,
    close() {
      closing ??= new Promise<void>((resolve) => {
        server.close(() => resolve());
        // Browsers keep connections alive; without this close() would wait for them.
        server.closeAllConnections();
      });
      return closing;
    },
  };
}
