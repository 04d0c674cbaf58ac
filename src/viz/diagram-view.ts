/**
 * Diagrams at human scale: what one drawing of a machine shows, before any renderer turns it into
 * DOT or Mermaid. A machine is drawn as an **overview** (its top-level states, compound ones
 * collapsed to a single box) plus one **region** diagram per compound state the overview
 * collapsed (a region too big to read splits its own compound children off as further regions).
 * Which states form a region is read from the definition, never from a hand-kept list, so a state
 * added to a machine lands in a region by itself.
 *
 * In every view, the transitions between the same two drawn boxes are merged into one edge whose
 * label lists them, and guarded alternatives (several candidates for the same event on the same
 * state) are numbered in the order XState tries them, so a fan reads like the ordered table.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { assertMachine } from '../graph/state-nodes.js';
import { initialChildId } from '../graph/states.js';
import { enumerateTransitions, type TransitionInfo } from '../graph/transitions.js';
import { type LabelItem, numberedLabelLines } from './edge-label.js';

/**
 * A region with more own boxes than this splits its compound children off into regions of their
 * own (drawn collapsed in it). Chosen so that every region of the registered machines fits the
 * width bounds in docs/machines.md; test/browser/diagrams.test.ts measures them.
 */
export const REGION_NODE_BUDGET = 16;

/** One region of a machine: a compound (or parallel) state drawn with its children. */
export interface DiagramRegion {
  /** The state's path below the machine, dot-joined (`implement`, `implement.recovery`). */
  readonly name: string;
  /** The region state's id. */
  readonly stateId: string;
  /**
   * Ids of the states this region draws as their own box or frame: the region state and its
   * descendants, except the sub-regions (drawn collapsed here, in full in their own diagram).
   */
  readonly states: readonly string[];
  /** Names of the regions split off from this one (drawn collapsed here). */
  readonly subregions: readonly string[];
}

/** How a box is drawn. */
export type ViewNodeKind =
  /** An atomic state. */
  | 'atomic'
  /** A final state (double border). */
  | 'final'
  /** A history pseudo-state. */
  | 'history'
  /** A compound or parallel state drawn with its children inside. */
  | 'cluster'
  /** A compound or parallel state drawn as one box; its children are in another diagram. */
  | 'collapsed'
  /** A state outside the drawn region, shown only where an edge leaves or enters the region. */
  | 'stub';

/** One box (or frame) of a view. */
export interface ViewNode {
  /** The state id (the machine root for the stub of a machine-level transition). */
  readonly stateId: string;
  readonly kind: ViewNodeKind;
  /** First line: the state key (a stub: its path below the machine). */
  readonly title: string;
  /** Further lines: `invoke <actor>` per invoked actor; a collapsed state: how many states it holds. */
  readonly details: readonly string[];
  /** True for a parallel state (its children are regions). */
  readonly parallel: boolean;
  /** For clusters: the id of the initial child, if any. */
  readonly initial?: string;
  /** For clusters: the boxes inside, in document order. */
  readonly children: readonly ViewNode[];
  /** For an overview box that stands for several final states: their ids (the first is `stateId`). */
  readonly members?: readonly string[];
}

/** One drawn edge: every transition between the same two boxes, in document order. */
export interface ViewEdge {
  /** Stable id of the drawn edge: `edge:<source state id>-><target state id>`. */
  readonly id: string;
  /** State id of the source box. */
  readonly source: string;
  /** State id of the target box. */
  readonly target: string;
  /** The transitions merged into this edge. */
  readonly transitions: readonly TransitionInfo[];
  /** The label, one entry per line. */
  readonly lines: readonly string[];
  /** True when every merged transition is eventless (`always`): drawn dashed. */
  readonly eventless: boolean;
}

/** One drawing of a machine. */
export interface DiagramView {
  /** `overview`, `full` or the region's name. */
  readonly name: string;
  /** The machine's id. */
  readonly machineId: string;
  /** Caption: the machine id, plus the region's name for a region. */
  readonly title: string;
  /** The top-level boxes, in document order (stubs last). */
  readonly nodes: readonly ViewNode[];
  /** The state the diagram's start marker points at, when the view starts at the machine. */
  readonly initial?: string;
  readonly edges: readonly ViewEdge[];
  /**
   * Transitions drawn as a line in their source's box instead of an edge: an actor's failure that
   * ends the run in a top-level final state (`error → failed`), which every effectful state has
   * and which would otherwise draw a fan of long edges to one box.
   */
  readonly folded: readonly { readonly box: string; readonly transition: TransitionInfo }[];
}

