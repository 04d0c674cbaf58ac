import { describe, expect, it } from 'vitest';
import { generatePathSuite } from '../../src/graph/path-suite.js';
import { runPathSuite } from '../../src/graph/run-path-suite.js';
import { enumerateStates } from '../../src/graph/states.js';
import { enumerateTransitions } from '../../src/graph/transitions.js';
import { createWideLoopMachine, wideLoopModel } from '../fixtures/wide-loop-machine.js';

// A machine of the loop engine's size: about 100 state nodes and over 200 transitions.
const PHASES = 24;
const machine = createWideLoopMachine(PHASES);
const model = wideLoopModel(machine, PHASES);

describe('a loop-engine-sized machine', () => {
  it('has the intended size', () => {
    expect(enumerateStates(machine).length).toBeGreaterThanOrEqual(90);
    expect(enumerateTransitions(machine).length).toBeGreaterThanOrEqual(200);
  });

  it('gets a transition-covering suite that passes on live actors with full coverage', async () => {
    const suite = generatePathSuite(machine, model);
    expect(suite.summary.uncoveredTransitions).toEqual([]);
    expect(suite.summary.uncoveredStates).toEqual([]);
    const result = await runPathSuite(machine, model, suite);
    expect(result.failures).toEqual([]);
    expect(result.coverage.transitions.covered).toBe(result.coverage.transitions.total);
  });
});
