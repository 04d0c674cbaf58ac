import { describe, expect, it } from 'vitest';
import { enumerateStates } from '../../src/graph/states.js';
import { enumerateTransitions } from '../../src/graph/transitions.js';
import { type MachineJsonState, machineToJson } from '../../src/viz/machine-json.js';
import { parallelFixtureMachine } from '../fixtures/parallel-fixture-machine.js';
import { repairFixtureMachine } from '../fixtures/repair-fixture-machine.js';

const flatten = (states: readonly MachineJsonState[]): MachineJsonState[] =>
  states.flatMap((state) => [state, ...flatten(state.states)]);

describe('machineToJson', () => {
  for (const machine of [repairFixtureMachine, parallelFixtureMachine]) {
    it(`describes ${machine.id} as plain JSON: the states tree and every transition`, () => {
      const json = machineToJson(machine);
      expect(JSON.parse(JSON.stringify(json))).toEqual(json);
      expect(json.id).toBe(machine.id);
      expect(flatten(json.states).map((s) => s.id)).toEqual(enumerateStates(machine).map((s) => s.id));
      expect(json.transitions).toEqual(enumerateTransitions(machine));
    });
  }

  it('nests children under their parent and names initial states and invokes', () => {
    const json = machineToJson(repairFixtureMachine);
    expect(json.initial).toBe('fixture.idle');
    const working = json.states.find((s) => s.key === 'working');
    expect(working?.initial).toBe('fixture.working.diagnosing');
    expect(working?.states.map((s) => s.key)).toEqual([
      'diagnosing',
      'patching',
      'verifying',
      'deciding',
      'passed',
    ]);
    expect(working?.states[2]?.invokes).toEqual([{ id: 'runChecks', src: 'runChecks' }]);
    expect(json.states.find((s) => s.key === 'review')?.description).toMatch(/human/);
  });
});
