import { isDeepStrictEqual } from 'node:util';
import {
  type AnyActorRef,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  createActor,
  type InspectionEvent,
  type SnapshotFrom,
} from 'xstate';
import { InputError } from '../common/errors.js';
import { finding } from '../common/finding.js';
import type { JsonValue } from '../common/json-value.js';
import { type ControlledInvocation, createControlledActors } from './controlled-actors.js';
import { type CollectedCoverage, type CoverageCollector, createCoverageCollector } from './coverage.js';
import { PathRunError } from './errors.js';
import { actorIdOf } from './labels.js';
import type { MachineModel } from './machine-model.js';
import type { ModelStateJson, PathStep, SuitePath } from './path-suite-schema.js';
import { assertMachine } from './state-nodes.js';
import { SteppingClock } from './stepping-clock.js';
import { transitionKeyOf } from './transitions.js';

/** What an assertion hook gets besides the snapshot and the step. */
export interface StepContext {
  /** The path being run. */
  readonly path: SuitePath;
  /** 0-based index of the step. */
  readonly index: number;
  /** Every start of a controlled actor so far, with the input the machine gave it. */
  readonly invocations: readonly ControlledInvocation[];
}

/** Options of {@link runPath}. */
export interface RunPathOptions<TSnapshot extends AnyMachineSnapshot = AnyMachineSnapshot> {
  /**
   * Called after every step, once the runner has checked the state value, status, projection and
   * transitions against the step. Throw (or fail an `expect`) to fail the path; may be async.
   */
  readonly assertStep?: (snapshot: TSnapshot, step: PathStep, context: StepContext) => void | Promise<void>;
  /** Collects coverage across runs; a fresh collector is used when omitted. */
  readonly collector?: CoverageCollector;
}

/** What one path run produced. */
export interface PathRunResult<TSnapshot extends AnyMachineSnapshot = AnyMachineSnapshot> {
  /** Coverage collected by the collector (cumulative when a shared collector was given). */
  readonly coverage: CollectedCoverage;
  /** The actor's last snapshot, taken before it was stopped. */
  readonly snapshot: TSnapshot;
  /** Every start of a controlled actor during the run. */
  readonly invocations: readonly ControlledInvocation[];
}

/** Macrotask turns a settled actor gets to report back before the runner gives up. */
const SETTLE_TURNS = 20;
/** Timers the runner fires while waiting for one delayed event. */
const TIMER_LIMIT = 1000;

/**
 * Runs one generated path against a live actor: `createActor(machine.provide({ actors }), { input,
 * clock, inspect })` where every named actor is a host-controlled stand-in. Each step's event is
 * delivered as the suite says: `send` events are sent, `settle` events resolve or reject the running
 * invoked actor with that id, `timer` events advance a {@link SteppingClock} to the timers' deadlines
 * until the event fires. Before and after each step the runner checks the live state value, status
 * and projection against the step, and the transitions taken against the step's list; then it calls
 * `assertStep`.
 *
 * @param machine the machine the suite was generated from (it may be a `provide()` variant, e.g.
 *   with host actions; its actors are replaced)
 * @param model the model the suite was generated with (input and projection are used)
 * @param path one path of the suite
 * @param options the assertion hook and an optional shared coverage collector
 * @throws PathRunError naming the path, the step and the difference
 */
