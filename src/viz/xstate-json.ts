/**
 * `--format xstate-json`: a machine definition written back as the JSON configuration that
 * XState's `createMachine` takes, so another tool (or another program) can re-import the
 * statechart. Only data survives JSON: guards, actions, actors and delays keep their names and
 * static `params`; their implementations come back with `.provide()` (docs/decisions/viewer.md
 * W33).
 */
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';
import { assertMachine } from '../graph/state-nodes.js';
import { transitionKey } from '../graph/transitions.js';

/** A JSON value. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };

/** A guard or an action as the exported configuration names it. */
export type XStateJsonReference = string | { readonly type: string; readonly params?: JsonValue };

/** One transition of the exported configuration (a `TransitionConfig` of XState). */
export interface XStateJsonTransition {
  /** Absolute targets (`#<state id>`); a single target is a string; absent for a targetless one. */
  readonly target?: string | readonly string[];
  readonly guard?: XStateJsonReference;
  readonly actions?: readonly XStateJsonReference[];
  readonly reenter?: true;
  readonly description?: string;
  readonly meta?: JsonValue;
}

/** One invoked actor of the exported configuration. */
export interface XStateJsonInvoke {
  readonly id: string;
  /** The actor's name in `setup({ actors })`, or `xstate.invoke.<id>` for inline logic. */
  readonly src: string;
  readonly systemId?: string;
  /** Present only when the input is a static JSON value (an input function is dropped). */
  readonly input?: JsonValue;
  readonly onDone?: readonly XStateJsonTransition[];
  readonly onError?: readonly XStateJsonTransition[];
  readonly onSnapshot?: readonly XStateJsonTransition[];
}

/** One state of the exported configuration (a `StateNodeConfig` of XState). */
export interface XStateJsonState {
  /** Written only when the definition gave the state its own id. */
  readonly id?: string;
  /** Written for `parallel`, `final` and `history`; atomic and compound follow from `states`. */
  readonly type?: 'parallel' | 'final' | 'history';
  readonly history?: 'shallow' | 'deep';
  /** A history state's default target (`#<state id>`), when the definition gave one. */
  readonly target?: string;
  /** Key of the initial child. */
  readonly initial?: string;
  readonly description?: string;
  readonly tags?: readonly string[];
  readonly meta?: JsonValue;
  readonly entry?: readonly XStateJsonReference[];
  readonly exit?: readonly XStateJsonReference[];
  readonly invoke?: readonly XStateJsonInvoke[];
  readonly on?: Readonly<Record<string, readonly XStateJsonTransition[]>>;
  /** Delayed transitions by delay: milliseconds, or the name of a delay in `setup({ delays })`. */
  readonly after?: Readonly<Record<string, readonly XStateJsonTransition[]>>;
  readonly always?: readonly XStateJsonTransition[];
  readonly onDone?: readonly XStateJsonTransition[];
  /** Present only when static JSON (an output function is dropped). */
  readonly output?: JsonValue;
  readonly states?: Readonly<Record<string, XStateJsonState>>;
}

/** The exported machine: a configuration `createMachine` accepts as it is. */
export interface XStateJsonMachine extends Omit<XStateJsonState, 'id'> {
  readonly id: string;
  /** Present only when static JSON (a context function is dropped: give it when re-importing). */
  readonly context?: JsonValue;
}

const DONE_ACTOR = 'xstate.done.actor.';
const ERROR_ACTOR = 'xstate.error.actor.';
const SNAPSHOT_ACTOR = 'xstate.snapshot.';
const DONE_STATE = 'xstate.done.state.';
const AFTER = 'xstate.after.';

