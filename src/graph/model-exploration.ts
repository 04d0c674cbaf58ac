import { TestModel } from '@xstate/graph';
import type {
  ActorLogic,
  AnyEventObject,
  AnyMachineSnapshot,
  AnyStateMachine,
  AnyStateNode,
  Snapshot,
} from 'xstate';
import { finding } from '../common/finding.js';
import type { JsonValue } from '../common/json-value.js';
import { MachineModelError, PathGenerationError } from './errors.js';
import { isJsonValue } from './json-value.js';
import {
  checkPayloads,
  DEFAULT_MAX_STATES,
  type EventPayload,
  isMachineProducedEvent,
  type MachineModel,
  matchesDescriptor,
} from './machine-model.js';
import { createPureStepper, type PureStep, type TimerOperation } from './pure-stepper.js';
import { stateValueLabel } from './state-value-label.js';

/** A delayed event waiting on the simulated clock. */
export interface PendingTimer {
  readonly id: string;
  readonly event: AnyEventObject;
  /** Simulated time (ms since the run started) at which it fires. */
  readonly fireAt: number;
  /** Scheduling order, to break ties between timers that fire at the same time. */
  readonly order: number;
}

/**
 * A node of the explored model graph: a machine snapshot with simulated time and pending timers,
 * identified by `key` = its abstract state (value, status, projection) plus the abstract state and
 * event it was reached from ("via"), so that shortest paths reach every edge and not only every
 * state. It carries `status`, `output` and `error` like an XState snapshot, so that @xstate/graph
 * can traverse it.
 */
export interface ModelState {
  readonly snapshot: AnyMachineSnapshot;
  readonly status: AnyMachineSnapshot['status'];
  readonly output: unknown;
  readonly error: unknown;
  /** Graph key: `<abstract id>` for the initial state, `<abstract id><<from id>:<event id>` after. */
  readonly key: string;
  /** Interned id of (value, status, projection). */
  readonly abstractId: number;
  /** The model's projection of `snapshot`. */
  readonly projection: JsonValue;
  /** Simulated time in ms. */
  readonly now: number;
  /** Pending delayed events, in firing order. */
  readonly timers: readonly PendingTimer[];
  /** Transition keys taken by the step that produced this node (for the initial node: at init). */
  readonly transitions: readonly string[];
  /** State ids active during that step. */
  readonly states: readonly string[];
}

/** How a path step reaches the machine: sent, settled on an invoked actor, or fired by a timer. */
export type StepDelivery = 'send' | 'settle' | 'timer';

/** The exploration of one machine under one model. */
export interface ModelExplorer {
  readonly machine: AnyStateMachine;
  /** The initial node. */
  readonly initial: ModelState;
  /** Events worth sending in `state`, with payloads, in a deterministic order. */
  offeredEvents(state: ModelState): AnyEventObject[];
  /** The node reached by `event`; `state` itself when nothing happens. */
  advance(state: ModelState, event: AnyEventObject, delivery?: StepDelivery): ModelState;
  /** How `event` (as offered by this explorer) is delivered. */
  deliveryOf(event: AnyEventObject): StepDelivery;
  /** Runs @xstate/graph's shortest-path search and returns one event sequence per reached node. */
  shortestPaths(): { readonly events: readonly AnyEventObject[]; readonly keys: readonly string[] }[];
}

/**
 * Creates the explorer. The model must have passed `assertMachineModel`.
 *
 * @throws PathGenerationError when the initial state cannot be computed
 */