export async function runPath<TMachine extends AnyStateMachine>(
  machine: TMachine,
  model: MachineModel<SnapshotFrom<TMachine>>,
  path: SuitePath,
  options: RunPathOptions<SnapshotFrom<TMachine>> = {},
): Promise<PathRunResult<SnapshotFrom<TMachine>>> {
  assertMachine(machine);
  const collector = options.collector ?? createCoverageCollector();
  const controlled = createControlledActors(machine);
  const clock = new SteppingClock();
  let stepTransitions: string[] = [];
  let delivered: string[] = [];
  const inspect = (event: InspectionEvent): void => {
    collector.inspect(event);
    if (event.actorRef.sessionId !== event.rootId) return;
    if (event.type === '@xstate.microstep') stepTransitions.push(...event._transitions.map(transitionKeyOf));
    else if (event.type === '@xstate.event') delivered.push(event.event.type);
  };
  const actor = createActor(machine.provide({ actors: controlled.actors as never }), {
    input: model.input,
    clock,
    inspect,
  });
  // Without an error observer XState rethrows an actor error outside of any await; the runner
  // reports errors itself from the snapshot.
  actor.subscribe({ error: () => {} });
  const project = (snapshot: AnyMachineSnapshot): JsonValue =>
    model.project ? model.project(snapshot as SnapshotFrom<TMachine>) : (snapshot.context as JsonValue);
  const fail = (index: number, message: string): never => {
    throw new PathRunError(path.id, index, message);
  };
  const check = (index: number, when: string, expected: ModelStateJson): void => {
    const snapshot = actor.getSnapshot() as AnyMachineSnapshot;
    const actual = { value: snapshot.value, status: snapshot.status, projection: project(snapshot) };
    if (isDeepStrictEqual(actual, expected)) return;
    const reason = snapshot.status === 'error' ? ` (actor error: ${describeError(snapshot.error)})` : '';
    fail(
      index,
      `${when}: expected ${JSON.stringify(expected)}, live actor is in ${JSON.stringify(actual)}${reason}`,
    );
  };

  try {
    actor.start();
    collector.recordSnapshot(actor.getSnapshot() as AnyMachineSnapshot);
    for (const [index, step] of path.steps.entries()) {
      check(index, 'state before the step', step.stateBefore);
      stepTransitions = [];
      delivered = [];
      await deliver(index, step);
      check(index, `state after ${step.event.type}`, step.stateAfter);
      if (!isDeepStrictEqual(stepTransitions, step.transitions)) {
        fail(
          index,
          `${step.event.type} took transitions ${JSON.stringify(stepTransitions)}, the suite expects ` +
            JSON.stringify(step.transitions),
        );
      }
      await options.assertStep?.(actor.getSnapshot() as SnapshotFrom<TMachine>, step, {
        path,
        index,
        invocations: controlled.invocations,
      });
    }
    return {
      coverage: collector.collected(),
      snapshot: actor.getSnapshot() as SnapshotFrom<TMachine>,
      invocations: [...controlled.invocations],
    };
  } finally {
    actor.stop();
  }

  async function deliver(index: number, step: PathStep): Promise<void> {
    const { type } = step.event;
    if (step.delivery === 'send') {
      actor.send(step.event as never);
      return;
    }
    if (step.delivery === 'timer') {
      for (let fired = 0; !delivered.includes(type); fired++) {
        if (fired >= TIMER_LIMIT || !clock.advanceToNextTimer()) {
          fail(index, `no pending timer delivered ${type} (delivered instead: ${JSON.stringify(delivered)})`);
        }
      }
      return;
    }
    const id = actorIdOf(type);
    const outcome = type.startsWith('xstate.done.actor.') ? 'done' : 'error';
    const children = (actor.getSnapshot() as AnyMachineSnapshot).children as Record<
      string,
      AnyActorRef | undefined
    >;
    const child = id === undefined ? undefined : children[id];
    if (!child) {
      fail(
        index,
        `${type} needs a running invoked actor "${id}", running: ${JSON.stringify(Object.keys(children))}`,
      );
    }
    const payload = outcome === 'done' ? step.event.output : step.event.error;
    if (!controlled.settle(child as AnyActorRef, outcome, payload)) {
      fail(index, `actor "${id}" is not host-controlled (inline src?) or has already settled`);
    }
    for (let turn = 0; !delivered.includes(type); turn++) {
      if (turn >= SETTLE_TURNS)
        fail(index, `actor "${id}" was settled but ${type} never reached the machine`);
      await new Promise<void>((resolve) => setImmediate(resolve));
    }
  }
}

function describeError(error: unknown): string {
  return error instanceof Error ? error.message : JSON.stringify(error);
}

/** Runs many paths of one suite and accumulates their coverage. */
export interface SuiteRun<TSnapshot extends AnyMachineSnapshot = AnyMachineSnapshot> {
  /** Runs one path (see {@link runPath}) with the shared collector. */
  run(
    path: SuitePath,
    options?: Omit<RunPathOptions<TSnapshot>, 'collector'>,
  ): Promise<PathRunResult<TSnapshot>>;
  /** Coverage collected by the runs so far. */
  collected(): CollectedCoverage;
}

/**
 * Prepares running a suite path by path, for a test file that wires each path to its own test
 * (`for (const path of suite.paths) it(path.description, () => run.run(path, { assertStep }))`)
 * and checks coverage once all ran.
 *
 * @param suite a suite generated for `machine` (checked against the machine id)
 * @throws InputError when the suite belongs to another machine
 */
export function createSuiteRun<TMachine extends AnyStateMachine>(
  machine: TMachine,
  model: MachineModel<SnapshotFrom<TMachine>>,
  suite: { readonly machine: string },
): SuiteRun<SnapshotFrom<TMachine>> {
  assertMachine(machine);
  if (suite.machine !== machine.id) {
    throw new InputError(
      'graph.suite.machine-mismatch',
      `the suite was generated for machine "${suite.machine}", not "${machine.id}"`,
      [finding('graph.suite.machine-mismatch', 0, 'regenerate the suite for this machine')],
    );
  }
  const collector = createCoverageCollector();
  return {
    run: (path, options = {}) => runPath(machine, model, path, { ...options, collector }),
    collected: () => collector.collected(),
  };
}
