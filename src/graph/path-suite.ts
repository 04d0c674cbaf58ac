import type { AnyEventObject, AnyStateMachine, SnapshotFrom } from 'xstate';
import { transitionCoverage } from './coverage.js';
import { PathGenerationError } from './errors.js';
import { assertMachineModel, DEFAULT_MAX_STATES, type MachineModel } from './machine-model.js';
import { createModelExplorer, type ModelExplorer } from './model-exploration.js';
import type { PathStrategy, PathSuite, SuitePath } from './path-suite-schema.js';
import {
  consecutivePairs,
  type PlannedWalk,
  pairKey,
  randomWalks,
  searchTransitionPairs,
} from './path-walks.js';
import { assertMachine } from './state-nodes.js';
import { createJsonCache, toSuitePath, type WalkedPath, walk } from './suite-paths.js';

/** The strategies {@link generatePathSuite} knows. */
export const PATH_STRATEGIES: readonly PathStrategy[] = [
  'transition-cover',
  'shortest',
  'transition-pair',
  'random-walk',
];

/** Options of {@link generatePathSuite}. */
export interface PathSuiteOptions {
  /**
   * `transition-cover` (default): the fewest shortest paths (greedy) that still take every
   * transition and enter every state any shortest path reaches. `shortest`: one shortest path to
   * every model state (value + projection + via), minus paths that are prefixes of others.
   * `transition-pair`: few shortest paths (greedy) that together take every reachable pair of
   * consecutive transitions (and every transition and state). `random-walk`: `length` steps of
   * seeded random walks from the initial state (see {@link PathSuiteOptions.seed}).
   */
  readonly strategy?: PathStrategy;
  /** `random-walk` only: the seed (an integer 0..2^32-1; default 0). The same seed, the same suite. */
  readonly seed?: number;
  /** `random-walk` only: the number of steps over all walks (1..1,000,000; default 100). */
  readonly length?: number;
}

/** The default seed of the `random-walk` strategy. */
export const DEFAULT_WALK_SEED = 0;
/** The default length (steps over all walks) of the `random-walk` strategy. */
export const DEFAULT_WALK_LENGTH = 100;
/** The longest `random-walk` suite. */
export const MAX_WALK_LENGTH = 1_000_000;

function walkOptions(machineId: string, options: PathSuiteOptions): { seed: number; length: number } {
  const seed = options.seed ?? DEFAULT_WALK_SEED;
  const length = options.length ?? DEFAULT_WALK_LENGTH;
  if (!Number.isInteger(seed) || seed < 0 || seed > 0xffffffff)
    throw new PathGenerationError(
      machineId,
      `the seed must be an integer 0..4294967295, got ${String(seed)}`,
    );
  if (!Number.isInteger(length) || length < 1 || length > MAX_WALK_LENGTH)
    throw new PathGenerationError(
      machineId,
      `the walk length must be an integer 1..${MAX_WALK_LENGTH}, got ${String(length)}`,
    );
  return { seed, length };
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
  if (!PATH_STRATEGIES.includes(strategy)) {
    throw new PathGenerationError(
      machine.id,
      `unknown strategy "${String(strategy)}" (strategies: ${PATH_STRATEGIES.join(', ')})`,
    );
  }
  if ((options.seed !== undefined || options.length !== undefined) && strategy !== 'random-walk')
    throw new PathGenerationError(machine.id, 'seed and length apply to the random-walk strategy only');
  const walkSettings = strategy === 'random-walk' ? walkOptions(machine.id, options) : undefined;
  const explorer = createModelExplorer(machine, model as MachineModel);
  let selected: WalkedPath[];
  let pairTotals: ReadonlySet<string> | undefined;
  if (walkSettings !== undefined) {
    selected = randomWalks(explorer, walkSettings.seed, walkSettings.length).map((events) =>
      walk(explorer, events),
    );
  } else if (strategy === 'transition-pair') {
    // The search's node bound: a model state may be reached after several different transitions.
    const search = searchTransitionPairs(explorer, 2 * (model.maxStates ?? DEFAULT_MAX_STATES));
    const planned = withoutPrefixPaths(uniquePlans([...search.pairs.values(), ...search.items.values()]));
    selected = greedyCover(
      planned.map((plan) => walk(explorer, plan.events)),
      (path) => pairsOf(explorer.initial.transitions, path).map(([from, to]) => `pair:${pairKey(from, to)}`),
    );
    pairTotals = new Set(search.pairs.keys());
  } else {
    const planned = withoutPrefixPaths(explorer.shortestPaths());
    const walked = planned.map((plan) => walk(explorer, plan.events));
    selected = strategy === 'transition-cover' ? greedyCover(walked) : walked;
  }
  const json = createJsonCache();
  const paths = uniqueIds(selected.map((path) => toSuitePath(path, json)));
  const coverage = transitionCoverage(machine, {
    transitions: [
      ...explorer.initial.transitions,
      ...selected.flatMap((p) => p.states.flatMap((s) => s.transitions)),
    ],
    states: [...explorer.initial.states, ...selected.flatMap((p) => p.states.flatMap((s) => s.states))],
  });
  const pairSummary = pairTotals === undefined ? {} : summarizePairs(explorer, selected, pairTotals);
  return {
    machine: machine.id,
    strategy,
    ...(walkSettings === undefined ? {} : { walk: walkSettings }),
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
      ...pairSummary,
    },
  };
}

