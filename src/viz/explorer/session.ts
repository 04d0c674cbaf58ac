/**
 * One machine being explored: a history of model states stepped by the path generator's own
 * explorer (src/graph/model-exploration.ts, over the pure stepper), so every step the page shows
 * is one a generated test takes. The server owns the session; the page only renders its views.
 */
import type { AnyEventObject, AnyStateMachine, AnyStateNode } from 'xstate';
import { InputError } from '../../common/errors.js';
import type { JsonValue } from '../../common/json-value.js';
import { shortEventLabel } from '../../graph/labels.js';
import { assertMachineModel, type MachineModel } from '../../graph/machine-model.js';
import {
  createModelExplorer,
  type ModelExplorer,
  type ModelState,
  type StepDelivery,
} from '../../graph/model-exploration.js';
import type { Explanation } from '../../graph/models/explanations.js';
import { generatePathSuite } from '../../graph/path-suite.js';
import type { PathSuite, SuitePath } from '../../graph/path-suite-schema.js';
import { stateValueLabel } from '../../graph/state-value-label.js';
import { stateElementId, transitionElementId } from '../element-ids.js';
import {
  type GuardOutcome,
  guardOutcomes,
  type MachineFacts,
  machineFacts,
  placeSnapshot,
  type StatePlacement,
  type TakenTransition,
  takenTransitions,
} from './step-view.js';

/** A request the session cannot serve (code `explore.request`): a bad event index, path id. */
export class ExploreRequestError extends InputError {
  constructor(message: string) {
    super('explore.request', message);
  }
}

/** An event the current state accepts, with one of the model's payload cases. */
export interface OfferedEvent {
  /** Position in {@link ExplorerView.events}; what `send` takes. */
  readonly index: number;
  readonly type: string;
  /** `done: runGates`, `human.retry`, `after 60000ms`. */
  readonly label: string;
  /** The event as sent, `type` included (plain JSON). */
  readonly event: JsonValue;
  readonly delivery: StepDelivery;
}

/** The step that led to the current state. */
export interface LastStep {
  readonly event: JsonValue;
  readonly label: string;
  readonly delivery: StepDelivery;
  /** False when the event changed nothing (every candidate's guard failed). */
  readonly changed: boolean;
  readonly transitions: readonly TakenTransition[];
  readonly guards: readonly GuardOutcome[];
}

/** Everything the page shows for the current position. */
export interface ExplorerView {
  readonly machine: string;
  readonly machineId: string;
  /** 0 is the initial state; `steps` is the last step of the history. */
  readonly position: number;
  readonly steps: number;
  readonly state: StatePlacement;
  /** The transitions taken while starting (position 0) or by the last step. */
  readonly last: LastStep | null;
  readonly initialTransitions: readonly TakenTransition[];
  /** The model's projection: what guards read, what a path step asserts. */
  readonly projection: JsonValue;
  /** The protocol core's verdicts over the snapshot, when the machine has an explanation. */
  readonly explanation: JsonValue | null;
  readonly events: readonly OfferedEvent[];
  /** The path the history was loaded from, while the history still follows it. */
  readonly path: { readonly id: string; readonly description: string } | null;
  /** Simulated time in ms (timers fire on it). */
  readonly now: number;
}

/** Coverage of the path suite, as diagram elements. */
export interface CoverageView {
  readonly summary: string;
  readonly coveredElements: readonly string[];
  readonly uncoveredElements: readonly string[];
  readonly uncoveredStateElements: readonly string[];
  readonly uncovered: readonly string[];
}

interface HistoryStep {
  readonly event: AnyEventObject;
  readonly delivery: StepDelivery;
  readonly changed: boolean;
}

/** Options of {@link createExplorerSession}. */
export interface ExplorerSessionOptions {
  /** A suite generated earlier (`loopchart paths --out`); by default generated on first use. */
  readonly suite?: PathSuite;
  readonly explain?: Explanation;
}

/** A machine being explored. */
export interface ExplorerSession {
  readonly name: string;
  readonly machine: AnyStateMachine;
  view(): ExplorerView;
  /** Sends the offered event at `index` from the current position; later history is dropped. */
  send(index: number): ExplorerView;
  back(): ExplorerView;
  forward(): ExplorerView;
  /** Moves to `position` within the history. */
  go(position: number): ExplorerView;
  reset(): ExplorerView;
  /** The path suite (generated on first call unless given). */
  suite(): PathSuite;
  /** Loads a suite path into the history at position 0; `forward` replays it step by step. */
  loadPath(id: string): ExplorerView;
  coverage(): CoverageView;
}

function json(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value ?? null)) as JsonValue;
}

/**
 * Creates a session for `machine` under `model`.
 *
 * @throws MachineModelError when the model does not fit the machine
 * @throws PathGenerationError when the initial state cannot be computed
 */
