/**
 * The `transition-pair` and `random-walk` strategies, checked against an independent walk of the
 * definition (test/support/reference-walk.ts: live actors, inspection, its own breadth-first
 * search), on two small hand-written machines and on the real crank machine (pairs and walks), rpi
 * and the cybernetic loop (pairs). For the smallest machine the expected pairs are also listed by
 * hand.
 */
import { describe, expect, it } from 'vitest';
import { type AnyStateMachine, assign, fromPromise, setup } from 'xstate';
import { crankMachine } from '../../machines/crank.js';
import { cyberneticLoopMachine } from '../../machines/cybernetic-loop.js';
import { rpiMachine } from '../../machines/rpi/index.js';
import { PathGenerationError } from '../../src/graph/errors.js';
import { defineMachineModel, type MachineModel } from '../../src/graph/machine-model.js';
import { crankModel } from '../../src/graph/models/crank.js';
import { cyberneticLoopModel } from '../../src/graph/models/cybernetic-loop.js';
import { rpiModel } from '../../src/graph/models/rpi.js';
import { generatePathSuite } from '../../src/graph/path-suite.js';
import { type PathSuite, pathSuiteSchema } from '../../src/graph/path-suite-schema.js';
import { createSuiteRun } from '../../src/graph/run-path.js';
import { referenceModelOf, referenceWalker } from '../support/reference-walk.js';

/** A turnstile that ends after two pushes; its `counting` state is a two-rule table. */
const gate = setup({
  types: {} as {
    context: { coins: number; pushes: number };
    events: { type: 'COIN' } | { type: 'PUSH' };
  },
  guards: { pushedTwice: ({ context }) => context.pushes >= 2 },
}).createMachine({
  id: 'gate',
  initial: 'locked',
  context: { coins: 0, pushes: 0 },
  states: {
    locked: {
      on: {
        COIN: { target: 'unlocked', actions: assign({ coins: 1 }) },
        PUSH: {}, // refused push: a targetless transition
      },
    },
    unlocked: {
      on: {
        PUSH: {
          target: 'counting',
          actions: assign({ coins: 0, pushes: ({ context }) => context.pushes + 1 }),
        },
        COIN: {}, // a second coin is swallowed
      },
    },
    counting: {
      always: [{ guard: 'pushedTwice', target: 'done' }, { target: 'locked' }],
    },
    done: { type: 'final' },
  },
});
const gateModel = defineMachineModel(gate, { events: { COIN: [{}], PUSH: [{}] } });

/** The gate's pairs, listed by hand from the chart above (t1..t6 in the comments). */
const GATE_PAIRS = (() => {
  const t1 = 'gate.locked|COIN|0';
  const t2 = 'gate.locked|PUSH|0';
  const t3 = 'gate.unlocked|PUSH|0';
  const t4 = 'gate.unlocked|COIN|0';
  const t5 = 'gate.counting||0';
  const t6 = 'gate.counting||1';
  return [
    [t2, t2], // refused push, again
    [t2, t1], // refused push, then a coin
    [t6, t2], // back to locked, then a refused push
    [t6, t1], // back to locked, then a coin
    [t1, t4], // coin, swallowed coin
    [t1, t3], // coin, push
    [t4, t4],
    [t4, t3],
    [t3, t6], // first push: the table's second rule, in the same step
    [t3, t5], // second push: the table's first rule
  ].map(([from, to]) => `${from}\n${to}`);
})();

