/**
 * `loopchart generate [--check] [--root <dir>]`: reproduces every generated file of the project
 * from the code, in one command (`npm run generate`):
 *
 * - `visualizations/<machine>.dot`, `.mmd` and `.svg`: the overview of every registered machine,
 *   and `visualizations/<machine>.<region>.dot` and `.svg`: one per region (src/viz/diagram-set.ts);
 * - `visualizations/<machine>.xstate.json` and `.scxml`: the interchange documents
 *   (src/viz/xstate-json.ts, src/viz/scxml.ts);
 * - `visualizations/coverage.json`: transition and state coverage of every machine by its
 *   generated path suite, run against live actors;
 * - `schemas/<name>.json`: the JSON Schema of every zod schema that crosses a boundary.
 *
 * `--check` writes nothing and exits 1 naming each file that is missing or differs; a test runs
 * the same comparison so a stale committed file fails the suite.
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import type { AnyStateMachine } from 'xstate';
import { z } from 'zod';
import { machines } from '../../machines/index.js';
import { convergenceSchemas } from '../convergence/schemas.js';
import { loopEngineSchemas } from '../gauntlet/schemas.js';
import type { TransitionCoverage } from '../graph/coverage.js';
import { coverageReportJson } from '../graph/coverage-report.js';
import { coverageReportSchema } from '../graph/coverage-report-schema.js';
import { type GuardCoverage, guardCoverage } from '../graph/guard-coverage.js';
import { unobservableGuardOutcomes } from '../graph/models/guard-outcomes.js';
import { models } from '../graph/models/index.js';
import { generatePathSuite } from '../graph/path-suite.js';
import { pathSuiteSchema } from '../graph/path-suite-schema.js';
import { runPathSuite } from '../graph/run-path-suite.js';
import { enumerateTransitions } from '../graph/transitions.js';
import { scriptSchema } from '../host/child-script.js';
import { loopProtocolSchemas } from '../loop-protocol/schemas.js';
import { machineDiagramFiles } from '../viz/diagram-set.js';
import { toScxml } from '../viz/scxml.js';
import { toXStateJson } from '../viz/xstate-json.js';
import { parseCommandArgs } from './args.js';
import type { CliCommand } from './command.js';
import { CLI_RESULT_SCHEMA_ID } from './json-result.js';
import { cliResultSchema } from './json-result-schema.js';

const HELP = `usage: loopchart generate [--check] [--root <dir>] [--json]

Regenerates visualizations/ (diagrams and coverage.json) and schemas/ from the code.

  --check        write nothing; list every stale or missing file and exit 1 when there is one
  --root <dir>   the project folder (default: the current directory)
  --json         print one JSON object: the files written, or the stale ones with --check

examples:
  loopchart generate
  loopchart generate --check --json
`;

/** One generated file: its repo-relative path and content. */
export interface GeneratedFile {
  readonly path: string;
  readonly content: string;
}

/** Every zod schema published under schemas/, by file name (without `.json`). */
export function publishedSchemas(): Record<string, z.ZodType> {
  return {
    ...loopEngineSchemas,
    ...convergenceSchemas,
    ...loopProtocolSchemas,
    'path-suite': pathSuiteSchema,
    'coverage-report': coverageReportSchema,
    'scripted-child-script': scriptSchema,
    [CLI_RESULT_SCHEMA_ID]: cliResultSchema,
  };
}

/** Where a published schema can be fetched once the package is on the registry: its `$id`. */
export function schemaId(name: string): string {
  return `https://unpkg.com/loopchart/schemas/${name}.json`;
}

/**
 * The JSON Schema of one published zod schema, with `$id` (where the file is published) and a
 * `title` (the zod schema's own title, else `loopchart <name>`) so a consumer can resolve and
 * name it.
 */
