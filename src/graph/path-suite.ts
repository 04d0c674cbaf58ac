import { createHash } from 'node:crypto';
import type { AnyEventObject, AnyStateMachine, SnapshotFrom } from 'xstate';
import { transitionCoverage } from './coverage.js';
import { PathGenerationError } from './errors.js';
import { shortEventLabel } from './labels.js';
import { assertMachineModel, type MachineModel } from './machine-model.js';
import {
  createModelExplorer,
  type ModelExplorer,
  type ModelState,
  type StepDelivery,
} from './model-exploration.js';
import type { ModelStateJson, PathStep, PathStrategy, PathSuite, SuitePath } from './path-suite-schema.js';
import { assertMachine } from './state-nodes.js';
import { stateValueLabel } from './state-value-label.js';

/** Options of {@link generatePathSuite}. */
export interface PathSuiteOptions {
  /**
   * `transition-cover` (default): the fewest shortest paths (greedy) that still take every
   * transition and enter every state any shortest path reaches. `shortest`: one shortest path to
   * every model state (value + projection + via), minus paths that are prefixes of others.
   */
  readonly strategy?: PathStrategy;
}

/**
 * Generates a model-based path suite for `machine`: shortest paths over the model graph (a node is
 * a state value + projection + the abstract state and event it came from, so every edge is
 * reached), each replayed purely to record the transitions every step takes, `always` microsteps
 * included.
 *
 * @param machine an XState v5 machine
 * @param model input, payload cases, projection and bounds (see {@link MachineModel})
 * @param options the strategy
 * @returns a plain JSON suite that {@link pathSuiteSchema} accepts
 * @throws MachineShapeError when `machine` is not a machine
 * @throws MachineModelError when the model names unknown events or has non-JSON payloads
 * @throws PathGenerationError when the initial state fails, a step or a model function throws, or
 *   the model state space exceeds `maxStates`
 */
export function generatePathSuite<TMachine extends AnyStateMachine>(
  machine: TMachine,
  model: MachineModel<SnapshotFrom<TMachine>>,
  options: PathSuiteOptions = {},
): PathSuite {
  assertMachine(machine);
  assertMachineModel(machine, model as MachineModel);
  const strategy = options.strategy ?? 'transition-cover';
  if (strategy !== 'shortest' && strategy !== 'transition-cover') {
    throw new PathGenerationError(machine.id, `unknown strategy "${String(strategy)}"`);
  }
  const explorer = createModelExplorer(machine, model as MachineModel);
  const planned = withoutPrefixPaths(explorer.shortestPaths());

  const walked = planned.map((plan) => walk(explorer, plan.events));
  const selected = strategy === 'transition-cover' ? greedyCover(walked) : walked;
  const json = createJsonCache();
  const paths = selected.map((path) => toSuitePath(path, json));
  const coverage = transitionCoverage(machine, {
    transitions: [
      ...explorer.initial.transitions,
      ...selected.flatMap((p) => p.states.flatMap((s) => s.transitions)),
    ],
    states: [...explorer.initial.states, ...selected.flatMap((p) => p.states.flatMap((s) => s.states))],
  });
  return {
    machine: machine.id,
    strategy,
    initial: { state: json.state(explorer.initial), transitions: [...explorer.initial.transitions] },
    paths,
    summary: {
      paths: paths.length,
      steps: paths.reduce((sum, p) => sum + p.steps.length, 0),
      transitionsCovered: coverage.transitions.covered,
      transitionsTotal: coverage.transitions.total,
      statesCovered: coverage.states.covered,
      statesTotal: coverage.states.total,
      uncoveredTransitions: coverage.transitions.missing.map((t) => t.key),
      uncoveredStates: [...coverage.states.missing],
    },
  };
}

interface PlannedPath {
  readonly events: readonly AnyEventObject[];
  readonly keys: readonly string[];
}

/** A planned path walked through the explorer: the node before the first event, then one per event. */
interface WalkedPath {
  readonly events: readonly AnyEventObject[];
  readonly deliveries: readonly StepDelivery[];
  /** `states[0]` is the initial node; `states[i + 1]` is reached by `events[i]`. */
  readonly states: readonly ModelState[];
}

// A shortest path that is a prefix of another is covered by the longer one.
function withoutPrefixPaths(paths: readonly PlannedPath[]): PlannedPath[] {
  const prefixes = new Set<string>();
  const keysOf = paths.map((path) => path.keys.join('\u0000'));
  for (const path of paths) {
    for (let length = 1; length < path.keys.length; length++)
      prefixes.add(path.keys.slice(0, length).join('\u0000'));
  }
  const kept = new Set<string>();
  return paths.filter((_, index) => {
    const key = keysOf[index] as string;
    if (prefixes.has(key) || kept.has(key)) return false;
    kept.add(key);
    return true;
  });
}

