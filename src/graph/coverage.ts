import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode, InspectionEvent } from 'xstate';
import { enumerateStates } from './states.js';
import { enumerateTransitions, type TransitionInfo, transitionKeyOf } from './transitions.js';

/** What a run (or many runs) exercised: transition keys with hit counts, and state ids entered. */
export interface CollectedCoverage {
  /** Transition key (see {@link transitionKeyOf}) to the number of times it was taken. */
  readonly transitions: ReadonlyMap<string, number>;
  /** Ids of every state node that was active at some microstep, transient ones included. */
  readonly states: ReadonlySet<string>;
}

/**
 * Collects coverage from inspection events. Pass `inspect` to `createActor(..., { inspect })` (or
 * to `actor.system.inspect`); only the root actor of each system is counted, so child machines do
 * not pollute the parent's figures. One collector may observe many actors in turn.
 */
export interface CoverageCollector {
  /** The inspection observer. */
  readonly inspect: (event: InspectionEvent) => void;
  /** Records the state nodes of a snapshot (for example the initial one) as entered. */
  recordSnapshot(snapshot: AnyMachineSnapshot): void;
  /** Records transition keys and state ids gathered elsewhere (for example by pure replay). */
  record(transitionKeys: Iterable<string>, stateIds: Iterable<string>): void;
  /** A copy of what was collected so far. */
  collected(): CollectedCoverage;
}

/** Creates an empty {@link CoverageCollector}. */
export function createCoverageCollector(): CoverageCollector {
  const transitions = new Map<string, number>();
  const states = new Set<string>();
  const recordSnapshot = (snapshot: AnyMachineSnapshot): void => {
    for (const node of snapshot._nodes as AnyStateNode[]) states.add(node.id);
  };
  return {
    inspect(event) {
      // Only the system's root actor: its session id is the inspection event's root id.
      if (event.actorRef.sessionId !== event.rootId) return;
      if (event.type === '@xstate.microstep') {
        for (const taken of event._transitions) {
          const key = transitionKeyOf(taken);
          transitions.set(key, (transitions.get(key) ?? 0) + 1);
          // A transient source (left by an `always` within the same macrostep) was entered too.
          states.add((taken.source as AnyStateNode).id);
        }
        if (isMachineSnapshot(event.snapshot)) recordSnapshot(event.snapshot);
      } else if (event.type === '@xstate.snapshot' && isMachineSnapshot(event.snapshot)) {
        recordSnapshot(event.snapshot);
      }
    },
    recordSnapshot,
    record(transitionKeys, stateIds) {
      for (const key of transitionKeys) transitions.set(key, (transitions.get(key) ?? 0) + 1);
      for (const id of stateIds) states.add(id);
    },
    collected() {
      return { transitions: new Map(transitions), states: new Set(states) };
    },
  };
}

function isMachineSnapshot(value: unknown): value is AnyMachineSnapshot {
  return typeof value === 'object' && value !== null && Array.isArray((value as { _nodes?: unknown })._nodes);
}

/** A transition that no run took, named so a person can find it in the machine. */
export interface MissingTransition {
  readonly key: string;
  readonly source: string;
  /** Short event form (`always`, `done: x`, `START`). */
  readonly event: string;
  readonly index: number;
  readonly kind: TransitionInfo['kind'];
  readonly targets: readonly string[];
  readonly guard?: string;
  readonly rule?: string;
}

/** Transition and state coverage of one machine. */
export interface TransitionCoverage {
  /** The machine's id. */
  readonly machine: string;
  readonly transitions: {
    readonly covered: number;
    readonly total: number;
    /** Uncovered transitions in document order. */
    readonly missing: readonly MissingTransition[];
  };
  readonly states: {
    readonly covered: number;
    readonly total: number;
    /** Ids of state nodes never entered, in document order (history nodes are not counted). */
    readonly missing: readonly string[];
  };
}

/**
 * Compares what was collected with the machine definition. Keys or ids that the definition does
 * not have (another machine's, or a child machine's) are ignored.
 *
 * @param machine the machine the runs exercised (or any `provide()` variant of it)
 * @param collected transition keys (a set, a list, or a map of hit counts) and state ids
 * @returns covered and total counts with the missing items named
 * @throws MachineShapeError when `machine` is not a machine
 */
export function transitionCoverage(
  machine: AnyStateMachine,
  collected: {
    readonly transitions: Iterable<string> | ReadonlyMap<string, number>;
    readonly states: Iterable<string>;
  },
): TransitionCoverage {
  const definedTransitions = enumerateTransitions(machine);
  const definedStates = enumerateStates(machine).filter((state) => state.enterable);
  const takenKeys = new Set<string>(
    collected.transitions instanceof Map
      ? (collected.transitions as ReadonlyMap<string, number>).keys()
      : (collected.transitions as Iterable<string>),
  );
  const enteredIds = new Set(collected.states);
  const missingTransitions = definedTransitions.filter((t) => !takenKeys.has(t.key)).map(toMissing);
  const missingStates = definedStates.filter((s) => !enteredIds.has(s.id)).map((s) => s.id);
  return {
    machine: machine.id,
    transitions: {
      covered: definedTransitions.length - missingTransitions.length,
      total: definedTransitions.length,
      missing: missingTransitions,
    },
    states: {
      covered: definedStates.length - missingStates.length,
      total: definedStates.length,
      missing: missingStates,
    },
  };
}

function toMissing(info: TransitionInfo): MissingTransition {
  return {
    key: info.key,
    source: info.source,
    event: info.event,
    index: info.index,
    kind: info.kind,
    targets: info.targets,
    ...(info.guard === undefined ? {} : { guard: info.guard }),
    ...(info.rule === undefined ? {} : { rule: info.rule }),
  };
}