/** A loader with an invoked actor, a retry table and a parallel state whose regions both end. */
const loader = setup({
  types: {} as { context: { tries: number } },
  actors: { load: fromPromise(async (): Promise<{ ok: boolean }> => ({ ok: true })) },
}).createMachine({
  id: 'loader',
  initial: 'idle',
  context: { tries: 0 },
  states: {
    idle: { on: { GO: 'loading' } },
    loading: {
      entry: assign({ tries: ({ context }) => context.tries + 1 }),
      invoke: {
        id: 'load',
        src: 'load',
        onDone: [{ guard: ({ event }) => event.output.ok, target: 'ready' }, { target: 'retrying' }],
        onError: 'retrying',
      },
    },
    retrying: {
      always: [{ guard: ({ context }) => context.tries < 2, target: 'loading' }, { target: 'failed' }],
    },
    ready: {
      type: 'parallel',
      states: {
        left: { initial: 'x', states: { x: { on: { NEXT: 'y' } }, y: { type: 'final' } } },
        right: { initial: 'p', states: { p: { on: { NEXT: 'q', SKIP: 'q' } }, q: { type: 'final' } } },
      },
      onDone: 'done',
    },
    done: { type: 'final' },
    failed: { type: 'final' },
  },
});
const loaderModel = defineMachineModel(loader, {
  events: {
    GO: [{}],
    NEXT: [{}],
    SKIP: [{}],
    'xstate.done.actor.load': [{ output: { ok: true } }, { output: { ok: false } }],
    'xstate.error.actor.load': [{ error: { message: 'offline' } }],
  },
});

const machinesUnderTest: [string, AnyStateMachine, MachineModel][] = [
  ['gate (hand-written)', gate, gateModel as MachineModel],
  ['loader (hand-written)', loader, loaderModel as MachineModel],
  ['crank (real)', crankMachine, crankModel as MachineModel],
];

/** Every pair a suite reports: covered (taken by its paths) and uncovered. */
function pairsTakenBy(suite: PathSuite): Set<string> {
  const pairs = new Set<string>();
  for (const path of suite.paths) {
    const sequence = [...suite.initial.transitions, ...path.steps.flatMap((step) => step.transitions)];
    for (let i = 1; i < sequence.length; i++) pairs.add(`${sequence[i - 1]}\n${sequence[i]}`);
  }
  return pairs;
}

describe('transition-pair', () => {
  it('finds exactly the pairs listed by hand on the gate', () => {
    const suite = generatePathSuite(gate, gateModel, { strategy: 'transition-pair' });
    expect([...pairsTakenBy(suite)].sort()).toEqual([...GATE_PAIRS].sort());
    expect(suite.summary).toMatchObject({
      transitionPairsCovered: GATE_PAIRS.length,
      transitionPairsTotal: GATE_PAIRS.length,
      uncoveredTransitionPairs: [],
    });
    const reference = referenceWalker(gate, referenceModelOf(gateModel));
    expect([...reference.reachable().pairs].sort()).toEqual([...GATE_PAIRS].sort());
  });

  describe.each(machinesUnderTest)('%s', (_name, machine, model) => {
    const suite = pathSuiteSchema.parse(generatePathSuite(machine, model, { strategy: 'transition-pair' }));
    const reference = referenceWalker(machine, referenceModelOf(model));
    const expected = reference.reachable();

    it('reports as reachable exactly the pairs the reference walk reaches', () => {
      const reported = new Set([
        ...pairsTakenBy(suite),
        ...(suite.summary.uncoveredTransitionPairs ?? []).map(([from, to]) => `${from}\n${to}`),
      ]);
      expect([...reported].sort()).toEqual([...expected.pairs].sort());
      expect(suite.summary.transitionPairsTotal).toBe(expected.pairs.size);
      expect(expected.pairs.size).toBeGreaterThan(0);
    });

    it('takes every reachable pair, as the paths replayed live by the reference show', () => {
      const replayed = new Set<string>();
      for (const path of suite.paths)
        for (const pair of reference.pairsOf(path.steps.map((step) => step.event))) replayed.add(pair);
      expect([...replayed].sort()).toEqual([...expected.pairs].sort());
      expect(suite.summary.transitionPairsCovered).toBe(expected.pairs.size);
      expect(suite.summary.uncoveredTransitionPairs).toEqual([]);
    });

    it('still takes every transition the reference reaches, and the paths run on a live actor', async () => {
      const taken = new Set(suite.paths.flatMap((path) => path.steps.flatMap((step) => step.transitions)));
      for (const key of suite.initial.transitions) taken.add(key);
      expect([...taken].sort()).toEqual([...expected.transitions].sort());
      const run = createSuiteRun(machine, model, suite);
      for (const path of suite.paths) await run.run(path);
    });

    it('keeps fewer paths than one per pair', () => {
      expect(suite.paths.length).toBeLessThan(expected.pairs.size);
    });
  });
});