export function createExplorerSession(
  name: string,
  machine: AnyStateMachine,
  model: MachineModel,
  options: ExplorerSessionOptions = {},
): ExplorerSession {
  assertMachineModel(machine, model);
  const explorer: ModelExplorer = createModelExplorer(machine, model);
  const facts: MachineFacts = machineFacts(machine);
  let nodes: ModelState[] = [explorer.initial];
  let history: HistoryStep[] = [];
  let position = 0;
  let path: SuitePath | null = null;
  let suite = options.suite;
  if (suite !== undefined && suite.machine !== machine.id)
    throw new InputError(
      'explore.suite.machine',
      `the suite is for machine "${suite.machine}", not "${machine.id}"`,
    );

  const offered = (state: ModelState) => explorer.offeredEvents(state);

  const view = (): ExplorerView => {
    const state = nodes[position] as ModelState;
    const step = position === 0 ? undefined : history[position - 1];
    const before = position === 0 ? undefined : nodes[position - 1];
    let last: LastStep | null = null;
    if (step !== undefined && before !== undefined) {
      const keys = step.changed ? state.transitions : [];
      last = {
        event: json(step.event),
        label: shortEventLabel(step.event.type),
        delivery: step.delivery,
        changed: step.changed,
        transitions: takenTransitions(facts, keys),
        guards: guardOutcomes(facts, keys, {
          eventType: step.event.type,
          nodes: before.snapshot._nodes as AnyStateNode[],
        }),
      };
    }
    let explanation: JsonValue | null = null;
    if (options.explain !== undefined) {
      try {
        explanation = options.explain(state.snapshot);
      } catch (error) {
        explanation = { unavailable: error instanceof Error ? error.message : String(error) };
      }
    }
    return {
      machine: name,
      machineId: machine.id,
      position,
      steps: history.length,
      state: placeSnapshot(machine, state.snapshot),
      last,
      initialTransitions: takenTransitions(facts, explorer.initial.transitions),
      projection: state.projection,
      explanation,
      events: offered(state).map((event, index) => ({
        index,
        type: event.type,
        label: shortEventLabel(event.type),
        event: json(event),
        delivery: explorer.deliveryOf(event),
      })),
      path: path === null ? null : { id: path.id, description: path.description },
      now: state.now,
    };
  };

  const step = (event: AnyEventObject): void => {
    const from = nodes[position] as ModelState;
    const delivery = explorer.deliveryOf(event);
    const reached = explorer.advance(from, event, delivery);
    nodes = [...nodes.slice(0, position + 1), reached];
    history = [...history.slice(0, position), { event, delivery, changed: reached !== from }];
    position += 1;
  };

  const api: ExplorerSession = {
    name,
    machine,
    view,
    send(index) {
      const events = offered(nodes[position] as ModelState);
      const event = Number.isInteger(index) ? events[index] : undefined;
      if (event === undefined)
        throw new ExploreRequestError(
          `no event ${String(index)} here: ${stateValueLabel(nodes[position]?.snapshot.value as never)} offers ${events.length}`,
        );
      path = null;
      step(event);
      return view();
    },
    back() {
      return api.go(position - 1);
    },
    forward() {
      return api.go(position + 1);
    },
    go(target) {
      if (!Number.isInteger(target)) throw new ExploreRequestError(`position must be an integer`);
      position = Math.max(0, Math.min(history.length, target));
      return view();
    },
    reset() {
      nodes = [explorer.initial];
      history = [];
      position = 0;
      path = null;
      return view();
    },
    suite() {
      suite ??= generatePathSuite(machine, model);
      return suite;
    },
    loadPath(id) {
      const found = api.suite().paths.find((p) => p.id === id);
      if (found === undefined) throw new ExploreRequestError(`the suite has no path "${id}"`);
      api.reset();
      // Each step's event is matched among the events offered at that point, so a timer is
      // delivered as the explorer's own timer event and a stale suite fails here, by step.
      found.steps.forEach((suiteStep, index) => {
        const wanted = JSON.stringify(suiteStep.event);
        const event = offered(nodes[position] as ModelState).find((e) => JSON.stringify(e) === wanted);
        if (event === undefined)
          throw new ExploreRequestError(
            `path ${id} step ${index + 1}: ${suiteStep.event.type} is not offered in ${stateValueLabel(nodes[position]?.snapshot.value as never)} (the suite is from another version of the machine or model)`,
          );
        step(event);
      });
      path = found;
      position = 0;
      return view();
    },
    coverage() {
      const current = api.suite();
      const uncoveredKeys = new Set(current.summary.uncoveredTransitions);
      const coveredElements: string[] = [];
      const uncoveredElements: string[] = [];
      for (const info of facts.byKey.values()) {
        const elements = info.targets.map((_, index) => transitionElementId(info.key, index));
        (uncoveredKeys.has(info.key) ? uncoveredElements : coveredElements).push(...elements);
      }
      const s = current.summary;
      return {
        summary: `path suite (${current.strategy}): ${s.paths} paths, transitions ${s.transitionsCovered}/${s.transitionsTotal}, states ${s.statesCovered}/${s.statesTotal}`,
        coveredElements,
        uncoveredElements,
        uncoveredStateElements: s.uncoveredStates.map(stateElementId),
        uncovered: [...s.uncoveredTransitions, ...s.uncoveredStates],
      };
    },
  };
  return api;
}
