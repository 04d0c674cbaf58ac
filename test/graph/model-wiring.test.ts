/**
 * The wiring a machine's model-based test file uses (copy this for a new machine): generate the
 * suite, run each path as its own test against a live actor, check each step against the pure
 * core, and fail the file when coverage is below 100 %.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { transitionCoverage } from '../../src/graph/coverage.js';
import { assertFullCoverage, formatCoverageLines } from '../../src/graph/coverage-format.js';
import { generatePathSuite } from '../../src/graph/path-suite.js';
import { createSuiteRun } from '../../src/graph/run-path.js';
import { projectRepairFixture, repairFixtureMachine } from '../fixtures/repair-fixture-machine.js';
import { repairFixtureModel } from '../fixtures/repair-fixture-model.js';

const suite = generatePathSuite(repairFixtureMachine, repairFixtureModel);
const run = createSuiteRun(repairFixtureMachine, repairFixtureModel, suite);

describe(`${suite.machine}: ${suite.paths.length} generated paths`, () => {
  for (const path of suite.paths) {
    it(path.description, async () => {
      await run.run(path, {
        assertStep: (snapshot, step) => {
          // The "pure core" of the fixture is its projection; a real machine checks its rule functions.
          expect(projectRepairFixture(snapshot.context)).toEqual(step.stateAfter.projection);
          if (step.stateAfter.value === 'escalated') {
            expect(snapshot.context.attempts).toBeGreaterThanOrEqual(snapshot.context.allowance);
          }
        },
      });
    });
  }

  afterAll(() => {
    const coverage = transitionCoverage(repairFixtureMachine, run.collected());
    for (const line of formatCoverageLines(coverage)) console.log(line);
    assertFullCoverage(coverage);
  });
});
