/**
 * `eventSequenceArbitrary`: every drawn path is a run the machine accepts, checked step by step
 * against the reference walker (live actors, test/support/reference-walk.ts), and fast-check
 * shrinks a failing run to the shortest one, which for the hand-written gate is known by hand.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import { crankMachine } from '../../machines/crank.js';
import { eventSequenceArbitrary } from '../../src/graph/arbitraries.js';
import { MachineModelError } from '../../src/graph/errors.js';
import { defineMachineModel, type MachineModel } from '../../src/graph/machine-model.js';
import { crankModel } from '../../src/graph/models/crank.js';
import { pathSuiteSchema } from '../../src/graph/path-suite-schema.js';
import { runPath } from '../../src/graph/run-path.js';
import { referenceModelOf, referenceWalker } from '../support/reference-walk.js';

/** Opens after a coin, ends after the second push. */
const gate = setup({
  types: {} as { context: { pushes: number }; events: { type: 'COIN' } | { type: 'PUSH' } },
}).createMachine({
  id: 'gate',
  initial: 'locked',
  context: { pushes: 0 },
  states: {
    locked: { on: { COIN: 'unlocked', PUSH: {} } },
    unlocked: {
      on: { PUSH: { target: 'counting', actions: assign({ pushes: ({ context }) => context.pushes + 1 }) } },
    },
    counting: {
      always: [{ guard: ({ context }) => context.pushes >= 2, target: 'done' }, { target: 'locked' }],
    },
    done: { type: 'final' },
  },
});
const gateModel = defineMachineModel(gate, { events: { COIN: [{}], PUSH: [{}] } });

describe('eventSequenceArbitrary', () => {
  it.each([
    ['gate', gate, gateModel as MachineModel],
    ['crank', crankMachine, crankModel as MachineModel],
  ] as const)(
    'draws runs %s accepts: each event moves the machine as the steps say',
    (_name, machine, model) => {
      const reference = referenceWalker(machine, referenceModelOf(model));
      let checked = 0;
      fc.assert(
        fc.property(eventSequenceArbitrary(fc, machine, model, { maxLength: 8 }), (path) => {
          pathSuiteSchema.shape.paths.element.parse(path);
          const events = path.steps.map((step) => step.event);
          const replay = reference.replay(events);
          expect(replay.steps).toEqual(path.steps.map((step) => step.transitions));
          events.forEach((event, i) => {
            expect(reference.moves(events.slice(0, i)).map((move) => move.event)).toContainEqual(event);
          });
          expect(path.steps.length).toBeLessThanOrEqual(8);
          // Shorter than asked only where nothing moves any more.
          if (path.steps.length === 0) expect(reference.moves(events)).toEqual([]);
          checked++;
        }),
        { numRuns: 40 },
      );
      expect(checked).toBe(40);
    },
  );

  it('shrinks a run that reaches the end to the shortest one: coin, push, coin, push', () => {
    const result = fc.check(
      fc.property(eventSequenceArbitrary(fc, gate, gateModel, { maxLength: 30 }), (path) => {
        const last = path.steps.at(-1);
        return last === undefined || last.stateAfter.value !== 'done';
      }),
      { numRuns: 500 },
    );
    expect(result.failed).toBe(true);
    const [shrunk] = result.counterexample as [{ steps: { event: { type: string } }[] }];
    expect(shrunk.steps.map((step) => step.event.type)).toEqual(['COIN', 'PUSH', 'COIN', 'PUSH']);
  });

  it('draws paths the live runner replays on the statechart', async () => {
    const paths = fc.sample(eventSequenceArbitrary(fc, crankMachine, crankModel, { maxLength: 6 }), 10);
    for (const path of paths) await runPath(crankMachine, crankModel, path);
    expect(paths).toHaveLength(10);
  });

  it('refuses a bad model or bad lengths with a named error', () => {
    expect(() => eventSequenceArbitrary(fc, gate, { events: { KNOCK: [{}] } } as never)).toThrow(
      MachineModelError,
    );
    expect(() => eventSequenceArbitrary(fc, gate, gateModel, { minLength: 3, maxLength: 2 })).toThrow(
      'need integers 0 <= minLength <= maxLength, got 3 and 2',
    );
  });

  it('loads fast-check only through its caller: the module imports nothing but its types', () => {
    const source = readFileSync(
      join(import.meta.dirname, '..', '..', 'src', 'graph', 'arbitraries.ts'),
      'utf8',
    );
    const imports = [...source.matchAll(/^import (type )?.*from '([^']+)';$/gm)];
    expect(imports.filter((m) => m[2] === 'fast-check').map((m) => m[1])).toEqual(['type ']);
  });
});