// Walks the path through the explorer's own steps from the initial state; each node carries the
// transitions its pure macrostep took. The live runner later checks them against a real actor.
function walk(explorer: ModelExplorer, events: readonly AnyEventObject[]): WalkedPath {
  const states: ModelState[] = [explorer.initial];
  const deliveries: StepDelivery[] = [];
  for (const event of events) {
    const delivery = explorer.deliveryOf(event);
    deliveries.push(delivery);
    states.push(explorer.advance(states[states.length - 1] as ModelState, event, delivery));
  }
  return { events, deliveries, states };
}

// Greedy set cover over transitions and states: repeatedly keep the path that adds the most
// uncovered items (ties: fewer steps, then earlier), until nothing new can be added.
function greedyCover(paths: readonly WalkedPath[]): WalkedPath[] {
  const itemsOf = paths.map(
    (path) =>
      new Set(
        path.states
          .slice(1)
          .flatMap((node) => [...node.transitions, ...node.states.map((id) => `state:${id}`)]),
      ),
  );
  const covered = new Set<string>();
  const chosen = new Set<number>();
  for (;;) {
    let best = -1;
    let bestGain = 0;
    itemsOf.forEach((items, index) => {
      if (chosen.has(index)) return;
      let gain = 0;
      for (const item of items) if (!covered.has(item)) gain++;
      const better =
        gain > bestGain ||
        (gain === bestGain &&
          gain > 0 &&
          (paths[index] as WalkedPath).events.length < (paths[best] as WalkedPath).events.length);
      if (better) {
        best = index;
        bestGain = gain;
      }
    });
    if (best < 0) break;
    chosen.add(best);
    for (const item of itemsOf[best] as Set<string>) covered.add(item);
  }
  return paths.filter((_, index) => chosen.has(index));
}

/**
 * Builds the JSON forms once per node and event. Steps share them (a step's `stateAfter` is the
 * next step's `stateBefore`), so treat a suite as immutable or serialize it before editing.
 */
function createJsonCache() {
  const states = new WeakMap<ModelState, ModelStateJson>();
  const events = new WeakMap<AnyEventObject, PathStep['event']>();
  return {
    state(node: ModelState): ModelStateJson {
      let json = states.get(node);
      if (!json) {
        json = JSON.parse(
          JSON.stringify({
            value: node.snapshot.value,
            status: node.snapshot.status,
            projection: node.projection,
          }),
        ) as ModelStateJson;
        states.set(node, json);
      }
      return json;
    },
    // Events come from the model's JSON payload cases or from the machine's own timers.
    event(event: AnyEventObject): PathStep['event'] {
      let json = events.get(event);
      if (!json) {
        json = JSON.parse(JSON.stringify(event)) as PathStep['event'];
        events.set(event, json);
      }
      return json;
    },
  };
}

function toSuitePath(path: WalkedPath, json: ReturnType<typeof createJsonCache>): SuitePath {
  const steps: PathStep[] = path.events.map((event, index) => {
    const after = path.states[index + 1] as ModelState;
    return {
      stateBefore: json.state(path.states[index] as ModelState),
      event: json.event(event),
      delivery: path.deliveries[index] as StepDelivery,
      stateAfter: json.state(after),
      transitions: [...after.transitions],
    };
  });
  return { id: pathId(steps), description: describePath(path.events, steps), steps };
}

function pathId(steps: readonly PathStep[]): string {
  const events = JSON.stringify(steps.map((step) => step.event));
  return `p-${createHash('sha256').update(events).digest('hex').slice(0, 12)}`;
}
/** Longest payload text a path description shows per event; the step itself has the full payload. */
const PAYLOAD_SHOWN = 60;

function describePath(events: readonly AnyEventObject[], steps: readonly PathStep[]): string {
  const last = steps[steps.length - 1];
  const reached = last ? stateValueLabel(last.stateAfter.value as never) : '?';
  const labels = events.map((event) => {
    const { type, ...payload } = event;
    // An actor outcome shows its output or error; other events show their fields.
    const shown = 'output' in payload ? payload.output : 'error' in payload ? payload.error : payload;
    const text = shown === undefined ? '' : JSON.stringify(shown);
    const clipped = text.length > PAYLOAD_SHOWN ? `${text.slice(0, PAYLOAD_SHOWN - 1)}…` : text;
    return clipped === '' || clipped === '{}' ? shortEventLabel(type) : `${shortEventLabel(type)} ${clipped}`;
  });
  return `reaches ${reached} by ${labels.join(' → ')}`;
}
