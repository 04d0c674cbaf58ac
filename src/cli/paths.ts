/**
 * `loopchart paths [machine] [--strategy shortest|transition-cover] [--json] [--out file]`: exports
 * the model-based path suite of a registered machine, the JSON a test generator consumes (shape:
 * pathSuiteSchema, JSON Schema: schemas/path-suite.json). docs/path-suites.md shows how to turn a
 * suite into tests in another framework.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import { dirname, resolve } from 'node:path';
import { InputError, UsageError } from '../common/errors.js';
import { models } from '../graph/models/index.js';
import { generatePathSuite } from '../graph/path-suite.js';
import type { PathStrategy, PathSuite } from '../graph/path-suite-schema.js';
import { stateValueLabel } from '../graph/state-value-label.js';
import { type NamedMachine, registeredMachine, registeredMachines } from '../viz/load-machine.js';
import { parseCommandArgs } from './args.js';
import type { CliCommand, CliIo } from './command.js';
import { CLI_RESULT_SCHEMA_ID } from './json-result.js';

const STRATEGIES: readonly PathStrategy[] = ['transition-cover', 'shortest'];

const HELP = `usage: loopchart paths [machine] [--strategy transition-cover|shortest] [--json] [--out FILE]

Generates the model-based path suite of a registered machine: every path is a test case whose
steps give the state before, the event with its payload, how it is delivered, the state after and
the transitions taken. Without a machine, summarizes the suite of every registered machine.

  --strategy S   transition-cover (default: fewest paths that take every transition) or
                 shortest (one shortest path to every model state; many more paths)
  --json         print one JSON result (schemas/cli-result.v1.json) whose \`suite\` is the suite
                 (schemas/path-suite.json); without a machine, every machine's summary
  --out FILE     write the suite as JSON to FILE and print the summary

Exit codes: 0 generated, 2 unknown machine, machine without a model, or bad option.

short flags: -o --out, -h --help

examples:
  loopchart paths
  loopchart paths crank --out crank-suite.json
  loopchart paths rpi --strategy shortest --json | jq .suite
`;

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

/**
 * Generates the suite of one registered machine with its registered model.
 *
 * @throws MissingModelError when the machine has no model
 */
export function suiteOf(target: NamedMachine, strategy: PathStrategy): PathSuite {
  const model = models[target.name];
  if (model === undefined || !Object.hasOwn(models, target.name)) throw new MissingModelError(target.name);
  return generatePathSuite(target.machine, model, { strategy });
}

/** `<machine> (<strategy>): N paths, M steps, transitions covered a/b, states covered c/d`. */
export function formatSuiteSummary(name: string, suite: PathSuite): string {
  const s = suite.summary;
  const gaps =
    s.uncoveredTransitions.length + s.uncoveredStates.length > 0
      ? `; not covered: ${[...s.uncoveredTransitions, ...s.uncoveredStates].join(', ')}`
      : '';
  return (
    `${name} (${suite.strategy}): ${s.paths} paths, ${s.steps} steps, ` +
    `transitions covered ${s.transitionsCovered}/${s.transitionsTotal}, ` +
    `states covered ${s.statesCovered}/${s.statesTotal}${gaps}`
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
  if (!(STRATEGIES as readonly string[]).includes(value))
    throw new UsageError(`paths: --strategy must be one of ${STRATEGIES.join(', ')}, got "${value}"`);
  return value as PathStrategy;
}

async function runPaths(args: readonly string[], io: CliIo): Promise<number> {
  const { values, positionals } = parseCommandArgs(
    'paths',
    args,
    { strategy: { type: 'string' }, out: { type: 'string' } },
    true,
  );
  if (values.help) {
    io.stdout.write(HELP);
    return 0;
  }
  const json = values.json === true;
  const strategy = parseStrategy(values.strategy as string | undefined);
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
      const suite = suiteOf(target, strategy);
      summaries[target.name] = suite.summary;
      if (!json) io.stdout.write(`${formatSuiteSummary(target.name, suite)}\n`);
    }
    if (json)
      io.stdout.write(
        `${JSON.stringify({ schema: CLI_RESULT_SCHEMA_ID, command: 'paths', status: 'finished', exitCode: 0, strategy, machines: summaries }, null, 2)}\n`,
      );
    return 0;
  }

  const target = registeredMachine(name);
  const suite = suiteOf(target, strategy);
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
          machine: name,
          strategy,
          summary: suite.summary,
          ...(out === undefined ? { suite } : { out }),
        },
        null,
        2,
      )}\n`,
    );
  else {
    io.stdout.write(`${formatSuiteSummary(name, suite)}\n`);
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
