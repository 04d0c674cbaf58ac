import { describe, expect, it } from 'vitest';
import { type AnyStateMachine, type AnyStateNode, createActor, createMachine, fromPromise } from 'xstate';
import { machines } from '../../machines/index.js';
import { machineToXStateConfig, toXStateJson } from '../../src/viz/xstate-json.js';
import { interchangeFixtureMachine as fixture } from '../fixtures/interchange-fixture-machine.js';
import { configTransitions, guardName } from '../support/machine-config.js';

const registered = Object.entries(machines) as [string, AnyStateMachine][];

type Tuple = string;

/** (source, event, targets, guard) of every transition as the configuration wrote it. */
const configTuples = (machine: AnyStateMachine): Tuple[] =>
  configTransitions(machine).map(
    (t) => `${t.source} | ${t.eventType} | ${t.targets.join(' ')} | ${guardName(t.guard)}`,
  );

/** The same tuples read from a machine's state nodes (how XState built the re-imported one). */
function nodeTuples(machine: AnyStateMachine): Tuple[] {
  const tuples: Tuple[] = [];
  const visit = (node: AnyStateNode): void => {
    const groups: [string, readonly { target?: readonly AnyStateNode[]; guard?: unknown }[]][] = [
      ...node.transitions.entries(),
    ];
    if (node.always) groups.push(['', node.always]);
    for (const [eventType, transitions] of groups)
      for (const t of transitions)
        tuples.push(
          `${node.id} | ${eventType} | ${(t.target ?? []).map((target) => target.id).join(' ')} | ${guardName(t.guard)}`,
        );
    for (const child of Object.values(node.states)) visit(child as AnyStateNode);
  };
  visit(machine.root);
  return tuples;
}

const sorted = (tuples: Tuple[]) => [...tuples].sort();

describe('toXStateJson', () => {
  it.each(registered)(
    '%s re-imports with createMachine: the same transitions (source, event, targets, guard)',
    (_name, machine) => {
      const text = toXStateJson(machine);
      const reimported = createMachine(JSON.parse(text));
      const expected = configTuples(machine);
      const actual = nodeTuples(reimported);
      expect(expected.length).toBeGreaterThan(0);
      expect(actual.length).toBe(expected.length);
      expect(sorted(actual)).toEqual(sorted(expected));
      expect(reimported.id).toBe(machine.id);
    },
  );

  it.each(registered)('%s keeps actions, actors, descriptions and tags by name', (_name, machine) => {
    const reimported = createMachine(JSON.parse(toXStateJson(machine)));
    // A name with its static params; params computed by a function are not data (W33).
    const names = (actions: readonly unknown[]) =>
      actions.map((action) => {
        if (typeof action === 'string') return action;
        if (typeof action === 'function') return (action as unknown as { type: string }).type;
        const { type, params } = action as { type: string; params?: unknown };
        return params === undefined || typeof params === 'function'
          ? type
          : `${type}${JSON.stringify(params)}`;
      });
    const describe = (m: AnyStateMachine) => {
      const out: string[] = [];
      const visit = (node: AnyStateNode): void => {
        out.push(`${node.id} ${node.type} ${node.description ?? ''} [${node.tags.join(',')}]`);
        out.push(`  entry ${names(node.entry)} exit ${names(node.exit)}`);
        for (const invoke of node.invoke) out.push(`  invoke ${invoke.id} ${String(invoke.src)}`);
        for (const [event, transitions] of node.transitions)
          for (const t of transitions)
            out.push(`  ${event} ${names(t.actions)} ${t.description ?? ''} ${t.reenter}`);
        for (const t of node.always ?? []) out.push(`  always ${names(t.actions)} ${t.description ?? ''}`);
        for (const child of Object.values(node.states)) visit(child as AnyStateNode);
      };
      visit(m.root);
      return out;
    };
    expect(describe(reimported)).toEqual(describe(machine));
  });

  it.each(registered)('%s gives the same bytes every time, with absolute targets only', (_name, machine) => {
    const text = toXStateJson(machine);
    expect(toXStateJson(machine)).toBe(text);
    expect(text.endsWith('}\n')).toBe(true);
    const targets = [...text.matchAll(/"target": "([^"]*)"/g)].map((m) => m[1] as string);
    expect(targets.length).toBeGreaterThan(0);
    for (const target of targets) expect(target.startsWith('#'), target).toBe(true);
  });
});

