import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { machines } from '../machines/index.js';
import { generatedFiles, staleFiles } from '../src/cli/generate.js';
import { enumerateStates } from '../src/graph/states.js';

// visualizations/ and schemas/ are generated from the code by `npm run generate`; a committed copy
// that no longer matches what the code generates fails here.
const root = join(import.meta.dirname, '..');

describe('generated files', () => {
  it('are committed and fresh (run `npm run generate` when this fails)', async () => {
    const files = await generatedFiles();
    // Every registered machine has its three diagrams; coverage and schemas are there too.
    for (const name of Object.keys(machines))
      for (const ext of ['dot', 'mmd', 'svg'])
        expect(files.some((f) => f.path === `visualizations/${name}.${ext}`)).toBe(true);
    expect(files.some((f) => f.path === 'visualizations/coverage.json')).toBe(true);
    expect(files.filter((f) => f.path.startsWith('schemas/')).length).toBeGreaterThan(10);
    expect(await staleFiles(root, files)).toEqual([]);
  });

  it('record 100% transition and state coverage for every machine', () => {
    const report = JSON.parse(readFileSync(join(root, 'visualizations/coverage.json'), 'utf8')) as {
      machines: Record<
        string,
        {
          transitions: { covered: number; total: number };
          states: { covered: number; total: number };
          guards?: { covered: number; total: number };
        }
      >;
    };
    expect(Object.keys(report.machines).sort()).toEqual(Object.keys(machines).sort());
    for (const [name, entry] of Object.entries(report.machines)) {
      expect(entry.transitions.covered, `${name} transitions`).toBe(entry.transitions.total);
      expect(entry.states.covered, `${name} states`).toBe(entry.states.total);
      expect(entry.guards?.covered, `${name} guards`).toBe(entry.guards?.total);
    }
  });

  it('draw the loop engine with every state and the R1..R4 rule labels', () => {
    const svg = readFileSync(join(root, 'visualizations/loop-implementation.svg'), 'utf8');
    for (const label of ['R1 ', 'R2 ', 'R3 ', 'R4 ']) expect(svg).toContain(label);
    const states = enumerateStates(machines['loop-implementation']).filter(
      (s) => s.id !== 'loop-implementation',
    );
    expect(states.length).toBeGreaterThan(50);
    for (const state of states) expect(svg, state.id).toContain(`>${state.id.split('.').at(-1)}<`);
  });
});
