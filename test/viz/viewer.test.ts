import { describe, expect, it } from 'vitest';
import { type AnyStateMachine, createActor, createMachine } from 'xstate';
import { machines } from '../../machines/index.js';
import { enumerateStates } from '../../src/graph/states.js';
import { enumerateTransitions } from '../../src/graph/transitions.js';
import type { TranscriptRecord } from '../../src/loop-protocol/transcript-record.js';
import { toDot } from '../../src/viz/dot.js';
import { stateElementId, transitionElementId } from '../../src/viz/element-ids.js';
import { toSvg } from '../../src/viz/svg.js';
import { inlineSvg, renderViewerPage, scriptSafeJson } from '../../src/viz/viewer/page.js';
import { buildRunView } from '../../src/viz/viewer/run-view.js';
import { parallelFixtureMachine } from '../fixtures/parallel-fixture-machine.js';
import { repairFixtureMachine } from '../fixtures/repair-fixture-machine.js';

/** A record with only the replay fields set. */
function record(
  machine: string,
  state: TranscriptRecord['state'],
  event: string,
  transition: TranscriptRecord['transition'] = [],
): TranscriptRecord {
  return {
    version: 1,
    machine,
    cycle: 0,
    timestamp: '2026-01-01T00:00:00.000Z',
    state,
    event,
    transition,
    observation: null,
    fingerprint: null,
    action: null,
    evidence: [],
    progressDelta: null,
    verifierResult: null,
    decision: null,
    terminalCheck: null,
    budget: null,
  };
}

