/**
 * `--format scxml`: a machine written as a W3C SCXML 1.0 document, so statechart tools outside
 * XState can read its states and transitions. The mapping and what it leaves out are recorded in
 * docs/decisions/viewer.md (W34-W36) and docs/interchange.md; every registered machine's document
 * validates against the schema subset in docs/interchange/scxml-subset.xsd.
 */
import type { AnyStateMachine, AnyStateNode, AnyTransitionDefinition } from 'xstate';
import { InputError } from '../common/errors.js';
import { assertMachine } from '../graph/state-nodes.js';
import { transitionKey } from '../graph/transitions.js';
import { guardReference, type JsonValue } from './xstate-json.js';

/** The SCXML namespace. */
export const SCXML_NAMESPACE = 'http://www.w3.org/2005/07/scxml';

/** The namespace of loopchart's own attributes in an SCXML document (descriptions). */
export const SCXML_LOOPCHART_NAMESPACE = 'urn:loopchart:scxml';

/**
 * A machine that SCXML cannot name faithfully (code `viz.scxml.unrepresentable`): an event type
 * that is not an SCXML event descriptor, or two states, invokes or timers that would share an id.
 */
export class ScxmlExportError extends InputError {
  constructor(machineId: string, reason: string) {
    super('viz.scxml.unrepresentable', `machine "${machineId}" cannot be written as SCXML: ${reason}`);
  }
}

const DONE_ACTOR = 'xstate.done.actor.';
const ERROR_ACTOR = 'xstate.error.actor.';
const SNAPSHOT_ACTOR = 'xstate.snapshot.';
const DONE_STATE = 'xstate.done.state.';
const AFTER = 'xstate.after.';

/** One event descriptor as SCXML reads it: dot-separated tokens, optionally ending in `.*`, or `*`. */
const EVENT_DESCRIPTOR = /^(?:\*|[^\s.*]+(?:\.[^\s.*]+)*(?:\.\*)?)$/;
/** An XML name without a colon (xsd:NCName), restricted to ASCII. */
const NC_NAME = /^[A-Za-z_][A-Za-z0-9._-]*$/;
const JS_IDENTIFIER = /^[A-Za-z_$][A-Za-z0-9_$]*$/;

/**
 * Writes `machine` as an SCXML 1.0 document (`datamodel="ecmascript"`):
 *
 * - states as `<state>`, `<parallel>`, `<final>` and `<history>` with their XState ids (an id that
 *   is not an XML name is escaped, `_xHH_` per character); a compound state's initial child as an
 *   `<initial>` element; the root's children directly under `<scxml>` (or, when the root itself has
 *   transitions, actors or actions, inside one `<state>`/`<parallel>` with the machine's id);
 * - every transition as `<transition event cond target>`, the candidates for one event in XState's
 *   order (document order is SCXML's priority too); `always` transitions have no `event`;
 *   `type="internal"` when XState would not re-enter the source (`reenter: false` and every
 *   target a proper descendant);
 * - guards as `cond` expressions that call a function named after the guard, with its static
 *   params as an object literal (`stoppedFor({stopClass: 'oscillation'})`); `and`/`or`/`not`
 *   become `&&`/`||`/`!`, `stateIn('#id')` becomes SCXML's `In('id')`;
 * - invokes as `<invoke id type="xstate" src>`; their completion as `done.invoke.<id>` (SCXML's
 *   own event), their failure as `error.invoke.<id>` and snapshots as `snapshot.invoke.<id>`; a
 *   state's own completion as `done.state.<id>` (SCXML's own event);
 * - `after` transitions as a delayed `<send>` in `<onentry>` cancelled in `<onexit>`, and a
 *   transition on that event (the event keeps XState's name, `xstate.after.<delay>.<state id>`);
 * - descriptions (rule labels) as `loopchart:description` attributes.
 *
 * Actions, context, input and output are not written (they are implementations; the xstate-json
 * format names them). The same machine always gives the same bytes.
 *
 * @param machine an XState v5 machine
 * @returns the document, ending with a newline
 * @throws MachineShapeError when `machine` is not a machine
 * @throws ScxmlExportError when an event or id cannot be written as SCXML
 */
export function toScxml(machine: AnyStateMachine): string {
  assertMachine(machine);
  return new ScxmlWriter(machine).document();
}

class ScxmlWriter {
  private readonly lines: string[] = [];
  private readonly ids = new Map<string, string>();
  /** Every xsd:ID written, to refuse a document whose ids collide. */
  private readonly written = new Map<string, string>();

  /** The SCXML id of each invoke, by state node and XState invoke id. */
  private readonly invokeIds = new Map<AnyStateNode, Map<string, string>>();

