/**
 * `loopchart view <transcript.jsonl> [--out FILE.html] [--serve [--port N]] [--machine module.js]
 * [--json]`: the run viewer. Writes one self-contained HTML page (the machine's SVG, the transcript
 * as a timeline, step / play / jump controls) and, with `--serve`, serves it on 127.0.0.1 until
 * Ctrl-C.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { InputError, UsageError } from '../common/errors.js';
import { loadMachineModule, type NamedMachine } from '../viz/load-machine.js';
import { serveViewer } from '../viz/viewer/serve.js';
import { type TranscriptPage, transcriptViewerPage } from '../viz/viewer/transcript-page.js';
import { integerOption, parseCommandArgs } from './args.js';
import type { CliCommand, CliIo } from './command.js';
import { CLI_RESULT_SCHEMA_ID } from './json-result.js';
import { stopRequested } from './serve-until-stopped.js';

const HELP = `usage: loopchart view <transcript.jsonl> [--out FILE.html] [--serve [--port N]]
                      [--machine module.js] [--json]

Replays a run on its machine's diagram: one self-contained HTML page (no network) with the
statechart, the transcript as a timeline, and step / play / jump controls that highlight the
active state and the transition taken at each record, with the record's evidence beside it.

  --out FILE     where to write the page (default: the transcript's name with .html)
  --serve        also serve the page on http://127.0.0.1 (rebuilt on every reload) until Ctrl-C
  --port N       the port for --serve (default: a free one)
  --machine M    draw on the machine a module exports (a host's own variant) instead of the
                 registered machine the records name
  --json         print one JSON object: the page written, the machine, the record count, the URL

Exit codes: 0 written (and served until stopped), 2 unreadable or malformed transcript, unknown
machine, bad option or port in use.

short flags: -o --out, -m --machine, -h --help

examples:
  loopchart view .git/loopchart/transcript.jsonl
  loopchart view run.jsonl --serve --port 8080
`;

/** What tests (and embedders) can pass to {@link runView} besides the arguments. */
export interface ViewRunOptions {
  /** Stops `--serve`; without it the command stops on SIGINT or SIGTERM. */
  readonly signal?: AbortSignal;
  /** Called with the URL once `--serve` listens. */
  readonly onListening?: (url: string) => void;
}

/** `run.jsonl` → `run.html`, next to the transcript. */
export function defaultViewerPath(transcript: string): string {
  const extension = extname(transcript);
  return join(dirname(transcript), `${basename(transcript, extension)}.html`);
}

async function readTranscript(path: string): Promise<string> {
  try {
    return await readFile(path, 'utf8');
  } catch (error) {
    throw new InputError(
      'view.transcript.unreadable',
      `cannot read transcript ${path}: ${(error as Error).message}`,
    );
  }
}

async function machineFromModule(path: string): Promise<NamedMachine> {
  const found = await loadMachineModule(path);
  if (found.length > 1)
    throw new UsageError(
      `view: ${path} exports several machines (${found.map((m) => m.name).join(', ')}); export the one to draw as default`,
    );
  return found[0] as NamedMachine;
}

/**
 * Runs `loopchart view` with `args`.
 *
 * @returns the exit code; with `--serve` only once the server was stopped
 * @throws InputError for bad arguments or an unreadable transcript (`runCli` reports it)
 */
export async function runView(
  args: readonly string[],
  io: CliIo,
  options: ViewRunOptions = {},
): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'view',
    args,
    {
      out: { type: 'string' },
      serve: { type: 'boolean', default: false },
      port: { type: 'string' },
      machine: { type: 'string' },
    },
    true,
  );
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const json = values.json === true;
  if (positionals.length !== 1)
    throw new UsageError('view: give exactly one transcript file: loopchart view <transcript.jsonl>');
  const serve = values.serve === true;
  if (values.port !== undefined && !serve) throw new UsageError('view: --port needs --serve');
  const port = integerOption('view', 'port', values.port as string | undefined, 0);
  if (port > 65535) throw new UsageError(`view: --port must be at most 65535, got "${port}"`);
  const transcript = resolve(positionals[0] as string);
  const machine =
    values.machine === undefined ? undefined : await machineFromModule(values.machine as string);
  const build = async (): Promise<TranscriptPage> =>
    transcriptViewerPage(await readTranscript(transcript), {
      source: basename(transcript),
      ...(machine === undefined ? {} : { machine }),
    });

  // Built once up front so a bad transcript fails before anything is written or served.
  const page = await build();
  const out =
    values.out !== undefined
      ? resolve(values.out as string)
      : serve
        ? undefined
        : defaultViewerPath(transcript);
  if (out !== undefined) {
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, page.html);
    if (!json) io.stdout.write(`wrote ${out} (${page.view.steps.length} records of ${page.view.machine})\n`);
  }
  const result = {
    schema: CLI_RESULT_SCHEMA_ID,
    command: 'view',
    status: 'finished',
    exitCode: 0,
    transcript,
    machine: page.view.machine,
    records: page.view.steps.length,
    warnings: page.view.warnings,
    ...(out === undefined ? {} : { out }),
  };
  if (!serve) {
    if (json) io.stdout.write(`${JSON.stringify(result, null, 2)}\n`);
    return 0;
  }

  const stop = stopRequested(options.signal);
  let server: Awaited<ReturnType<typeof serveViewer>>;
  try {
    server = await serveViewer(async () => (await build()).html, { port });
  } catch (error) {
    stop.dispose();
    throw error;
  }
  const line = `serving ${server.url} (Ctrl-C to stop)\n`;
  if (json) io.stderr.write(`loopchart: ${line}`);
  else io.stdout.write(line);
  options.onListening?.(server.url);
  await stop.done;
  stop.dispose();
  await server.close();
  if (json) io.stdout.write(`${JSON.stringify({ ...result, url: server.url }, null, 2)}\n`);
  else io.stdout.write('stopped\n');
  return 0;
}

/** The `view` command. */
export const viewCommand: CliCommand = {
  name: 'view',
  summary: 'replay a run transcript on its diagram: one self-contained HTML page (--serve: on 127.0.0.1)',
  run: (args, io) => runView(args, io),
};