const svgIds = (svg: string) =>
  new Set([...svg.matchAll(/<g id="([^"]*)"/g)].map((m) => (m[1] as string).replace(/&#45;/g, '-')));

describe('SVG element ids', () => {
  const all: [string, AnyStateMachine][] = [
    ...(Object.entries(machines) as [string, AnyStateMachine][]),
    ['fixture', repairFixtureMachine as AnyStateMachine],
    ['par', parallelFixtureMachine as AnyStateMachine],
  ];
  it.each(all)('%s: every state and every transition edge has its id in the SVG', async (_, machine) => {
    const ids = svgIds(await toSvg(toDot(machine)));
    for (const state of enumerateStates(machine))
      expect(ids.has(stateElementId(state.id)), state.id).toBe(true);
    for (const t of enumerateTransitions(machine))
      t.targets.forEach((_target, index) => {
        expect(ids.has(transitionElementId(t.key, index)), t.key).toBe(true);
      });
  });
});

describe('buildRunView', () => {
  it('places a compound state value on its leaf and its cluster, and transitions on their edges', () => {
    const rule = enumerateTransitions(repairFixtureMachine).find((t) => t.rule?.startsWith('R2'));
    if (rule === undefined) throw new Error('fixture lost R2');
    const view = buildRunView(
      [
        record('fixture', 'idle', 'xstate.init'),
        record('fixture', { working: 'patching' }, 'START', [
          {
            key: rule.key,
            source: rule.source,
            event: rule.eventType,
            index: rule.index,
            targets: [...rule.targets],
          },
        ]),
      ],
      repairFixtureMachine,
      { source: 'run.jsonl' },
    );
    expect(view.machine).toBe('fixture');
    expect(view.source).toBe('run.jsonl');
    expect(view.steps[0]?.activeStates).toEqual(['fixture.idle']);
    expect(view.steps[0]?.activeParentElements).toEqual([]);
    expect(view.steps[1]?.activeElements).toEqual([stateElementId('fixture.working.patching')]);
    expect(view.steps[1]?.activeParentElements).toEqual([stateElementId('fixture.working')]);
    expect(view.steps[1]?.stateLabel).toBe('working.patching');
    expect(view.steps[1]?.transitions[0]?.elements).toEqual([transitionElementId(rule.key, 0)]);
    expect(view.steps[1]?.transitions[0]?.label).toContain('R2');
    expect(view.warnings).toEqual([]);
  });

  it('places every region of a parallel state value', () => {
    const actor = createActor(parallelFixtureMachine).start();
    actor.send({ type: 'GO' });
    const value = actor.getSnapshot().value as TranscriptRecord['state'];
    actor.stop();
    const view = buildRunView([record('par', value, 'GO')], parallelFixtureMachine);
    expect([...(view.steps[0]?.activeStates ?? [])].sort()).toEqual(
      ['par.running.build.compiling', 'par.running.test.waiting'].sort(),
    );
    expect([...(view.steps[0]?.activeParentElements ?? [])].sort()).toEqual(
      ['par.running', 'par.running.build', 'par.running.test'].map(stateElementId).sort(),
    );
  });

  it('warns about states and transitions the machine does not have, without failing', () => {
    const view = buildRunView(
      [
        record('fixture', { working: 'gone' }, 'X', [
          { key: 'fixture.gone|X|0', source: 'fixture.gone', event: 'X', index: 0, targets: [] },
        ]),
      ],
      repairFixtureMachine,
      { warnings: ['line 3: earlier warning'] },
    );
    expect(view.warnings).toEqual([
      'line 3: earlier warning',
      'record 1: state "working.gone" is not in machine "fixture"',
      'record 1: transition fixture.gone|X|0 is not in machine "fixture"',
    ]);
    expect(view.steps[0]?.activeElements).toEqual([]);
    expect(view.steps[0]?.transitions[0]?.elements).toEqual([]);
  });

  it('notes when the records carry no ledger view, and not when they do', () => {
    const plain = buildRunView([record('fixture', 'idle', 'xstate.init')], repairFixtureMachine);
    expect(plain.notes.join(' ')).toContain('no ledger view');
    const withLedger = buildRunView(
      [{ ...record('fixture', 'idle', 'xstate.init'), data: { ledger: [{ row: 1, status: 'open' }] } }],
      repairFixtureMachine,
    );
    expect(withLedger.notes).toEqual([]);
  });
});

describe('renderViewerPage', () => {
  it('inlines the SVG without its XML prolog and embeds the run data as inert JSON', async () => {
    const machine = createMachine({ id: 'tiny', initial: 'a', states: { a: { on: { GO: 'b' } }, b: {} } });
    const hostile = { ...record('tiny', 'a', 'xstate.init'), evidence: ['</script><b>bold</b>\u2028'] };
    const view = buildRunView([hostile], machine);
    const html = renderViewerPage(view, await toSvg(toDot(machine)));
    expect(html).not.toContain('<?xml');
    expect(html).not.toContain('<!DOCTYPE svg');
    expect(html.match(/<\/script>/g)).toHaveLength(2);
    expect(html).not.toContain('<b>bold</b>');
    const embedded =
      /<script id="lc-run" type="application\/json">([\s\S]*?)<\/script>/.exec(html)?.[1] ?? '';
    expect(JSON.parse(embedded)).toEqual(JSON.parse(JSON.stringify(view)));
    expect(JSON.parse(scriptSafeJson({ text: '<\u2029>' }))).toEqual({ text: '<\u2029>' });
  });

  it('refuses text that is not an SVG document', () => {
    expect(() => inlineSvg('<html></html>')).toThrow(/not an SVG document/);
  });
});

describe('buildRunView: sessions and stops', () => {
  const stopped = (evidence: string[], data?: TranscriptRecord['data']): TranscriptRecord => ({
    ...record('fixture', 'idle', 'xstate.done.actor.refresh'),
    terminalCheck: { rule: 'row-allowance', success: false, reason: 'stopped for a human', evidence },
    ...(data === undefined ? {} : { data }),
  });

  it('starts a new session at every xstate.init after the first record', () => {
    const view = buildRunView(
      [
        record('fixture', 'idle', 'xstate.init'),
        record('fixture', 'idle', 'START'),
        record('fixture', 'idle', 'xstate.init'),
        record('fixture', 'idle', 'START'),
        record('fixture', 'idle', 'xstate.init'),
      ],
      repairFixtureMachine,
    );
    expect(view.steps.map((s) => s.session)).toEqual([1, 1, 2, 2, 3]);
  });

  it('takes the rendered stop from data.stop, else the menu from the stop fields in the evidence', () => {
    const menu = [
      { number: 1, label: 'Retry with hint', reply: 'retry 2 | <hint>' },
      { number: 2, label: 'Stop and keep the branch as it is', reply: 'stop' },
    ];
    const recorded = buildRunView(
      [
        stopped(['{"kind":"row-allowance","row":2}'], {
          stop: { kind: 'row-allowance', text: 'gauntlet: question\n', menu },
        }),
      ],
      repairFixtureMachine,
    );
    expect(recorded.steps[0]?.stop).toEqual({ kind: 'row-allowance', text: 'gauntlet: question\n', menu });

    // An older transcript: only the stop's fields. The row-allowance menu (docs/human-stops.md):
    // retry, rows +N, amend, stop.
    const older = buildRunView([stopped(['{"kind":"row-allowance","row":2}'])], repairFixtureMachine);
    expect(older.steps[0]?.stop?.text).toBeNull();
    expect(older.steps[0]?.stop?.menu.map((o) => o.reply.split(' ')[0])).toEqual([
      'retry',
      'rows',
      'amend',
      'stop',
    ]);

    // Evidence that is not a stop is no stop.
    expect(buildRunView([stopped(['gate 1 failed'])], repairFixtureMachine).steps[0]?.stop).toBeNull();
  });
});