/**
 * The machine's definition as the configuration object `createMachine` takes: states, `on`,
 * `always`, `after`, `onDone`, invokes with their `onDone`/`onError`, entry and exit actions,
 * tags, descriptions and meta. Targets are absolute (`#<state id>`), so `createMachine(result)`
 * rebuilds the same states with the same ids and the same transitions (the same source, event,
 * targets and guard, the candidates of one event in the same order).
 *
 * What JSON cannot hold is named, not carried: a guard or action given by name stays that name
 * with its static `params` (params computed by a function are dropped); XState's built-in actions
 * (`assign`, `raise`, `emit`, `enqueueActions`, ...) become their type (`xstate.assign`); the
 * combinators `and`/`or`/`not`/`stateIn` and inline guard functions become one guard named by
 * their label (`and(a, not(b))`) or `inline:<transition key>`; actors are named by `src`.
 * Context, input and output functions are dropped. Re-importing therefore gives the same
 * structure; running it needs the implementations: `createMachine(json).provide({ guards,
 * actions, actors, delays })`, with a context given at creation.
 *
 * @param machine an XState v5 machine
 * @throws MachineShapeError when `machine` is not a machine
 */
export function machineToXStateConfig(machine: AnyStateMachine): XStateJsonMachine {
  assertMachine(machine);
  const root = machine.root;
  const { id: _id, ...rootState } = stateConfig(root, machine);
  const context =
    typeof machine.config.context === 'function' ? undefined : jsonValue(machine.config.context);
  return {
    id: machine.id,
    ...(context === undefined ? {} : { context }),
    ...rootState,
  };
}

/**
 * The machine as `--format xstate-json` writes it: {@link machineToXStateConfig} as JSON text,
 * indented by two spaces, ending with a newline. The same machine always gives the same bytes.
 *
 * @param machine an XState v5 machine
 * @throws MachineShapeError when `machine` is not a machine
 */
export function toXStateJson(machine: AnyStateMachine): string {
  return `${JSON.stringify(machineToXStateConfig(machine), null, 2)}\n`;
}

function defaultId(node: AnyStateNode, machine: AnyStateMachine): string {
  return [machine.id, ...node.path].join('.');
}

