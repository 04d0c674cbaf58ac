/**
 * `loopchart paths [machine | module.js#export] [--strategy S] [--seed N] [--length N] [--json]
 * [--out file]`: exports the model-based path suite of a registered machine, or of a host's own
 * machine from a model module, the JSON a test generator consumes (shape: pathSuiteSchema, JSON
 * Schema: schemas/path-suite.json). docs/path-suites.md shows how to turn a suite into tests in
 * another framework.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AnyStateMachine } from 'xstate';
import { InputError, UsageError } from '../common/errors.js';
import type { MachineModel } from '../graph/machine-model.js';
import { models } from '../graph/models/index.js';
import { generatePathSuite, MAX_WALK_LENGTH, PATH_STRATEGIES } from '../graph/path-suite.js';
import type { PathStrategy, PathSuite } from '../graph/path-suite-schema.js';
import { assertMachine } from '../graph/state-nodes.js';
import { stateValueLabel } from '../graph/state-value-label.js';
import {
  looksLikeModulePath,
  type NamedMachine,
  registeredMachine,
  registeredMachines,
} from '../viz/load-machine.js';
import { parseCommandArgs } from './args.js';
import type { CliCommand, CliIo } from './command.js';
import { CLI_RESULT_SCHEMA_ID } from './json-result.js';

const HELP = `usage: loopchart paths [machine | module.js#export] [--strategy S] [--seed N] [--length N] [--json] [--out FILE]

Generates the model-based path suite of a registered machine, or of your own machine from a model
module: every path is a test case whose steps give the state before, the event with its payload,
how it is delivered, the state after and the transitions taken. Without a machine, summarizes the
suite of every registered machine.

  module.js#export  a JavaScript module whose export (default export without #) is
                    { machine, model }: an XState v5 machine and its MachineModel
                    (defineModelledMachine in loopchart/testing); see docs/path-suites.md
  --strategy S   transition-cover (default: fewest paths that take every transition),
                 shortest (one shortest path to every model state; many more paths),
                 transition-pair (paths that take every reachable pair of consecutive
                 transitions), random-walk (seeded random walks; see --seed, --length)
  --seed N       random-walk: the seed, an integer 0..4294967295 (default 0); same seed, same suite
  --length N     random-walk: steps over all walks, 1..${MAX_WALK_LENGTH} (default 100)
  --json         print one JSON result (schemas/cli-result.v1.json) whose \`suite\` is the suite
                 (schemas/path-suite.json); without a machine, every machine's summary
  --out FILE     write the suite as JSON to FILE and print the summary

Exit codes: 0 generated, 2 unknown machine, machine without a model, a model module that cannot
be loaded, or bad option.

short flags: -o --out, -h --help

examples:
  loopchart paths
  loopchart paths crank --out crank-suite.json
  loopchart paths rpi --strategy transition-pair --json | jq .suite.summary
  loopchart paths crank --strategy random-walk --seed 7 --length 50
  loopchart paths ./door.mjs#door --out door-suite.json
`;

/** A model module that cannot be loaded or exports no `{ machine, model }` (code `paths.module.invalid`). */
export class ModelModuleError extends InputError {
  constructor(spec: string, reason: string) {
    super('paths.module.invalid', `model module ${spec}: ${reason}`);
  }
}

/** A machine with the model its paths are generated from, and the name the output uses. */
export interface ModelledTarget {
  readonly name: string;
  readonly machine: AnyStateMachine;
  readonly model: MachineModel;
  /** `registry`, or the module's absolute path and export (`/…/door.mjs#door`). */
  readonly source: string;
}

/** True when a \`paths\` argument names a model module (\`./door.mjs#door\`, \`door.mjs\`). */
export function isModelModuleArgument(argument: string): boolean {
  return argument.includes('#') || looksLikeModulePath(argument);
}

/**
 * Loads \`<module>#<export>\` (default export without \`#\`): the export must be
 * \`{ machine, model }\` with an XState v5 machine and, optionally, its model.
 *
 * @param spec the command-line argument
 * @param cwd where a relative module path starts
 * @throws ModelModuleError when the module cannot be imported, the export is missing, or it is
 *   not \`{ machine, model }\`
 */