  constructor(private readonly machine: AnyStateMachine) {
    const all: [AnyStateNode, string][] = [];
    const visit = (node: AnyStateNode): void => {
      for (const definition of node.invoke) all.push([node, definition.id]);
      for (const child of childrenOf(node)) visit(child);
    };
    visit(machine.root);
    const count = new Map<string, number>();
    for (const [, id] of all) count.set(id, (count.get(id) ?? 0) + 1);
    for (const [node, id] of all) {
      const ids = this.invokeIds.get(node) ?? new Map<string, string>();
      ids.set(id, xmlName(count.get(id) === 1 ? id : `${id}.${node.id}`));
      this.invokeIds.set(node, ids);
    }
  }

  document(): string {
    const root = this.machine.root;
    const wrapRoot = root.type !== 'compound' || hasOwnBehaviour(root);
    const initial = wrapRoot ? this.id(root) : this.initialIdOf(root);
    this.lines.push('<?xml version="1.0" encoding="UTF-8"?>');
    this.lines.push(
      `<!-- ${xmlComment(`machine ${this.machine.id}, written by loopchart (viz format scxml)`)} -->`,
    );
    this.lines.push(
      `<scxml${attributes([
        ['xmlns', SCXML_NAMESPACE],
        ['xmlns:loopchart', SCXML_LOOPCHART_NAMESPACE],
        ['version', '1.0'],
        ['name', xmlName(this.machine.id)],
        ['datamodel', 'ecmascript'],
        ['initial', initial],
      ])}>`,
    );
    if (wrapRoot) this.state(root, 1);
    else for (const child of childrenOf(root)) this.state(child, 1);
    this.lines.push('</scxml>');
    return `${this.lines.join('\n')}\n`;
  }

  private state(node: AnyStateNode, depth: number): void {
    const pad = '  '.repeat(depth);
    const inner = '  '.repeat(depth + 1);
    const id = this.claim(this.id(node), `state ${node.id}`);
    const element = elementOf(node);
    const head = [
      ['id', id],
      ...(element === 'history' ? [['type', node.history === 'deep' ? 'deep' : 'shallow']] : []),
      ...(typeof node.description === 'string' ? [['loopchart:description', node.description]] : []),
    ] as [string, string | undefined][];
    const body: string[] = [];
    if (element === 'history') {
      body.push(`${inner}<transition${attributes([['target', this.historyDefault(node)]])}/>`);
    }
    if (node.type === 'compound') {
      body.push(`${inner}<initial>`);
      body.push(`${inner}  <transition${attributes([['target', this.initialIdOf(node)]])}/>`);
      body.push(`${inner}</initial>`);
    }
    const timers = this.timers(node);
    if (timers.length > 0) {
      body.push(`${inner}<onentry>`);
      for (const timer of timers) {
        const delay: [string, string] =
          typeof timer.delay === 'number'
            ? ['delay', `${timer.delay}ms`]
            : ['delayexpr', callExpression(timer.delay)];
        body.push(`${inner}  <send${attributes([['event', timer.event], ['id', timer.event], delay])}/>`);
      }
      body.push(`${inner}</onentry>`);
      body.push(`${inner}<onexit>`);
      for (const timer of timers) body.push(`${inner}  <cancel${attributes([['sendid', timer.event]])}/>`);
      body.push(`${inner}</onexit>`);
    }
    for (const definition of node.invoke) {
      const invokeId = this.claim(
        this.invokeId(node, definition.id) as string,
        `invoke ${definition.id} of ${node.id}`,
      );
      body.push(
        `${inner}<invoke${attributes([
          ['id', invokeId],
          ['type', 'xstate'],
          ['src', String(definition.src)],
        ])}/>`,
      );
    }
    for (const [eventType, candidates] of node.transitions as Map<string, AnyTransitionDefinition[]>) {
      candidates.forEach((definition, index) => {
        body.push(`${inner}${this.transition(node, eventType, index, definition)}`);
      });
    }
    (node.always ?? []).forEach((definition, index) => {
      body.push(`${inner}${this.transition(node, '', index, definition)}`);
    });
    const lines = this.lines;
    const children = childrenOf(node);
    if (body.length === 0 && children.length === 0) {
      lines.push(`${pad}<${element}${attributes(head)}/>`);
      return;
    }
    lines.push(`${pad}<${element}${attributes(head)}>`);
    lines.push(...body);
    for (const child of children) this.state(child, depth + 1);
    lines.push(`${pad}</${element}>`);
  }