describe.each([
  ['rpi', rpiMachine, rpiModel as MachineModel],
  ['cybernetic-loop', cyberneticLoopMachine, cyberneticLoopModel as MachineModel],
])('transition-pair on %s (real): the pairs of the reference walk, all taken', (_name, machine, model) => {
  it('reports and takes exactly the reachable pairs', () => {
    const suite = generatePathSuite(machine, model, { strategy: 'transition-pair' });
    const expected = [...referenceWalker(machine, referenceModelOf(model)).reachable(20_000).pairs].sort();
    expect(expected.length).toBeGreaterThan(0);
    expect([...pairsTakenBy(suite)].sort()).toEqual(expected);
    expect(suite.summary.transitionPairsTotal).toBe(expected.length);
    expect(suite.summary.uncoveredTransitionPairs).toEqual([]);
  });
});

describe('random-walk', () => {
  describe.each(machinesUnderTest)('%s', (_name, machine, model) => {
    const reference = referenceWalker(machine, referenceModelOf(model));

    it('is the same suite for the same seed, and records seed and length', () => {
      const a = generatePathSuite(machine, model, { strategy: 'random-walk', seed: 7, length: 40 });
      const b = generatePathSuite(machine, model, { strategy: 'random-walk', seed: 7, length: 40 });
      expect(JSON.stringify(a)).toBe(JSON.stringify(b));
      expect(a.walk).toEqual({ seed: 7, length: 40 });
      expect(pathSuiteSchema.parse(a)).toEqual(a);
    });

    it('walks exactly length steps, each one a move the reference finds enabled there', () => {
      const suite = generatePathSuite(machine, model, { strategy: 'random-walk', seed: 11, length: 60 });
      expect(suite.summary.steps).toBe(60);
      suite.paths.forEach((path, index) => {
        const events = path.steps.map((step) => step.event);
        const replay = reference.replay(events);
        path.steps.forEach((step, i) => {
          // The step's event took the transitions the suite says, on a live actor.
          expect(replay.steps[i]).toEqual(step.transitions);
          const enabled = reference.moves(events.slice(0, i)).map((move) => move.event);
          expect(enabled).toContainEqual(step.event);
        });
        // A walk stops early only where nothing moves the machine (the budget ends the last one).
        if (index < suite.paths.length - 1) expect(reference.moves(events)).toEqual([]);
      });
      expect(new Set(suite.paths.map((path) => path.id)).size).toBe(suite.paths.length);
    });

    it('differs between seeds', () => {
      const seeds = [1, 2, 3, 4].map((seed) =>
        JSON.stringify(
          generatePathSuite(machine, model, { strategy: 'random-walk', seed, length: 30 }).paths.map((p) =>
            p.steps.map((s) => s.event),
          ),
        ),
      );
      expect(new Set(seeds).size).toBeGreaterThan(1);
    });
  });

  it('eventually takes every transition of the gate on a long walk', () => {
    const suite = generatePathSuite(gate, gateModel, { strategy: 'random-walk', seed: 3, length: 200 });
    expect(suite.summary.uncoveredTransitions).toEqual([]);
  });

  it.each([
    [{ strategy: 'random-walk', seed: -1 }, 'the seed must be an integer 0..4294967295, got -1'],
    [{ strategy: 'random-walk', seed: 1.5 }, 'the seed must be an integer'],
    [{ strategy: 'random-walk', length: 0 }, 'the walk length must be an integer 1..1000000, got 0'],
    [{ strategy: 'transition-cover', seed: 3 }, 'seed and length apply to the random-walk strategy only'],
    [{ strategy: 'zigzag' }, 'unknown strategy "zigzag"'],
  ])('refuses %j with a named error', (options, message) => {
    expect(() => generatePathSuite(gate, gateModel, options as never)).toThrow(PathGenerationError);
    expect(() => generatePathSuite(gate, gateModel, options as never)).toThrow(message);
  });
});
