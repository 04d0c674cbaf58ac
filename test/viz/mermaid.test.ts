import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import { enumerateStates } from '../../src/graph/states.js';
import { enumerateTransitions } from '../../src/graph/transitions.js';
import { sanitizeMermaidLabel, toMermaid } from '../../src/viz/mermaid.js';
import { parallelFixtureMachine } from '../fixtures/parallel-fixture-machine.js';
import { repairFixtureMachine } from '../fixtures/repair-fixture-machine.js';

const lines = (text: string) => text.split('\n').map((line) => line.trim());
const declarations = (text: string) =>
  lines(text)
    .map((line) => /^state "([^"]*)" as (\S+)/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ label: m[1] as string, id: m[2] as string }));
const edges = (text: string) =>
  lines(text)
    .map((line) => /^(\S+) --> (\S+) : (.*)$/.exec(line))
    .filter((m): m is RegExpExecArray => m !== null)
    .map((m) => ({ from: m[1] as string, to: m[2] as string, label: m[3] as string }));

describe('toMermaid', () => {
  for (const machine of [repairFixtureMachine, parallelFixtureMachine]) {
    describe(machine.id, () => {
      const text = toMermaid(machine);

      it('is a stateDiagram-v2 declaring every state once', () => {
        expect(text.startsWith('stateDiagram-v2\n')).toBe(true);
        const declared = declarations(text);
        const extra = machine.id === 'par' ? 1 : 0; // the machine itself, as a composite
        expect(declared).toHaveLength(enumerateStates(machine).length + extra);
        expect(new Set(declared.map((d) => d.id)).size).toBe(declared.length);
      });

      it('draws one labelled edge per transition target, in document order', () => {
        const expected = enumerateTransitions(machine).flatMap((t) => t.targets.map(() => t));
        const drawn = edges(text);
        expect(drawn).toHaveLength(expected.length);
        drawn.forEach((edge, index) => {
          const transition = expected[index];
          expect(edge.label.startsWith(sanitizeMermaidLabel(transition?.event ?? '?'))).toBe(true);
          if (transition?.rule) expect(edge.label.endsWith(sanitizeMermaidLabel(transition.rule))).toBe(true);
        });
      });

      it('keeps labels free of characters that break Mermaid', () => {
        for (const edge of edges(text)) expect(edge.label).not.toMatch(/[:;#"{}]/);
        for (const state of declarations(text)) expect(state.label).not.toMatch(/[:;#"{}]/);
      });

      it('balances composite state blocks', () => {
        expect(text.split('{').length).toBe(text.split('}').length);
      });

      it('marks the final states', () => {
        const ids = new Map(declarations(text).map((d) => [d.label, d.id]));
        for (const final of enumerateStates(machine).filter((s) => s.type === 'final')) {
          expect(lines(text)).toContain(`${ids.get(final.key)} --> [*]`);
        }
      });

      it('renders the same text twice', () => {
        expect(toMermaid(machine)).toBe(text);
      });
    });
  }

  const text = toMermaid(repairFixtureMachine);

  it('marks the initial state of the machine and of each compound state', () => {
    const initial = lines(text).filter((line) => line.startsWith('[*] -->'));
    expect(initial).toEqual(['[*] --> fixture_idle', '[*] --> fixture_working_diagnosing']);
  });

  it('nests compound states and separates parallel regions', () => {
    expect(text).toMatch(
      /state "working" as fixture_working \{\n(\s+.*\n)*?\s+state "deciding" as fixture_working_deciding/,
    );
    const par = lines(toMermaid(parallelFixtureMachine));
    const regionsAt = [
      par.indexOf('state "build" as par_running_build {'),
      par.indexOf('--'),
      par.indexOf('state "test" as par_running_test {'),
    ];
    expect(regionsAt.every((at) => at >= 0)).toBe(true);
    expect([...regionsAt].sort((a, b) => a - b)).toEqual(regionsAt);
  });

  it('labels rule edges with guard and rule, R1..R4 in order', () => {
    const rules = edges(text).filter((e) => e.from === 'fixture_working_deciding');
    expect(rules.map((e) => /R\d/.exec(e.label)?.[0])).toEqual(['R1', 'R2', 'R3', 'R4']);
    expect(rules[0]?.label).toBe('always [checksPassed] R1 pass');
    expect(edges(text).find((e) => e.label.startsWith('done'))?.label).toBe('done∶ diagnose');
  });

  it('gives distinct ids to state ids that sanitize alike', () => {
    const machine = createMachine({
      id: 'm',
      initial: 'a',
      states: { a: { id: 'x-y', on: { GO: '#x_y' } }, b: { id: 'x_y' } },
    });
    const ids = declarations(toMermaid(machine)).map((d) => d.id);
    expect(new Set(ids).size).toBe(2);
    expect(edges(toMermaid(machine))).toEqual([{ from: ids[0], to: ids[1], label: 'GO' }]);
  });
});

describe('sanitizeMermaidLabel', () => {
  it('replaces every character that breaks Mermaid and collapses whitespace', () => {
    const dirty = 'a: b; #c "d" {e} <f>\n  g';
    const clean = sanitizeMermaidLabel(dirty);
    expect(clean).not.toMatch(/[:;#"{}<>\n]/);
    expect(clean.split(' ')).toHaveLength(dirty.split(/\s+/).length);
  });
});
