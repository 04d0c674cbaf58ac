import { describe, expect, it } from 'vitest';
import { enumerateStates } from '../../src/graph/states.js';
import { enumerateTransitions } from '../../src/graph/transitions.js';
import { toDot } from '../../src/viz/dot.js';
import { VizRenderError } from '../../src/viz/errors.js';
import { toSvg } from '../../src/viz/svg.js';
import { parallelFixtureMachine } from '../fixtures/parallel-fixture-machine.js';
import { repairFixtureMachine } from '../fixtures/repair-fixture-machine.js';

// Graphviz writes each label line as its own <text> element, with XML escapes.
const texts = (svg: string) =>
  [...svg.matchAll(/<text[^>]*>([^<]*)<\/text>/g)].map((m) =>
    (m[1] as string)
      .replace(/&#45;/g, '-')
      .replace(/&lt;/g, '<')
      .replace(/&gt;/g, '>')
      .replace(/&amp;/g, '&'),
  );

describe('toSvg', () => {
  for (const machine of [repairFixtureMachine, parallelFixtureMachine]) {
    it(`renders ${machine.id} offline with every state name and rule label`, async () => {
      const svg = await toSvg(toDot(machine));
      expect(svg).toMatch(/^<\?xml[\s\S]*<svg[\s\S]*<\/svg>\s*$/);
      const shown = texts(svg);
      for (const state of enumerateStates(machine).filter((s) => s.type !== 'history')) {
        expect(shown, state.id).toContain(state.key);
      }
      for (const rule of enumerateTransitions(machine).flatMap((t) => (t.rule ? [t.rule] : []))) {
        expect(shown).toContain(rule);
      }
    });
  }

  it('renders the same SVG twice', async () => {
    const dot = toDot(repairFixtureMachine);
    expect(await toSvg(dot)).toBe(await toSvg(dot));
  });

  it('reports DOT that Graphviz cannot read as a named error with its messages', async () => {
    const failure = await toSvg('digraph { a -> ').catch((error: unknown) => error);
    expect(failure).toBeInstanceOf(VizRenderError);
    expect((failure as VizRenderError).findings.length).toBeGreaterThan(0);
  });
});
