import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

// DESIGN.md layers, top to bottom. A file may import only from its own layer or layers above.
//   1 src/<protocol>/  pure domain: no xstate, no node:*, no I/O packages
//   2 machines/        statecharts: no node:*, nothing from layers 3-5
//   3 src/effects/     the real world
//   4 src/host/, src/fleet/  embedding (the fleet is a host on Restate)
//   5 src/graph/, src/viz/, src/cli/  tools over machines
const root = join(import.meta.dirname, '..');
const TOOLS = new Set(['graph', 'viz', 'cli']);

function layerOf(file: string): number | null {
  const parts = relative(root, file).split(sep);
  if (parts[0] === 'machines') return 2;
  if (parts[0] !== 'src' || parts.length < 3) return null; // src/index.ts is the public API
  const folder = parts[1] as string;
  if (folder === 'effects') return 3;
  if (folder === 'host' || folder === 'fleet') return 4; // the fleet is another host (DESIGN.md)
  if (TOOLS.has(folder)) return 5;
  return 1;
}

function sourceFiles(dir: string): string[] {
  return readdirSync(dir).flatMap((name) => {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) return sourceFiles(path);
    return name.endsWith('.ts') ? [path] : [];
  });
}

function importsOf(text: string): string[] {
  const specifiers: string[] = [];
  const pattern =
    /(?:^|\n)\s*(?:import|export)\s[^'"]*?from\s+['"]([^'"]+)['"]|import\(\s*['"]([^'"]+)['"]\s*\)/g;
  for (const match of text.matchAll(pattern)) specifiers.push((match[1] ?? match[2]) as string);
  return specifiers;
}

const files = [...sourceFiles(join(root, 'src')), ...sourceFiles(join(root, 'machines'))];

describe('layering (DESIGN.md)', () => {
  it('finds the source tree', () => {
    expect(files.length).toBeGreaterThan(3);
  });

  for (const file of files) {
    const layer = layerOf(file);
    if (layer === null) continue;
    const name = relative(root, file);
    it(`${name} imports only from its own layer or above`, () => {
      const violations: string[] = [];
      for (const spec of importsOf(readFileSync(file, 'utf8'))) {
        if (spec.startsWith('.')) {
          const target = join(file, '..', spec).replace(/\.js$/, '.ts');
          const targetLayer = layerOf(target);
          if (targetLayer !== null && targetLayer > layer) violations.push(`${spec} (layer ${targetLayer})`);
          continue;
        }
        if (layer === 1 && (spec === 'xstate' || spec.startsWith('@xstate/') || spec.startsWith('xstate/')))
          violations.push(`${spec} (the pure domain never imports xstate)`);
        if (layer <= 2 && (spec.startsWith('node:') || spec === 'execa'))
          violations.push(`${spec} (no I/O below the effects layer)`);
      }
      expect(violations).toEqual([]);
    });
  }
});

/** Strongly connected components of more than one file (or a file importing itself), by Tarjan. */
function importCycles(): string[][] {
  const graph = new Map<string, string[]>();
  for (const file of files) {
    const name = relative(root, file).split(sep).join('/');
    const targets = importsOf(readFileSync(file, 'utf8'))
      .filter((spec) => spec.startsWith('.'))
      .map((spec) =>
        relative(root, join(file, '..', spec).replace(/\.js$/, '.ts'))
          .split(sep)
          .join('/'),
      );
    graph.set(name, targets);
  }
  let counter = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const cycles: string[][] = [];
  const connect = (node: string): void => {
    index.set(node, counter);
    low.set(node, counter);
    counter += 1;
    stack.push(node);
    onStack.add(node);
    for (const next of graph.get(node) ?? []) {
      if (!graph.has(next)) continue;
      if (!index.has(next)) {
        connect(next);
        low.set(node, Math.min(low.get(node) as number, low.get(next) as number));
      } else if (onStack.has(next))
        low.set(node, Math.min(low.get(node) as number, index.get(next) as number));
    }
    if (low.get(node) !== index.get(node)) return;
    const component: string[] = [];
    let member: string;
    do {
      member = stack.pop() as string;
      onStack.delete(member);
      component.push(member);
    } while (member !== node);
    if (component.length > 1 || (graph.get(node) ?? []).includes(node)) cycles.push(component.sort());
  };
  for (const node of graph.keys()) if (!index.has(node)) connect(node);
  return cycles;
}

describe('import graph', () => {
  // Static, type-only and dynamic imports all count: a cycle through the CLI registry would load
  // every command for every invocation, or make the load order decide what is initialized.
  it('has no import cycle, src/cli included', () => {
    expect(importCycles()).toEqual([]);
  });

  it('sees the CLI registry load its commands through dynamic imports', () => {
    const registry = readFileSync(join(root, 'src', 'cli', 'registry.ts'), 'utf8');
    expect(importsOf(registry).filter((spec) => spec.startsWith('./')).length).toBeGreaterThan(5);
  });
});

describe('package entry points (package.json exports)', () => {
  const entryOf = (name: string) => importsOf(readFileSync(join(root, 'src', `entry-${name}.ts`), 'utf8'));

  it('loopchart/core re-exports only the pure cores (layer 1)', () => {
    const specs = entryOf('core');
    expect(specs.length).toBeGreaterThan(10);
    expect(specs.filter((spec) => layerOf(join(root, 'src', spec.replace(/\.js$/, '.ts'))) !== 1)).toEqual(
      [],
    );
  });

  it('loopchart/host and loopchart/machines re-export no tool (graph, viz, cli)', () => {
    for (const name of ['host', 'machines'])
      expect(entryOf(name).filter((spec) => /\/(graph|viz|cli)\//.test(spec))).toEqual([]);
  });
});