const childrenOf = (node: AnyStateNode): AnyStateNode[] => Object.values(node.states) as AnyStateNode[];
const isCompound = (node: AnyStateNode): boolean => childrenOf(node).length > 0;

/** The state's path below the machine root (`implement.recovery`). */
export function relativePath(machine: AnyStateMachine, stateId: string): string {
  const node = machine.getStateNodeById(stateId) as AnyStateNode;
  return node.path.join('.');
}

function descendants(node: AnyStateNode): AnyStateNode[] {
  return childrenOf(node).flatMap((child) => [child, ...descendants(child)]);
}

/**
 * The regions of a machine, read from its definition: every top-level compound state is a region;
 * a region holding more than {@link REGION_NODE_BUDGET} states splits each of its compound
 * children off as a region of its own (recursively). Every state below the top level is drawn as
 * its own box in exactly one region; the top-level states are the overview's boxes.
 *
 * @throws MachineShapeError when `machine` is not a machine
 */
export function machineRegions(machine: AnyStateMachine): DiagramRegion[] {
  assertMachine(machine);
  const regions: DiagramRegion[] = [];
  const visit = (node: AnyStateNode): void => {
    const split = descendants(node).length > REGION_NODE_BUDGET;
    const subregionNodes: AnyStateNode[] = [];
    const states: string[] = [node.id];
    const collect = (parent: AnyStateNode): void => {
      for (const child of childrenOf(parent)) {
        if (split && isCompound(child)) {
          subregionNodes.push(child);
        } else {
          states.push(child.id);
          collect(child);
        }
      }
    };
    collect(node);
    regions.push({
      name: node.path.join('.'),
      stateId: node.id,
      states,
      subregions: subregionNodes.map((sub) => sub.path.join('.')),
    });
    for (const sub of subregionNodes) visit(sub);
  };
  for (const child of childrenOf(machine.root)) if (isCompound(child)) visit(child);
  return regions;
}

/**
 * Draws the whole machine, every state expanded, with merged and numbered edges.
 *
 * @throws MachineShapeError when `machine` is not a machine
 */
export function fullView(machine: AnyStateMachine): DiagramView {
  assertMachine(machine);
  const drawn = new Map<string, ViewNodeKind>();
  const build = (node: AnyStateNode): ViewNode => {
    if (!isCompound(node)) return leafNode(node, drawn);
    drawn.set(node.id, 'cluster');
    return clusterNode(node, childrenOf(node).map(build));
  };
  const nodes = childrenOf(machine.root).map(build);
  return assembleView(machine, 'full', machine.id, nodes, drawn, { withInitial: true, overview: false });
}

/** Options of {@link overviewView}. */
export interface OverviewOptions {
  /**
   * Label lines without rule labels (number, event, guard) and boxes without `invoke` lines: the
   * Mermaid overview, narrow enough for GitHub's column.
   */
  readonly compact?: boolean;
}

/**
 * Draws the machine's top-level states, each compound one collapsed to a box naming how many
 * states it holds. Edges summarise the transitions between two boxes by their events.
 *
 * @throws MachineShapeError when `machine` is not a machine
 */
export function overviewView(machine: AnyStateMachine, options: OverviewOptions = {}): DiagramView {
  assertMachine(machine);
  const drawn = new Map<string, ViewNodeKind>();
  const groups = finalGroups(machine);
  const nodes: ViewNode[] = [];
  for (const child of childrenOf(machine.root)) {
    const group = groups.get(child.id);
    if (group !== undefined) {
      if (group[0] !== child.id) continue;
      drawn.set(child.id, 'final');
      nodes.push({
        stateId: child.id,
        kind: 'final',
        title: child.key,
        details: group.slice(1).map((id) => (machine.getStateNodeById(id) as AnyStateNode).key),
        parallel: false,
        members: group,
        children: [],
      });
      continue;
    }
    nodes.push(isCompound(child) ? collapsedNode(child, drawn) : leafNode(child, drawn));
  }
  // The compact overview (Mermaid, for GitHub's column) leaves the invoke lines to the SVG.
  if (options.compact === true)
    for (const node of nodes) {
      const details = node.details as string[];
      for (let i = details.length - 1; i >= 0; i--)
        if (details[i]?.startsWith('invoke ')) details.splice(i, 1);
    }
  const aliases = new Map<string, string>();
  for (const group of groups.values()) for (const id of group) aliases.set(id, group[0] as string);
  return assembleView(machine, 'overview', machine.id, nodes, drawn, {
    withInitial: true,
    overview: true,
    aliases,
    compact: options.compact === true,
  });
}