// The fixture's export, written by hand from the rules in docs/decisions/viewer.md W33.
describe('toXStateJson of a machine with combinators, timers, history and parallel states', () => {
  it('names what JSON cannot hold and keeps what it can', () => {
    expect(machineToXStateConfig(fixture)).toEqual({
      id: 'fx',
      context: { count: 0 },
      initial: 'idle',
      states: {
        idle: {
          tags: ['waiting'],
          meta: { rule: 'R0' },
          on: {
            GO: [
              { target: '#fx.busy', guard: 'and(ready, not(blocked))', description: 'R1 go' },
              {
                target: '#fx.busy',
                guard: { type: 'belowCap', params: { cap: 4 } },
                actions: [{ type: 'log', params: { level: 'info' } }],
              },
              { target: '#fx.done', guard: 'inline:fx.idle|GO|2' },
            ],
            POKE: [{ actions: ['xstate.assign'] }],
          },
          after: {
            1000: [{ target: '#fx.done' }],
            patience: [{ target: '#fx.busy', guard: 'stateIn(#fx.idle)' }],
          },
        },
        busy: {
          type: 'parallel',
          onDone: [{ target: '#fx.done' }],
          states: {
            a: {
              initial: 'a1',
              states: {
                a1: { on: { NEXT: [{ target: '#fx.busy.a.a2', reenter: true }] } },
                a2: { type: 'final' },
                back: { type: 'history', history: 'deep', target: '#fx.busy.a.a2' },
              },
            },
            b: {
              id: 'worker',
              invoke: [
                {
                  id: 'job',
                  src: 'work',
                  input: { n: 1 },
                  onDone: [{ target: '#fx.done' }],
                  onError: [{ target: '#fx.done' }],
                },
              ],
            },
          },
        },
        done: { type: 'final', output: { ok: true } },
      },
    });
  });

  it('re-imports, and runs once .provide() gives the implementations back by name', () => {
    const reimported = createMachine(JSON.parse(toXStateJson(fixture))).provide({
      guards: {
        'and(ready, not(blocked))': () => false,
        belowCap: (_args, params) => (params as { cap: number }).cap > 3,
        'inline:fx.idle|GO|2': () => true,
        'stateIn(#fx.idle)': () => true,
      },
      actors: { work: fromPromise(async () => 1) },
      delays: { patience: 500 },
    });
    expect(sorted(nodeTuples(reimported))).toEqual(
      sorted([
        'fx.idle | GO | fx.busy | and(ready, not(blocked))',
        'fx.idle | GO | fx.busy | belowCap{"cap":4}',
        'fx.idle | GO | fx.done | inline:fx.idle|GO|2',
        'fx.idle | POKE |  | ',
        'fx.idle | xstate.after.1000.fx.idle | fx.done | ',
        'fx.idle | xstate.after.patience.fx.idle | fx.busy | stateIn(#fx.idle)',
        'fx.busy | xstate.done.state.fx.busy | fx.done | ',
        'fx.busy.a.a1 | NEXT | fx.busy.a.a2 | ',
        'worker | xstate.done.actor.job | fx.done | ',
        'worker | xstate.error.actor.job | fx.done | ',
      ]),
    );
    const actor = createActor(reimported).start();
    actor.send({ type: 'GO' });
    // The combinator is the provided `false`; belowCap gets its params back (4 > 3): busy.
    expect(actor.getSnapshot().value).toEqual({ busy: { a: 'a1', b: {} } });
    actor.stop();
  });
});