/** The pairs of consecutive transitions a walked path takes, the start's transitions first. */
function pairsOf(initial: readonly string[], path: WalkedPath): (readonly [string, string])[] {
  return consecutivePairs([...initial, ...path.states.slice(1).flatMap((node) => node.transitions)]);
}

function summarizePairs(
  explorer: ModelExplorer,
  selected: readonly WalkedPath[],
  reachable: ReadonlySet<string>,
): Pick<
  PathSuite['summary'],
  'transitionPairsCovered' | 'transitionPairsTotal' | 'uncoveredTransitionPairs'
> {
  const covered = new Set<string>();
  for (const path of selected)
    for (const [from, to] of pairsOf(explorer.initial.transitions, path)) covered.add(pairKey(from, to));
  const total = new Set([...reachable, ...covered]);
  return {
    transitionPairsCovered: covered.size,
    transitionPairsTotal: total.size,
    uncoveredTransitionPairs: [...total]
      .filter((key) => !covered.has(key))
      .sort()
      .map((key) => key.split('\n') as [string, string]),
  };
}

// One plan per distinct event sequence (several items often share a shortest path).
function uniquePlans(plans: readonly PlannedWalk[]): PlannedWalk[] {
  const seen = new Set<PlannedWalk>();
  const byKeys = new Set<string>();
  return plans.filter((plan) => {
    if (seen.has(plan)) return false;
    seen.add(plan);
    const key = plan.keys.join('\u0000');
    if (byKeys.has(key)) return false;
    byKeys.add(key);
    return true;
  });
}

// Random walks can repeat a path; its id gets `-2`, `-3` … so that ids stay unique test names.
function uniqueIds(paths: readonly SuitePath[]): SuitePath[] {
  const counts = new Map<string, number>();
  return paths.map((path) => {
    const count = (counts.get(path.id) ?? 0) + 1;
    counts.set(path.id, count);
    return count === 1 ? path : { ...path, id: `${path.id}-${count}` };
  });
}

interface PlannedPath {
  readonly events: readonly AnyEventObject[];
  readonly keys: readonly string[];
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

// Greedy set cover over transitions and states (and `extra` items per path): repeatedly keep the
// path that adds the most uncovered items (ties: fewer steps, then earlier), until nothing new can
// be added.
function greedyCover(
  paths: readonly WalkedPath[],
  extra: (path: WalkedPath) => readonly string[] = () => [],
): WalkedPath[] {
  const itemsOf = paths.map(
    (path) =>
      new Set([
        ...path.states
          .slice(1)
          .flatMap((node) => [...node.transitions, ...node.states.map((id) => `state:${id}`)]),
        ...extra(path),
      ]),
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