export function createModelExplorer(machine: AnyStateMachine, model: MachineModel): ModelExplorer {
  const stepper = createPureStepper(machine);
  const maxStates = model.maxStates ?? DEFAULT_MAX_STATES;
  const abstractIds = new Map<string, number>();
  const eventIds = new Map<string, number>();
  const eventIdCache = new WeakMap<AnyEventObject, number>();
  const seenKeys = new Set<string>();
  const timerEvents = new WeakSet<AnyEventObject>();
  const staticCases = new Map<string, AnyEventObject[]>();
  const advanceCache = new WeakMap<ModelState, Map<AnyEventObject, ModelState>>();
  let timerOrder = 0;

  const fail = (message: string, cause?: unknown): never => {
    const reason = cause instanceof Error ? cause.message : cause === undefined ? '' : String(cause);
    throw new PathGenerationError(machine.id, reason ? `${message}: ${reason}` : message);
  };

  const intern = (map: Map<string, number>, text: string): number => {
    let id = map.get(text);
    if (id === undefined) {
      id = map.size;
      map.set(text, id);
    }
    return id;
  };
  const eventIdOf = (event: AnyEventObject): number => {
    let id = eventIdCache.get(event);
    if (id === undefined) {
      id = intern(eventIds, JSON.stringify(event));
      eventIdCache.set(event, id);
    }
    return id;
  };

  const projectionOf = (snapshot: AnyMachineSnapshot): JsonValue => {
    let projection: unknown;
    try {
      projection = model.project ? model.project(snapshot) : snapshot.context;
    } catch (error) {
      return fail(`project() threw in state ${stateValueLabel(snapshot.value)}`, error);
    }
    // The projection is part of every suite step and of the node key: it must survive JSON.
    if (!isJsonValue(projection)) {
      const what = model.project ? 'project() returned' : 'the context (the default projection) is';
      return fail(`${what} something that is not plain JSON in state ${stateValueLabel(snapshot.value)}`);
    }
    return projection;
  };

  const applyTimers = (
    timers: readonly PendingTimer[],
    operations: readonly TimerOperation[],
    now: number,
  ) => {
    let next = [...timers];
    for (const operation of operations) {
      next = next.filter((timer) => timer.id !== operation.id);
      if (operation.kind === 'schedule') {
        next.push({
          id: operation.id,
          event: operation.event,
          fireAt: now + operation.delay,
          order: timerOrder++,
        });
      }
    }
    for (const timer of next) timerEvents.add(timer.event);
    return next.sort((a, b) => a.fireAt - b.fireAt || a.order - b.order);
  };

  const makeState = (
    snapshot: AnyMachineSnapshot,
    taken: { transitions: readonly string[]; states: readonly string[] },
    now: number,
    timers: readonly PendingTimer[],
    from?: { state: ModelState; event: AnyEventObject },
  ): ModelState => {
    const projection = projectionOf(snapshot);
    const abstractId = intern(abstractIds, JSON.stringify([snapshot.value, snapshot.status, projection]));
    const key = from ? `${abstractId}<${from.state.abstractId}:${eventIdOf(from.event)}` : `${abstractId}`;
    if (!seenKeys.has(key)) {
      seenKeys.add(key);
      if (seenKeys.size > maxStates) {
        fail(
          `more than ${maxStates} model states; make project() keep only what guards read, ` +
            'bound the payload cases, or add stopWhen (or raise maxStates)',
        );
      }
    }
    return {
      snapshot,
      status: snapshot.status,
      output: snapshot.output,
      error: snapshot.error,
      key,
      abstractId,
      projection,
      now,
      timers: snapshot.status === 'active' ? timers : [],
      transitions: taken.transitions,
      states: taken.states,
      toJSON: () => key,
    } as ModelState;
  };

  const step = (snapshot: AnyMachineSnapshot, event: AnyEventObject): PureStep => {
    try {
      return stepper.step(snapshot, event);
    } catch (error) {
      // The usual cause: an action reads a payload field the model never supplied.
      const hint =
        model.events?.[event.type] === undefined && !isMachineProducedEvent(event.type)
          ? ` (the model gives no payload cases for ${event.type})`
          : '';
      return fail(`event ${event.type} threw in state ${stateValueLabel(snapshot.value)}${hint}`, error);
    }
  };

  const advanceByEvent = (state: ModelState, event: AnyEventObject): ModelState => {
    const result = step(state.snapshot, event);
    if (result.transitions.length === 0 && result.snapshot.status === state.snapshot.status) return state;
    const timers = applyTimers(state.timers, result.timers, state.now);
    return makeState(result.snapshot, result, state.now, timers, { state, event });
  };

  // Time advances to each pending timer in firing order until the timer carrying `eventType`
  // fires: earlier timers fire first, exactly as on a live actor's clock.
  const advanceByTimer = (state: ModelState, eventType: string): ModelState | undefined => {
    let snapshot = state.snapshot;
    let timers = state.timers;
    let now = state.now;
    const transitions: string[] = [];
    const states = new Set<string>();
    while (timers.length > 0 && snapshot.status === 'active') {
      const [next, ...rest] = timers as [PendingTimer, ...PendingTimer[]];
      now = next.fireAt;
      const result = step(snapshot, next.event);
      transitions.push(...result.transitions);
      for (const id of result.states) states.add(id);
      snapshot = result.snapshot;
      timers = applyTimers(rest, result.timers, now);
      if (next.event.type === eventType) {
        return makeState(snapshot, { transitions, states: [...states] }, now, timers, {
          state,
          event: next.event,
        });
      }
    }
    return undefined;
  };

  const casesFor = (eventType: string, snapshot: AnyMachineSnapshot): AnyEventObject[] => {
    const cases = model.events?.[eventType];
    if (cases === undefined) return [{ type: eventType }];
    if (typeof cases !== 'function') {
      let events = staticCases.get(eventType);
      if (!events) {
        events = cases.map((payload) => ({ type: eventType, ...payload }));
        staticCases.set(eventType, events);
      }
      return events;
    }
    let payloads: readonly EventPayload[];
    try {
      payloads = cases(snapshot);
    } catch (error) {
      return fail(`the cases of ${eventType} threw in state ${stateValueLabel(snapshot.value)}`, error);
    }
    const findings = Array.isArray(payloads)
      ? checkPayloads(eventType, payloads)
      : [finding('graph.model.cases.shape', 0, `the cases function of "${eventType}" must return a list`)];
    if (findings.length > 0) throw new MachineModelError(machine.id, findings);
    return payloads.map((payload) => ({ type: eventType, ...payload }));
  };

  const offeredEvents = (state: ModelState): AnyEventObject[] => {
    const { snapshot } = state;
    if (snapshot.status !== 'active') return [];
    try {
      if (model.stopWhen?.(snapshot)) return [];
    } catch (error) {
      fail(`stopWhen() threw in state ${stateValueLabel(snapshot.value)}`, error);
    }
    const nodes = [...(snapshot._nodes as AnyStateNode[])].sort((a, b) => a.order - b.order);
    const descriptors = new Set<string>();
    for (const node of nodes) for (const descriptor of node.transitions.keys()) descriptors.add(descriptor);
    const offered = new Map<number, AnyEventObject>();
    for (const descriptor of descriptors) {
      if (isMachineProducedEvent(descriptor)) continue;
      const types = descriptor.includes('*')
        ? Object.keys(model.events ?? {}).filter((type) => matchesDescriptor(type, descriptor))
        : [descriptor];
      for (const type of types) {
        for (const event of casesFor(type, snapshot)) {
          const id = eventIdOf(event);
          if (!offered.has(id)) offered.set(id, event);
        }
      }
    }
    const timerEvent = firstEffectiveTimer(state);
    if (timerEvent) offered.set(eventIdOf(timerEvent), timerEvent);
    return [...offered.values()];
  };

  // The timer a live clock would deliver with an effect: earlier timers that change nothing are
  // consumed on the way (advanceByTimer replays them).
  const firstEffectiveTimer = (state: ModelState): AnyEventObject | undefined => {
    for (const timer of state.timers) {
      const reached = advanceByTimer(state, timer.event.type);
      if (reached && (reached.transitions.length > 0 || reached.snapshot.status !== state.snapshot.status)) {
        remember(state, timer.event, reached);
        return timer.event;
      }
    }
    return undefined;
  };

  const remember = (state: ModelState, event: AnyEventObject, reached: ModelState): void => {
    let cache = advanceCache.get(state);
    if (!cache) {
      cache = new Map();
      advanceCache.set(state, cache);
    }
    cache.set(event, reached);
  };

  const deliveryOf = (event: AnyEventObject): StepDelivery => {
    if (timerEvents.has(event)) return 'timer';
    return event.type.startsWith('xstate.done.actor.') || event.type.startsWith('xstate.error.actor.')
      ? 'settle'
      : 'send';
  };

  const advance = (state: ModelState, event: AnyEventObject, delivery = deliveryOf(event)): ModelState => {
    const cached = advanceCache.get(state)?.get(event);
    if (cached) return cached;
    let reached: ModelState;
    if (delivery === 'timer') {
      const fired = advanceByTimer(state, event.type);
      if (!fired)
        return fail(
          `no pending timer delivers ${event.type} in state ${stateValueLabel(state.snapshot.value)}`,
        );
      reached = fired;
    } else {
      reached = advanceByEvent(state, event);
    }
    remember(state, event, reached);
    return reached;
  };

  let initialStep: PureStep;
  try {
    initialStep = stepper.initial(model.input);
  } catch (error) {
    return fail('the initial state cannot be computed', error);
  }
  if (initialStep.snapshot.status === 'error') {
    fail('the initial state failed (check the model input)', initialStep.snapshot.error);
  }
  const initial = makeState(initialStep.snapshot, initialStep, 0, applyTimers([], initialStep.timers, 0));

  const shortestPaths = () => {
    type GraphNode = ModelState & Snapshot<unknown>;
    const logic = {
      transition: (state: GraphNode, event: AnyEventObject) => advance(state, event),
      getInitialSnapshot: () => initial,
      getPersistedSnapshot: (state: GraphNode) => state,
    } as unknown as ActorLogic<GraphNode, AnyEventObject, unknown>;
    const testModel = new TestModel<GraphNode, AnyEventObject, unknown>(logic, {
      events: (state: GraphNode) => offeredEvents(state),
      serializeState: (state: GraphNode) => state.key,
      serializeEvent: (event: AnyEventObject) => String(eventIdOf(event)),
    });
    return testModel
      .getShortestPaths({ fromState: initial as GraphNode, allowDuplicatePaths: true })
      .map((path) => ({
        // Step 0 is the initial state under `xstate.init`; each later step holds the event that
        // produced its state.
        events: path.steps.slice(1).map((s) => s.event),
        keys: path.steps.slice(1).map((s) => s.state.key),
      }))
      .filter((path) => path.events.length > 0);
  };

  return { machine, initial, offeredEvents, advance, deliveryOf, shortestPaths };
}
