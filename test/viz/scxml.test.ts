import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { validateXML } from 'xmllint-wasm';
import { type AnyStateMachine, createMachine } from 'xstate';
import { machines } from '../../machines/index.js';
import { ScxmlExportError, toScxml } from '../../src/viz/scxml.js';
import { interchangeFixtureMachine } from '../fixtures/interchange-fixture-machine.js';
import { configStates, configTransitions, guardName } from '../support/machine-config.js';

const registered = Object.entries(machines) as [string, AnyStateMachine][];
const schemaPath = join(import.meta.dirname, '../../docs/interchange/scxml-subset.xsd');
const schema = await readFile(schemaPath, 'utf8');

async function validate(document: string) {
  return validateXML({ xml: [{ fileName: 'machine.scxml', contents: document }], schema: [schema] });
}

// A small reader for the documents under test (elements and attributes; no text content is
// written), so the checks below do not depend on how the writer lays out lines.
interface XmlElement {
  readonly name: string;
  readonly attributes: Readonly<Record<string, string>>;
  readonly children: XmlElement[];
  readonly parent: XmlElement | undefined;
}

const ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescapeXml = (value: string) =>
  value.replace(/&(#x?[0-9a-fA-F]+|\w+);/g, (_m, entity: string) =>
    entity.startsWith('#x')
      ? String.fromCodePoint(Number.parseInt(entity.slice(2), 16))
      : entity.startsWith('#')
        ? String.fromCodePoint(Number(entity.slice(1)))
        : (ENTITIES[entity] as string),
  );

function parseXml(text: string): XmlElement {
  const token =
    /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<\/([\w:.-]+)\s*>|<([\w:.-]+)((?:\s+[\w:.-]+="[^"]*")*)\s*(\/?)>|([^<]+)/g;
  const top: XmlElement = { name: '#document', attributes: {}, children: [], parent: undefined };
  let current = top;
  for (const match of text.matchAll(token)) {
    const [, close, open, attributeText, selfClosing, textContent] = match;
    if (textContent !== undefined) {
      if (textContent.trim() !== '') throw new Error(`unexpected text ${JSON.stringify(textContent)}`);
    } else if (close !== undefined) {
      if (current.name !== close) throw new Error(`</${close}> closes <${current.name}>`);
      current = current.parent as XmlElement;
    } else if (open !== undefined) {
      const attributes: Record<string, string> = {};
      for (const [, name, value] of (attributeText ?? '').matchAll(/([\w:.-]+)="([^"]*)"/g))
        attributes[name as string] = unescapeXml(value as string);
      const element: XmlElement = { name: open, attributes, children: [], parent: current };
      current.children.push(element);
      if (selfClosing !== '/') current = element;
    }
  }
  if (current !== top || top.children.length !== 1) throw new Error('unbalanced document');
  return top.children[0] as XmlElement;
}

const descendants = (element: XmlElement): XmlElement[] =>
  element.children.flatMap((child) => [child, ...descendants(child)]);

/**
 * The transitions SCXML should carry, from the machine's configuration and the rules of
 * docs/decisions/viewer.md W34-W35 (written here, not taken from the writer): source, event,
 * targets and the guard's name.
 */
function expectedTransitions(machine: AnyStateMachine): string[] {
  const states = configStates(machine);
  const invokeCount = new Map<string, number>();
  for (const state of states)
    for (const id of state.invokeIds) invokeCount.set(id, (invokeCount.get(id) ?? 0) + 1);
  const invokeIdInScope = (source: string, actorId: string): string => {
    for (
      let state = states.find((s) => s.id === source);
      state;
      state = states.find((s) => s.id === state?.parent)
    )
      if (state.invokeIds.includes(actorId))
        return invokeCount.get(actorId) === 1 ? actorId : `${actorId}.${state.id}`;
    return actorId;
  };
  const actorPrefixes = [
    ['xstate.done.actor.', 'done.invoke.'],
    ['xstate.error.actor.', 'error.invoke.'],
    ['xstate.snapshot.', 'snapshot.invoke.'],
  ] as const;
  const event = (source: string, eventType: string): string => {
    if (eventType === '') return '(eventless)';
    if (eventType.startsWith('xstate.done.state.'))
      return `done.state.${eventType.slice('xstate.done.state.'.length)}`;
    for (const [xstate, scxml] of actorPrefixes)
      if (eventType.startsWith(xstate))
        return `${scxml}${invokeIdInScope(source, eventType.slice(xstate.length))}`;
    return eventType;
  };
  return configTransitions(machine).map(
    (t) =>
      `${t.source} | ${event(t.source, t.eventType)} | ${t.targets.join(' ')} | ${guardName(t.guard).replace(/\{.*$/, '')}`,
  );
}

function documentTransitions(root: XmlElement): string[] {
  return descendants(root)
    .filter((e) => e.name === 'transition' && e.parent?.name !== 'initial' && e.parent?.name !== 'history')
    .map((e) => {
      const cond = e.attributes.cond;
      const guard = cond === undefined ? '' : (/^([A-Za-z_$][\w$]*)\(/.exec(cond)?.[1] ?? cond);
      return `${e.parent?.attributes.id} | ${e.attributes.event ?? '(eventless)'} | ${e.attributes.target ?? ''} | ${guard}`;
    });
}

describe('toScxml', () => {
  it.each(registered)('%s validates against the SCXML schema subset', async (_name, machine) => {
    const document = toScxml(machine);
    const result = await validate(document);
    expect(result.errors.map((e) => e.rawMessage)).toEqual([]);
    expect(result.valid).toBe(true);
  });

  it.each(registered)(
    '%s carries every transition: source, event, targets and the guard named in cond',
    (_name, machine) => {
      const root = parseXml(toScxml(machine));
      expect(root.name).toBe('scxml');
      expect(root.attributes).toMatchObject({
        xmlns: 'http://www.w3.org/2005/07/scxml',
        version: '1.0',
        name: machine.id,
        datamodel: 'ecmascript',
      });
      const expected = expectedTransitions(machine);
      const actual = documentTransitions(root);
      expect(actual.length).toBe(expected.length);
      expect([...actual].sort()).toEqual([...expected].sort());
    },
  );

  it.each(registered)('%s: every state is written once and every reference names one', (_name, machine) => {
    const root = parseXml(toScxml(machine));
    const elements = descendants(root);
    const stateElements = elements.filter((e) => ['state', 'parallel', 'final', 'history'].includes(e.name));
    const written = stateElements.map((e) => e.attributes.id as string);
    const states = configStates(machine).filter((s) => s.parent !== undefined);
    expect([...written].sort()).toEqual(states.map((s) => s.id).sort());
    for (const element of stateElements) {
      const state = states.find((s) => s.id === element.attributes.id);
      const kind =
        state?.type === 'parallel' || state?.type === 'final' || state?.type === 'history'
          ? state.type
          : 'state';
      expect(element.name, element.attributes.id).toBe(kind);
    }
    // libxml2 checks that xsd:ID values are unique but not that IDREFs resolve: checked here.
    const ids = new Set(elements.flatMap((e) => (e.attributes.id === undefined ? [] : [e.attributes.id])));
    const references = [
      ...(root.attributes.initial ?? '').split(' '),
      ...elements.flatMap((e) => (e.attributes.target ?? '').split(' ')),
      ...elements.flatMap((e) => [e.attributes.sendid ?? '']),
    ].filter((id) => id !== '');
    expect(references.length).toBeGreaterThan(0);
    for (const reference of references) expect(ids.has(reference), reference).toBe(true);
  });

  it.each(registered)('%s gives the same bytes every time', (_name, machine) => {
    expect(toScxml(machine)).toBe(toScxml(machine));
  });

  it('the validator rejects broken documents (so its acceptance means something)', async () => {
    const document = toScxml(machines.crank);
    expect((await validate(document)).valid).toBe(true);
    const broken: Record<string, string> = {
      'an unknown element': document.replace('<invoke ', '<invocation '),
      'a state inside a transition': document.replace(
        /<transition ([^>]*)\/>/,
        '<transition $1><state id="crank.inner"/></transition>',
      ),
      'a duplicate id': document.replace('id="crank.evidenced"', 'id="crank.lanes"'),
      'an event that is no descriptor': document.replace(
        'event="done.invoke.runAcceptance"',
        'event="done..runAcceptance"',
      ),
      'a wrong SCXML version': document.replace('version="1.0" name=', 'version="2.0" name='),
      'no version': document.replace('version="1.0" name=', 'name='),
      'a wrong namespace': document.replace(
        'xmlns="http://www.w3.org/2005/07/scxml"',
        'xmlns="http://www.w3.org/2005/07/scxml/other"',
      ),
      'an unknown transition type': document.replace(/<transition /, '<transition type="sideways" '),
    };
    for (const [what, text] of Object.entries(broken)) {
      expect(text, what).not.toBe(document);
      const result = await validate(text);
      expect(result.valid, what).toBe(false);
      expect(result.errors.length, what).toBeGreaterThan(0);
    }
  });
});

describe('toScxml of a machine with combinators, timers, history and parallel states', () => {
  // Written by hand from docs/decisions/viewer.md W34-W36.
  const expected = `<?xml version="1.0" encoding="UTF-8"?>
<!-- machine fx, written by loopchart (viz format scxml) -->
<scxml xmlns="http://www.w3.org/2005/07/scxml" xmlns:loopchart="urn:loopchart:scxml" version="1.0" name="fx" datamodel="ecmascript" initial="fx.idle">
  <state id="fx.idle">
    <onentry>
      <send event="xstate.after.1000.fx.idle" id="xstate.after.1000.fx.idle" delay="1000ms"/>
      <send event="xstate.after.patience.fx.idle" id="xstate.after.patience.fx.idle" delayexpr="patience()"/>
    </onentry>
    <onexit>
      <cancel sendid="xstate.after.1000.fx.idle"/>
      <cancel sendid="xstate.after.patience.fx.idle"/>
    </onexit>
    <transition event="GO" cond="(ready() &amp;&amp; !blocked())" target="fx.busy" loopchart:description="R1 go"/>
    <transition event="GO" cond="belowCap({cap: 4})" target="fx.busy"/>
    <transition event="GO" cond="guard('inline:fx.idle|GO|2')" target="fx.done"/>
    <transition event="POKE"/>
    <transition event="xstate.after.1000.fx.idle" target="fx.done"/>
    <transition event="xstate.after.patience.fx.idle" cond="In('fx.idle')" target="fx.busy"/>
  </state>
  <parallel id="fx.busy">
    <transition event="done.state.fx.busy" target="fx.done"/>
    <state id="fx.busy.a">
      <initial>
        <transition target="fx.busy.a.a1"/>
      </initial>
      <state id="fx.busy.a.a1">
        <transition event="NEXT" target="fx.busy.a.a2"/>
      </state>
      <final id="fx.busy.a.a2"/>
      <history id="fx.busy.a.back" type="deep">
        <transition target="fx.busy.a.a2"/>
      </history>
    </state>
    <state id="worker">
      <invoke id="job" type="xstate" src="work"/>
      <transition event="done.invoke.job" target="fx.done"/>
      <transition event="error.invoke.job" target="fx.done"/>
    </state>
  </parallel>
  <final id="fx.done"/>
</scxml>
`;

  it('writes parallel, history, final, invoke, delayed sends and guard expressions', async () => {
    const document = toScxml(interchangeFixtureMachine);
    expect(document).toBe(expected);
    expect((await validate(document)).valid).toBe(true);
  });

  it('wraps a root with its own transitions in one state with the machine id, and escapes ids', async () => {
    const machine = createMachine({
      id: 'my machine',
      initial: 'idle',
      on: { RESET: '.idle' },
      states: { idle: { on: { GO: 'busy' }, description: 'first "quoted"\nsecond' }, busy: {} },
    });
    const document = toScxml(machine);
    expect((await validate(document)).errors).toEqual([]);
    const root = parseXml(document);
    expect(root.attributes).toMatchObject({ name: 'my_x20_machine', initial: 'my_x20_machine' });
    const wrapper = root.children[0] as XmlElement;
    expect(wrapper.attributes.id).toBe('my_x20_machine');
    expect(wrapper.children.map((c) => [c.name, c.attributes.target ?? c.attributes.id])).toEqual([
      ['initial', undefined],
      ['transition', 'my_x20_machine.idle'],
      ['state', 'my_x20_machine.idle'],
      ['state', 'my_x20_machine.busy'],
    ]);
    expect(wrapper.children[1]?.attributes.type).toBe('internal');
    expect(wrapper.children[2]?.attributes['loopchart:description']).toBe('first "quoted"\nsecond');
  });

  it('refuses, by name, an event SCXML cannot name and ids that would collide', () => {
    const spaced = createMachine({
      id: 'm',
      initial: 'a',
      states: { a: { on: { 'two words': 'b' } }, b: {} },
    });
    expect(() => toScxml(spaced)).toThrow(ScxmlExportError);
    expect(() => toScxml(spaced)).toThrow('event "two words" is not an SCXML event descriptor');
    const colliding = createMachine({
      id: 'm',
      initial: 'a',
      states: {
        a: { id: 'job', on: { GO: 'b' } },
        b: { invoke: { id: 'job', src: 'work' } },
      },
    });
    try {
      toScxml(colliding);
      expect.unreachable('a colliding id must be refused');
    } catch (error) {
      expect(error).toBeInstanceOf(ScxmlExportError);
      expect((error as ScxmlExportError).code).toBe('viz.scxml.unrepresentable');
      expect((error as Error).message).toContain('would share the XML id "job"');
    }
  });
});
