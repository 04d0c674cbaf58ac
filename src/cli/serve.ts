/**
 * `loopchart serve`: a fleet worker, the Restate SDK endpoint serving the `loop`, `fleet`, `rpi`
 * and `crank` objects (docs/scale-out.md). The only command that loads the Restate SDK.
 */
import { resolve } from 'node:path';
import { UsageError } from '../common/errors.js';
import { readCredentials } from '../fleet/credentials.js';
import { integerOption, parseCommandArgs } from './args.js';
import type { CliCommand } from './command.js';
import { writeJsonResult } from './json-result.js';
import { stopRequested } from './serve-until-stopped.js';

const OPTIONS = {
  restate: { type: 'string' },
  port: { type: 'string' },
  host: { type: 'string' },
  advertise: { type: 'string' },
  'identity-key': { type: 'string', multiple: true },
  operators: { type: 'string' },
  'work-dir': { type: 'string' },
  child: { type: 'string' },
  implementer: { type: 'string' },
  validator: { type: 'string' },
  'cross-family': { type: 'string' },
  plan: { type: 'string' },
} as const;

const HELP = `usage: loopchart serve --identity-key <publickeyv1_…> --operators <file> --work-dir <dir>
                       [--child "<cmd>"] [--implementer "<cmd>" --validator "<cmd>"
                       [--cross-family "<cmd>"] [--plan "<cmd>"]] [--restate <admin URL>]
                       [--port <n>] [--host <addr>] [--advertise <url>] [--json]

Serves the fleet's "loop", "fleet", "rpi" and "crank" objects to a Restate server until Ctrl-C or
SIGTERM. Each loop run steps in a clone of its branch under --work-dir: fetch, run the loop to its
next stop or end, push. An rpi run, and each lane of a crank wave, runs in its own clone with this
worker's --implementer and --validator. Only requests signed with the server's request-identity
key are served.

  --identity-key <key>   the Restate server's request-identity public key (repeatable; required)
  --operators <file>     who may submit and answer: one "<name> <secret>" per line (required)
  --work-dir <dir>       where this worker keeps its clones (required)
  --child "<cmd>"        the child every loop run of this worker dispatches (without it, the
                         worker refuses loop runs; give it, --implementer and --validator, or all)
  --implementer "<cmd>"  the implementer of rpi runs and crank lanes (with --validator; without
                         them the worker refuses rpi runs and waves)
  --validator "<cmd>"    the fresh validator of rpi runs and crank lanes
  --cross-family "<cmd>" the cross-family validator (risky surfaces)
  --plan "<cmd>"         the Plan command of rpi runs and crank lanes
  --restate <url>        the Restate admin URL to register this worker with (else register it yourself)
  --port <n>             the port to listen on (default 9080; 0: any free port)
  --host <addr>          the address to listen on (default 127.0.0.1)
  --advertise <url>      the URL Restate calls this worker at (default http://<host>:<port>)
  --json                 when the worker stops, print the result as JSON (the serving line is on stderr)

short flags: -c --child, -h --help

examples:
  loopchart serve --restate http://127.0.0.1:9070 --identity-key publickeyv1_… \\
    --operators /etc/loopchart/operators --work-dir /var/lib/loopchart --child "my-agent"
`;

/** `loopchart serve`. */
export const serveCommand: CliCommand = {
  name: 'serve',
  summary:
    'serve loop runs, rpi runs and crank lanes to a Restate server as a fleet worker (Restate SDK endpoint)',
  async run(args, io) {
    const { values } = parseCommandArgs('serve', args, OPTIONS);
    if (values.help === true) {
      io.stdout.write(HELP);
      return 0;
    }
    const need = (name: string, value: string | undefined): string => {
      if (value === undefined || value === '') throw new UsageError(`serve: --${name} is required`);
      return value;
    };
    const operators = readCredentials(need('operators', values.operators));
    const workDir = resolve(need('work-dir', values['work-dir']));
    const child = values.child;
    if (child === '') throw new UsageError('serve: --child is empty');
    if ((values.implementer === undefined) !== (values.validator === undefined))
      throw new UsageError(
        'serve: give --implementer and --validator together (rpi runs and crank lanes need both)',
      );
    const agents =
      values.implementer === undefined || values.validator === undefined
        ? undefined
        : {
            implementer: need('implementer', values.implementer),
            validator: need('validator', values.validator),
            crossFamily: values['cross-family'] ?? null,
            plan: values.plan ?? null,
          };
    if (child === undefined && agents === undefined)
      throw new UsageError(
        'serve: give --child (loop runs), or --implementer and --validator (rpi runs and crank lanes), or both',
      );
    const { startWorker } = await import('../fleet/serve.js');
    const worker = await startWorker({
      port: integerOption('serve', 'port', values.port, 9080, 0),
      ...(values.host === undefined ? {} : { host: values.host }),
      ...(values.advertise === undefined ? {} : { advertise: values.advertise }),
      ...(values.restate === undefined ? {} : { admin: values.restate }),
      identityKeys: values['identity-key'] ?? [],
      operators,
      workDir,
      ...(child === undefined ? {} : { child }),
      ...(agents === undefined ? {} : { agents }),
    });
    // On stderr, so that with --json stdout holds only the result printed when the worker stops.
    io.stderr.write(
      `loopchart serve: serving at ${worker.url}${values.restate === undefined ? '' : ' (registered)'}\n`,
    );
    const stop = stopRequested(undefined);
    await stop.done;
    stop.dispose();
    await worker.close();
    if (values.json === true)
      writeJsonResult(io, { command: 'serve', status: 'finished', exitCode: 0, url: worker.url });
    // A serving process ends here, as a server does after a graceful shutdown, even when a handle
    // left open (a finished run's leftovers) would keep node alive: 2 s later it exits with this
    // code. Unref'd, so it never delays an exit that happens anyway; only in a real process.
    if (io.stdout === process.stdout) setTimeout(() => process.exit(0), 2000).unref();
    return 0;
  },
};