export async function loadModelModule(spec: string, cwd = process.cwd()): Promise<ModelledTarget> {
  const hash = spec.lastIndexOf('#');
  const file = hash < 0 ? spec : spec.slice(0, hash);
  const exportName = hash < 0 ? 'default' : spec.slice(hash + 1);
  if (file === '' || exportName === '')
    throw new ModelModuleError(spec, 'write it as <module.js>#<export>, e.g. ./door.mjs#door');
  const absolute = resolve(cwd, file);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
  } catch (error) {
    const message = error instanceof Error ? (error.message.split('\n')[0] ?? '') : String(error);
    const hint = /\.[cm]?ts$/.test(absolute) ? ' (compile TypeScript to JavaScript first)' : '';
    throw new ModelModuleError(spec, `cannot be imported: ${message}${hint}`);
  }
  if (!Object.hasOwn(module, exportName)) {
    const names = Object.keys(module);
    throw new ModelModuleError(
      spec,
      `has no export "${exportName}" (exports: ${names.length > 0 ? names.join(', ') : 'none'})`,
    );
  }
  const value = module[exportName] as { machine?: unknown; model?: unknown } | null;
  if (typeof value !== 'object' || value === null || !('machine' in value))
    throw new ModelModuleError(
      spec,
      `export "${exportName}" must be { machine, model } (defineModelledMachine(machine, model) from loopchart/testing)`,
    );
  try {
    assertMachine(value.machine);
  } catch (error) {
    throw new ModelModuleError(
      spec,
      `export "${exportName}".machine is not an XState v5 machine: ${(error as Error).message}`,
    );
  }
  const model = value.model ?? {};
  if (typeof model !== 'object' || model === null)
    throw new ModelModuleError(spec, `export "${exportName}".model must be a MachineModel object`);
  return {
    name: exportName === 'default' ? file : exportName,
    machine: value.machine as AnyStateMachine,
    model: model as MachineModel,
    source: `${absolute}#${exportName}`,
  };
}

/** A registered machine that has no path-generation model (code `paths.model.missing`). */
export class MissingModelError extends InputError {
  constructor(name: string) {
    super(
      'paths.model.missing',
      `machine "${name}" has no model in the model registry (src/graph/models/index.ts), so no paths ` +
        `can be generated; machines with a model: ${Object.keys(models).join(', ')}`,
    );
  }
}

/** How {@link suiteOf} generates: the strategy and, for `random-walk`, seed and length. */
export interface SuiteSettings {
  readonly strategy: PathStrategy;
  readonly seed?: number;
  readonly length?: number;
}

/**
 * Generates the suite of one registered machine with its registered model, or of a machine a
 * model module gave with its model.
 *
 * @throws MissingModelError when a registered machine has no model
 */
export function suiteOf(
  target: NamedMachine | ModelledTarget,
  settings: PathStrategy | SuiteSettings,
): PathSuite {
  const { strategy, seed, length } = typeof settings === 'string' ? { strategy: settings } : settings;
  let model: MachineModel | undefined;
  if ('model' in target) model = target.model;
  else {
    model = models[target.name];
    if (model === undefined || !Object.hasOwn(models, target.name)) throw new MissingModelError(target.name);
  }
  return generatePathSuite(target.machine, model, {
    strategy,
    ...(strategy === 'random-walk' ? { seed, length } : {}),
  });
}

/** `<machine> (<strategy>): N paths, M steps, transitions covered a/b, states covered c/d`. */
export function formatSuiteSummary(name: string, suite: PathSuite): string {
  const s = suite.summary;
  const gaps =
    s.uncoveredTransitions.length + s.uncoveredStates.length > 0
      ? `; not covered: ${[...s.uncoveredTransitions, ...s.uncoveredStates].join(', ')}`
      : '';
  const pairGaps = s.uncoveredTransitionPairs?.length ?? 0;
  const pairText = pairGaps > 0 ? `; ${pairGaps} transition pairs not covered` : '';
  const pairs =
    s.transitionPairsTotal === undefined
      ? ''
      : `, transition pairs covered ${s.transitionPairsCovered}/${s.transitionPairsTotal}`;
  const walk = suite.walk === undefined ? '' : `, seed ${suite.walk.seed}, length ${suite.walk.length}`;
  return (
    `${name} (${suite.strategy}${walk}): ${s.paths} paths, ${s.steps} steps, ` +
    `transitions covered ${s.transitionsCovered}/${s.transitionsTotal}, ` +
    `states covered ${s.statesCovered}/${s.statesTotal}${pairs}${gaps}${pairText}`
  );
}

