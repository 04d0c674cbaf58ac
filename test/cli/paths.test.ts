import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { execa } from 'execa';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import { createMachine } from 'xstate';
import { machines } from '../../machines/index.js';
import { runCli } from '../../src/cli/commands.js';
import { MissingModelError, suiteOf } from '../../src/cli/paths.js';
import { models } from '../../src/graph/models/index.js';
import { type PathStrategy, type PathSuite, pathSuiteSchema } from '../../src/graph/path-suite-schema.js';
import { enumerateStates } from '../../src/graph/states.js';
import { enumerateTransitions } from '../../src/graph/transitions.js';
import { parseCliResult } from '../support/cli-result.js';
import { stringSinks } from '../support/string-sinks.js';

async function paths(...args: string[]) {
  const { io, out } = stringSinks();
  const code = await runCli(['paths', ...args], io);
  return { code, ...out };
}

const modelled = (Object.entries(machines) as [string, AnyStateMachine][]).filter(([name]) =>
  Object.hasOwn(models, name),
);

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loopchart-paths-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loopchart paths', () => {
  it('has a model for every registered machine', () => {
    expect(modelled.map(([name]) => name)).toEqual(Object.keys(machines));
  });

  const suites = new Map<string, PathSuite>();

  describe.each(modelled)('%s --json', (name, machine) => {
    let suite: PathSuite;
    beforeAll(async () => {
      const { code, stdout, stderr } = await paths(name, '--json');
      expect(code, stderr).toBe(0);
      const result = parseCliResult(stdout) as { command: string; machine: string; suite: unknown };
      expect(result).toMatchObject({ command: 'paths', status: 'finished', exitCode: 0, machine: name });
      suite = pathSuiteSchema.parse(result.suite);
      suites.set(name, suite);
    });

    it('is a path suite of this machine whose counts add up', () => {
      expect(suite.machine).toBe(machine.id);
      expect(suite.strategy).toBe('transition-cover');
      expect(suite.summary.paths).toBe(suite.paths.length);
      expect(suite.summary.steps).toBe(suite.paths.reduce((sum, p) => sum + p.steps.length, 0));
      expect(suite.summary.transitionsTotal).toBe(enumerateTransitions(machine).length);
      expect(suite.summary.statesTotal).toBe(enumerateStates(machine).filter((s) => s.enterable).length);
    });

    it('covers exactly the transitions its steps take', () => {
      const defined = new Set(enumerateTransitions(machine).map((t) => t.key));
      const taken = new Set([
        ...suite.initial.transitions,
        ...suite.paths.flatMap((p) => p.steps.flatMap((s) => s.transitions)),
      ]);
      for (const key of taken) expect(defined.has(key), key).toBe(true);
      expect(suite.summary.transitionsCovered).toBe(taken.size);
      expect(suite.summary.uncoveredTransitions.sort()).toEqual(
        [...defined].filter((k) => !taken.has(k)).sort(),
      );
    });

    it('chains every path from the initial state, each step starting where the last ended', () => {
      for (const path of suite.paths) {
        expect(path.steps[0]?.stateBefore).toEqual(suite.initial.state);
        path.steps.forEach((step, index) => {
          if (index > 0) expect(step.stateBefore).toEqual(path.steps[index - 1]?.stateAfter);
          expect(step.event.type.length).toBeGreaterThan(0);
        });
      }
      expect(new Set(suite.paths.map((p) => p.id)).size).toBe(suite.paths.length);
    });
  });

  it('prints a readable summary and one line per path', async () => {
    const { code, stdout } = await paths('crank');
    expect(code).toBe(0);
    const suite = suites.get('crank') as PathSuite;
    const [summary, ...lines] = stdout.trimEnd().split('\n');
    expect(summary).toBe(
      `crank (transition-cover): ${suite.paths.length} paths, ${suite.summary.steps} steps, ` +
        `transitions covered ${suite.summary.transitionsCovered}/${suite.summary.transitionsTotal}, ` +
        `states covered ${suite.summary.statesCovered}/${suite.summary.statesTotal}`,
    );
    expect(lines).toHaveLength(suite.paths.length);
    suite.paths.forEach((path, index) => {
      expect(lines[index]?.startsWith(`${path.id} `)).toBe(true);
      expect(lines[index]).toContain(`${path.steps.length} steps`);
      expect(lines[index]).toContain(path.description);
    });
  });

  it('exports the shortest strategy, with at least as many paths as transition-cover', async () => {
    const { code, stdout } = await paths('crank', '--strategy', 'shortest', '--json');
    expect(code).toBe(0);
    const shortest = pathSuiteSchema.parse((parseCliResult(stdout) as { suite: unknown }).suite);
    expect(shortest.strategy).toBe('shortest');
    expect(shortest.paths.length).toBeGreaterThan((suites.get('crank') as PathSuite).paths.length);
    expect(shortest.summary.transitionsCovered).toBe(shortest.summary.transitionsTotal);
  });

  it('writes the suite to --out and reports where', async () => {
    const file = join(dir, 'nested', 'rpi-suite.json');
    const { code, stdout } = await paths('rpi', '--out', file);
    expect(code).toBe(0);
    const written = pathSuiteSchema.parse(JSON.parse(await readFile(file, 'utf8')));
    expect(written).toEqual(suites.get('rpi'));
    expect(stdout.split('\n')[0]).toMatch(/^rpi \(transition-cover\): \d+ paths/);
    expect(stdout).toContain(`wrote ${file}`);

    const json = await paths('rpi', '--out', file, '--json');
    expect(parseCliResult(json.stdout)).toMatchObject({
      command: 'paths',
      status: 'finished',
      machine: 'rpi',
      out: file,
      summary: { paths: written.paths.length },
    });
  });

  it('summarizes every machine when none is named', async () => {
    const { code, stdout } = await paths('--json');
    expect(code).toBe(0);
    const report = parseCliResult(stdout) as { machines: Record<string, PathSuite['summary']> };
    expect(Object.keys(report.machines)).toEqual(modelled.map(([name]) => name));
    for (const [name, summary] of Object.entries(report.machines))
      expect(summary).toEqual(suites.get(name)?.summary);
  });

  describe('bad input (exit 2, named on stderr)', () => {
    it.each([
      [['nope'], 'unknown machine "nope"'],
      [
        ['crank', '--strategy', 'random'],
        '--strategy must be one of transition-cover, shortest, transition-pair, random-walk, got "random"',
      ],
      [['crank', 'rpi'], 'name at most one machine'],
      [['--out', 'x.json'], '--out needs a machine name'],
      [['crank', '--depth', '3'], "Unknown option '--depth'"],
    ])('%j', async (args, message) => {
      const { code, stderr, stdout } = await paths(...args);
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr.startsWith('loopchart: ')).toBe(true);
      expect(stderr).toContain(message);
    });

    it('names a machine without a model', () => {
      const machine = createMachine({ id: 'bare', initial: 'a', states: { a: {} } });
      expect(() => suiteOf({ name: 'bare', machine, source: 'test' }, 'shortest')).toThrow(MissingModelError);
    });
  });
});

