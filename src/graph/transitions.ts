import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';
import {
  actorIdOf,
  guardLabel,
  ruleLabel,
  shortEventLabel,
  type TransitionKind,
  transitionKindOf,
} from './labels.js';
import { assertMachine, stateNodesInDocumentOrder } from './state-nodes.js';

/**
 * One transition of a machine definition: one `TransitionDefinition` (an entry of a state node's
 * `transitions` table or of its `always` list). Guarded alternatives for the same event are
 * separate transitions, told apart by `index`.
 */
export interface TransitionInfo {
  /** `<source id>|<event type>|<index>`; the event type of an `always` transition is empty. */
  readonly key: string;
  /** Id of the state node the transition is defined on. */
  readonly source: string;
  /** Ids of the target state nodes; a targetless transition targets its own source. */
  readonly targets: readonly string[];
  /** True when the definition has no target (it runs actions and stays). */
  readonly targetless: boolean;
  /** The event type as XState stores it (`''` for `always`, `xstate.done.actor.<id>`, …). */
  readonly eventType: string;
  /** Short human form of the event: `always`, `done: x`, `error: x`, `after 60000ms`, `onDone`, … */
  readonly event: string;
  /** Position among the candidates for this event on this source, in document order (0-based). */
  readonly index: number;
  /** What produced the event. */
  readonly kind: TransitionKind;
  /** The guard rendered for people (`belowCap(cap=4)`, `and(a, not(b))`), if guarded. */
  readonly guard?: string;
  /** The rule label from `description` or `meta` (`R1 pass`), if any. */
  readonly rule?: string;
  /** The invoke id for `done.actor`, `error.actor` and `snapshot.actor` transitions. */
  readonly actor?: string;
  /** The configured delay of an `after` transition (milliseconds or a named delay). */
  readonly delay?: number | string;
  /** True when the transition re-enters its target (`reenter: true`). */
  readonly reenter: boolean;
}

/** The event type under which XState files eventless transitions. */
export const ALWAYS_EVENT_TYPE = '';

/** The coverage key of a transition given its source id, event type and candidate index. */
export function transitionKey(source: string, eventType: string, index: number): string {
  return `${source}|${eventType}|${index}`;
}

// Keys are cached per definition object; a provided machine has its own objects and fills its own
// entries, so the cache never confuses two machines.
const keyCache = new WeakMap<AnyTransitionDefinition, string>();

/**
 * The coverage key of a transition definition taken at run time (for example one reported by a
 * `@xstate.microstep` inspection event). It is built from ids and the definition's position in its
 * source's candidate list, so it is the same for a machine and for `machine.provide(...)` of it.
 */
export function transitionKeyOf(transition: AnyTransitionDefinition): string {
  const cached = keyCache.get(transition);
  if (cached !== undefined) return cached;
  const source = transition.source as AnyStateNode;
  const candidates =
    transition.eventType === ALWAYS_EVENT_TYPE
      ? (source.always ?? [])
      : (source.transitions.get(transition.eventType) ?? []);
  const key = transitionKey(source.id, transition.eventType, candidates.indexOf(transition));
  keyCache.set(transition, key);
  return key;
}

/**
 * Every transition of the machine definition, in document order: for each state node (root first,
 * then depth first), its transition table (`on`, state `onDone`, invoke `onDone`/`onError`,
 * `after`) followed by its `always` list. Initial transitions are not transitions here.
 *
 * @param machine an XState v5 machine
 * @returns one entry per TransitionDefinition
 * @throws MachineShapeError when `machine` is not a machine
 */
export function enumerateTransitions(machine: AnyStateMachine): TransitionInfo[] {
  assertMachine(machine);
  const result: TransitionInfo[] = [];
  for (const node of stateNodesInDocumentOrder(machine)) {
    const groups: [string, readonly AnyTransitionDefinition[]][] = [...node.transitions.entries()];
    if (node.always && node.always.length > 0) groups.push([ALWAYS_EVENT_TYPE, node.always]);
    for (const [eventType, candidates] of groups) {
      candidates.forEach((definition, index) => {
        result.push(describeTransition(node, eventType, index, definition));
      });
    }
  }
  return result;
}

function describeTransition(
  node: AnyStateNode,
  eventType: string,
  index: number,
  definition: AnyTransitionDefinition,
): TransitionInfo {
  const targets = (definition.target ?? []).map((target) => (target as AnyStateNode).id);
  const delay = (definition as { delay?: unknown }).delay;
  const guard = guardLabel(definition.guard);
  const rule = ruleLabel(definition);
  const actor = actorIdOf(eventType);
  const knownDelay = typeof delay === 'number' || typeof delay === 'string' ? delay : undefined;
  return {
    key: transitionKey(node.id, eventType, index),
    source: node.id,
    targets: targets.length > 0 ? targets : [node.id],
    targetless: targets.length === 0,
    eventType,
    event: shortEventLabel(eventType, knownDelay),
    index,
    kind: transitionKindOf(eventType),
    ...(guard === undefined ? {} : { guard }),
    ...(rule === undefined ? {} : { rule }),
    ...(actor === undefined ? {} : { actor }),
    ...(knownDelay === undefined ? {} : { delay: knownDelay }),
    reenter: definition.reenter === true,
  };
}
