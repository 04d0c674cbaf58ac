import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { assertMachine } from '../graph/state-nodes.js';
import { initialChildId } from '../graph/states.js';
import { enumerateTransitions, type TransitionInfo } from '../graph/transitions.js';
import { type CoverageOverlay, uncoveredSets } from './coverage-overlay.js';
import type { DiagramView, ViewNode } from './diagram-view.js';
import { edgeLabelParts, wrapLabelLine } from './edge-label.js';
import { stateElementId, transitionElementId } from './element-ids.js';

/** Options of {@link toDot}. */
export interface DotOptions {
  /** Layout direction; default `LR` (rule tables read left to right). */
  readonly rankdir?: 'LR' | 'TB';
  /** Draws uncovered transitions and unentered states in red. */
  readonly coverage?: CoverageOverlay;
}

const INDENT = '  ';

/**
 * Renders a machine as Graphviz DOT. Compound and parallel states are clusters
 * (`subgraph "cluster_<id>"`) holding an invisible anchor node, so edges into or out of a cluster
 * end at its border (`lhead`/`ltail`); a small dot marks each initial state; final states have a
 * double border; edge labels are the short event, `[guard]` and the rule label; `always` edges are
 * dashed. Output depends only on the machine (document order), so two renders are identical.
 * Every state and transition edge carries an `id` ({@link stateElementId},
 * {@link transitionElementId}) that Graphviz copies into the SVG, so a viewer can find it.
 *
 * @param machine an XState v5 machine
 * @param options layout direction and an optional coverage overlay
 * @returns DOT text ending with a newline
 * @throws MachineShapeError when `machine` is not a machine
 */
