import { readdirSync, readFileSync } from 'node:fs';
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
    const files = await generatedFiles(root);
    // Every registered machine has its overview in three formats, its interchange documents
    // (xstate-json, SCXML) and an SVG per compound state
    // at the top level (its regions); coverage and schemas are there too.
    for (const [name, machine] of Object.entries(machines)) {
      for (const ext of ['dot', 'mmd', 'svg', 'xstate.json', 'scxml'])
        expect(files.some((f) => f.path === `visualizations/${name}.${ext}`)).toBe(true);
      for (const [key, child] of Object.entries(machine.root.states))
        if (Object.keys(child.states).length > 0)
          expect(
            files.some((f) => f.path === `visualizations/${name}.${key}.svg`),
            key,
          ).toBe(true);
    }
    // Nothing under visualizations/ is left over from an earlier generation (a removed region).
    const generated = new Set(files.map((f) => f.path));
    for (const file of readdirSync(join(root, 'visualizations')))
      expect(generated.has(`visualizations/${file}`), `visualizations/${file} is not generated`).toBe(true);
    expect(files.some((f) => f.path === 'visualizations/coverage.json')).toBe(true);
    expect(files.filter((f) => f.path.startsWith('schemas/')).length).toBeGreaterThan(10);
    expect(await staleFiles(root, files)).toEqual([]);
    // Generation runs every path suite and ~40 Graphviz layouts: slow on a loaded 2-core machine.
  }, 180_000);

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
    const svgs = readdirSync(join(root, 'visualizations'))
      .filter((file) => file.startsWith('loop-implementation.') && file.endsWith('.svg'))
      .map((file) => readFileSync(join(root, 'visualizations', file), 'utf8'));
    expect(svgs.length).toBeGreaterThan(4);
    const implement = readFileSync(join(root, 'visualizations/loop-implementation.implement.svg'), 'utf8');
    for (const label of [/\bR1\b/, /\bR2\b/, /\bR3\b/, /\bR4\b/]) expect(implement).toMatch(label);
    const states = enumerateStates(machines['loop-implementation']).filter(
      (s) => s.id !== 'loop-implementation',
    );
    expect(states.length).toBeGreaterThan(50);
    for (const state of states)
      expect(
        svgs.some((svg) => svg.includes(`>${state.id.split('.').at(-1)}<`)),
        state.id,
      ).toBe(true);
  });

  it('docs/machines.md embeds every Mermaid overview as committed and links every region', () => {
    const doc = readFileSync(join(root, 'docs/machines.md'), 'utf8');
    for (const file of readdirSync(join(root, 'visualizations'))) {
      if (file.endsWith('.mmd')) {
        const mermaid = readFileSync(join(root, 'visualizations', file), 'utf8');
        expect(doc, `${file} (run npm run generate, then paste it into docs/machines.md)`).toContain(
          `\`\`\`mermaid\n${mermaid}\`\`\``,
        );
      }
      if (file.endsWith('.svg')) expect(doc, file).toContain(`(../visualizations/${file})`);
    }
    const readme = readFileSync(join(root, 'README.md'), 'utf8');
    const overview = readFileSync(join(root, 'visualizations/loop-implementation.mmd'), 'utf8');
    expect(readme, 'README.md: the loop engine overview').toContain(`\`\`\`mermaid\n${overview}\`\`\``);
  });
});