function stateConfig(node: AnyStateNode, machine: AnyStateMachine): XStateJsonState & { id?: string } {
  const on: Record<string, XStateJsonTransition[]> = {};
  const after: Record<string, XStateJsonTransition[]> = {};
  const invokeTransitions = new Map<
    string,
    Partial<Record<'onDone' | 'onError' | 'onSnapshot', XStateJsonTransition[]>>
  >();
  const invokeIds = new Set(node.invoke.map((invoke) => invoke.id));
  let onDone: XStateJsonTransition[] | undefined;
  for (const [eventType, candidates] of node.transitions as Map<string, AnyTransitionDefinition[]>) {
    const transitions = candidates.map((definition, index) =>
      transitionConfig(definition, transitionKey(node.id, eventType, index)),
    );
    const invokeSlot = invokeSlotOf(eventType, invokeIds);
    if (invokeSlot !== undefined) {
      const slots = invokeTransitions.get(invokeSlot.id) ?? {};
      slots[invokeSlot.slot] = transitions;
      invokeTransitions.set(invokeSlot.id, slots);
    } else if (eventType === `${DONE_STATE}${node.id}`) {
      onDone = transitions;
    } else if (eventType.startsWith(AFTER) && candidates.every((c) => delayOf(c) !== undefined)) {
      for (const [index, definition] of candidates.entries()) {
        const delay = String(delayOf(definition));
        after[delay] ??= [];
        after[delay].push(transitions[index] as XStateJsonTransition);
      }
    } else {
      on[eventType] = transitions;
    }
  }
  const always = (node.always ?? []).map((definition, index) =>
    transitionConfig(definition, transitionKey(node.id, '', index)),
  );
  const invoke = node.invoke.map((definition): XStateJsonInvoke => {
    const input = typeof definition.input === 'function' ? undefined : jsonValue(definition.input);
    const slots = invokeTransitions.get(definition.id) ?? {};
    return {
      id: definition.id,
      src: String(definition.src),
      ...(typeof definition.systemId === 'string' ? { systemId: definition.systemId } : {}),
      ...(input === undefined ? {} : { input }),
      ...(slots.onDone === undefined ? {} : { onDone: slots.onDone }),
      ...(slots.onError === undefined ? {} : { onError: slots.onError }),
      ...(slots.onSnapshot === undefined ? {} : { onSnapshot: slots.onSnapshot }),
    };
  });
  const entry = node.entry.filter((action) => !isAfterTimer(action, 'xstate.raise')).map(actionReference);
  const exit = node.exit.filter((action) => !isAfterTimer(action, 'xstate.cancel')).map(actionReference);
  const children = Object.entries(node.states as Record<string, AnyStateNode>);
  const initialKey =
    node.type === 'compound' ? (node.initial?.target?.[0] as AnyStateNode | undefined)?.key : undefined;
  const history = node.type === 'history' ? (node.history === 'deep' ? 'deep' : 'shallow') : undefined;
  const historyTarget = history === undefined ? undefined : historyTargetOf(node);
  const meta = jsonValue(node.meta);
  const output = typeof node.config.output === 'function' ? undefined : jsonValue(node.config.output);
  const typeField =
    node.type === 'parallel' || node.type === 'final' || node.type === 'history' ? node.type : undefined;
  return {
    ...(node.id === defaultId(node, machine) ? {} : { id: node.id }),
    ...(typeField === undefined ? {} : { type: typeField }),
    ...(history === undefined ? {} : { history }),
    ...(historyTarget === undefined ? {} : { target: historyTarget }),
    ...(initialKey === undefined ? {} : { initial: initialKey }),
    ...(typeof node.description === 'string' ? { description: node.description } : {}),
    ...(node.tags.length > 0 ? { tags: [...node.tags] } : {}),
    ...(meta === undefined ? {} : { meta }),
    ...(entry.length > 0 ? { entry } : {}),
    ...(exit.length > 0 ? { exit } : {}),
    ...(invoke.length > 0 ? { invoke } : {}),
    ...(Object.keys(on).length > 0 ? { on } : {}),
    ...(Object.keys(after).length > 0 ? { after } : {}),
    ...(always.length > 0 ? { always } : {}),
    ...(onDone === undefined ? {} : { onDone }),
    ...(output === undefined ? {} : { output }),
    ...(children.length > 0
      ? { states: Object.fromEntries(children.map(([key, child]) => [key, stateConfig(child, machine)])) }
      : {}),
  };
}

function historyTargetOf(node: AnyStateNode): string | undefined {
  const target = node.config.target;
  if (typeof target !== 'string') return undefined;
  if (target.startsWith('#')) return target;
  const sibling = node.parent?.states[target] as AnyStateNode | undefined;
  return sibling === undefined ? undefined : `#${sibling.id}`;
}

function invokeSlotOf(
  eventType: string,
  invokeIds: ReadonlySet<string>,
): { id: string; slot: 'onDone' | 'onError' | 'onSnapshot' } | undefined {
  const slots = [
    [DONE_ACTOR, 'onDone'],
    [ERROR_ACTOR, 'onError'],
    [SNAPSHOT_ACTOR, 'onSnapshot'],
  ] as const;
  for (const [prefix, slot] of slots) {
    if (!eventType.startsWith(prefix)) continue;
    const id = eventType.slice(prefix.length);
    if (invokeIds.has(id)) return { id, slot };
  }
  return undefined;
}

function delayOf(definition: AnyTransitionDefinition): number | string | undefined {
  const delay = (definition as { delay?: unknown }).delay;
  return typeof delay === 'number' || typeof delay === 'string' ? delay : undefined;
}

/** The raise/cancel pair XState adds to a state's entry/exit for each of its `after` delays. */
function isAfterTimer(action: unknown, type: 'xstate.raise' | 'xstate.cancel'): boolean {
  if (typeof action !== 'function') return false;
  const builtIn = action as { type?: unknown; id?: unknown; sendId?: unknown };
  if (builtIn.type !== type) return false;
  const id = type === 'xstate.raise' ? builtIn.id : builtIn.sendId;
  return typeof id === 'string' && id.startsWith(AFTER);
}