  private transition(
    node: AnyStateNode,
    eventType: string,
    index: number,
    definition: AnyTransitionDefinition,
  ): string {
    const targets = (definition.target ?? []) as AnyStateNode[];
    const key = transitionKey(node.id, eventType, index);
    const internal =
      definition.reenter !== true &&
      targets.length > 0 &&
      targets.every((target) => isProperDescendant(target, node));
    return `<transition${attributes([
      ['event', eventType === '' ? undefined : this.event(eventType, node)],
      ['cond', definition.guard === undefined ? undefined : condition(definition.guard, key)],
      ['target', targets.length === 0 ? undefined : targets.map((target) => this.id(target)).join(' ')],
      ['type', internal ? 'internal' : undefined],
      [
        'loopchart:description',
        typeof definition.description === 'string' ? definition.description : undefined,
      ],
    ])}/>`;
  }

  /** The SCXML event descriptor of an XState event type. */
  private event(eventType: string, node: AnyStateNode): string {
    const mapped = this.mappedEvent(eventType, node);
    if (!EVENT_DESCRIPTOR.test(mapped))
      throw new ScxmlExportError(this.machine.id, `event "${eventType}" is not an SCXML event descriptor`);
    return mapped;
  }

  private mappedEvent(eventType: string, node: AnyStateNode): string {
    const actorEvents = [
      [DONE_ACTOR, 'done.invoke.'],
      [ERROR_ACTOR, 'error.invoke.'],
      [SNAPSHOT_ACTOR, 'snapshot.invoke.'],
    ] as const;
    for (const [prefix, scxmlPrefix] of actorEvents) {
      if (!eventType.startsWith(prefix)) continue;
      const actorId = eventType.slice(prefix.length);
      return `${scxmlPrefix}${this.invokeIdInScope(node, actorId) ?? actorId}`;
    }
    if (eventType.startsWith(DONE_STATE)) {
      const stateId = eventType.slice(DONE_STATE.length);
      return `done.state.${this.idOfStateId(stateId)}`;
    }
    if (eventType.startsWith(AFTER)) return this.timerEvent(eventType);
    return eventType;
  }

  /** `xstate.after.<delay>.<state id>` with the state id as the document writes it. */
  private timerEvent(eventType: string): string {
    const rest = eventType.slice(AFTER.length);
    const dot = rest.indexOf('.');
    if (dot < 0) return eventType;
    return `${AFTER}${rest.slice(0, dot)}.${this.idOfStateId(rest.slice(dot + 1))}`;
  }

  private timers(node: AnyStateNode): { event: string; delay: number | string }[] {
    const timers: { event: string; delay: number | string }[] = [];
    const seen = new Set<string>();
    for (const [eventType, candidates] of node.transitions as Map<string, AnyTransitionDefinition[]>) {
      if (!eventType.startsWith(AFTER)) continue;
      const delay = (candidates[0] as { delay?: unknown } | undefined)?.delay;
      if (typeof delay !== 'number' && typeof delay !== 'string') continue;
      const event = this.event(eventType, node);
      if (seen.has(event)) continue;
      seen.add(event);
      this.claim(event, `timer ${eventType}`);
      timers.push({ event, delay });
    }
    return timers;
  }

  private invokeId(node: AnyStateNode, actorId: string): string | undefined {
    return this.invokeIds.get(node)?.get(actorId);
  }

  /** The SCXML id of the invoke `actorId` of `node` or of its nearest ancestor that has one. */
  private invokeIdInScope(node: AnyStateNode, actorId: string): string | undefined {
    for (let scope: AnyStateNode | undefined = node; scope !== undefined; scope = scope.parent) {
      const id = this.invokeId(scope, actorId);
      if (id !== undefined) return id;
    }
    return undefined;
  }

  private historyDefault(node: AnyStateNode): string | undefined {
    const parent = node.parent;
    if (parent === undefined) return undefined;
    const target = node.config.target;
    if (typeof target === 'string') {
      if (target.startsWith('#')) return this.idOfStateId(target.slice(1));
      const sibling = parent.states[target] as AnyStateNode | undefined;
      if (sibling !== undefined) return this.id(sibling);
    }
    return this.initialIdOf(parent);
  }

  private initialIdOf(node: AnyStateNode): string | undefined {
    const target = node.initial?.target?.[0] as AnyStateNode | undefined;
    if (target !== undefined) return this.id(target);
    const first = childrenOf(node)[0];
    return first === undefined ? undefined : this.id(first);
  }

  private idOfStateId(stateId: string): string {
    try {
      return this.id(this.machine.getStateNodeById(stateId) as AnyStateNode);
    } catch {
      return xmlName(stateId);
    }
  }

