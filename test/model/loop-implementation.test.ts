/**
 * Model-based tests of the loop engine statechart: every generated path runs as its own test
 * against a live actor, and every step is checked against independent oracles (test/oracles/):
 * a reference of the ordered table written from the protocol, a reference of return validation,
 * and hand-written expectations of each effect's input (reserved ledger, commit subject, ledger
 * edit and body), of each human stop (text and menu) and of each end. The file fails unless every
 * transition was covered AND taken by a step that made at least one such assertion.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { loopImplementationMachine } from '../../machines/loop-implementation/index.js';
import { createAssertionTally } from '../../src/graph/assertion-tally.js';
import { transitionCoverage } from '../../src/graph/coverage.js';
import { loopImplementationModel } from '../../src/graph/models/loop-implementation.js';
import { generatePathSuite } from '../../src/graph/path-suite.js';
import { createSuiteRun } from '../../src/graph/run-path.js';
import { enumerateTransitions } from '../../src/graph/transitions.js';
import { oracleOf, reportAndRequireFull } from '../oracles/harness.js';
import { checkLoopStep } from '../oracles/loop-implementation.js';

const machine = loopImplementationMachine;
const suite = generatePathSuite(machine, loopImplementationModel);
const run = createSuiteRun(machine, loopImplementationModel, suite);
const definitions = new Map(enumerateTransitions(machine).map((t) => [t.key, t]));
const tally = createAssertionTally(machine);
const oracle = oracleOf(tally);

describe(`loop-implementation: ${suite.paths.length} generated paths`, () => {
  it('the suite covers every transition and state of the definition', () => {
    expect(suite.summary.uncoveredTransitions).toEqual([]);
    expect(suite.summary.uncoveredStates).toEqual([]);
    // The machine starts without an eventless transition, so every transition is taken in a step.
    expect(suite.initial.transitions).toEqual([]);
  });

  for (const path of suite.paths) {
    it(path.description, async () => {
      let previous = 0;
      await run.run(path, {
        assertStep: (snapshot, step, context) => {
          checkLoopStep(oracle, snapshot as never, step, context, previous, definitions);
          previous = context.invocations.length;
        },
      });
    });
  }

  afterAll(() => {
    reportAndRequireFull(
      machine,
      transitionCoverage(machine, run.collected()),
      tally,
      run.collected().transitions,
    );
  });
});
