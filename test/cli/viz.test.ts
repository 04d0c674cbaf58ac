import { mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type AnyStateMachine, createMachine } from 'xstate';
import { machines } from '../../machines/index.js';
import { runCli } from '../../src/cli/commands.js';
import { machineDiagrams } from '../../src/cli/generate.js';
import { transitionCoverage } from '../../src/graph/coverage.js';
import { coverageReportJson } from '../../src/graph/coverage-report.js';
import { enumerateStates } from '../../src/graph/states.js';
import { enumerateTransitions } from '../../src/graph/transitions.js';
import { DIAGRAM_FORMATS } from '../../src/viz/diagram-format.js';
import { parseCliResult } from '../support/cli-result.js';
import { stringSinks } from '../support/string-sinks.js';

async function viz(...args: string[]) {
  const { io, out } = stringSinks();
  const code = await runCli(['viz', ...args], io);
  return { code, ...out };
}

const registered = Object.entries(machines) as [string, AnyStateMachine][];
// The module a host writes imports its own xstate; here the project's, by absolute URL.
const xstateUrl = pathToFileURL(createRequire(import.meta.url).resolve('xstate')).href;
const hostMachineSource = (id: string) => `createMachine({
  id: '${id}',
  initial: 'idle',
  states: {
    idle: { on: { START: { target: 'busy', guard: 'ready', description: 'R1 start when ready' } } },
    busy: { initial: 'a', states: { a: { on: { NEXT: 'b' } }, b: { type: 'final' } }, onDone: 'done' },
    done: { type: 'final' },
  },
})`;

let dir: string;
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'loopchart-viz-'));
});
afterAll(async () => {
  await rm(dir, { recursive: true, force: true });
});

