import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { PathRunError } from '../../src/graph/errors.js';
import { generatePathSuite } from '../../src/graph/path-suite.js';
import type { PathStep, SuitePath } from '../../src/graph/path-suite-schema.js';
import { createSuiteRun, runPath } from '../../src/graph/run-path.js';
import { runPathSuite } from '../../src/graph/run-path-suite.js';
import { parallelFixtureMachine } from '../fixtures/parallel-fixture-machine.js';
import { projectRepairFixture, repairFixtureMachine } from '../fixtures/repair-fixture-machine.js';
import { repairFixtureModel } from '../fixtures/repair-fixture-model.js';

const suite = generatePathSuite(repairFixtureMachine, repairFixtureModel, { strategy: 'transition-cover' });

const pathWith = (predicate: (step: PathStep) => boolean): SuitePath => {
  const path = suite.paths.find((p) => p.steps.some(predicate));
  if (!path) throw new Error('fixture suite lacks the wanted step');
  return path;
};

async function failureOf(run: Promise<unknown>): Promise<PathRunError> {
  try {
    await run;
  } catch (error) {
    if (error instanceof PathRunError) return error;
    throw error;
  }
  throw new Error('the run did not fail');
}

describe('runPath on live actors', () => {
  it('runs every path of the suite and covers every transition and state of the machine', async () => {
    const result = await runPathSuite(repairFixtureMachine, repairFixtureModel, suite);
    expect(result.failures).toEqual([]);
    expect(result.coverage.transitions.missing).toEqual([]);
    expect(result.coverage.states.missing).toEqual([]);
  });

  it('covers machines with parallel regions, history and numeric timers as well', async () => {
    const parallelSuite = generatePathSuite(parallelFixtureMachine, {});
    const result = await runPathSuite(parallelFixtureMachine, {}, parallelSuite);
    expect(result.failures).toEqual([]);
    expect(result.coverage.transitions.missing).toEqual([]);
  });

  it('calls the assertion hook after every step with the live snapshot and the actors started', async () => {
    const path = pathWith((s) => s.event.type === 'xstate.after.escalationTimeout.fixture.escalated');
    const seen: { value: unknown; projection: unknown; step: PathStep; starts: number }[] = [];
    const result = await runPath(repairFixtureMachine, repairFixtureModel, path, {
      assertStep: (snapshot, step, { invocations }) => {
        seen.push({
          value: snapshot.value,
          projection: projectRepairFixture(snapshot.context),
          step,
          starts: invocations.length,
        });
      },
    });
    expect(seen.map((s) => s.step)).toEqual(path.steps);
    for (const s of seen) {
      expect(s.value).toEqual(s.step.stateAfter.value);
      expect(s.projection).toEqual(s.step.stateAfter.projection);
    }
    expect(result.snapshot.value).toBe('failed');
    // Each diagnosis gets the attempt number the machine computed from its context.
    const diagnoses = result.invocations.filter((i) => i.src === 'diagnose').map((i) => i.input);
    expect(diagnoses).toEqual(diagnoses.map((_, index) => ({ attempt: index + 1 })));
    expect(diagnoses.length).toBeGreaterThan(0);
  });

  it('fails the path when the hook fails', async () => {
    const path = suite.paths[0] as SuitePath;
    await expect(
      runPath(repairFixtureMachine, repairFixtureModel, path, {
        assertStep: () => {
          throw new Error('protocol core disagrees');
        },
      }),
    ).rejects.toThrow('protocol core disagrees');
  });

  it('names the path and step when the live state is not the expected one', async () => {
    const path = structuredClone(suite.paths[0] as SuitePath);
    const last = path.steps.length - 1;
    (path.steps[last] as PathStep).stateAfter.value = 'somewhere-else';
    const error = await failureOf(runPath(repairFixtureMachine, repairFixtureModel, path));
    expect(error.pathId).toBe(path.id);
    expect(error.stepIndex).toBe(last);
    expect(error.message).toMatch(/somewhere-else/);
  });

  it('detects a host whose guards disagree with the machine the suite was generated from', async () => {
    const path = pathWith((s) => s.transitions.includes('fixture.working.deciding||2'));
    const stricter = repairFixtureMachine.provide({ guards: { checksFlaky: () => false } });
    const error = await failureOf(runPath(stricter, repairFixtureModel, path));
    expect(error.message).toMatch(/expected .*live actor is in/);
  });

  it('fails clearly when the step settles an actor that is not running', async () => {
    const path = structuredClone(pathWith((s) => s.event.type === 'xstate.done.actor.diagnose'));
    const index = path.steps.findIndex((s) => s.event.type === 'xstate.done.actor.diagnose');
    (path.steps[index] as PathStep).event = {
      type: 'xstate.done.actor.runChecks',
      output: { verdict: 'pass' },
    };
    const error = await failureOf(runPath(repairFixtureMachine, repairFixtureModel, path));
    expect(error.stepIndex).toBe(index);
    expect(error.message).toMatch(/needs a running invoked actor "runChecks", running: \["diagnose"\]/);
  });

  it('fails clearly when no timer delivers a delayed event', async () => {
    const path = structuredClone(suite.paths[0] as SuitePath);
    (path.steps[0] as PathStep).delivery = 'timer';
    const error = await failureOf(runPath(repairFixtureMachine, repairFixtureModel, path));
    expect(error.stepIndex).toBe(0);
    expect(error.message).toMatch(/no pending timer delivered/);
  });

  it('refuses a suite generated for another machine', () => {
    expect(() => createSuiteRun(parallelFixtureMachine, {}, suite)).toThrow(InputError);
  });

  it('accumulates coverage across the paths run through one suite run', async () => {
    const run = createSuiteRun(repairFixtureMachine, repairFixtureModel, suite);
    const [first, second] = suite.paths as [SuitePath, SuitePath];
    await run.run(first);
    const afterFirst = run.collected().transitions.size;
    await run.run(second);
    expect(run.collected().transitions.size).toBeGreaterThan(afterFirst);
  });
});