  private id(node: AnyStateNode): string {
    const known = this.ids.get(node.id);
    if (known !== undefined) return known;
    const name = xmlName(node.id);
    this.ids.set(node.id, name);
    return name;
  }

  /** Records an xsd:ID; two owners of one id make the document invalid, so they are refused. */
  private claim(id: string, owner: string): string {
    const previous = this.written.get(id);
    if (previous !== undefined && previous !== owner)
      throw new ScxmlExportError(this.machine.id, `${owner} and ${previous} would share the XML id "${id}"`);
    this.written.set(id, owner);
    return id;
  }
}

function childrenOf(node: AnyStateNode): AnyStateNode[] {
  return Object.values(node.states) as AnyStateNode[];
}

function elementOf(node: AnyStateNode): 'state' | 'parallel' | 'final' | 'history' {
  if (node.type === 'parallel' || node.type === 'final' || node.type === 'history') return node.type;
  return 'state';
}

function hasOwnBehaviour(node: AnyStateNode): boolean {
  return (
    node.transitions.size > 0 ||
    (node.always ?? []).length > 0 ||
    node.invoke.length > 0 ||
    node.entry.length > 0 ||
    node.exit.length > 0
  );
}

function isProperDescendant(target: AnyStateNode, ancestor: AnyStateNode): boolean {
  for (let node = target.parent; node !== undefined; node = node.parent) if (node === ancestor) return true;
  return false;
}

/** An XState id as an XML name: unchanged when it is one, else `_xHH_` for each other character. */
function xmlName(id: string): string {
  if (NC_NAME.test(id)) return id;
  const escaped = [...id]
    .map((char) => (/[A-Za-z0-9.-]/.test(char) ? char : `_x${(char.codePointAt(0) as number).toString(16)}_`))
    .join('');
  return /^[A-Za-z_]/.test(escaped) ? escaped : `_${escaped}`;
}

/** The `cond` expression of a guard (ECMAScript, as `datamodel="ecmascript"` reads it). */
function condition(guard: unknown, key: string): string {
  if (typeof guard === 'function') {
    const fn = guard as { name?: string; guards?: unknown[]; stateValue?: unknown };
    if ('stateValue' in fn && typeof fn.stateValue === 'string' && fn.stateValue.startsWith('#'))
      return `In(${jsLiteral(xmlName(fn.stateValue.slice(1)))})`;
    if (Array.isArray(fn.guards) && (fn.name === 'and' || fn.name === 'or') && fn.guards.length > 0)
      return `(${fn.guards.map((inner) => condition(inner, key)).join(fn.name === 'and' ? ' && ' : ' || ')})`;
    if (Array.isArray(fn.guards) && fn.name === 'not' && fn.guards.length === 1)
      return `!${condition(fn.guards[0], key)}`;
  }
  const reference = guardReference(guard, key);
  return typeof reference === 'string'
    ? callExpression(reference)
    : callExpression(reference.type, reference.params);
}

/** `name(params)` when the name is an identifier, else `guard('name', params)`. */
function callExpression(name: string, params?: JsonValue): string {
  const args = params === undefined ? [] : [jsLiteral(params)];
  return JS_IDENTIFIER.test(name)
    ? `${name}(${args.join(', ')})`
    : `guard(${[jsLiteral(name), ...args].join(', ')})`;
}

/** A JSON value as an ECMAScript literal with single-quoted strings (kind to XML attributes). */
function jsLiteral(value: JsonValue): string {
  if (typeof value === 'string')
    return `'${JSON.stringify(value).slice(1, -1).replace(/\\"/g, '"').replace(/'/g, "\\'")}'`;
  if (value === null || typeof value !== 'object') return String(value);
  if (Array.isArray(value)) return `[${value.map(jsLiteral).join(', ')}]`;
  const entries = Object.entries(value).map(
    ([key, inner]) => `${JS_IDENTIFIER.test(key) ? key : jsLiteral(key)}: ${jsLiteral(inner)}`,
  );
  return `{${entries.join(', ')}}`;
}

function attributes(pairs: readonly (readonly [string, string | undefined])[]): string {
  return pairs
    .filter((pair): pair is readonly [string, string] => pair[1] !== undefined)
    .map(([name, value]) => ` ${name}="${xmlAttribute(value)}"`)
    .join('');
}

function xmlAttribute(value: string): string {
  return value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/\n/g, '&#10;')
    .replace(/\r/g, '&#13;')
    .replace(/\t/g, '&#9;');
}

function xmlComment(text: string): string {
  return text.replace(/--+/g, '-');
}