/**
 * Top-level final states entered from exactly the same top-level states, grouped (two or more):
 * the overview draws each group as one box listing its outcomes, so a machine with many
 * outcomes (rpi has thirteen) keeps a readable overview. Keyed by member id; each value lists the
 * members in document order.
 */
function finalGroups(machine: AnyStateMachine): Map<string, string[]> {
  const topOf = (id: string): string | undefined => {
    let node: AnyStateNode | undefined = machine.getStateNodeById(id) as AnyStateNode;
    while (node?.parent !== undefined && node.parent !== machine.root) node = node.parent;
    return node?.parent === machine.root ? node.id : undefined;
  };
  const sources = new Map<string, Set<string>>();
  for (const t of enumerateTransitions(machine))
    for (const target of t.targets) {
      const from = topOf(t.source);
      const to = topOf(target);
      if (from === undefined || to === undefined || from === to) continue;
      if (!sources.has(to)) sources.set(to, new Set());
      sources.get(to)?.add(from);
    }
  const bySignature = new Map<string, string[]>();
  for (const child of childrenOf(machine.root)) {
    if (child.type !== 'final') continue;
    const signature = [...(sources.get(child.id) ?? [])].sort().join('|');
    if (signature === '') continue;
    bySignature.set(signature, [...(bySignature.get(signature) ?? []), child.id]);
  }
  const groups = new Map<string, string[]>();
  for (const members of bySignature.values())
    if (members.length > 1) for (const id of members) groups.set(id, members);
  return groups;
}

/**
 * Draws one region: its state as a frame with its children inside (sub-regions collapsed), and
 * every transition that enters or leaves it, the outside end drawn as a stub box.
 *
 * @param name a region name from {@link machineRegions}
 * @throws Error naming the regions when `name` is not one
 */
export function regionView(machine: AnyStateMachine, name: string): DiagramView {
  const regions = machineRegions(machine);
  const region = regions.find((r) => r.name === name);
  if (region === undefined)
    throw new Error(
      `machine "${machine.id}" has no region "${name}"; regions: ${regions.map((r) => r.name).join(', ') || 'none'}`,
    );
  const collapsed = new Set(
    region.subregions.map((sub) => (regions.find((r) => r.name === sub) as DiagramRegion).stateId),
  );
  const drawn = new Map<string, ViewNodeKind>();
  const build = (node: AnyStateNode): ViewNode => {
    if (collapsed.has(node.id)) return collapsedNode(node, drawn);
    if (!isCompound(node)) return leafNode(node, drawn);
    drawn.set(node.id, 'cluster');
    return clusterNode(node, childrenOf(node).map(build));
  };
  const root = build(machine.getStateNodeById(region.stateId) as AnyStateNode);
  return assembleView(machine, region.name, `${machine.id}: ${region.name}`, [root], drawn, {
    withInitial: false,
    overview: false,
    regionStateId: region.stateId,
  });
}

function leafNode(node: AnyStateNode, drawn: Map<string, ViewNodeKind>): ViewNode {
  const kind: ViewNodeKind = node.type === 'final' ? 'final' : node.type === 'history' ? 'history' : 'atomic';
  drawn.set(node.id, kind);
  return {
    stateId: node.id,
    kind,
    title: node.type === 'history' ? (node.history === 'deep' ? 'H*' : 'H') : node.key,
    details: invokeLines(node),
    parallel: false,
    children: [],
  };
}

function collapsedNode(node: AnyStateNode, drawn: Map<string, ViewNodeKind>): ViewNode {
  drawn.set(node.id, 'collapsed');
  const count = descendants(node).length;
  return {
    stateId: node.id,
    kind: 'collapsed',
    title: node.key,
    details: [...invokeLines(node), `${count} state${count === 1 ? '' : 's'} inside`],
    parallel: node.type === 'parallel',
    children: [],
  };
}

