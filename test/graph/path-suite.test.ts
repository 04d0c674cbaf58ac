import { describe, expect, it } from 'vitest';
import { assign, setup } from 'xstate';
import { z } from 'zod';
import { transitionCoverage } from '../../src/graph/coverage.js';
import { MachineModelError, PathGenerationError } from '../../src/graph/errors.js';
import { defineMachineModel } from '../../src/graph/machine-model.js';
import { generatePathSuite } from '../../src/graph/path-suite.js';
import { type PathSuite, pathSuiteSchema } from '../../src/graph/path-suite-schema.js';
import { enumerateTransitions } from '../../src/graph/transitions.js';
import { parallelFixtureMachine } from '../fixtures/parallel-fixture-machine.js';
import { repairFixtureMachine } from '../fixtures/repair-fixture-machine.js';
import { repairFixtureModel } from '../fixtures/repair-fixture-model.js';

const shortest = generatePathSuite(repairFixtureMachine, repairFixtureModel, { strategy: 'shortest' });
const cover = generatePathSuite(repairFixtureMachine, repairFixtureModel, { strategy: 'transition-cover' });

const findingCodes = (error: unknown) => (error as MachineModelError).findings.map((f) => f.code);

function coverageOfSuite(suite: PathSuite) {
  return transitionCoverage(repairFixtureMachine, {
    transitions: [
      ...suite.initial.transitions,
      ...suite.paths.flatMap((p) => p.steps.flatMap((s) => s.transitions)),
    ],
    states: [],
  });
}

describe('generatePathSuite', () => {
  for (const suite of [shortest, cover]) {
    describe(`strategy ${suite.strategy}`, () => {
      it('is a plain JSON value that the published schema accepts', () => {
        expect(pathSuiteSchema.parse(suite)).toEqual(suite);
        expect(JSON.parse(JSON.stringify(suite))).toEqual(suite);
      });

      it('takes every transition of the machine and enters every state', () => {
        expect(coverageOfSuite(suite).transitions.missing).toEqual([]);
        expect(suite.summary).toMatchObject({
          transitionsCovered: enumerateTransitions(repairFixtureMachine).length,
          transitionsTotal: enumerateTransitions(repairFixtureMachine).length,
          uncoveredTransitions: [],
          uncoveredStates: [],
        });
        expect(suite.summary.statesCovered).toBe(suite.summary.statesTotal);
      });

      it('chains steps: each path starts in the initial state and each step starts where the last ended', () => {
        for (const path of suite.paths) {
          expect(path.steps[0]?.stateBefore).toEqual(suite.initial.state);
          path.steps.slice(1).forEach((step, i) => {
            expect(step.stateBefore).toEqual(path.steps[i]?.stateAfter);
          });
        }
      });

      it('summarizes what it contains and gives every path its own id', () => {
        expect(suite.summary.paths).toBe(suite.paths.length);
        expect(suite.summary.steps).toBe(suite.paths.reduce((n, p) => n + p.steps.length, 0));
        expect(new Set(suite.paths.map((p) => p.id)).size).toBe(suite.paths.length);
      });
    });
  }

  it('says how each event reaches the machine: settled actors, simulated time, sent events', () => {
    const steps = shortest.paths.flatMap((p) => p.steps);
    const deliveryOf = (prefix: string) =>
      new Set(steps.filter((s) => s.event.type.startsWith(prefix)).map((s) => s.delivery));
    expect(deliveryOf('xstate.done.actor.')).toEqual(new Set(['settle']));
    expect(deliveryOf('xstate.error.actor.')).toEqual(new Set(['settle']));
    expect(deliveryOf('xstate.after.')).toEqual(new Set(['timer']));
    expect(deliveryOf('DECIDE')).toEqual(new Set(['send']));
    const verdicts = steps
      .filter((s) => s.event.type === 'xstate.done.actor.runChecks')
      .map((s) => s.event.output);
    expect(new Set(verdicts.map((o) => JSON.stringify(o)))).toEqual(
      new Set(['pass', 'fail', 'flaky'].map((verdict) => JSON.stringify({ verdict }))),
    );
  });

  it('records the always microsteps a step takes, in order', () => {
    const flakyThenRerun = shortest.paths
      .flatMap((p) => p.steps)
      .find(
        (s) =>
          s.event.type === 'xstate.done.actor.runChecks' &&
          (s.event.output as { verdict?: string }).verdict === 'flaky' &&
          !(s.stateBefore.projection as { rerunUsed?: boolean }).rerunUsed,
      );
    expect(flakyThenRerun?.transitions).toEqual([
      'fixture.working.verifying|xstate.done.actor.runChecks|0',
      'fixture.working.deciding||2',
    ]);
  });

  it('keeps fewer paths for transition-cover than for shortest, with the same coverage', () => {
    expect(cover.paths.length).toBeLessThan(shortest.paths.length);
    expect(coverageOfSuite(cover).transitions.covered).toBe(coverageOfSuite(shortest).transitions.covered);
  });

  it('names the transitions a model cannot reach (no flaky verdict: no rule R3)', () => {
    const events = { ...repairFixtureModel.events };
    events['xstate.done.actor.runChecks'] = [
      { output: { verdict: 'pass' } },
      { output: { verdict: 'fail' } },
    ];
    const suite = generatePathSuite(repairFixtureMachine, { ...repairFixtureModel, events });
    expect(suite.summary.uncoveredTransitions).toEqual(['fixture.working.deciding||2']);
    expect(suite.summary.transitionsCovered).toBe(suite.summary.transitionsTotal - 1);
  });

  it('is deterministic', () => {
    expect(generatePathSuite(repairFixtureMachine, repairFixtureModel, { strategy: 'shortest' })).toEqual(
      shortest,
    );
    expect(generatePathSuite(repairFixtureMachine, repairFixtureModel)).toEqual(cover);
  });

  it('handles parallel regions, history targets, machine-level transitions and numeric delays', () => {
    const suite = generatePathSuite(parallelFixtureMachine, {});
    expect(suite.summary.uncoveredTransitions).toEqual([]);
    expect(suite.summary.uncoveredStates).toEqual([]);
  });

  it('emits a JSON Schema for the suite format', () => {
    const schema = z.toJSONSchema(pathSuiteSchema) as { properties: Record<string, unknown> };
    expect(Object.keys(schema.properties)).toEqual([
      'machine',
      'strategy',
      'walk',
      'initial',
      'paths',
      'summary',
    ]);
  });
});

