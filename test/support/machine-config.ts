/**
 * An independent reading of a machine's *configuration* (what its author wrote), for tests of
 * exporters: not XState's state nodes and not the exporters' own walk. Targets are resolved here by
 * the configuration's rules ('#id', '.child', 'sibling.path'); event types are named as XState
 * documents them (`xstate.done.actor.<invoke id>`, `xstate.after.<delay>.<state id>`, ...).
 */
import type { AnyStateMachine } from 'xstate';

type Config = Record<string, unknown>;

/** One transition as written in the configuration. */
export interface ConfigTransition {
  /** Id of the state the transition is written on. */
  readonly source: string;
  /** XState's event type; `''` for `always`. */
  readonly eventType: string;
  /** Which configuration slot wrote it. */
  readonly slot:
    | 'on'
    | 'always'
    | 'after'
    | 'onDone'
    | 'invoke.onDone'
    | 'invoke.onError'
    | 'invoke.onSnapshot';
  /** The invoke id for the `invoke.*` slots. */
  readonly invokeId?: string;
  /** Resolved target state ids, in the order written. */
  readonly targets: readonly string[];
  /** The guard as written (name, `{ type, params }` or function), undefined when unguarded. */
  readonly guard: unknown;
}

/** A configuration's states: id, written type and parent id. */
export interface ConfigState {
  readonly id: string;
  readonly type: string | undefined;
  readonly parent: string | undefined;
  readonly invokeIds: readonly string[];
}

const toArray = <T>(value: T | readonly T[] | undefined): T[] =>
  value === undefined ? [] : Array.isArray(value) ? [...value] : [value as T];

/**
 * A guard's name as the tests compare it: the name, with static params as JSON after it; params
 * computed by a function are not data and are left out.
 *
 * @throws for a guard function (the registered machines name their guards)
 */
export function guardName(guard: unknown): string {
  if (guard === undefined) return '';
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'object' && guard !== null) {
    const { type, params } = guard as { type: string; params?: unknown };
    return params === undefined || typeof params === 'function' ? type : `${type}${JSON.stringify(params)}`;
  }
  throw new Error(`expected a named guard, got ${typeof guard}`);
}

interface Node {
  readonly config: Config;
  readonly id: string;
  readonly parent: Node | undefined;
}

function nodesOf(machine: AnyStateMachine): Node[] {
  const nodes: Node[] = [];
  const build = (config: Config, path: string[], parent: Node | undefined): void => {
    const node: Node = {
      config,
      id: (config.id as string | undefined) ?? [machine.id, ...path].join('.'),
      parent,
    };
    nodes.push(node);
    for (const [key, child] of Object.entries((config.states ?? {}) as Record<string, Config>))
      build(child, [...path, key], node);
  };
  build(machine.config as Config, [], undefined);
  return nodes;
}

/** Every state of the configuration, root first, depth first. */
export function configStates(machine: AnyStateMachine): ConfigState[] {
  return nodesOf(machine).map((node) => ({
    id: node.id,
    type: node.config.type as string | undefined,
    parent: node.parent?.id,
    invokeIds: toArray<Config>(node.config.invoke as Config | Config[] | undefined).map(
      (invoke, index) => (invoke.id as string | undefined) ?? `${index}.${node.id}`,
    ),
  }));
}

/** Every transition of the configuration. */
export function configTransitions(machine: AnyStateMachine): ConfigTransition[] {
  const nodes = nodesOf(machine);
  const byId = new Map(nodes.map((node) => [node.id, node]));
  const byPath = (from: Node, keys: string[]): Node => {
    let node = from;
    for (const key of keys) {
      const child = ((node.config.states ?? {}) as Record<string, Config>)[key];
      const next = nodes.find((n) => n.config === child);
      if (next === undefined) throw new Error(`no state ${key} under ${node.id}`);
      node = next;
    }
    return node;
  };
  const resolve = (node: Node, target: string): string => {
    if (target.startsWith('#')) {
      const found = byId.get(target.slice(1));
      if (found === undefined) throw new Error(`no state with id ${target}`);
      return found.id;
    }
    if (target.startsWith('.')) return byPath(node, target.slice(1).split('.')).id;
    return byPath(node.parent as Node, target.split('.')).id;
  };
  const result: ConfigTransition[] = [];
  const add = (
    node: Node,
    eventType: string,
    slot: ConfigTransition['slot'],
    transitions: unknown,
    invokeId?: string,
  ): void => {
    for (const transition of toArray(transitions as unknown)) {
      const t = (typeof transition === 'string' ? { target: transition } : transition) as Config;
      result.push({
        source: node.id,
        eventType,
        slot,
        ...(invokeId === undefined ? {} : { invokeId }),
        targets: toArray(t.target as string | string[] | undefined).map((target) => resolve(node, target)),
        guard: t.guard,
      });
    }
  };
  for (const node of nodes) {
    const { config } = node;
    for (const [event, transitions] of Object.entries((config.on ?? {}) as Config))
      add(node, event, 'on', transitions);
    if (config.onDone !== undefined) add(node, `xstate.done.state.${node.id}`, 'onDone', config.onDone);
    toArray<Config>(config.invoke as Config | Config[] | undefined).forEach((invoke, index) => {
      const id = (invoke.id as string | undefined) ?? `${index}.${node.id}`;
      if (invoke.onDone !== undefined)
        add(node, `xstate.done.actor.${id}`, 'invoke.onDone', invoke.onDone, id);
      if (invoke.onError !== undefined)
        add(node, `xstate.error.actor.${id}`, 'invoke.onError', invoke.onError, id);
      if (invoke.onSnapshot !== undefined)
        add(node, `xstate.snapshot.${id}`, 'invoke.onSnapshot', invoke.onSnapshot, id);
    });
    for (const [delay, transitions] of Object.entries((config.after ?? {}) as Config))
      add(
        node,
        `xstate.after.${Number.isNaN(Number(delay)) ? delay : Number(delay)}.${node.id}`,
        'after',
        transitions,
      );
    if (config.always !== undefined) add(node, '', 'always', config.always);
  }
  return result;
}
