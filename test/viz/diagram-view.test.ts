/**
 * Diagrams at human scale (src/viz/diagram-view.ts, diagram-set.ts): regions read from the
 * definition, every state drawn in exactly one diagram, parallel edges merged, and guarded
 * alternatives numbered in the order XState tries them. Expected values come from walking the
 * machine definitions here, not from the view code.
 */
import { describe, expect, it } from 'vitest';
import { type AnyStateMachine, type AnyStateNode, createMachine } from 'xstate';
import { machines } from '../../machines/index.js';
import { enumerateTransitions } from '../../src/graph/transitions.js';
import { machineDiagramFiles } from '../../src/viz/diagram-set.js';
import { machineRegions, overviewView, REGION_NODE_BUDGET, regionView } from '../../src/viz/diagram-view.js';
import { numberedLabelLines } from '../../src/viz/edge-label.js';

const all = Object.entries(machines) as [string, AnyStateMachine][];
const kids = (node: AnyStateNode): AnyStateNode[] => Object.values(node.states) as AnyStateNode[];
const walk = (node: AnyStateNode): AnyStateNode[] => kids(node).flatMap((child) => [child, ...walk(child)]);

/** The DOT node statements of a diagram: their element id and class. */
function drawnBoxes(dot: string): { id: string; cls: string }[] {
  const boxes: { id: string; cls: string }[] = [];
  // Plain boxes: `"x" [label=..., id="state:x", class="lc-state"];`
  for (const match of dot.matchAll(
    /^\s*"[^"]+" \[.*\bid="(states?:[^"]+|stub:[^"]+)", class="([^"]+)"\];$/gm,
  ))
    boxes.push({ id: match[1] as string, cls: match[2] as string });
  // Clusters: `id="state:x";` followed by `class="lc-state lc-cluster";`
  for (const match of dot.matchAll(/^\s*id="(state:[^"]+)";\n\s*class="([^"]+)";$/gm))
    boxes.push({ id: match[1] as string, cls: match[2] as string });
  return boxes;
}

/** The left-justified label lines of every edge of a DOT diagram (continuations joined). */
function edgeLabels(dot: string): { tail: string; head: string; lines: string[] }[] {
  const edges: { tail: string; head: string; lines: string[] }[] = [];
  for (const match of dot.matchAll(/^\s*"([^"]+)" -> "([^"]+)" \[label="((?:[^"\\]|\\.)*)"/gm)) {
    const lines: string[] = [];
    for (const raw of (match[3] as string).split('\\l').filter((l) => l !== '')) {
      if (raw.startsWith('  ') && lines.length > 0) lines[lines.length - 1] += raw.slice(1);
      else lines.push(raw);
    }
    edges.push({ tail: match[1] as string, head: match[2] as string, lines });
  }
  return edges;
}

describe('regions', () => {
  it.each(all)('%s: every top-level compound state is a region, read from the definition', (_, machine) => {
    const regions = machineRegions(machine).map((r) => r.stateId);
    for (const child of kids(machine.root))
      expect(regions.includes(child.id), child.id).toBe(kids(child).length > 0);
  });

  it('the loop engine has the entry, implement, human stop and verify regions', () => {
    const names = machineRegions(machines['loop-implementation']).map((r) => r.name);
    for (const name of ['entry', 'implement', 'humanStop', 'verify']) expect(names).toContain(name);
  });

  it('a region over the node budget splits its compound children off, and only then', () => {
    for (const [, machine] of all)
      for (const region of machineRegions(machine)) {
        const node = machine.getStateNodeById(region.stateId) as AnyStateNode;
        const compoundChildren = kids(node).filter((c) => kids(c).length > 0);
        const expected =
          walk(node).length > REGION_NODE_BUDGET ? compoundChildren.map((c) => c.path.join('.')) : [];
        expect(region.subregions).toEqual(expected);
      }
  });

  it('a state added to a machine lands in a region without any list to update', () => {
    const machine = createMachine({
      id: 'm',
      initial: 'a',
      states: {
        a: { on: { GO: 'b' } },
        b: { initial: 'x', states: { x: { on: { NEXT: 'y' } }, y: { on: { OUT: '#m.a' } }, added: {} } },
      },
    });
    expect(machineRegions(machine)).toEqual([
      { name: 'b', stateId: 'm.b', states: ['m.b', 'm.b.x', 'm.b.y', 'm.b.added'], subregions: [] },
    ]);
  });
});

describe('every state in exactly one diagram', () => {
  it.each(all)('%s', async (name, machine) => {
    const files = await machineDiagramFiles(name, machine);
    const owners = new Map<string, string[]>();
    for (const file of files.filter((f) => f.path.endsWith('.dot')))
      for (const box of drawnBoxes(file.content)) {
        if (box.cls.includes('lc-stub') || box.cls.includes('lc-collapsed')) continue;
        const ids = box.id.startsWith('states:')
          ? box.id.slice(7).split(',')
          : [box.id.slice('state:'.length)];
        for (const id of ids) owners.set(id, [...(owners.get(id) ?? []), file.path]);
      }
    const states = walk(machine.root).map((s) => s.id);
    for (const id of states) expect(owners.get(id), id).toHaveLength(1);
    expect([...owners.keys()].sort()).toEqual([...states].sort());
  });
});

