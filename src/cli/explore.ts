/**
 * `loopchart explore [machine | module.js#export] [--port N] [--suite FILE]`: the explorer, a page
 * on 127.0.0.1 where a person clicks through a machine with the path generator's own pure steps
 * (src/viz/explorer/). Serves until Ctrl-C.
 */
import { readFile } from 'node:fs/promises';
import { resolve } from 'node:path';
import { InputError, UsageError } from '../common/errors.js';
import { models } from '../graph/models/index.js';
import { type PathSuite, pathSuiteSchema } from '../graph/path-suite-schema.js';
import type { ExplorerTarget } from '../viz/explorer/server.js';
import { serveExplorer } from '../viz/explorer/server.js';
import { registeredMachine, registeredMachines } from '../viz/load-machine.js';
import { integerOption, parseCommandArgs } from './args.js';
import type { CliCommand, CliIo } from './command.js';
import { CLI_RESULT_SCHEMA_ID } from './json-result.js';
import { isModelModuleArgument, loadModelModule } from './paths.js';
import { stopRequested } from './serve-until-stopped.js';

const HELP = `usage: loopchart explore [machine | module.js#export] [--port N] [--suite FILE] [--json]

Serves the explorer on http://127.0.0.1 (no network; everything is inline) until Ctrl-C: pick a
machine, see the current state on its diagram, send any event the state accepts with one of the
model's payload cases, see which guards passed or failed and why, the context projection and the
actors invoked, step back and forward, load a path of the generated path suite and replay it,
and overlay the suite's coverage. Every step is computed by the path generator's pure stepping,
so what the page shows is what the generated tests run.

  machine           a registered machine (default: the first; the page lists them all)
  module.js#export  a module exporting { machine, model } (as for loopchart paths)
  --port N          the port (default: a free one); the URL is printed
  --suite FILE      the path suite to replay and overlay, written by loopchart paths --out
                    (default: generated on first use, which takes a few seconds)
  --json            print the URL line on stderr, and one JSON object (the URL, the machines)
                    once stopped

To watch a real run instead, see loopchart run --inspect.

Exit codes: 0 served until stopped, 2 unknown machine, bad module, suite or option, port in use.

examples:
  loopchart explore loop-implementation
  loopchart explore crank --port 8080
  loopchart paths rpi --out rpi-suite.json && loopchart explore rpi --suite rpi-suite.json
  loopchart explore ./door.mjs#door
`;

/** What tests (and embedders) can pass to {@link runExplore} besides the arguments. */
export interface ExploreRunOptions {
  /** Stops the server; without it the command stops on SIGINT or SIGTERM. */
  readonly signal?: AbortSignal;
  /** Called with the URL once the server listens. */
  readonly onListening?: (url: string) => void;
}

async function readSuite(path: string): Promise<PathSuite> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InputError(
      'explore.suite.unreadable',
      `cannot read suite ${path}: ${(error as Error).message}`,
    );
  }
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new InputError('explore.suite.invalid', `${path} is not JSON: ${(error as Error).message}`);
  }
  const parsed = pathSuiteSchema.safeParse(value);
  if (!parsed.success)
    throw new InputError(
      'explore.suite.invalid',
      `${path} is not a path suite (loopchart paths --out writes one): ${parsed.error.issues[0]?.message ?? ''}`,
    );
  return parsed.data;
}

/**
 * Runs `loopchart explore` with `args`.
 *
 * @returns the exit code, once the server was stopped
 */
export async function runExplore(
  args: readonly string[],
  io: CliIo,
  options: ExploreRunOptions = {},
): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'explore',
    args,
    { port: { type: 'string' }, suite: { type: 'string' } },
    true,
  );
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  if (positionals.length > 1)
    throw new UsageError(`explore: name at most one machine, got ${positionals.length}`);
  const port = integerOption('explore', 'port', values.port as string | undefined, 0);
  if (port > 65535) throw new UsageError(`explore: --port must be at most 65535, got "${port}"`);
  const name = positionals[0];
  let targets: ExplorerTarget[];
  const { explanations } = await import('../graph/models/explanations.js');
  const registered = (n: string, machine: ExplorerTarget['machine']): ExplorerTarget => ({
    name: n,
    machine,
    ...(Object.hasOwn(models, n) ? { model: models[n] } : {}),
    ...(Object.hasOwn(explanations, n) ? { explain: explanations[n] } : {}),
  });
  if (name !== undefined && isModelModuleArgument(name)) {
    const loaded = await loadModelModule(name);
    targets = [{ name: loaded.name, machine: loaded.machine, model: loaded.model }];
  } else {
    const chosen = name === undefined ? undefined : registeredMachine(name);
    const all = registeredMachines().map((m) => registered(m.name, m.machine));
    targets =
      chosen === undefined
        ? all
        : [registered(chosen.name, chosen.machine), ...all.filter((t) => t.name !== chosen.name)];
  }
  if (values.suite !== undefined) {
    const suite = await readSuite(resolve(values.suite as string));
    const [first, ...rest] = targets as [ExplorerTarget, ...ExplorerTarget[]];
    if (suite.machine !== first.machine.id)
      throw new InputError(
        'explore.suite.machine',
        `the suite is for machine "${suite.machine}", not "${first.machine.id}"; name its machine first`,
      );
    targets = [{ ...first, suite }, ...rest];
  }
  const stop = stopRequested(options.signal);
  let server: Awaited<ReturnType<typeof serveExplorer>>;
  try {
    server = await serveExplorer({ targets, port });
  } catch (error) {
    stop.dispose();
    throw error;
  }
  const first = targets[0] as ExplorerTarget;
  const json = values.json === true;
  const url = name === undefined ? server.url : `${server.url}?machine=${encodeURIComponent(first.name)}`;
  const line = `exploring ${first.name} at ${url} (Ctrl-C to stop)\n`;
  if (json) io.stderr.write(`loopchart: ${line}`);
  else io.stdout.write(line);
  options.onListening?.(url);
  await stop.done;
  stop.dispose();
  await server.close();
  if (json)
    io.stdout.write(
      `${JSON.stringify({ schema: CLI_RESULT_SCHEMA_ID, command: 'explore', status: 'finished', exitCode: 0, url, machine: first.name, machines: targets.map((t) => t.name) }, null, 2)}\n`,
    );
  else io.stdout.write('stopped\n');
  return 0;
}

/** The `explore` command. */
export const exploreCommand: CliCommand = {
  name: 'explore',
  summary: 'click through a machine on 127.0.0.1: events, guards, projection, paths, coverage',
  run: (args, io) => runExplore(args, io),
};
