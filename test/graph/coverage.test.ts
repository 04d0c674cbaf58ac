import { describe, expect, it } from 'vitest';
import { createActor, createMachine, fromPromise, waitFor } from 'xstate';
import { createCoverageCollector, transitionCoverage } from '../../src/graph/coverage.js';
import { enumerateStates } from '../../src/graph/states.js';
import { enumerateTransitions } from '../../src/graph/transitions.js';
import { repairFixtureMachine, type Verdict } from '../fixtures/repair-fixture-machine.js';

// A host whose checks report the verdicts in order: flaky first (rule R3), then pass (rule R1).
function hostedFixture(verdicts: Verdict[]) {
  const queue = [...verdicts];
  return repairFixtureMachine.provide({
    actors: {
      diagnose: fromPromise(async () => ({ hypothesis: 'h' })),
      applyPatch: fromPromise(async () => ({ files: 1 })),
      runChecks: fromPromise(async () => ({ verdict: queue.shift() ?? 'fail' })),
    },
  });
}

describe('coverage collector', () => {
  it('records always microsteps and transient states from a live actor of a provided machine', async () => {
    const collector = createCoverageCollector();
    const actor = createActor(hostedFixture(['flaky', 'pass']), {
      input: { allowance: 3 },
      inspect: collector.inspect,
    });
    actor.start();
    actor.send({ type: 'START' });
    await waitFor(actor, (s) => s.matches('review'));
    actor.stop();

    const { transitions, states } = collector.collected();
    const rule = (n: number) => `fixture.working.deciding||${n}`;
    expect(transitions.has(rule(2))).toBe(true); // R3 flaky rerun
    expect(transitions.has(rule(0))).toBe(true); // R1 pass
    expect(transitions.has(rule(1))).toBe(false);
    expect(transitions.has(rule(3))).toBe(false);
    expect(transitions.get('fixture.working.verifying|xstate.done.actor.runChecks|0')).toBe(2);
    expect(transitions.has('fixture.working|xstate.done.state.fixture.working|0')).toBe(true);
    // `deciding` and `passed` are left within the macrostep that entered them.
    expect(actor.getSnapshot().matches('review')).toBe(true);
    expect(states.has('fixture.working.deciding')).toBe(true);
    expect(states.has('fixture.working.passed')).toBe(true);
    expect(states.has('fixture.idle')).toBe(true);
    expect(states.has('fixture.escalated')).toBe(false);
  });

  it('counts only the root actor, not invoked child machines', async () => {
    const child = createMachine({
      id: 'child',
      initial: 'a',
      states: { a: { always: 'b' }, b: { type: 'final' } },
    });
    const parent = createMachine({
      id: 'parent',
      initial: 'waiting',
      states: { waiting: { invoke: { id: 'kid', src: child, onDone: 'done' } }, done: { type: 'final' } },
    });
    const collector = createCoverageCollector();
    const actor = createActor(parent, { inspect: collector.inspect }).start();
    await waitFor(actor, (s) => s.status === 'done');
    const { transitions, states } = collector.collected();
    expect([...transitions.keys()]).toEqual(['parent.waiting|xstate.done.actor.kid|0']);
    expect([...states].some((id) => id.startsWith('child'))).toBe(false);
  });
});

describe('transitionCoverage', () => {
  it('names every transition and state that was not covered, ignoring foreign keys', () => {
    const all = enumerateTransitions(repairFixtureMachine);
    const allStates = enumerateStates(repairFixtureMachine);
    const r2 = all.find((t) => t.rule?.startsWith('R2'));
    const taken = all.filter((t) => t !== r2).map((t) => t.key);
    const entered = allStates.filter((s) => s.key !== 'escalated').map((s) => s.id);
    const coverage = transitionCoverage(repairFixtureMachine, {
      transitions: [...taken, 'elsewhere|X|0'],
      states: [...entered, 'elsewhere.state'],
    });
    expect(coverage.machine).toBe('fixture');
    expect(coverage.transitions).toMatchObject({ covered: all.length - 1, total: all.length });
    expect(coverage.transitions.missing).toEqual([
      expect.objectContaining({
        key: r2?.key,
        source: 'fixture.working.deciding',
        event: 'always',
        index: 1,
      }),
    ]);
    expect(coverage.transitions.missing[0]?.rule).toBe('R2 exhausted');
    expect(coverage.states).toEqual({
      covered: allStates.length - 1,
      total: allStates.length,
      missing: ['fixture.escalated'],
    });
  });

  it('accepts hit-count maps as collected by the collector', () => {
    const key = enumerateTransitions(repairFixtureMachine)[0]?.key as string;
    const coverage = transitionCoverage(repairFixtureMachine, {
      transitions: new Map([[key, 3]]),
      states: [],
    });
    expect(coverage.transitions.covered).toBe(1);
    expect(coverage.transitions.missing.map((t) => t.key)).not.toContain(key);
  });
});