describe('merged edges', () => {
  it.each(all)('%s: at most one edge between two boxes in every diagram', async (name, machine) => {
    for (const file of (await machineDiagramFiles(name, machine)).filter((f) => f.path.endsWith('.dot'))) {
      const pairs = edgeLabels(file.content).map((e) => `${e.tail}->${e.head}`);
      expect(new Set(pairs).size, file.path).toBe(pairs.length);
    }
  });

  it("the human stops' choice edges are one edge per stop menu, not one per event", () => {
    const view = regionView(machines['loop-implementation'], 'humanStop');
    const toImplement = view.edges.filter(
      (e) =>
        e.source === 'loop-implementation.humanStop.rowAllowance' &&
        e.target === 'loop-implementation.implement',
    );
    expect(toImplement).toHaveLength(1);
    // retry, raise and amend [choiceApplies] in one line, into applyingChoice
    expect(
      toImplement[0]?.lines.some((l) => /human\.retry, human\.raise, human\.amend \[choiceApplies\]/.test(l)),
    ).toBe(true);
  });

  it('the overview collapses compound states and keeps at most ~20 boxes', () => {
    for (const [name, machine] of all) {
      const view = overviewView(machine);
      expect(
        view.nodes.every((n) => n.kind !== 'cluster'),
        name,
      ).toBe(true);
      expect(view.nodes.length, name).toBeLessThanOrEqual(20);
    }
  });
});

describe('numbering in evaluation order', () => {
  // For every state with several candidates for one event, the definition's own candidate list
  // (XState's state node, in the order it tries them) gives the number each must carry.
  it.each(all)(
    '%s: every numbered line matches the candidate order of the definition',
    async (name, machine) => {
      const dots = (await machineDiagramFiles(name, machine)).filter((f) => f.path.endsWith('.dot'));
      let checked = 0;
      for (const node of walk(machine.root)) {
        const groups: [string, readonly { guard?: unknown; target?: unknown }[]][] = [
          ...node.transitions.entries(),
        ];
        if (node.always) groups.push(['', node.always]);
        for (const [, candidates] of groups) {
          if (candidates.length < 2) continue;
          candidates.forEach((candidate, position) => {
            const guard = candidate.guard as { type?: unknown } | string | undefined;
            const guardName =
              typeof guard === 'string' ? guard : typeof guard?.type === 'string' ? guard.type : undefined;
            // Somewhere among the edges leaving this state, a line numbered position + 1 names the guard.
            const found = dots.some((file) =>
              edgeLabels(file.content).some(
                (edge) =>
                  edge.tail === node.id &&
                  edge.lines.some(
                    (line) =>
                      new RegExp(`^${position + 1} `).test(line) &&
                      (guardName === undefined || line.includes(`[${guardName}`)),
                  ),
              ),
            );
            expect(found, `${node.id} candidate ${position + 1} (${guardName ?? 'unguarded'})`).toBe(true);
            checked++;
          });
        }
      }
      if (name === 'loop-implementation') expect(checked).toBeGreaterThan(20);
    },
  );

  it('numbers the fan before each dispatch 1.. in table order, R3 after the R4 seed rows', () => {
    const view = regionView(machines['loop-implementation'], 'implement');
    const lines = view.edges
      .filter((e) => e.source === 'loop-implementation.implement.beforeDispatch')
      .flatMap((e) => e.lines);
    const number = (needle: string) => Number(lines.find((l) => l.includes(needle))?.split(' ')[0]);
    expect(number('[configurationStop]')).toBe(1);
    expect(number('[boundSpent]')).toBe(2);
    expect(number('R3 ')).toBeGreaterThan(number('[seedDispatch]'));
  });

  it('labels: numbers only for several candidates, unnumbered lines merged, last unguarded reads otherwise', () => {
    const machine = createMachine({
      id: 'n',
      initial: 'a',
      states: {
        a: {
          always: [{ guard: 'g1', target: 'b', description: 'R1 first' }, { target: 'b' }],
          on: { X: 'b', Y: 'b' },
        },
        b: {},
      },
    });
    const transitions = enumerateTransitions(machine);
    const counts = new Map([
      ['n.a|', 2],
      ['n.a|X', 1],
      ['n.a|Y', 1],
    ]);
    const items = transitions.map((transition) => ({ transition }));
    expect(numberedLabelLines(items, counts, {})).toEqual(['X, Y', '1 always [g1] R1 first', '2 always']);
    const always = items.filter((i) => i.transition.kind === 'always');
    expect(numberedLabelLines(always, counts, { omitAlways: true })).toEqual([
      '1 [g1] R1 first',
      '2 otherwise',
    ]);
  });
});
