import { createHash } from 'node:crypto';
import type { AnyEventObject, AnyStateMachine, SnapshotFrom } from 'xstate';
import { type Finding, finding } from '../common/finding.js';
import { transitionCoverage } from './coverage.js';
import { PathGenerationError } from './errors.js';
import { shortEventLabel } from './labels.js';
import { assertMachineModel, type MachineModel } from './machine-model.js';
import { createModelExplorer, type ModelExplorer, type ModelState } from './model-exploration.js';
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

/** How many divergent paths an error names before it stops listing. */
const DIVERGENCES_SHOWN = 10;

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
 * @throws PathGenerationError when a step throws, the model state space exceeds `maxStates`, or a
 *   path does not replay to the abstract states it was planned through (a projection that hides
 *   something guards read)
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

  const divergences: Finding[] = [];
  const replayed: ReplayedPath[] = [];
  for (const plan of planned) {
    const path = replay(explorer, plan.events, plan.keys);
    if (path.divergedAt !== undefined) {
      divergences.push(
        finding(
          'graph.paths.projection-unfaithful',
          0,
          `${describe(plan.events, path.steps)} left the planned model state at step ${path.divergedAt + 1}`,
        ),
      );
    }
    replayed.push(path);
  }
  if (divergences.length > 0) {
    throw new PathGenerationError(
      machine.id,
      `${divergences.length} generated path(s) did not replay as planned; project() must keep everything guards ` +
        'and payload case functions read',
      divergences.slice(0, DIVERGENCES_SHOWN),
    );
  }

  const selected = strategy === 'transition-cover' ? greedyCover(replayed) : replayed;
  const paths = selected.map((path) => toSuitePath(path));
  const initialStates = explorer.initial.states;
  const coverage = transitionCoverage(machine, {
    transitions: [
      ...explorer.initial.transitions,
      ...selected.flatMap((p) => p.steps.flatMap((s) => s.transitions)),
    ],
    states: [...initialStates, ...selected.flatMap((p) => p.states)],
  });
  return {
    machine: machine.id,
    strategy,
    initial: { state: describeState(explorer.initial), transitions: [...explorer.initial.transitions] },
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

interface ReplayedPath {
  readonly events: readonly AnyEventObject[];
  readonly steps: PathStep[];
  /** State ids entered along the path. */
  readonly states: readonly string[];
  readonly divergedAt?: number;
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

function replay(
  explorer: ModelExplorer,
  events: readonly AnyEventObject[],
  keys: readonly string[],
): ReplayedPath {
  const steps: PathStep[] = [];
  const states = new Set<string>();
  let state = explorer.initial;
  let divergedAt: number | undefined;
  events.forEach((event, index) => {
    const delivery = explorer.deliveryOf(event);
    const next = explorer.advance(state, event, delivery);
    if (divergedAt === undefined && next.key !== keys[index]) divergedAt = index;
    for (const id of next.states) states.add(id);
    steps.push({
      stateBefore: describeState(state),
      event: toJsonEvent(event),
      delivery,
      stateAfter: describeState(next),
      transitions: [...next.transitions],
    });
    state = next;
  });
  return { events, steps, states: [...states], ...(divergedAt === undefined ? {} : { divergedAt }) };
}

function describeState(state: ModelState): ModelStateJson {
  return {
    value: state.snapshot.value as ModelStateJson['value'],
    status: state.snapshot.status,
    projection: state.projection as ModelStateJson['projection'],
  };
}

// Events come from the model's JSON payload cases or from the machine's own timers (plain data).
function toJsonEvent(event: AnyEventObject): PathStep['event'] {
  return JSON.parse(JSON.stringify(event)) as PathStep['event'];
}

// Greedy set cover over transitions and states: repeatedly keep the path that adds the most
// uncovered items (ties: fewer steps, then earlier), until nothing new can be added.
function greedyCover(paths: readonly ReplayedPath[]): ReplayedPath[] {
  const itemsOf = paths.map(
    (path) =>
      new Set([...path.steps.flatMap((s) => s.transitions), ...path.states.map((id) => `state:${id}`)]),
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
          (paths[index] as ReplayedPath).steps.length < (paths[best] as ReplayedPath).steps.length);
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

function toSuitePath(path: ReplayedPath): SuitePath {
  return {
    id: pathId(path.steps),
    description: describe(path.events, path.steps),
    steps: path.steps,
  };
}

function pathId(steps: readonly PathStep[]): string {
  const events = JSON.stringify(steps.map((step) => step.event));
  return `p-${createHash('sha256').update(events).digest('hex').slice(0, 12)}`;
}

function describe(events: readonly AnyEventObject[], steps: readonly PathStep[]): string {
  const last = steps[steps.length - 1];
  const reached = last ? stateValueLabel(last.stateAfter.value as never) : '?';
  const labels = events.map((event) => {
    const { type, ...payload } = event;
    // An actor outcome shows its output or error; other events show their fields.
    const shown = 'output' in payload ? payload.output : 'error' in payload ? payload.error : payload;
    const fields = shown !== undefined && JSON.stringify(shown) !== '{}' ? ` ${JSON.stringify(shown)}` : '';
    return `${shortEventLabel(type)}${fields}`;
  });
  return `reaches ${reached} by ${labels.join(' → ')}`;
}
