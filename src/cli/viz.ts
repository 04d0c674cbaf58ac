/**
 * `loopchart viz [machine|module.js ...] [--format svg|dot|mermaid|json|xstate-json|scxml]
 * [--out DIR] [--coverage coverage.json] [--json]`: draws registered machines (every one when none
 * is named) and machines from a host's own module, in any of the diagram formats or as an
 * interchange document (an XState configuration, W3C SCXML), optionally with the coverage gaps of
 * a `visualizations/coverage.json` drawn red.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { InputError, UsageError } from '../common/errors.js';
import {
  type CoverageReport,
  coverageEntryFor,
  parseCoverageReport,
} from '../graph/coverage-report-schema.js';
import {
  DIAGRAM_EXTENSIONS,
  DIAGRAM_FORMATS,
  type DiagramFormat,
  formatDrawsCoverage,
  renderDiagram,
} from '../viz/diagram-format.js';
import { resolveMachineArguments } from '../viz/load-machine.js';
import { parseCommandArgs } from './args.js';
import type { CliCommand, CliIo } from './command.js';
import { CLI_RESULT_SCHEMA_ID } from './json-result.js';

const HELP = `usage: loopchart viz [machine|module.js ...] [--format FORMAT] [--out DIR]
                     [--coverage coverage.json] [--json]

Draws statecharts: registered machines by name (every one when none is named), or the machines a
JavaScript module exports (default export, else every named export that is a machine).
Compound states are clusters; edges show the event, [guard] and rule label; final states have a
double border.

  --format F       one of (repeat or comma-separate for several):
                     svg          the drawing, rendered by Graphviz (default)
                     dot          the drawing as Graphviz DOT
                     mermaid      the drawing as a Mermaid state diagram
                     json         states tree and transitions with labels (loopchart-machine/1)
                     xstate-json  the definition as a createMachine configuration (XState 5):
                                  guards, actions and actors by name; re-import it and
                                  .provide() the implementations
                     scxml        W3C SCXML 1.0: states, transitions, guards as cond by name,
                                  invokes, after as delayed <send>
  --out DIR        write DIR/<machine>.<svg|dot|mmd|json|xstate.json|scxml>; without it one
                   diagram goes to stdout
  --coverage FILE  draw the uncovered transitions and states of a coverage.json (as
                   \`loopchart generate\` writes it) in red (svg, dot; json carries it)
  --json           print one JSON object: the files written, or the diagrams' text without --out

Exit codes: 0 drawn, 2 unknown machine, unknown format (viz.format.unknown), bad module, bad
option or coverage file, a machine SCXML cannot name (viz.scxml.unrepresentable).

short flags: -f --format, -o --out, -h --help

examples:
  loopchart viz rpi > rpi.svg
  loopchart viz --format dot,mermaid --out diagrams/
  loopchart viz ./my-machine.js --coverage visualizations/coverage.json --out diagrams/
  loopchart viz crank --format xstate-json > crank.xstate.json
  loopchart viz --format scxml --out interchange/
`;

/** A `--format` value that names no format (code `viz.format.unknown`, exit 2). */
export class UnknownDiagramFormatError extends InputError {
  constructor(name: string) {
    super('viz.format.unknown', `viz: --format must be one of ${DIAGRAM_FORMATS.join(', ')}, got "${name}"`);
  }
}

/**
 * The formats named by `--format` values (repeated or comma-separated), in the order given,
 * without duplicates; `svg` when none is given.
 *
 * @throws UnknownDiagramFormatError naming a format that does not exist
 */
export function parseDiagramFormats(values: readonly string[] | undefined): DiagramFormat[] {
  const names = (values ?? []).flatMap((value) => value.split(',')).map((name) => name.trim());
  if (names.length === 0) return ['svg'];
  const formats: DiagramFormat[] = [];
  for (const name of names) {
    if (!(DIAGRAM_FORMATS as readonly string[]).includes(name)) throw new UnknownDiagramFormatError(name);
    if (!formats.includes(name as DiagramFormat)) formats.push(name as DiagramFormat);
  }
  return formats;
}

async function readCoverage(path: string): Promise<CoverageReport> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (error) {
    throw new InputError('viz.coverage.unreadable', `cannot read ${path}: ${(error as Error).message}`);
  }
  return parseCoverageReport(text, path);
}

/** One diagram the command produced. */
interface Drawn {
  readonly machine: string;
  readonly format: DiagramFormat;
  readonly content: string;
  readonly path?: string;
}

async function runViz(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'viz',
    args,
    {
      format: { type: 'string', multiple: true },
      out: { type: 'string' },
      coverage: { type: 'string' },
    },
    true,
  );
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const json = values.json === true;
  const formats = parseDiagramFormats(values.format as string[] | undefined);
  const targets = await resolveMachineArguments(positionals);
  const out = values.out === undefined ? undefined : resolve(values.out as string);
  const count = targets.length * formats.length;
  if (out === undefined && !json && count > 1)
    throw new UsageError(
      `viz: ${count} diagrams cannot share stdout; name one machine and one format, or give --out DIR`,
    );
  const coveragePath = values.coverage as string | undefined;
  const report = coveragePath === undefined ? undefined : await readCoverage(coveragePath);
  if (report !== undefined && !formats.some(formatDrawsCoverage))
    io.stderr.write(
      `loopchart: warning: ${formats.join(', ')} cannot draw coverage (only svg, dot and json do); --coverage is ignored\n`,
    );

  const drawn: Drawn[] = [];
  for (const { name, machine } of targets) {
    const overlay = report === undefined ? undefined : coverageEntryFor(report, machine, coveragePath);
    for (const format of formats) {
      const content = await renderDiagram(machine, format, overlay);
      if (out === undefined) {
        drawn.push({ machine: name, format, content });
        continue;
      }
      const path = join(out, `${name}.${DIAGRAM_EXTENSIONS[format]}`);
      await mkdir(out, { recursive: true });
      await writeFile(path, content);
      drawn.push({ machine: name, format, content, path });
    }
  }

  if (json) {
    const diagrams = drawn.map((d) =>
      d.path === undefined
        ? { machine: d.machine, format: d.format, content: d.content }
        : { machine: d.machine, format: d.format, path: d.path },
    );
    io.stdout.write(
      `${JSON.stringify({ schema: CLI_RESULT_SCHEMA_ID, command: 'viz', status: 'finished', exitCode: 0, diagrams }, null, 2)}\n`,
    );
  } else if (out === undefined) {
    io.stdout.write((drawn[0] as Drawn).content);
  } else {
    for (const d of drawn) io.stdout.write(`wrote ${d.path}\n`);
  }
  return 0;
}

/** The `viz` command. */
export const vizCommand: CliCommand = {
  name: 'viz',
  summary:
    'draw machines as SVG, DOT, Mermaid or JSON, or export them as XState JSON or SCXML (registered or from a module)',
  run: runViz,
};