function clusterNode(node: AnyStateNode, children: ViewNode[]): ViewNode {
  const initial = initialChildId(node);
  return {
    stateId: node.id,
    kind: 'cluster',
    title: node.key,
    details: invokeLines(node),
    parallel: node.type === 'parallel',
    ...(initial === undefined ? {} : { initial }),
    children,
  };
}

function invokeLines(node: AnyStateNode): string[] {
  return node.invoke.map((invoke) => `invoke ${String(invoke.src)}`);
}

/** The drawn box standing for `stateId`: itself, or its nearest drawn ancestor. */
function drawnAncestor(
  machine: AnyStateMachine,
  stateId: string,
  drawn: ReadonlyMap<string, ViewNodeKind>,
): string | undefined {
  let node: AnyStateNode | undefined = machine.getStateNodeById(stateId) as AnyStateNode;
  while (node !== undefined) {
    if (drawn.has(node.id)) return node.id;
    node = node.parent;
  }
  return undefined;
}

function assembleView(
  machine: AnyStateMachine,
  name: string,
  title: string,
  nodes: ViewNode[],
  drawn: Map<string, ViewNodeKind>,
  options: {
    withInitial: boolean;
    overview: boolean;
    regionStateId?: string;
    aliases?: ReadonlyMap<string, string>;
    compact?: boolean;
  },
): DiagramView {
  const stubs: ViewNode[] = [];
  const regionState =
    options.regionStateId === undefined
      ? undefined
      : (machine.getStateNodeById(options.regionStateId) as AnyStateNode);
  /** The box an end of a transition is drawn at, and its path inside that box when it is a stub. */
  const endpoint = (stateId: string): { box: string; inner?: string } => {
    const alias = options.aliases?.get(stateId);
    if (alias !== undefined)
      return alias === stateId
        ? { box: alias }
        : { box: alias, inner: (machine.getStateNodeById(stateId) as AnyStateNode).key };
    const inside = drawnAncestor(machine, stateId, drawn);
    if (inside !== undefined && drawn.get(inside) !== 'stub') return { box: inside };
    // Outside the region: one stub box per outside state next to the region (the highest ancestor
    // that does not hold the region), so the transitions into one stop menu share one edge.
    const state = machine.getStateNodeById(stateId) as AnyStateNode;
    let box = state;
    while (box.parent !== undefined && box.parent !== machine.root && !holds(box.parent, regionState))
      box = box.parent;
    if (state === machine.root) box = state;
    if (!drawn.has(box.id)) {
      drawn.set(box.id, 'stub');
      stubs.push({
        stateId: box.id,
        kind: 'stub',
        title: box === machine.root ? `${machine.id} (any state)` : box.path.join('.'),
        details: [],
        parallel: false,
        children: [],
      });
    }
    return box === state
      ? { box: box.id }
      : { box: box.id, inner: state.path.slice(box.path.length).join('.') };
  };
  const inView = (stateId: string): boolean => {
    if (options.aliases?.has(stateId)) return true;
    const kind = drawn.get(drawnAncestor(machine, stateId, drawn) ?? '');
    return kind !== undefined && kind !== 'stub';
  };
  const groups = new Map<string, { source: string; target: string; items: LabelItem[] }>();
  const candidates = candidateCounts(machine);
  const boxes = new Map<string, ViewNode>();
  const index = (node: ViewNode): void => {
    boxes.set(node.stateId, node);
    for (const child of node.children) index(child);
  };
  for (const node of nodes) index(node);
  const folded: { box: string; transition: TransitionInfo }[] = [];
  for (const transition of enumerateTransitions(machine)) {
    for (const target of transition.targets) {
      // A region shows the transitions with at least one end inside it.
      if (!inView(transition.source) && !inView(target)) continue;
      const targetNode = machine.getStateNodeById(target) as AnyStateNode;
      const sourceBox = drawnAncestor(machine, transition.source, drawn);
      const box = sourceBox === undefined ? undefined : boxes.get(sourceBox);
      if (
        transition.kind === 'error.actor' &&
        transition.guard === undefined &&
        (candidates.get(`${transition.source}|${transition.eventType}`) ?? 1) === 1 &&
        targetNode.type === 'final' &&
        targetNode.parent === machine.root &&
        box !== undefined &&
        box.kind !== 'stub' &&
        options.aliases?.get(target) === undefined
      ) {
        const line = `error → ${targetNode.key}`;
        if (!box.details.includes(line)) (box.details as string[]).push(line);
        folded.push({ box: box.stateId, transition });
        continue;
      }
      const from = endpoint(transition.source);
      const to = endpoint(target);
      // Steps inside a collapsed box are that box's own diagram's business.
      if (from.box === to.box && drawn.get(from.box) === 'collapsed' && transition.source !== from.box)
        continue;
      const id = `edge:${from.box}->${to.box}`;
      let group = groups.get(id);
      if (group === undefined) {
        group = { source: from.box, target: to.box, items: [] };
        groups.set(id, group);
      }
      if (group.items.some((item) => item.transition === transition)) continue;
      group.items.push({
        transition,
        ...(from.inner === undefined ? {} : { from: from.inner }),
        ...(to.inner === undefined ? {} : { to: to.inner }),
      });
    }
  }
  const edges: ViewEdge[] = [...groups.entries()].map(([id, group]) => {
    const transitions = group.items.map((item) => item.transition);
    const eventless = transitions.every((t) => t.kind === 'always');
    return {
      id,
      source: group.source,
      target: group.target,
      transitions,
      // An overview summarises what leaves a collapsed box (its region shows each transition);
      // from any other box every transition is listed, numbered, as in a region.
      lines:
        options.overview && drawn.get(group.source) === 'collapsed'
          ? summaryLines(transitions)
          : numberedLabelLines(group.items, candidates, {
              omitAlways: eventless,
              compact: options.compact === true,
            }),
      eventless,
    };
  });
  const initial = options.withInitial ? initialChildId(machine.root) : undefined;
  return {
    name,
    machineId: machine.id,
    title,
    nodes: [...nodes, ...stubs],
    ...(initial === undefined ? {} : { initial }),
    edges,
    folded,
  };
}

