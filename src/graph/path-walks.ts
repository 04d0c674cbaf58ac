/**
 * Walks over a model explorer's graph that the `transition-pair` and `random-walk` strategies and
 * the fast-check arbitraries share: which events move a model state, a search over (model state,
 * last transition taken) that finds every reachable pair of consecutive transitions, and a seeded
 * random walk.
 */
import type { AnyEventObject } from 'xstate';
import { PathGenerationError } from './errors.js';
import type { ModelExplorer, ModelState } from './model-exploration.js';

/** A pair of consecutive transitions, as transition keys: `from` was taken just before `to`. */
export type TransitionPair = readonly [from: string, to: string];

/** The text key of a pair (transition keys never contain a newline). */
export function pairKey(from: string, to: string): string {
  return `${from}\n${to}`;
}

/**
 * The pairs of consecutive transitions in one run's transition sequence: the transitions taken at
 * start, then each step's transitions in microstep order. `always` microsteps inside one step make
 * pairs too (an actor outcome followed by the rule the table then takes).
 */
export function consecutivePairs(sequence: readonly string[]): TransitionPair[] {
  const pairs: TransitionPair[] = [];
  for (let i = 1; i < sequence.length; i++) pairs.push([sequence[i - 1] as string, sequence[i] as string]);
  return pairs;
}

/**
 * The events offered in `state` that change something (take a transition or change the status),
 * in the explorer's deterministic order, each with the state it leads to. A guard that refuses an
 * event makes it no move.
 */
export function enabledMoves(
  explorer: ModelExplorer,
  state: ModelState,
): { readonly event: AnyEventObject; readonly next: ModelState }[] {
  const moves: { event: AnyEventObject; next: ModelState }[] = [];
  for (const event of explorer.offeredEvents(state)) {
    const next = explorer.advance(state, event);
    if (next !== state) moves.push({ event, next });
  }
  return moves;
}

/** A planned path: its events from the initial state, and an id per node for prefix checks. */
export interface PlannedWalk {
  readonly events: readonly AnyEventObject[];
  readonly keys: readonly string[];
}

/** What {@link searchTransitionPairs} found. */
export interface PairSearch {
  /** Every reachable pair (by {@link pairKey}) with the shortest planned path that takes it. */
  readonly pairs: ReadonlyMap<string, PlannedWalk>;
  /** Every transition and state (`state:<id>`) reached, with the shortest path that reaches it. */
  readonly items: ReadonlyMap<string, PlannedWalk>;
}

interface PairNode {
  readonly id: string;
  readonly state: ModelState;
  /** The last transition taken on the way here (`null` before the first). */
  readonly last: string | null;
  readonly parent: PairNode | null;
  readonly event: AnyEventObject | null;
}

function plannedWalk(node: PairNode, event: AnyEventObject, nextId: string): PlannedWalk {
  const events: AnyEventObject[] = [event];
  const keys: string[] = [nextId];
  for (let at: PairNode | null = node; at?.parent; at = at.parent) {
    events.unshift(at.event as AnyEventObject);
    keys.unshift(at.id);
  }
  return { events, keys };
}

/**
 * Breadth-first search over (model state, last transition taken). The last transition is part of
 * the node because the pair a step makes with its predecessor depends on it; with it, every
 * reachable pair of consecutive transitions is the pair of some edge of this finite graph, and the
 * first edge found for it lies on a shortest path.
 *
 * @param maxNodes tripwire on the searched nodes
 * @throws PathGenerationError when more than `maxNodes` nodes are searched
 */
export function searchTransitionPairs(explorer: ModelExplorer, maxNodes: number): PairSearch {
  const pairs = new Map<string, PlannedWalk>();
  const items = new Map<string, PlannedWalk>();
  const initial = explorer.initial;
  const startLast = initial.transitions.at(-1) ?? null;
  const start: PairNode = {
    id: `${initial.key}\n${startLast ?? ''}`,
    state: initial,
    last: startLast,
    parent: null,
    event: null,
  };
  const seen = new Set<string>([start.id]);
  const queue: PairNode[] = [start];
  for (let head = 0; head < queue.length; head++) {
    const node = queue[head] as PairNode;
    for (const { event, next } of enabledMoves(explorer, node.state)) {
      const last = next.transitions.at(-1) ?? node.last;
      const nextId = `${next.key}\n${last ?? ''}`;
      let planned: PlannedWalk | undefined;
      const plan = () => {
        planned ??= plannedWalk(node, event, nextId);
        return planned;
      };
      const sequence = node.last === null ? next.transitions : [node.last, ...next.transitions];
      for (const [from, to] of consecutivePairs(sequence)) {
        const key = pairKey(from, to);
        if (!pairs.has(key)) pairs.set(key, plan());
      }
      for (const item of [...next.transitions, ...next.states.map((id) => `state:${id}`)])
        if (!items.has(item)) items.set(item, plan());
      if (seen.has(nextId)) continue;
      seen.add(nextId);
      if (seen.size > maxNodes) {
        throw new PathGenerationError(
          explorer.machine.id,
          `more than ${maxNodes} (model state, last transition) nodes while searching transition pairs; ` +
            'make project() keep only what guards read, bound the payload cases, or add stopWhen ' +
            '(or raise maxStates)',
        );
      }
      queue.push({ id: nextId, state: next, last, parent: node, event });
    }
  }
  return { pairs, items };
}

/**
 * A deterministic pseudo-random generator (mulberry32): the same seed gives the same numbers on
 * every platform. Returns floats in [0, 1).
 */
export function seededRandom(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/**
 * Random walks of `length` steps in all: from the initial state, each step picks one of the
 * {@link enabledMoves} uniformly with a generator seeded by `seed`; where no event moves the
 * machine (a final state, or `stopWhen`), the walk ends and the next one starts from the initial
 * state. Returns the event sequences, one per walk.
 */
export function randomWalks(explorer: ModelExplorer, seed: number, length: number): AnyEventObject[][] {
  const random = seededRandom(seed);
  const walks: AnyEventObject[][] = [];
  let remaining = length;
  while (remaining > 0) {
    let state = explorer.initial;
    const events: AnyEventObject[] = [];
    while (remaining > 0) {
      const moves = enabledMoves(explorer, state);
      if (moves.length === 0) break;
      const move = moves[Math.floor(random() * moves.length)] as (typeof moves)[number];
      events.push(move.event);
      state = move.next;
      remaining--;
    }
    if (events.length === 0) break; // nothing moves the initial state
    walks.push(events);
  }
  return walks;
}