describe('generatePathSuite with a bad model', () => {
  it('names event types that no state handles', () => {
    const model = {
      ...repairFixtureModel,
      events: { ...repairFixtureModel.events, DECIED: [{ choice: 'x' }] },
    };
    expect(() => generatePathSuite(repairFixtureMachine, model)).toThrow(MachineModelError);
    try {
      generatePathSuite(repairFixtureMachine, model);
    } catch (error) {
      expect(findingCodes(error)).toEqual(['graph.model.event.unknown']);
      expect(String(error)).toContain('DECIED');
    }
  });

  it('refuses payloads that do not survive JSON and cases for machine-produced events', () => {
    const model = defineMachineModel(repairFixtureMachine, {
      input: { allowance: 2 },
      events: {
        'xstate.error.actor.diagnose': [{ error: new Error('boom') as never }],
        'xstate.after.escalationTimeout.fixture.escalated': [{}],
        DECIDE: [{ type: 'OTHER' as never }],
      },
    });
    try {
      generatePathSuite(repairFixtureMachine, model);
      expect.unreachable();
    } catch (error) {
      expect(findingCodes(error).sort()).toEqual(
        [
          'graph.model.event.machine-produced',
          'graph.model.payload.not-json',
          'graph.model.payload.type',
        ].sort(),
      );
    }
  });

  it('stops an unbounded exploration at maxStates with advice, and stopWhen bounds it', () => {
    const counter = setup({ types: { context: {} as { n: number } } }).createMachine({
      id: 'counter',
      context: { n: 0 },
      initial: 'counting',
      states: {
        counting: { on: { INC: { actions: assign({ n: ({ context }) => context.n + 1 }) } } },
      },
    });
    expect(() => generatePathSuite(counter, { maxStates: 50 })).toThrow(PathGenerationError);
    expect(() => generatePathSuite(counter, { maxStates: 50 })).toThrow(/more than 50 model states/);
    const bounded = generatePathSuite(counter, { maxStates: 50, stopWhen: (s) => s.context.n >= 5 });
    expect(bounded.paths).toHaveLength(1);
    expect(bounded.paths[0]?.steps.map((s) => s.stateAfter.projection)).toEqual(
      [1, 2, 3, 4, 5].map((n) => ({ n })),
    );
  });

  it('refuses a projection that is not plain JSON', () => {
    const model = { ...repairFixtureModel, project: () => ({ when: new Date(0) }) as never };
    expect(() => generatePathSuite(repairFixtureMachine, model)).toThrow(
      /project\(\) returned something that is not plain JSON in state idle/,
    );
  });

  it('reports a step that throws, naming the event and the state', () => {
    const model = { ...repairFixtureModel, events: { ...repairFixtureModel.events } };
    delete (model.events as Record<string, unknown>)['xstate.done.actor.runChecks'];
    expect(() => generatePathSuite(repairFixtureMachine, model)).toThrow(
      /event xstate\.done\.actor\.runChecks threw in state working\.verifying \(the model gives no payload cases/,
    );
  });

  it('reports an initial state that fails for lack of input', () => {
    const { input: _input, ...withoutInput } = repairFixtureModel;
    const error = (() => {
      try {
        generatePathSuite(repairFixtureMachine, withoutInput);
      } catch (caught) {
        return caught;
      }
    })();
    expect(error).toBeInstanceOf(PathGenerationError);
    expect(String(error)).toMatch(/initial state failed/);
  });
});