describe('loopchart viz', () => {
  it.each(registered)(
    'draws %s as DOT with every state, cluster, final state and rule label',
    async (name, machine) => {
      const { code, stdout } = await viz(name, '--format', 'dot');
      expect(code).toBe(0);
      expect(stdout.startsWith(`digraph "${machine.id}" {`)).toBe(true);
      for (const state of enumerateStates(machine)) {
        if (state.type === 'compound' || state.type === 'parallel')
          expect(stdout, state.id).toContain(`subgraph "cluster_${state.id}" {`);
        else {
          const line = stdout.split('\n').find((l) => l.trim().startsWith(`"${state.id}" [`));
          expect(line, state.id).toBeDefined();
          expect(line?.includes('peripheries=2'), state.id).toBe(state.type === 'final');
        }
      }
      for (const transition of enumerateTransitions(machine)) {
        if (transition.rule !== undefined) expect(stdout).toContain(transition.rule.split('\n')[0]);
        if (transition.guard !== undefined) expect(stdout).toContain(`[${transition.guard}`);
      }
    },
  );

  it('writes one file per machine and format with --out, for every registered machine by default', async () => {
    const out = join(dir, 'all');
    const { code, stdout } = await viz('--out', out, '--format', 'svg,mermaid', '--format', 'json');
    expect(code).toBe(0);
    const expected = registered.flatMap(([name]) => [`${name}.svg`, `${name}.mmd`, `${name}.json`]);
    expect((await readdir(out)).sort()).toEqual(expected.sort());
    expect(stdout.trim().split('\n')).toHaveLength(expected.length);
    for (const [name, machine] of registered) {
      // Graphviz writes `-` in attribute values as `&#45;`.
      const svg = (await readFile(join(out, `${name}.svg`), 'utf8')).replace(/&#45;/g, '-');
      expect(svg).toContain('<svg');
      // Every transition edge can be found by id in the SVG (the viewer relies on it).
      for (const t of enumerateTransitions(machine)) expect(svg).toContain(`id="transition:${t.key}:0"`);
      const mermaid = await readFile(join(out, `${name}.mmd`), 'utf8');
      expect(mermaid.startsWith('stateDiagram-v2')).toBe(true);
      const json = JSON.parse(await readFile(join(out, `${name}.json`), 'utf8')) as {
        id: string;
        transitions: unknown[];
      };
      expect(json.id).toBe(machine.id);
      expect(json.transitions).toHaveLength(enumerateTransitions(machine).length);
    }
  });

  it('prints the diagrams as JSON with --json and no --out', async () => {
    const { code, stdout } = await viz('crank', 'rpi', '--format', 'mermaid', '--json');
    expect(code).toBe(0);
    const report = parseCliResult(stdout) as {
      command: string;
      status: string;
      diagrams: { machine: string; format: string; content: string }[];
    };
    expect(report.command).toBe('viz');
    expect(report.status).toBe('finished');
    expect(report.diagrams.map((d) => d.machine)).toEqual(['crank', 'rpi']);
    expect(report.diagrams.every((d) => d.content.startsWith('stateDiagram-v2'))).toBe(true);
  });

  it('exports the interchange formats: xstate-json re-imports with createMachine, scxml is SCXML 1.0', async () => {
    const out = join(dir, 'interchange');
    const { code, stdout } = await viz('crank', 'rpi', '--out', out, '--format', 'xstate-json,scxml');
    expect(code).toBe(0);
    expect((await readdir(out)).sort()).toEqual([
      'crank.scxml',
      'crank.xstate.json',
      'rpi.scxml',
      'rpi.xstate.json',
    ]);
    expect(stdout.trim().split('\n')).toHaveLength(4);
    for (const name of ['crank', 'rpi'] as const) {
      const machine = machines[name] as AnyStateMachine;
      const reimported = createMachine(JSON.parse(await readFile(join(out, `${name}.xstate.json`), 'utf8')));
      expect(reimported.id).toBe(machine.id);
      expect(enumerateTransitions(reimported).length).toBe(enumerateTransitions(machine).length);
      const scxml = await readFile(join(out, `${name}.scxml`), 'utf8');
      expect(scxml.startsWith('<?xml version="1.0" encoding="UTF-8"?>\n')).toBe(true);
      expect(scxml).toMatch(/<scxml xmlns="http:\/\/www\.w3\.org\/2005\/07\/scxml" [^>]*version="1\.0"/);
    }
    const single = await viz('crank', '--format', 'xstate-json');
    expect(single.code).toBe(0);
    expect((JSON.parse(single.stdout) as { id: string }).id).toBe('crank');
    const scxml = await viz('crank', '--format', 'scxml');
    expect(scxml.code).toBe(0);
    expect(scxml.stdout).toContain('<final id="crank.evidenced"');
  });

  it('lists every format in --help and docs/cli.md', async () => {
    const { code, stdout } = await viz('--help');
    expect(code).toBe(0);
    const cliDoc = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'cli.md'), 'utf8');
    const vizSection = cliDoc.split('\n## viz\n')[1]?.split('\n## ')[0] ?? '';
    for (const format of DIAGRAM_FORMATS) {
      expect(stdout, format).toMatch(new RegExp(`^ +${format} +\\S`, 'm'));
      expect(vizSection, format).toContain(`\`${format}\``);
    }
  });

  it('draws uncovered transitions and states red from a coverage.json', async () => {
    const machine = machines.crank as AnyStateMachine;
    const all = enumerateTransitions(machine);
    const gap = all[1] as (typeof all)[number];
    const states = enumerateStates(machine);
    const unentered = states.at(-1)?.id as string;
    const coverage = transitionCoverage(machine, {
      transitions: all.filter((t) => t !== gap).map((t) => t.key),
      states: states.filter((s) => s.id !== unentered).map((s) => s.id),
    });
    const file = join(dir, 'coverage.json');
    await writeFile(file, coverageReportJson([coverage]));
    const { code, stdout } = await viz('crank', '--format', 'dot', '--coverage', file);
    expect(code).toBe(0);
    const red = stdout.split('\n').filter((line) => line.includes('color=red'));
    expect(red).toHaveLength(2);
    expect(red.some((line) => line.includes(`id="transition:${gap.key}:0"`))).toBe(true);
    expect(red.some((line) => line.trim().startsWith(`"${unentered}" [`))).toBe(true);

    const svg = await viz('crank', '--coverage', file);
    expect(svg.code).toBe(0);
    expect(svg.stdout).toMatch(/stroke="red"/);
  });

  it('refuses a coverage.json that is malformed, stale or lacks the machine (exit 2)', async () => {
    const malformed = join(dir, 'malformed.json');
    await writeFile(malformed, '{"format":"something-else"}');
    const bad = await viz('crank', '--format', 'dot', '--coverage', malformed);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toMatch(/^loopchart: .*malformed\.json: not a loopchart-coverage\/1 report/);

    const crank = machines.crank as AnyStateMachine;
    const stale = JSON.parse(
      coverageReportJson([transitionCoverage(crank, { transitions: [], states: [] })]),
    ) as { machines: { crank: { transitions: { missing: { key: string }[] } } } };
    (stale.machines.crank.transitions.missing[0] as { key: string }).key = 'crank.gone|GONE|0';
    const staleFile = join(dir, 'stale.json');
    await writeFile(staleFile, JSON.stringify(stale));
    const staleRun = await viz('crank', '--format', 'dot', '--coverage', staleFile);
    expect(staleRun.code).toBe(2);
    expect(staleRun.stderr).toContain('crank.gone|GONE|0');

    const other = await viz('rpi', '--format', 'dot', '--coverage', staleFile);
    expect(other.code).toBe(2);
    expect(other.stderr).toContain('has no entry for machine "rpi"');
  });

  describe('a machine module given by path', () => {
    it('draws the default export, named after the file', async () => {
      const file = join(dir, 'host-variant.mjs');
      await writeFile(
        file,
        `import { createMachine } from '${xstateUrl}';\nexport default ${hostMachineSource('hostVariant')};\n`,
      );
      const out = join(dir, 'module-out');
      const { code, stderr } = await viz(file, '--out', out, '--format', 'dot');
      expect(code, stderr).toBe(0);
      const dot = await readFile(join(out, 'host-variant.dot'), 'utf8');
      expect(dot).toContain('subgraph "cluster_hostVariant.busy"');
      expect(dot).toContain('R1 start when ready');
      expect(dot).toContain('[ready]');
      expect(dot).toMatch(/"hostVariant\.done" \[[^\]]*peripheries=2/);
    });

    it('draws every named export that is a machine, named after the export', async () => {
      const file = join(dir, 'named.mjs');
      await writeFile(
        file,
        `import { createMachine } from '${xstateUrl}';\n` +
          `export const first = ${hostMachineSource('first')};\n` +
          `export const second = ${hostMachineSource('second')};\nexport const notAMachine = 42;\n`,
      );
      const { code, stdout } = await viz(file, '--format', 'json', '--json');
      expect(code).toBe(0);
      const report = parseCliResult(stdout) as { diagrams: { machine: string; content: string }[] };
      expect(report.diagrams.map((d) => d.machine)).toEqual(['first', 'second']);
      expect(report.diagrams.map((d) => (JSON.parse(d.content) as { id: string }).id)).toEqual([
        'first',
        'second',
      ]);
    });

    it('names a module that exports no machine, and one that cannot be imported (exit 2)', async () => {
      const none = join(dir, 'none.mjs');
      await writeFile(none, 'export const config = { id: "x" };\nexport default 3;\n');
      const empty = await viz(none, '--format', 'dot');
      expect(empty.code).toBe(2);
      expect(empty.stderr).toMatch(
        /^loopchart: machine module .*none\.mjs: exports no XState machine \(exports: .*config/,
      );

      const missing = await viz(join(dir, 'missing.mjs'), '--format', 'dot');
      expect(missing.code).toBe(2);
      expect(missing.stderr).toMatch(/missing\.mjs: cannot be imported/);

      const broken = join(dir, 'broken.mjs');
      await writeFile(broken, 'export default createMachine(;\n');
      const syntax = await viz(broken, '--format', 'dot');
      expect(syntax.code).toBe(2);
      expect(syntax.stderr).toMatch(/broken\.mjs: cannot be imported/);
    });
  });

  describe('bad input', () => {
    it('names an unknown machine and lists the registered ones (exit 2)', async () => {
      const { code, stderr, stdout } = await viz('nope');
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain('loopchart: unknown machine "nope"');
      for (const [name] of registered) expect(stderr).toContain(name);
    });

    it('names a format that does not exist (exit 2, viz.format.unknown)', async () => {
      const { code, stderr, stdout } = await viz('crank', '--format', 'png');
      expect(code).toBe(2);
      expect(stdout).toBe('');
      expect(stderr).toContain(
        '--format must be one of svg, dot, mermaid, json, xstate-json, scxml, got "png"',
      );
      const json = await viz('crank', '--format', 'xstate', '--json');
      expect(json.code).toBe(2);
      expect(parseCliResult(json.stdout)).toMatchObject({
        command: 'viz',
        status: 'invalid',
        exitCode: 2,
        error: { code: 'viz.format.unknown' },
      });
    });

    it('names a machine SCXML cannot write (exit 2, viz.scxml.unrepresentable) and writes nothing', async () => {
      const file = join(dir, 'spaced.mjs');
      await writeFile(
        file,
        `import { createMachine } from '${xstateUrl}';\n` +
          "export default createMachine({ id: 'spaced', initial: 'a', states: { a: { on: { 'two words': 'b' } }, b: {} } });\n",
      );
      const out = join(dir, 'spaced-out');
      const { code, stderr } = await viz(file, '--format', 'scxml', '--out', out);
      expect(code).toBe(2);
      expect(stderr).toContain('machine "spaced" cannot be written as SCXML: event "two words"');
      await expect(readdir(out)).rejects.toThrow();
      const json = await viz(file, '--format', 'scxml', '--json');
      expect(parseCliResult(json.stdout)).toMatchObject({ error: { code: 'viz.scxml.unrepresentable' } });
    });

    it('refuses several diagrams on stdout (exit 2)', async () => {
      const all = await viz('--format', 'dot');
      expect(all.code).toBe(2);
      expect(all.stderr).toContain(`${registered.length} diagrams cannot share stdout`);
      const two = await viz('crank', '--format', 'dot,svg');
      expect(two.code).toBe(2);
    });

    it('names an unknown option (exit 2), also as JSON with --json', async () => {
      const plain = await viz('crank', '--colour');
      expect(plain.code).toBe(2);
      expect(plain.stderr).toMatch(/^loopchart: viz: Unknown option '--colour'/);
      const json = await viz('nope', '--json');
      expect(json.code).toBe(2);
      expect(parseCliResult(json.stdout)).toMatchObject({
        command: 'viz',
        status: 'invalid',
        exitCode: 2,
        error: { code: 'viz.machine.unknown' },
      });
    });
  });
});

