import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join, relative, sep } from 'node:path';
import { describe, expect, it } from 'vitest';

// DESIGN.md layers, top to bottom. A file may import only from its own layer or layers above.
//   1 src/<protocol>/  pure domain: no xstate, no node:*, no I/O packages
//   2 machines/        statecharts: no node:*, nothing from layers 3-5
//   3 src/effects/     the real world
//   4 src/host/        embedding
//   5 src/graph/, src/viz/, src/cli/  tools over machines
const root = join(import.meta.dirname, '..');
const TOOLS = new Set(['graph', 'viz', 'cli']);

function layerOf(file: string): number | null {
  const parts = relative(root, file).split(sep);
  if (parts[0] === 'machines') return 2;
  if (parts[0] !== 'src' || parts.length < 3) return null; // src/index.ts is the public API
  const folder = parts[1] as string;
  if (folder === 'effects') return 3;
  if (folder === 'host') return 4;
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