describe('docs/path-suites.md worked example', () => {
  /** The code blocks the page marks with `<!-- file: name -->`, by file name. */
  async function documentedFiles(): Promise<Map<string, string>> {
    const page = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'path-suites.md'), 'utf8');
    const files = new Map<string, string>();
    for (const match of page.matchAll(/<!-- file: ([\w.-]+) -->\n```js\n([\s\S]*?)```/g))
      files.set(match[1] as string, match[2] as string);
    return files;
  }

  async function runExample(strategy: PathStrategy, tamper = false) {
    const example = await mkdtemp(join(dir, 'example-'));
    for (const [name, code] of await documentedFiles()) await writeFile(join(example, name), code);
    const suiteFile = join(example, 'crank-suite.json');
    const exported = await paths('crank', '--strategy', strategy, '--out', suiteFile);
    expect(exported.code).toBe(0);
    const suite = pathSuiteSchema.parse(JSON.parse(await readFile(suiteFile, 'utf8')));
    if (tamper) {
      // The statechart starts lexer once parser returns; claim it does not.
      const step = suite.paths
        .flatMap((p) => p.steps)
        .find((s) => s.event.type === 'xstate.done.actor.lane.parser');
      if (step === undefined) throw new Error('no step where parser returns');
      const after = JSON.parse(JSON.stringify(step.stateAfter)) as typeof step.stateAfter;
      (after.projection as { started: string[] }).started = ['parser', 'docs'];
      step.stateAfter = after;
      await writeFile(suiteFile, JSON.stringify(suite));
    }
    const run = await execa(process.execPath, ['--test', '--test-reporter=tap', 'wave-runner.test.mjs'], {
      cwd: example,
      reject: false,
    });
    return { run, suite };
  }

  it('marks both files of the example', async () => {
    expect([...(await documentedFiles()).keys()]).toEqual([
      'wave-runner.mjs',
      'wave-harness.mjs',
      'wave-runner.test.mjs',
      'door.mjs',
      'wave-runner.property.mjs',
    ]);
  });

  it.each(['transition-cover', 'shortest', 'transition-pair', 'random-walk'] as const)(
    'passes every path of the exported %s suite with node --test',
    async (strategy) => {
      const { run, suite } = await runExample(strategy);
      expect(run.exitCode, run.stdout + run.stderr).toBe(0);
      expect(run.stdout).toContain(`# pass ${suite.paths.length}\n`);
      expect(run.stdout).toContain('# fail 0\n');
    },
  );

  it('fails, naming the step, when the implementation and the suite disagree', async () => {
    const { run } = await runExample('transition-cover', true);
    expect(run.exitCode).not.toBe(0);
    expect(run.stdout).toMatch(/after step \d+: xstate\.done\.actor\.lane\.parser/);
  });
});