function transitionConfig(definition: AnyTransitionDefinition, key: string): XStateJsonTransition {
  const targets = (definition.target ?? []).map((target) => `#${(target as AnyStateNode).id}`);
  const guard = definition.guard === undefined ? undefined : guardReference(definition.guard, key);
  const actions = definition.actions.map(actionReference);
  const meta = jsonValue(definition.meta);
  return {
    ...(targets.length === 0 ? {} : { target: targets.length === 1 ? (targets[0] as string) : targets }),
    ...(guard === undefined ? {} : { guard }),
    ...(actions.length > 0 ? { actions } : {}),
    ...(definition.reenter === true ? { reenter: true as const } : {}),
    ...(typeof definition.description === 'string' ? { description: definition.description } : {}),
    ...(meta === undefined ? {} : { meta }),
  };
}

/**
 * The name under which the exported configuration refers to a guard: a named guard keeps its
 * name and static params; a combinator or `stateIn` is named by its rendering (`and(a, not(b))`,
 * `stateIn(#m.s)`); an inline function by its own name, else `inline:<transition key>`.
 */
export function guardReference(guard: unknown, transitionKeyOfGuard: string): XStateJsonReference {
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') return functionGuardName(guard, transitionKeyOfGuard);
  if (guard !== null && typeof guard === 'object') {
    const { type, params } = guard as { type?: unknown; params?: unknown };
    const name = typeof type === 'string' ? type : `inline:${transitionKeyOfGuard}`;
    const staticParams = typeof params === 'function' ? undefined : jsonValue(params);
    return staticParams === undefined ? name : { type: name, params: staticParams };
  }
  return `inline:${transitionKeyOfGuard}`;
}

function functionGuardName(guard: unknown, key: string): string {
  const fn = guard as { name?: string; guards?: unknown[]; guard?: unknown; stateValue?: unknown };
  if ('stateValue' in fn)
    return `stateIn(${typeof fn.stateValue === 'string' ? fn.stateValue : JSON.stringify(fn.stateValue)})`;
  if ((fn.name === 'and' || fn.name === 'or' || fn.name === 'not') && Array.isArray(fn.guards))
    return `${fn.name}(${fn.guards.map((inner) => innerGuardName(inner, key)).join(', ')})`;
  // XState names an arrow function after the property it was written in (`guard`).
  return fn.name && fn.name !== 'guard' && fn.name !== 'anonymous' ? fn.name : `inline:${key}`;
}

function innerGuardName(guard: unknown, key: string): string {
  const reference = guardReference(guard, key);
  if (typeof reference === 'string') return reference;
  return reference.params === undefined
    ? reference.type
    : `${reference.type}(${JSON.stringify(reference.params)})`;
}

function actionReference(action: unknown): XStateJsonReference {
  if (typeof action === 'string') return action;
  if (typeof action === 'function') {
    const fn = action as { type?: unknown; name?: string };
    if (typeof fn.type === 'string') return fn.type;
    return fn.name && fn.name !== 'anonymous' ? fn.name : 'inline';
  }
  if (action !== null && typeof action === 'object') {
    const { type, params } = action as { type?: unknown; params?: unknown };
    const name = typeof type === 'string' ? type : 'inline';
    const staticParams = typeof params === 'function' ? undefined : jsonValue(params);
    return staticParams === undefined ? name : { type: name, params: staticParams };
  }
  return 'inline';
}

/** `value` as JSON (functions and undefined dropped, as JSON.stringify drops them), or undefined. */
function jsonValue(value: unknown): JsonValue | undefined {
  if (value === undefined || typeof value === 'function') return undefined;
  try {
    const text = JSON.stringify(value);
    return text === undefined ? undefined : (JSON.parse(text) as JsonValue);
  } catch {
    return undefined;
  }
}