/** True when `outer` is `inner` or one of its ancestors. */
function holds(outer: AnyStateNode, inner: AnyStateNode | undefined): boolean {
  for (let node = inner; node !== undefined; node = node.parent) if (node === outer) return true;
  return false;
}

/** Number of candidates per `<source>|<event type>`: more than one means the edges are numbered. */
function candidateCounts(machine: AnyStateMachine): Map<string, number> {
  const counts = new Map<string, number>();
  for (const t of enumerateTransitions(machine)) {
    const key = `${t.source}|${t.eventType}`;
    counts.set(key, (counts.get(key) ?? 0) + 1);
  }
  return counts;
}

/**
 * An overview edge's label: what kinds of step cross it. Named events are listed (at most three,
 * then `+n more`); eventless steps, actor results and failures, delays and completions are counted
 * by kind (`ε ×5` for eventless `always` steps, `error ×3`), since the region diagrams show each one.
 * `ε` is the automata notation for a move without an input; it keeps the loop engine's overview
 * inside GitHub's column (docs/decisions/viewer.md, W38).
 */
function summaryLines(transitions: readonly TransitionInfo[]): string[] {
  const KIND_WORDS: Partial<Record<TransitionInfo['kind'], string>> = {
    always: 'ε',
    'done.actor': 'done',
    'error.actor': 'error',
    'snapshot.actor': 'snapshot',
    after: 'after',
    'done.state': 'onDone',
  };
  const parts: string[] = [];
  const counts = new Map<string, number>();
  const named: string[] = [];
  for (const t of transitions) {
    const word = KIND_WORDS[t.kind];
    if (word === undefined) {
      if (!named.includes(t.event)) named.push(t.event);
      continue;
    }
    if (!counts.has(word)) parts.push(word);
    counts.set(word, (counts.get(word) ?? 0) + 1);
  }
  const lines = parts.map((word) => {
    const count = counts.get(word) ?? 1;
    return count > 1 ? `${word} ×${count}` : word;
  });
  lines.push(...named.slice(0, 3));
  if (named.length > 3) lines.push(`+${named.length - 3} more`);
  return lines;
}

/**
 * For each state id, the name of the diagram that draws it as its own box: `overview` for the
 * top-level states that are not regions, else the region's name. Every state but the root has
 * exactly one.
 */
export function stateOwners(machine: AnyStateMachine): Map<string, string> {
  const owners = new Map<string, string>();
  for (const child of childrenOf(machine.root)) if (!isCompound(child)) owners.set(child.id, 'overview');
  for (const region of machineRegions(machine)) for (const id of region.states) owners.set(id, region.name);
  return owners;
}
