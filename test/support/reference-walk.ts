/**
 * A reference walker of a machine definition, written separately from src/graph so that the path
 * strategies can be checked against it. It knows nothing of the explorer, the pure stepper or the
 * suite format: it replays event sequences on LIVE actors (every invoked or spawned actor replaced
 * by one that never settles; outcomes are sent as `xstate.done.actor.*` events), reads the
 * transitions each step took from the inspection API, and searches breadth first over
 * (state value, status, projection, last transition taken).
 *
 * Limits: no `after` timers (the machines it walks have none). Every event of the model is tried
 * in every state where an active state node declares a handler for its type.
 */
import {
  type AnyEventObject,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type AnyStateNode,
  type AnyTransitionDefinition,
  createActor,
  fromPromise,
  type InspectionEvent,
} from 'xstate';

/** What the reference needs of a model: the input, the events to try, the abstraction. */
export interface ReferenceModel {
  readonly input?: unknown;
  /** Every event (with payload) to try in a state. */
  readonly events: (snapshot: AnyMachineSnapshot) => readonly AnyEventObject[];
  /** The abstraction two states are the same under; the whole context when absent. */
  readonly project?: (snapshot: AnyMachineSnapshot) => unknown;
  readonly stopWhen?: (snapshot: AnyMachineSnapshot) => boolean;
}

/** A model in src/graph's shape, read as data: its static cases and case functions. */
export function referenceModelOf(model: {
  readonly input?: unknown;
  readonly events?: Readonly<Record<string, unknown>>;
  readonly project?: (snapshot: never) => unknown;
  readonly stopWhen?: (snapshot: never) => boolean;
}): ReferenceModel {
  return {
    input: model.input,
    events: (snapshot) => {
      const listed = Object.entries(model.events ?? {}).flatMap(([type, cases]) => {
        const list = (typeof cases === 'function' ? cases(snapshot) : cases) as Record<string, unknown>[];
        return list.map((payload) => ({ type, ...payload }));
      });
      // An event a state handles that the model gives no cases for is sent bare (docs/model-based-testing.md).
      const bare = (snapshot._nodes as AnyStateNode[])
        .flatMap((node) => [...node.transitions.keys()])
        .filter(
          (type) => !type.startsWith('xstate.') && !type.includes('*') && !(type in (model.events ?? {})),
        )
        .map((type) => ({ type }));
      return [...listed, ...bare];
    },
    project: model.project as ReferenceModel['project'],
    stopWhen: model.stopWhen as ReferenceModel['stopWhen'],
  };
}

/** `<source id>|<event type>|<index among that state's candidates for the event>` (the documented key). */
function keyOf(transition: AnyTransitionDefinition): string {
  const source = transition.source as AnyStateNode;
  const candidates =
    transition.eventType === ''
      ? (source.always ?? [])
      : (source.transitions.get(transition.eventType) ?? []);
  const index = candidates.indexOf(transition);
  if (index < 0)
    throw new Error(`reference walker: transition of ${source.id} not found among its candidates`);
  return `${source.id}|${transition.eventType}|${index}`;
}

/** Whether an active state node declares a transition for `type` (`*` and `prefix.*` included). */
function handled(snapshot: AnyMachineSnapshot, type: string): boolean {
  return (snapshot._nodes as AnyStateNode[]).some((node) =>
    [...node.transitions.keys()].some(
      (descriptor) =>
        descriptor === type ||
        descriptor === '*' ||
        (descriptor.endsWith('.*') && type.startsWith(descriptor.slice(0, -1))),
    ),
  );
}

/** The outcome of replaying events from the start on a live actor. */
export interface Replay {
  /** Transitions taken while starting. */
  readonly initial: readonly string[];
  /** Transitions taken by each event, in microstep order. */
  readonly steps: readonly (readonly string[])[];
  /** Status after each event. */
  readonly statuses: readonly string[];
  readonly snapshot: AnyMachineSnapshot;
}

