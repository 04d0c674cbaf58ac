import { describe, expect, it } from 'vitest';
import { createMachine } from 'xstate';
import {
  AssertionGapError,
  assertEveryTransitionAsserted,
  createAssertionTally,
  formatAssertedLine,
} from '../../src/graph/assertion-tally.js';

// Three transitions by hand: a --GO--> b, b --always[ok]--> c, b --always--> a.
const machine = createMachine({
  id: 'tiny',
  initial: 'a',
  states: {
    a: { on: { GO: 'b' } },
    b: { always: [{ guard: () => true, target: 'c' }, { target: 'a' }] },
    c: { type: 'final' },
  },
});

describe('createAssertionTally', () => {
  it('counts a transition only when a step taking it recorded an assertion', () => {
    const tally = createAssertionTally(machine);
    expect(tally.result()).toMatchObject({ machine: 'tiny', asserted: 0, total: 3 });
    tally.record({ transitions: ['tiny.a|GO|0', 'tiny.b||0'] }, 'state after');
    tally.record({ transitions: ['tiny.a|GO|0'] }, 'state after');
    const result = tally.result();
    expect(result.asserted).toBe(2);
    expect(result.missing.map((t) => t.key)).toEqual(['tiny.b||1']);
    expect(result.checks).toEqual({ 'state after': 2 });
    expect(formatAssertedLine(result)).toBe('tiny: transitions asserted 2/3');
  });

  it('fails below 100 % naming each transition no asserting step took', () => {
    const tally = createAssertionTally(machine);
    tally.record({ transitions: ['tiny.a|GO|0', 'tiny.b||0'] }, 'x');
    expect(() => assertEveryTransitionAsserted(tally.result())).toThrow(AssertionGapError);
    expect(() => assertEveryTransitionAsserted(tally.result())).toThrow(/tiny\.b\|\|1/);
    tally.recordInitial(['tiny.b||1'], 'initial state');
    expect(() => assertEveryTransitionAsserted(tally.result())).not.toThrow();
  });

  it('ignores keys of another machine', () => {
    const tally = createAssertionTally(machine);
    tally.record({ transitions: ['other.a|GO|0'] }, 'x');
    expect(tally.result().asserted).toBe(0);
  });
});