/** One line per path: `<id>  <steps> steps  <final state>  <description>`. */
export function formatPathLines(suite: PathSuite): string[] {
  return suite.paths.map((path) => {
    const last = path.steps[path.steps.length - 1];
    const reached = last === undefined ? '?' : stateValueLabel(last.stateAfter.value as never);
    return `${path.id}  ${String(path.steps.length).padStart(3)} steps  ${reached}  ${path.description}`;
  });
}

function parseStrategy(value: string | undefined): PathStrategy {
  if (value === undefined) return 'transition-cover';
  if (!(PATH_STRATEGIES as readonly string[]).includes(value))
    throw new UsageError(`paths: --strategy must be one of ${PATH_STRATEGIES.join(', ')}, got "${value}"`);
  return value as PathStrategy;
}

function parseWhole(option: string, value: string | undefined, max: number, min: number): number | undefined {
  if (value === undefined) return undefined;
  const n = /^\d+$/.test(value) ? Number(value) : Number.NaN;
  if (!Number.isSafeInteger(n) || n < min || n > max)
    throw new UsageError(`paths: --${option} must be an integer ${min}..${max}, got "${value}"`);
  return n;
}

async function runPaths(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'paths',
    args,
    {
      strategy: { type: 'string' },
      out: { type: 'string' },
      seed: { type: 'string' },
      length: { type: 'string' },
    },
    true,
  );
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const json = values.json === true;
  const strategy = parseStrategy(values.strategy as string | undefined);
  const seed = parseWhole('seed', values.seed as string | undefined, 0xffffffff, 0);
  const length = parseWhole('length', values.length as string | undefined, MAX_WALK_LENGTH, 1);
  if ((seed !== undefined || length !== undefined) && strategy !== 'random-walk')
    throw new UsageError('paths: --seed and --length go with --strategy random-walk');
  const settings: SuiteSettings = { strategy, seed, length };
  if (positionals.length > 1)
    throw new UsageError(`paths: name at most one machine, got ${positionals.length}`);
  const out = values.out === undefined ? undefined : resolve(values.out as string);
  const name = positionals[0];

  if (name === undefined) {
    if (out !== undefined) throw new UsageError('paths: --out needs a machine name');
    const summaries: Record<string, PathSuite['summary']> = {};
    for (const target of registeredMachines()) {
      if (!Object.hasOwn(models, target.name)) {
        io.stderr.write(`loopchart: warning: machine "${target.name}" has no model; skipped\n`);
        continue;
      }
      const suite = suiteOf(target, settings);
      summaries[target.name] = suite.summary;
      if (!json) io.stdout.write(`${formatSuiteSummary(target.name, suite)}\n`);
    }
    if (json)
      io.stdout.write(
        `${JSON.stringify({ schema: CLI_RESULT_SCHEMA_ID, command: 'paths', status: 'finished', exitCode: 0, strategy, machines: summaries }, null, 2)}\n`,
      );
    return 0;
  }

  const target = isModelModuleArgument(name) ? await loadModelModule(name) : registeredMachine(name);
  const suite = suiteOf(target, settings);
  const label = target.name;
  const text = `${JSON.stringify(suite, null, 2)}\n`;
  if (out !== undefined) {
    await mkdir(dirname(out), { recursive: true });
    await writeFile(out, text);
  }
  if (json)
    io.stdout.write(
      `${JSON.stringify(
        {
          schema: CLI_RESULT_SCHEMA_ID,
          command: 'paths',
          status: 'finished',
          exitCode: 0,
          machine: label,
          strategy,
          ...(suite.walk === undefined ? {} : { walk: suite.walk }),
          summary: suite.summary,
          ...(out === undefined ? { suite } : { out }),
        },
        null,
        2,
      )}\n`,
    );
  else {
    io.stdout.write(`${formatSuiteSummary(label, suite)}\n`);
    for (const line of formatPathLines(suite)) io.stdout.write(`${line}\n`);
    if (out !== undefined) io.stdout.write(`wrote ${out}\n`);
  }
  return 0;
}

/** The `paths` command. */
export const pathsCommand: CliCommand = {
  name: 'paths',
  summary: "export a machine's model-based path suite as JSON (what a test generator consumes)",
  run: runPaths,
};
