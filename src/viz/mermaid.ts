import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { assertMachine, stateNodesInDocumentOrder } from '../graph/state-nodes.js';
import { initialChildId } from '../graph/states.js';
import { enumerateTransitions, type TransitionInfo } from '../graph/transitions.js';
import type { DiagramView, ViewNode } from './diagram-view.js';
import { edgeLabelParts } from './edge-label.js';

/** Options of {@link toMermaid}. */
export interface MermaidOptions {
  /** Layout direction; default `LR`. */
  readonly direction?: 'LR' | 'TB';
}

const INDENT = '  ';

/**
 * Characters that break Mermaid's state diagram syntax inside labels, and what replaces them:
 * lookalikes where the meaning matters (`:` in `done: x`), plain punctuation otherwise.
 */
const MERMAID_REPLACEMENTS: readonly [RegExp, string][] = [
  [/:/g, '∶'],
  [/;/g, ','],
  [/#/g, '＃'],
  [/"/g, "'"],
  [/\{/g, '('],
  [/\}/g, ')'],
  [/</g, '‹'],
  [/>/g, '›'],
  [/\s+/g, ' '],
];

/**
 * Makes text safe as a Mermaid state or transition label: `:` `;` `#` `"` braces and angle
 * brackets are replaced (see the decisions in docs/decisions/graph.md), whitespace runs collapse.
 */
export function sanitizeMermaidLabel(text: string): string {
  let result = text;
  for (const [pattern, replacement] of MERMAID_REPLACEMENTS) result = result.replace(pattern, replacement);
  return result.trim();
}

/**
 * Renders a machine as a Mermaid `stateDiagram-v2` that GitHub renders: compound states as
 * `state "label" as id { … }` (parallel regions separated by `--`), `[*] -->` for initial states,
 * `--> [*]` for final states, and transitions labelled with the short event, `[guard]` and the
 * rule label, in document order. Ids are the state ids with non-word characters replaced.
 *
 * @param machine an XState v5 machine
 * @param options layout direction
 * @returns Mermaid text ending with a newline
 * @throws MachineShapeError when `machine` is not a machine
 */
export function toMermaid(machine: AnyStateMachine, options: MermaidOptions = {}): string {
  assertMachine(machine);
  const ids = mermaidIds(machine);
  const idOf = (stateId: string): string => ids.get(stateId) as string;
  const transitions = enumerateTransitions(machine);
  const lines: string[] = ['stateDiagram-v2', `${INDENT}direction ${options.direction ?? 'LR'}`];

  const renderChildren = (parent: AnyStateNode, depth: number): void => {
    const pad = INDENT.repeat(depth);
    const initial = initialChildId(parent);
    if (initial !== undefined) lines.push(`${pad}[*] --> ${idOf(initial)}`);
    const children = Object.values(parent.states) as AnyStateNode[];
    children.forEach((child, index) => {
      if (parent.type === 'parallel' && index > 0) lines.push(`${pad}--`);
      const label = `"${sanitizeMermaidLabel(child.type === 'history' ? (child.history === 'deep' ? 'H*' : 'H') : child.key)}"`;
      if (Object.keys(child.states).length > 0) {
        lines.push(`${pad}state ${label} as ${idOf(child.id)} {`);
        renderChildren(child, depth + 1);
        lines.push(`${pad}}`);
      } else {
        lines.push(`${pad}state ${label} as ${idOf(child.id)}`);
      }
    });
    for (const child of children) {
      if (child.type === 'final') lines.push(`${pad}${idOf(child.id)} --> [*]`);
    }
  };

  if (transitions.some((t) => t.source === machine.root.id)) {
    // Transitions on the machine itself need a state to start from: the machine as a composite.
    lines.push(`${INDENT}[*] --> ${idOf(machine.root.id)}`);
    lines.push(`${INDENT}state "${sanitizeMermaidLabel(machine.root.key)}" as ${idOf(machine.root.id)} {`);
    renderChildren(machine.root, 2);
    lines.push(`${INDENT}}`);
  } else {
    renderChildren(machine.root, 1);
  }
  for (const transition of transitions) {
    for (const target of transition.targets) {
      lines.push(`${INDENT}${idOf(transition.source)} --> ${idOf(target)} : ${mermaidLabel(transition)}`);
    }
  }
  return `${lines.join('\n')}\n`;
}

function mermaidLabel(transition: TransitionInfo): string {
  const { event, guard, rule } = edgeLabelParts(transition);
  return sanitizeMermaidLabel([event, guard, rule].filter((part) => part !== undefined).join(' '));
}

// Mermaid ids allow word characters only; distinct state ids that sanitize alike get a suffix.
function mermaidIds(machine: AnyStateMachine): Map<string, string> {
  const ids = new Map<string, string>();
  const used = new Set<string>();
  for (const node of stateNodesInDocumentOrder(machine)) {
    let base = node.id.replace(/[^A-Za-z0-9_]/g, '_');
    if (/^[0-9]/.test(base) || base === '') base = `s_${base}`;
    let candidate = base;
    for (let n = 2; used.has(candidate); n++) candidate = `${base}_${n}`;
    used.add(candidate);
    ids.set(node.id, candidate);
  }
  return ids;
}

/**
 * The configuration line every view diagram starts with (an init directive, which GitHub's
 * Mermaid honours): 11 px text instead of 16 and tighter spacing, so that a region fits the
 * width docs/machines.md promises.
 */
export const MERMAID_VIEW_CONFIG =
  '%%{init: {"themeVariables": {"fontSize": "11px"}, "state": {"nodeSpacing": 12, "rankSpacing": 30}}}%%';

/** Options of {@link viewToMermaid}. */
export interface ViewMermaidOptions {
  /** Layout direction; default `TB` (narrow enough for GitHub's column more often than `LR`). */
  readonly direction?: 'LR' | 'TB';
}

/**
 * Renders a {@link DiagramView} (an overview, a region or the full machine with merged edges) as a
 * Mermaid `stateDiagram-v2`: boxes as in {@link toMermaid} except that a final state is a box with a
 * heavy border (class `final`; no `--> [*]` edge, which would pull every outcome into one wide
 * row), a box's `invoke` and `error → failed` lines as state descriptions, collapsed compound
 * states in bold (class `collapsed`), stubs of
 * outside states dashed (class `stub`), and one transition line per merged edge whose label lines
 * are joined with `<br/>`.
 *
 * @returns Mermaid text ending with a newline
 */
export function viewToMermaid(view: DiagramView, options: ViewMermaidOptions = {}): string {
  const ids = new Map<string, string>();
  const used = new Set<string>();
  const idOf = (stateId: string): string => {
    const known = ids.get(stateId);
    if (known !== undefined) return known;
    let base = stateId.replace(/[^A-Za-z0-9_]/g, '_');
    if (/^[0-9]/.test(base) || base === '') base = `s_${base}`;
    let candidate = base;
    for (let n = 2; used.has(candidate); n++) candidate = `${base}_${n}`;
    used.add(candidate);
    ids.set(stateId, candidate);
    return candidate;
  };
  const lines: string[] = [
    MERMAID_VIEW_CONFIG,
    'stateDiagram-v2',
    `${INDENT}direction ${options.direction ?? 'TB'}`,
  ];
  const classes = { stub: [] as string[], collapsed: [] as string[], final: [] as string[] };
  const render = (node: ViewNode, depth: number, parallel: boolean, position: number): void => {
    const pad = INDENT.repeat(depth);
    if (parallel && position > 0) lines.push(`${pad}--`);
    const id = idOf(node.stateId);
    const label = `"${sanitizeMermaidLabel(node.title)}"`;
    if (node.kind === 'cluster') {
      lines.push(`${pad}state ${label} as ${id} {`);
      if (node.initial !== undefined) lines.push(`${pad}${INDENT}[*] --> ${idOf(node.initial)}`);
      node.children.forEach((child, index) => {
        render(child, depth + 1, node.parallel, index);
      });
      lines.push(`${pad}}`);
    } else {
      lines.push(`${pad}state ${label} as ${id}`);
    }
    for (const detail of node.details) lines.push(`${pad}${id} : ${sanitizeMermaidLabel(detail)}`);
    if (node.kind === 'stub') classes.stub.push(id);
    if (node.kind === 'collapsed') classes.collapsed.push(id);
    if (node.kind === 'final') classes.final.push(id);
  };
  if (view.initial !== undefined) lines.push(`${INDENT}[*] --> ${idOf(view.initial)}`);
  view.nodes.forEach((node, index) => {
    render(node, 1, false, index);
  });
  for (const edge of view.edges) {
    const label = edge.lines.map(sanitizeMermaidLabel).join('<br/>');
    lines.push(`${INDENT}${idOf(edge.source)} --> ${idOf(edge.target)}${label === '' ? '' : ` : ${label}`}`);
  }
  if (classes.stub.length > 0) {
    lines.push(`${INDENT}classDef stub stroke-dasharray: 4 4, fill: #f6f6f6, color: #444`);
    lines.push(`${INDENT}class ${classes.stub.join(', ')} stub`);
  }
  if (classes.collapsed.length > 0) {
    lines.push(`${INDENT}classDef collapsed stroke-width: 3px, font-weight: bold`);
    lines.push(`${INDENT}class ${classes.collapsed.join(', ')} collapsed`);
  }
  if (classes.final.length > 0) {
    lines.push(`${INDENT}classDef final fill: #ffffff, stroke: #333333, stroke-width: 4px`);
    lines.push(`${INDENT}class ${classes.final.join(', ')} final`);
  }
  return `${lines.join('\n')}\n`;
}