export function publishedJsonSchema(name: string, schema: z.ZodType): Record<string, unknown> {
  const { $schema, title, ...rest } = z.toJSONSchema(schema, {
    io: 'input',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return { $schema, $id: schemaId(name), title: title ?? `loopchart ${name}`, ...rest };
}

function json(value: unknown): string {
  return `${JSON.stringify(value, null, 2)}\n`;
}

/**
 * Coverage of one machine by its generated path suite, run against live actors.
 *
 * @throws Error naming the failed paths when any generated path fails on the live machine
 */
export async function machineCoverage(name: string, machine: AnyStateMachine): Promise<TransitionCoverage> {
  const model = models[name];
  if (model === undefined) throw new Error(`machine "${name}" has no model in src/graph/models/index.ts`);
  const suite = generatePathSuite(machine, model);
  const result = await runPathSuite(machine, model, suite);
  if (result.failures.length > 0)
    throw new Error(
      `${result.failures.length} generated path(s) of ${name} failed: ${result.failures
        .map((f) => `${f.pathId}: ${f.error instanceof Error ? f.error.message : String(f.error)}`)
        .join('; ')}`,
    );
  return result.coverage;
}

/** Diagrams of one machine: the overview (DOT, Mermaid, SVG) and each region (DOT, SVG). */
export async function machineDiagrams(name: string, machine: AnyStateMachine): Promise<GeneratedFile[]> {
  return machineDiagramFiles(name, machine);
}

/**
 * The interchange documents of one machine: `visualizations/<machine>.xstate.json` (a
 * `createMachine` configuration) and `visualizations/<machine>.scxml` (W3C SCXML 1.0), as
 * `loopchart viz --format xstate-json,scxml` writes them.
 */
export function interchangeFiles(name: string, machine: AnyStateMachine): GeneratedFile[] {
  return [
    { path: `visualizations/${name}.xstate.json`, content: toXStateJson(machine) },
    { path: `visualizations/${name}.scxml`, content: toScxml(machine) },
  ];
}

/** The Markdown files that embed Mermaid overviews, kept in step by `generate`. */
export const DOCS_WITH_MERMAID = ['README.md', 'docs/machines.md'] as const;

const MERMAID_MARKER =
  /<!-- generated from (visualizations\/[\w.-]+\.mmd) by npm run generate -->\n```mermaid\n[\s\S]*?```/g;

/**
 * README.md and docs/machines.md with each Mermaid block that follows a
 * `<!-- generated from visualizations/<file>.mmd by npm run generate -->` line replaced by that
 * file's generated text, so a machine change needs only `npm run generate`.
 */
async function docsWithMermaid(root: string, files: readonly GeneratedFile[]): Promise<GeneratedFile[]> {
  const result: GeneratedFile[] = [];
  for (const path of DOCS_WITH_MERMAID) {
    const text = await readFile(join(root, path), 'utf8').catch(() => null);
    if (text === null) continue;
    const content = text.replace(MERMAID_MARKER, (block, source: string) => {
      const mermaid = files.find((f) => f.path === source)?.content;
      if (mermaid === undefined) return block;
      return `<!-- generated from ${source} by npm run generate -->\n\`\`\`mermaid\n${mermaid}\`\`\``;
    });
    result.push({ path, content });
  }
  return result;
}

/**
 * Every generated file of the project, in a stable order.
 *
 * @param root the project folder whose README.md and docs/machines.md get their Mermaid blocks
 */
export async function generatedFiles(root = '.'): Promise<GeneratedFile[]> {
  const files: GeneratedFile[] = [];
  const coverage: TransitionCoverage[] = [];
  const guards: GuardCoverage[] = [];
  for (const [name, machine] of Object.entries(machines) as [string, AnyStateMachine][]) {
    files.push(...(await machineDiagrams(name, machine)));
    files.push(...interchangeFiles(name, machine));
    const covered = await machineCoverage(name, machine);
    coverage.push(covered);
    // Guard outcomes shown by the same runs; the ones no step can show are named with a reason.
    const missing = new Set(covered.transitions.missing.map((t) => t.key));
    const taken = enumerateTransitions(machine)
      .map((t) => t.key)
      .filter((key) => !missing.has(key));
    guards.push(guardCoverage(machine, taken, unobservableGuardOutcomes[name] ?? {}));
  }
  files.push({ path: 'visualizations/coverage.json', content: coverageReportJson(coverage, guards) });
  files.push(...(await docsWithMermaid(root, files)));
  for (const [name, schema] of Object.entries(publishedSchemas()).sort(([a], [b]) => a.localeCompare(b)))
    files.push({
      path: `schemas/${name}.json`,
      content: json(publishedJsonSchema(name, schema)),
    });
  return files;
}

/** The generated files whose committed copy under `root` is missing or differs. */
export async function staleFiles(root: string, files: readonly GeneratedFile[]): Promise<string[]> {
  const stale: string[] = [];
  for (const file of files) {
    const current = await readFile(join(root, file.path), 'utf8').catch(() => null);
    if (current !== file.content) stale.push(file.path);
  }
  return stale;
}

/** The `generate` command. */
export const generateCommand: CliCommand = {
  name: 'generate',
  summary: 'regenerate visualizations/ and schemas/ from the code (--check: report stale files)',
  async run(args, io) {
    const { values } = parseCommandArgs('generate', args, {
      check: { type: 'boolean', default: false },
      root: { type: 'string', default: '.' },
    });
    if (values.help) {
      io.stdout.write(HELP);
      return 0;
    }
    const root = values.root as string;
    const files = await generatedFiles(root);
    if (values.check) {
      const stale = await staleFiles(root, files);
      if (values.json)
        io.stdout.write(
          json({
            schema: CLI_RESULT_SCHEMA_ID,
            command: 'generate',
            status: stale.length ? 'failed' : 'finished',
            exitCode: stale.length ? 1 : 0,
            stale,
          }),
        );
      else for (const path of stale) io.stdout.write(`stale: ${path}\n`);
      if (stale.length > 0) io.stderr.write('loopchart: generated files are stale; run `npm run generate`\n');
      return stale.length > 0 ? 1 : 0;
    }
    for (const file of files) {
      await mkdir(dirname(join(root, file.path)), { recursive: true });
      await writeFile(join(root, file.path), file.content);
    }
    if (values.json)
      io.stdout.write(
        json({
          schema: CLI_RESULT_SCHEMA_ID,
          command: 'generate',
          status: 'finished',
          exitCode: 0,
          files: files.map((f) => f.path),
        }),
      );
    else io.stdout.write(`wrote ${files.length} files\n`);
    return 0;
  },
};