export function toDot(machine: AnyStateMachine, options: DotOptions = {}): string {
  assertMachine(machine);
  const uncovered = uncoveredSets(options.coverage);
  const clusters = new Set<string>();
  const lines: string[] = [
    `digraph ${quote(machine.id)} {`,
    `${INDENT}compound=true;`,
    `${INDENT}rankdir=${options.rankdir ?? 'LR'};`,
    `${INDENT}fontname="Helvetica";`,
    `${INDENT}label=${quote(machine.id)};`,
    `${INDENT}labelloc=t;`,
    `${INDENT}node [shape=box, style=rounded, fontname="Helvetica", fontsize=11];`,
    `${INDENT}edge [fontname="Helvetica", fontsize=9];`,
  ];

  const renderChildren = (parent: AnyStateNode, depth: number): void => {
    const pad = INDENT.repeat(depth);
    const initial = initialChildId(parent);
    if (initial !== undefined) {
      const marker = initialMarkerId(parent.id);
      lines.push(`${pad}${quote(marker)} [shape=point, width=0.12, label=""];`);
      initialEdges.push({ marker, target: initial });
    }
    for (const child of Object.values(parent.states) as AnyStateNode[]) {
      const colour = uncovered.states.has(child.id) ? ', color=red, fontcolor=red' : '';
      if (Object.keys(child.states).length > 0) {
        clusters.add(child.id);
        const style = child.type === 'parallel' ? 'dashed' : 'rounded';
        lines.push(`${pad}subgraph ${quote(clusterId(child.id))} {`);
        lines.push(`${pad}${INDENT}id=${quote(stateElementId(child.id))};`);
        lines.push(`${pad}${INDENT}label=${quote(stateLabel(child))};`);
        lines.push(`${pad}${INDENT}style=${style};`);
        if (colour) lines.push(`${pad}${INDENT}color=red; fontcolor=red;`);
        lines.push(
          `${pad}${INDENT}${quote(child.id)} [shape=point, style=invis, width=0, height=0, label=""];`,
        );
        renderChildren(child, depth + 1);
        lines.push(`${pad}}`);
      } else {
        lines.push(`${pad}${quote(child.id)} [${nodeAttributes(child)}${colour}];`);
      }
    }
  };
  const initialEdges: { marker: string; target: string }[] = [];
  const transitions = enumerateTransitions(machine);
  if (transitions.some((t) => t.source === machine.root.id)) {
    // Transitions on the machine itself need something to start from: the machine as a cluster.
    clusters.add(machine.root.id);
    lines.push(`${INDENT}subgraph ${quote(clusterId(machine.root.id))} {`);
    lines.push(`${INDENT}${INDENT}id=${quote(stateElementId(machine.root.id))};`);
    lines.push(`${INDENT}${INDENT}label=${quote(machine.root.key)};`);
    lines.push(`${INDENT}${INDENT}style=rounded;`);
    lines.push(
      `${INDENT}${INDENT}${quote(machine.root.id)} [shape=point, style=invis, width=0, height=0, label=""];`,
    );
    renderChildren(machine.root, 2);
    lines.push(`${INDENT}}`);
  } else {
    renderChildren(machine.root, 1);
  }

  for (const { marker, target } of initialEdges) {
    const head = clusters.has(target) ? `, lhead=${quote(clusterId(target))}` : '';
    lines.push(`${INDENT}${quote(marker)} -> ${quote(target)} [arrowhead=normal${head}];`);
  }
  const ancestry = ancestryOf(machine);
  for (const transition of transitions) {
    transition.targets.forEach((target, targetIndex) => {
      lines.push(
        `${INDENT}${edgeLine(transition, target, targetIndex, clusters, ancestry, uncovered.transitions)}`,
      );
    });
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

function edgeLine(
  transition: TransitionInfo,
  target: string,
  targetIndex: number,
  clusters: ReadonlySet<string>,
  ancestry: ReadonlyMap<string, readonly string[]>,
  uncovered: ReadonlySet<string>,
): string {
  const { source } = transition;
  const isAncestor = (ancestor: string, of: string) => (ancestry.get(of) ?? []).includes(ancestor);
  const attributes: string[] = [`label=${quote(dotLabel(transition))}`];
  // An edge may end at a cluster border only when neither end lies inside the other's cluster.
  if (clusters.has(source) && source !== target && !isAncestor(source, target)) {
    attributes.push(`ltail=${quote(clusterId(source))}`);
  }
  if (clusters.has(target) && source !== target && !isAncestor(target, source)) {
    attributes.push(`lhead=${quote(clusterId(target))}`);
  }
  if (transition.kind === 'always') attributes.push('style=dashed');
  if (uncovered.has(transition.key)) attributes.push('color=red', 'fontcolor=red', 'penwidth=1.5');
  attributes.push(`id=${quote(transitionElementId(transition.key, targetIndex))}`);
  return `${quote(source)} -> ${quote(target)} [${attributes.join(', ')}];`;
}

function dotLabel(transition: TransitionInfo): string {
  const { event, guard, rule } = edgeLabelParts(transition);
  return [guard ? `${event} ${guard}` : event, ...(rule ? [rule] : [])].join('\n');
}

function nodeAttributes(node: AnyStateNode): string {
  if (node.type === 'history') {
    return `shape=circle, width=0.3, fixedsize=true, label=${quote(node.history === 'deep' ? 'H*' : 'H')}, id=${quote(stateElementId(node.id))}`;
  }
  const final = node.type === 'final' ? ', peripheries=2' : '';
  return `label=${quote(stateLabel(node))}${final}, id=${quote(stateElementId(node.id))}`;
}

/** The state's key, plus a line per invoked actor (`invoke diagnose`). */
function stateLabel(node: AnyStateNode): string {
  const invokes = node.invoke.map((invoke) => `invoke ${String(invoke.src)}`);
  return [node.key, ...invokes].join('\n');
}

function ancestryOf(machine: AnyStateMachine): Map<string, string[]> {
  const ancestry = new Map<string, string[]>();
  const visit = (node: AnyStateNode, ancestors: string[]): void => {
    ancestry.set(node.id, ancestors);
    for (const child of Object.values(node.states) as AnyStateNode[]) visit(child, [...ancestors, node.id]);
  };
  visit(machine.root, []);
  return ancestry;
}

function clusterId(stateId: string): string {
  return `cluster_${stateId}`;
}

function initialMarkerId(parentId: string): string {
  return `${parentId}:initial`;
}

/** A DOT double-quoted string; line breaks become DOT's centred `\n`. */
function quote(text: string): string {
  return `"${text.replace(/\\/g, '\\\\').replace(/"/g, '\\"').replace(/\r?\n/g, '\\n')}"`;
}

/** Options of {@link viewToDot}. */
export interface ViewDotOptions {
  /** Layout direction; default `LR`. */
  readonly rankdir?: 'LR' | 'TB';
  /** Label lines longer than this many characters are wrapped at spaces; default 30. */
  readonly wrap?: number;
}

/**
 * Renders a {@link DiagramView} (an overview, a region or the full machine with merged edges) as
 * Graphviz DOT. Boxes are as in {@link toDot}; a collapsed compound state is a bold box naming how
 * many states it holds; a stub (a state outside the region) is a dashed grey box named by its path.
 * Every box carries `id="state:<id>"` (stubs `stub:<id>`) and a class (`lc-state`, `lc-collapsed`,
 * `lc-stub`); every edge carries the view edge's id and class `lc-edge`.
 *
 * @returns DOT text ending with a newline
 */
export function viewToDot(view: DiagramView, options: ViewDotOptions = {}): string {
  const wrap = options.wrap ?? 30;
  const lines: string[] = [
    `digraph ${quote(view.title)} {`,
    `${INDENT}compound=true;`,
    `${INDENT}rankdir=${options.rankdir ?? 'LR'};`,
    `${INDENT}fontname="Helvetica";`,
    `${INDENT}fontsize=14;`,
    `${INDENT}label=${quote(view.title)};`,
    `${INDENT}labelloc=t;`,
    `${INDENT}node [shape=box, style=rounded, fontname="Helvetica", fontsize=11];`,
    `${INDENT}edge [fontname="Helvetica", fontsize=9];`,
  ];
  const clusters = new Set<string>();
  const initialEdges: { marker: string; target: string }[] = [];
  const render = (node: ViewNode, depth: number): void => {
    const pad = INDENT.repeat(depth);
    const label = quote([node.title, ...node.details].join('\n'));
    switch (node.kind) {
      case 'cluster': {
        clusters.add(node.stateId);
        lines.push(`${pad}subgraph ${quote(clusterId(node.stateId))} {`);
        lines.push(`${pad}${INDENT}id=${quote(stateElementId(node.stateId))};`);
        lines.push(`${pad}${INDENT}class="lc-state lc-cluster";`);
        lines.push(`${pad}${INDENT}label=${label};`);
        lines.push(`${pad}${INDENT}fontsize=12;`);
        lines.push(`${pad}${INDENT}style=${node.parallel ? 'dashed' : 'rounded'};`);
        lines.push(
          `${pad}${INDENT}${quote(node.stateId)} [shape=point, style=invis, width=0, height=0, label=""];`,
        );
        if (node.initial !== undefined) {
          const marker = initialMarkerId(node.stateId);
          lines.push(`${pad}${INDENT}${quote(marker)} [shape=point, width=0.12, label=""];`);
          initialEdges.push({ marker, target: node.initial });
        }
        for (const child of node.children) render(child, depth + 1);
        lines.push(`${pad}}`);
        return;
      }
      case 'history':
        lines.push(
          `${pad}${quote(node.stateId)} [shape=circle, width=0.3, fixedsize=true, label=${label}, id=${quote(stateElementId(node.stateId))}, class="lc-state"];`,
        );
        return;
      case 'stub':
        lines.push(
          `${pad}${quote(node.stateId)} [label=${label}, style="rounded,dashed", color=grey40, fontcolor=grey25, id=${quote(`stub:${node.stateId}`)}, class="lc-stub"];`,
        );
        return;
      case 'collapsed':
        lines.push(
          `${pad}${quote(node.stateId)} [label=${label}, style="rounded,bold${node.parallel ? ',dashed' : ''}", id=${quote(stateElementId(node.stateId))}, class="lc-state lc-collapsed"];`,
        );
        return;
      default: {
        // A box standing for several final states (an overview's outcome group) names them all.
        const id =
          node.members === undefined ? stateElementId(node.stateId) : `states:${node.members.join(',')}`;
        lines.push(
          `${pad}${quote(node.stateId)} [label=${label}${node.kind === 'final' ? ', peripheries=2' : ''}, id=${quote(id)}, class="lc-state"];`,
        );
      }
    }
  };
  if (view.initial !== undefined) {
    const marker = initialMarkerId(view.machineId);
    lines.push(`${INDENT}${quote(marker)} [shape=point, width=0.12, label=""];`);
    initialEdges.push({ marker, target: view.initial });
  }
  for (const node of view.nodes) render(node, 1);
  for (const { marker, target } of initialEdges) {
    const head = clusters.has(target) ? `, lhead=${quote(clusterId(target))}` : '';
    lines.push(`${INDENT}${quote(marker)} -> ${quote(target)} [arrowhead=normal${head}];`);
  }
  for (const edge of view.edges) {
    const label = edge.lines.flatMap((line) => wrapLabelLine(line, wrap));
    const attributes = [`label=${leftJustified(label)}`];
    const inside = (outer: string, inner: string) => inner.startsWith(`${outer}.`);
    if (clusters.has(edge.source) && edge.source !== edge.target && !inside(edge.source, edge.target))
      attributes.push(`ltail=${quote(clusterId(edge.source))}`);
    if (clusters.has(edge.target) && edge.source !== edge.target && !inside(edge.target, edge.source))
      attributes.push(`lhead=${quote(clusterId(edge.target))}`);
    if (edge.eventless) attributes.push('style=dashed');
    attributes.push(`id=${quote(edge.id)}`, 'class="lc-edge"');
    lines.push(`${INDENT}${quote(edge.source)} -> ${quote(edge.target)} [${attributes.join(', ')}];`);
  }
  lines.push('}');
  return `${lines.join('\n')}\n`;
}

/** A DOT label of left-justified lines (each ends with DOT's `\\l`). */
function leftJustified(lines: readonly string[]): string {
  return `"${lines.map((line) => `${line.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}\\l`).join('')}"`;
}
