import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { transitionCoverage } from '../../src/graph/coverage.js';
import { enumerateStates } from '../../src/graph/states.js';
import { enumerateTransitions } from '../../src/graph/transitions.js';
import { toDot } from '../../src/viz/dot.js';
import { parallelFixtureMachine } from '../fixtures/parallel-fixture-machine.js';
import { repairFixtureMachine } from '../fixtures/repair-fixture-machine.js';

interface DotEdge {
  from: string;
  to: string;
  attributes: string;
}

const unquoteDot = (text: string) => text.replace(/\\n/g, '\n').replace(/\\"/g, '"').replace(/\\\\/g, '\\');

function edgesOf(dot: string): DotEdge[] {
  return [...dot.matchAll(/^\s*"((?:[^"\\]|\\.)*)" -> "((?:[^"\\]|\\.)*)" \[(.*)\];$/gm)].map((m) => ({
    from: unquoteDot(m[1] as string),
    to: unquoteDot(m[2] as string),
    attributes: m[3] as string,
  }));
}
const transitionEdges = (dot: string) => edgesOf(dot).filter((e) => !e.from.endsWith(':initial'));
const labelOf = (edge: DotEdge) => unquoteDot(/label="((?:[^"\\]|\\.)*)"/.exec(edge.attributes)?.[1] ?? '');
const withoutStrings = (dot: string) => dot.replace(/"(?:[^"\\]|\\.)*"/g, '""');

describe('toDot', () => {
  for (const machine of [repairFixtureMachine, parallelFixtureMachine]) {
    describe(machine.id, () => {
      const dot = toDot(machine);

      it('draws every state as a node or a cluster', () => {
        for (const state of enumerateStates(machine)) {
          const asNode = dot.includes(`"${state.id}" [`);
          const asCluster = dot.includes(`subgraph "cluster_${state.id}" {`);
          expect(asNode || asCluster, state.id).toBe(true);
        }
      });

      it('draws one edge per transition target, labelled with the short event', () => {
        const expected = enumerateTransitions(machine).flatMap((t) =>
          t.targets.map((to) => ({ from: t.source, to, event: t.event })),
        );
        const drawn = transitionEdges(dot).map((e) => ({
          from: e.from,
          to: e.to,
          event: labelOf(e).split(/[\n[]/)[0]?.trim(),
        }));
        expect(drawn).toEqual(expected);
      });

      it('balances its braces (clusters close)', () => {
        const text = withoutStrings(dot);
        expect(text.split('{').length).toBe(text.split('}').length);
        expect(dot.trimEnd().endsWith('}')).toBe(true);
      });

      it('gives final states a double border and no other state', () => {
        for (const state of enumerateStates(machine).filter(
          (s) => s.type !== 'compound' && s.type !== 'parallel',
        )) {
          const line = dot.split('\n').find((l) => l.trim().startsWith(`"${state.id}" [`)) ?? '';
          expect(line.includes('peripheries=2'), state.id).toBe(state.type === 'final');
        }
      });

      it('renders the same text twice', () => {
        expect(toDot(machine)).toBe(dot);
      });
    });
  }

  const dot = toDot(repairFixtureMachine);

  it('shows the rule table R1..R4 in order, dashed, with guards in brackets', () => {
    const rules = transitionEdges(dot).filter((e) => e.from === 'fixture.working.deciding');
    expect(rules.map((e) => labelOf(e).split('\n')[1]?.split(' ')[0])).toEqual(['R1', 'R2', 'R3', 'R4']);
    expect(rules.every((e) => e.attributes.includes('style=dashed'))).toBe(true);
    expect(labelOf(rules[2] as DotEdge)).toContain('[and(checksFlaky, not(rerunUsed))]');
    const others = transitionEdges(dot).filter((e) => e.from !== 'fixture.working.deciding');
    expect(others.some((e) => e.attributes.includes('style=dashed'))).toBe(false);
  });

  it('ends edges at cluster borders, except between a cluster and its own states', () => {
    const start = transitionEdges(dot).find((e) => labelOf(e) === 'START');
    expect(start?.attributes).toContain('lhead="cluster_fixture.working"');
    const abort = transitionEdges(dot).find((e) => labelOf(e).startsWith('ABORT'));
    expect(abort?.attributes).toContain('ltail="cluster_fixture.working"');
    const inner = transitionEdges(dot).filter(
      (e) => e.from.startsWith('fixture.working.') && e.to.startsWith('fixture.working.'),
    );
    expect(inner.length).toBeGreaterThan(0);
    expect(inner.some((e) => /lhead|ltail/.test(e.attributes))).toBe(false);
  });

  it('marks the initial state of the machine and of each compound state', () => {
    const initial = edgesOf(dot).filter((e) => e.from.endsWith(':initial'));
    expect(initial.map((e) => e.to)).toEqual(['fixture.idle', 'fixture.working.diagnosing']);
  });

  it('draws uncovered transitions and unentered states in red when given coverage', () => {
    const all = enumerateTransitions(repairFixtureMachine);
    const missingKey = all.find((t) => t.rule?.startsWith('R2'))?.key;
    const coverage = transitionCoverage(repairFixtureMachine, {
      transitions: all.filter((t) => t.key !== missingKey).map((t) => t.key),
      states: enumerateStates(repairFixtureMachine)
        .filter((s) => s.key !== 'aborted')
        .map((s) => s.id),
    });
    const overlaid = toDot(repairFixtureMachine, { coverage });
    const red = transitionEdges(overlaid).filter((e) => e.attributes.includes('color=red'));
    expect(red.map((e) => labelOf(e).split('\n')[1])).toEqual(['R2 exhausted']);
    const aborted = overlaid.split('\n').find((l) => l.trim().startsWith('"fixture.aborted" ['));
    expect(aborted).toContain('color=red');
    expect(toDot(repairFixtureMachine).includes('red')).toBe(false);
  });

  it('wraps the machine in a cluster when it has transitions of its own', () => {
    const par = toDot(parallelFixtureMachine);
    expect(par).toContain('subgraph "cluster_par" {');
    expect(transitionEdges(par).find((e) => e.from === 'par')?.attributes).toContain('RESET');
    expect(toDot(repairFixtureMachine)).not.toContain('subgraph "cluster_fixture" {');
  });

  it('renders a provided machine (new state node objects) the same way', () => {
    expect(toDot(repairFixtureMachine.provide({}))).toBe(dot);
  });

  it('escapes quotes, backslashes and line breaks in labels', () => {
    const rule = 'R1 say "hi" \\ then\nwait';
    const machine = createMachine({
      id: 'quotes',
      initial: 'a',
      states: { a: { on: { GO: { target: 'b', description: rule } } }, b: {} },
    });
    const edge = transitionEdges(toDot(machine))[0] as DotEdge;
    expect(labelOf(edge)).toBe(`GO\n${rule}`);
  });
});
