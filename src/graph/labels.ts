import type { AnyTransitionDefinition } from 'xstate';

/** What produced a transition's event: the kinds of entries in a state node's transition table. */
export type TransitionKind =
  | 'on'
  | 'always'
  | 'done.actor'
  | 'error.actor'
  | 'snapshot.actor'
  | 'after'
  | 'done.state';

const DONE_ACTOR = 'xstate.done.actor.';
const ERROR_ACTOR = 'xstate.error.actor.';
const SNAPSHOT_ACTOR = 'xstate.snapshot.';
const AFTER = 'xstate.after.';
const DONE_STATE = 'xstate.done.state.';

/**
 * Classifies a transition by its event type. XState stores eventless transitions under the empty
 * event type; the other built-in kinds are recognised by their `xstate.*` prefixes.
 */
export function transitionKindOf(eventType: string): TransitionKind {
  if (eventType === '') return 'always';
  if (eventType.startsWith(DONE_ACTOR)) return 'done.actor';
  if (eventType.startsWith(ERROR_ACTOR)) return 'error.actor';
  if (eventType.startsWith(SNAPSHOT_ACTOR)) return 'snapshot.actor';
  if (eventType.startsWith(AFTER)) return 'after';
  if (eventType.startsWith(DONE_STATE)) return 'done.state';
  return 'on';
}

/**
 * The invoke id in `xstate.done.actor.<id>`, `xstate.error.actor.<id>` or `xstate.snapshot.<id>`,
 * or `undefined` for any other event type.
 */
export function actorIdOf(eventType: string): string | undefined {
  for (const prefix of [DONE_ACTOR, ERROR_ACTOR, SNAPSHOT_ACTOR]) {
    if (eventType.startsWith(prefix)) return eventType.slice(prefix.length);
  }
  return undefined;
}

/**
 * The short, human form of an event type used on diagram edges and in coverage reports:
 * `done: x` and `error: x` for invoke outcomes, `after <delay>` for delayed transitions (a number
 * gets `ms`), `onDone` for a state's own completion, `always` for eventless transitions, and the
 * event type itself otherwise.
 *
 * @param eventType the transition's event type (`''` for `always`)
 * @param delay the delay of an `after` transition when known (XState keeps it on the definition)
 */
export function shortEventLabel(eventType: string, delay?: number | string): string {
  switch (transitionKindOf(eventType)) {
    case 'always':
      return 'always';
    case 'done.actor':
      return `done: ${eventType.slice(DONE_ACTOR.length)}`;
    case 'error.actor':
      return `error: ${eventType.slice(ERROR_ACTOR.length)}`;
    case 'snapshot.actor':
      return `snapshot: ${eventType.slice(SNAPSHOT_ACTOR.length)}`;
    case 'done.state':
      return 'onDone';
    case 'after': {
      const shown = delay ?? eventType.slice(AFTER.length).split('.')[0] ?? '';
      return typeof shown === 'number' || /^\d+$/.test(shown) ? `after ${shown}ms` : `after ${shown}`;
    }
    default:
      return eventType;
  }
}

/** A guard as XState stores it on a transition: a name, a `{ type, params }` object or a function. */
type GuardLike = unknown;

/**
 * Renders a guard for people: `name`, `name(key=value, …)` for parameterised guards (a function
 * of context gives `name(…)`), `and(a, b)`, `or(a, b)`, `not(a)`, `stateIn(target)` for the
 * built-in combinators, and `inline` (or the function's own name) for inline guard functions.
 *
 * @returns the label, or `undefined` when the transition has no guard
 */
export function guardLabel(guard: GuardLike): string | undefined {
  if (guard === undefined || guard === null) return undefined;
  if (typeof guard === 'string') return guard;
  if (typeof guard === 'function') {
    const combinator = guard as { name?: string; guards?: unknown[]; stateValue?: unknown };
    if ('stateValue' in combinator) return `stateIn(${renderValue(combinator.stateValue)})`;
    if (Array.isArray(combinator.guards) && isCombinatorName(combinator.name)) {
      return `${combinator.name}(${combinator.guards.map((g) => guardLabel(g) ?? 'true').join(', ')})`;
    }
    // XState names an arrow function after the property it was written in, usually `guard`.
    const name = combinator.name;
    return name && name !== 'guard' && name !== 'anonymous' ? name : 'inline';
  }
  if (typeof guard === 'object') {
    const { type, params } = guard as { type?: unknown; params?: unknown };
    const name = typeof type === 'string' ? type : 'inline';
    if (params === undefined) return name;
    if (typeof params === 'function') return `${name}(…)`;
    if (params !== null && typeof params === 'object' && !Array.isArray(params)) {
      const entries = Object.entries(params as Record<string, unknown>);
      return `${name}(${entries.map(([k, v]) => `${k}=${renderValue(v)}`).join(', ')})`;
    }
    return `${name}(${renderValue(params)})`;
  }
  return String(guard);
}

function isCombinatorName(name: string | undefined): name is 'and' | 'or' | 'not' {
  return name === 'and' || name === 'or' || name === 'not';
}

function renderValue(value: unknown): string {
  if (typeof value === 'string') return value;
  if (typeof value === 'function') return '…';
  try {
    return JSON.stringify(value) ?? String(value);
  } catch {
    return String(value);
  }
}

/**
 * The rule label of a transition: its `description`, else a string `meta.rule`, `meta.label` or
 * `meta.description` (in that order). Rule tables write `description: 'R1 …'`.
 */
export function ruleLabel(
  transition: Pick<AnyTransitionDefinition, 'description' | 'meta'>,
): string | undefined {
  if (typeof transition.description === 'string' && transition.description !== '')
    return transition.description;
  const meta = transition.meta as Record<string, unknown> | undefined;
  for (const field of ['rule', 'label', 'description']) {
    const value = meta?.[field];
    if (typeof value === 'string' && value !== '') return value;
  }
  return undefined;
}