/** The reference walker of one machine under one model. */
export function referenceWalker(machine: AnyStateMachine, model: ReferenceModel) {
  const never = fromPromise(() => new Promise<never>(() => {}));
  const actors = Object.fromEntries(
    Object.keys(machine.implementations.actors ?? {}).map((name) => [name, never]),
  );
  const provided = machine.provide({ actors } as never);

  function replay(events: readonly AnyEventObject[]): Replay {
    let current: string[] = [];
    const actor = createActor(provided, {
      input: model.input,
      inspect: (event: InspectionEvent) => {
        if (event.type !== '@xstate.microstep' || event.actorRef.sessionId !== event.rootId) return;
        for (const transition of event._transitions) current.push(keyOf(transition));
      },
    });
    actor.start();
    const initial = current;
    const steps: string[][] = [];
    const statuses: string[] = [];
    for (const event of events) {
      current = [];
      actor.send(event);
      steps.push(current);
      statuses.push(actor.getSnapshot().status);
    }
    const snapshot = actor.getSnapshot() as AnyMachineSnapshot;
    actor.stop();
    return { initial, steps, statuses, snapshot };
  }

  const abstract = (snapshot: AnyMachineSnapshot) =>
    JSON.stringify([
      snapshot.value,
      snapshot.status,
      model.project ? model.project(snapshot) : snapshot.context,
    ]);

  /** Events that move the machine after `events`: they take a transition or change the status. */
  function moves(events: readonly AnyEventObject[]): { event: AnyEventObject; taken: readonly string[] }[] {
    const before = replay(events);
    if (before.snapshot.status !== 'active' || model.stopWhen?.(before.snapshot)) return [];
    const found: { event: AnyEventObject; taken: readonly string[] }[] = [];
    for (const event of model.events(before.snapshot)) {
      // XState rethrows an actor error event that no active state handles: send only handled ones.
      if (!handled(before.snapshot, event.type)) continue;
      const after = replay([...events, event]);
      const taken = after.steps.at(-1) ?? [];
      if (taken.length > 0 || after.snapshot.status !== before.snapshot.status) found.push({ event, taken });
    }
    return found;
  }

  /**
   * Every reachable pair of consecutive transitions (`from\nto`), every reachable transition, and
   * the number of search nodes. `maxNodes` guards against a model that does not end.
   */
  function reachable(maxNodes = 5_000): { pairs: Set<string>; transitions: Set<string>; nodes: number } {
    const start = replay([]);
    const pairs = new Set<string>();
    const transitions = new Set<string>(start.initial);
    for (let i = 1; i < start.initial.length; i++) pairs.add(`${start.initial[i - 1]}\n${start.initial[i]}`);
    type Node = { events: readonly AnyEventObject[]; last: string | null };
    const first: Node = { events: [], last: start.initial.at(-1) ?? null };
    const seen = new Set([`${abstract(start.snapshot)}\n${first.last}`]);
    const queue: Node[] = [first];
    for (let head = 0; head < queue.length; head++) {
      const node = queue[head] as Node;
      for (const { event, taken } of moves(node.events)) {
        const sequence = node.last === null ? taken : [node.last, ...taken];
        for (let i = 1; i < sequence.length; i++) pairs.add(`${sequence[i - 1]}\n${sequence[i]}`);
        for (const key of taken) transitions.add(key);
        const events = [...node.events, event];
        const last = taken.at(-1) ?? node.last;
        const id = `${abstract(replay(events).snapshot)}\n${last}`;
        if (seen.has(id)) continue;
        seen.add(id);
        if (seen.size > maxNodes) throw new Error(`reference walker: more than ${maxNodes} nodes`);
        queue.push({ events, last });
      }
    }
    return { pairs, transitions, nodes: seen.size };
  }

  /** The pairs of consecutive transitions one event sequence takes, replayed live. */
  function pairsOf(events: readonly AnyEventObject[]): Set<string> {
    const run = replay(events);
    const sequence = [...run.initial, ...run.steps.flat()];
    const pairs = new Set<string>();
    for (let i = 1; i < sequence.length; i++) pairs.add(`${sequence[i - 1]}\n${sequence[i]}`);
    return pairs;
  }

  return { replay, moves, reachable, pairsOf };
}