describe('docs/machines.md', () => {
  it('embeds every registered machine’s Mermaid overview under its own heading and links its generated SVGs', async () => {
    const page = await readFile(join(import.meta.dirname, '..', '..', 'docs', 'machines.md'), 'utf8');
    const headings = [...page.matchAll(/^## (.+)$/gm)].map((m) => m[1]);
    expect(headings).toEqual(registered.map(([name]) => name));
    for (const [name, machine] of registered) {
      const section = page.split(`## ${name}\n`)[1]?.split('\n## ')[0] ?? '';
      // A ```mermaid block GitHub renders (its text is kept current by test/generated.test.ts).
      expect(section, name).toMatch(/^```mermaid\n(?:%%.*\n)?stateDiagram-v2\n/m);
      const links = [...section.matchAll(/\]\(\.\.\/(visualizations\/[^)]+\.svg)\)/g)].map((m) => m[1]);
      // The first link is the machine's overview; every link is a file `loopchart generate` writes.
      expect(links[0], name).toBe(`visualizations/${name}.svg`);
      const generated = (await machineDiagrams(name, machine)).map((file) => file.path);
      for (const link of links) expect(generated, `${name}: ${link}`).toContain(link);
      const prose = section.replace(/```mermaid[\s\S]*?```/, '').replace(/\[[^\]]*\]\([^)]*\)/g, '');
      expect(prose.trim().length, name).toBeGreaterThan(100);
    }
  });
});
