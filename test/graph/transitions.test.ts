import { describe, expect, it } from 'vitest';
import { fromPromise } from 'xstate';
import { MachineShapeError } from '../../src/graph/errors.js';
import { guardLabel, shortEventLabel } from '../../src/graph/labels.js';
import { enumerateStates } from '../../src/graph/states.js';
import { enumerateTransitions, transitionKeyOf } from '../../src/graph/transitions.js';
import { countWrittenTransitions, writtenStates } from '../fixtures/config-oracle.js';
import { parallelFixtureMachine } from '../fixtures/parallel-fixture-machine.js';
import { repairFixtureMachine } from '../fixtures/repair-fixture-machine.js';

describe('enumerateTransitions', () => {
  for (const machine of [repairFixtureMachine, parallelFixtureMachine]) {
    it(`lists every transition the author wrote in ${machine.id}, with unique keys`, () => {
      const transitions = enumerateTransitions(machine);
      expect(transitions).toHaveLength(countWrittenTransitions(machine));
      expect(new Set(transitions.map((t) => t.key)).size).toBe(transitions.length);
      for (const t of transitions) expect(t.key).toBe(`${t.source}|${t.eventType}|${t.index}`);
    });
  }

  it('keeps the rule table in order with its rule labels and eventless kind', () => {
    const rules = enumerateTransitions(repairFixtureMachine).filter(
      (t) => t.source === 'fixture.working.deciding',
    );
    expect(rules.map((t) => [t.kind, t.index, t.rule?.split(' ')[0]])).toEqual([
      ['always', 0, 'R1'],
      ['always', 1, 'R2'],
      ['always', 2, 'R3'],
      ['always', 3, 'R4'],
    ]);
    expect(rules.every((t) => t.event === 'always' && t.eventType === '')).toBe(true);
  });

  it('counts guarded alternatives separately and a targetless one as a self edge', () => {
    const decide = enumerateTransitions(repairFixtureMachine).filter((t) => t.eventType === 'DECIDE');
    expect(decide.map((t) => t.index)).toEqual([0, 1, 2]);
    expect(decide[0]?.guard).toBe('choiceIs(choice=approve)');
    expect(decide[2]).toMatchObject({ targetless: true, targets: ['fixture.review'] });
    expect(decide[2]?.guard).toBeUndefined();
  });

  it('classifies actor outcomes, delays and state completion, and names the actor', () => {
    const byEvent = new Map(enumerateTransitions(repairFixtureMachine).map((t) => [t.eventType, t]));
    expect(byEvent.get('xstate.done.actor.runChecks')).toMatchObject({
      kind: 'done.actor',
      actor: 'runChecks',
      event: 'done: runChecks',
    });
    expect(byEvent.get('xstate.error.actor.diagnose')).toMatchObject({
      kind: 'error.actor',
      event: 'error: diagnose',
    });
    expect(byEvent.get('xstate.after.escalationTimeout.fixture.escalated')).toMatchObject({
      kind: 'after',
      delay: 'escalationTimeout',
      targets: ['fixture.failed'],
    });
    expect(byEvent.get('xstate.done.state.fixture.working')).toMatchObject({
      kind: 'done.state',
      event: 'onDone',
    });
    expect([...byEvent.keys()]).not.toContain('xstate.init');
  });

  it('renders guard combinators, state checks and parameters', () => {
    const labels = enumerateTransitions(repairFixtureMachine).map((t) => t.guard);
    expect(labels).toContain('not(stateIn(#fixture.working.patching))');
    expect(labels).toContain('and(checksFlaky, not(rerunUsed))');
    expect(labels).toContain('belowCap(cap=4)');
    expect(enumerateTransitions(parallelFixtureMachine).find((t) => t.eventType === 'BUILT')?.guard).toBe(
      'inline',
    );
  });

  it('keys taken transitions the same way for a provided machine (new state node objects)', () => {
    const provided = repairFixtureMachine.provide({
      actors: { diagnose: fromPromise(async () => ({ hypothesis: 'x' })) },
    });
    const node = provided.getStateNodeById('fixture.working.deciding');
    const r3 = node.always?.[2];
    expect(r3).toBeDefined();
    expect(r3).not.toBe(repairFixtureMachine.getStateNodeById('fixture.working.deciding').always?.[2]);
    expect(transitionKeyOf(r3 as never)).toBe('fixture.working.deciding||2');
    expect(enumerateTransitions(provided)).toEqual(enumerateTransitions(repairFixtureMachine));
  });

  it('refuses something that is not a machine with a named error', () => {
    expect(() => enumerateTransitions({} as never)).toThrow(MachineShapeError);
    expect(() => enumerateTransitions(null as never)).toThrow(
      /expected an XState v5 state machine, got null/,
    );
  });
});

describe('enumerateStates', () => {
  for (const machine of [repairFixtureMachine, parallelFixtureMachine]) {
    it(`lists every state the author wrote in ${machine.id}, in document order`, () => {
      const states = enumerateStates(machine);
      expect(states.map((s) => s.path.join('.'))).toEqual(writtenStates(machine).map((s) => s.path));
    });
  }

  it('marks history nodes as not enterable and names initial children and invokes', () => {
    const states = new Map(enumerateStates(parallelFixtureMachine).map((s) => [s.id, s]));
    expect(states.get('par.running.build.hist')).toMatchObject({ type: 'history', enterable: false });
    expect(states.get('par.running.build')?.initial).toBe('par.running.build.compiling');
    const diagnosing = enumerateStates(repairFixtureMachine).find((s) => s.key === 'diagnosing');
    expect(diagnosing?.invokes).toEqual([{ id: 'diagnose', src: 'diagnose' }]);
  });
});

describe('labels', () => {
  it('shortens built-in event types', () => {
    expect(shortEventLabel('xstate.done.actor.a.b')).toBe('done: a.b');
    expect(shortEventLabel('xstate.error.actor.x')).toBe('error: x');
    expect(shortEventLabel('xstate.after.500.m.s')).toBe('after 500ms');
    expect(shortEventLabel('xstate.after.500.m.s', 'slow')).toBe('after slow');
    expect(shortEventLabel('')).toBe('always');
    expect(shortEventLabel('START')).toBe('START');
  });

  it('renders parameter functions and missing guards', () => {
    expect(guardLabel(undefined)).toBeUndefined();
    expect(guardLabel({ type: 'g', params: () => ({}) })).toBe('g(…)');
    expect(guardLabel({ type: 'g', params: { list: [1, 2] } })).toBe('g(list=[1,2])');
  });
});
