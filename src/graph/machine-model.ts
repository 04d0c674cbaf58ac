import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode, SnapshotFrom } from 'xstate';
import { type Finding, finding } from '../common/finding.js';
import type { JsonValue } from '../common/json-value.js';
import { MachineModelError } from './errors.js';
import { isJsonValue } from './json-value.js';
import { transitionKindOf } from './labels.js';
import { stateNodesInDocumentOrder } from './state-nodes.js';

/** The fields of an event besides `type`: `{ output }`, `{ error }`, `{ choice: 'approve' }`. */
export type EventPayload = { readonly [field: string]: JsonValue };

/**
 * The payload cases to explore for one event type: a fixed list, or a function of the current
 * snapshot (to offer a case only while it makes sense, e.g. stop offering more allowance at a cap).
 * An empty list means "never send this event".
 */
export type EventCases<TSnapshot> =
  | readonly EventPayload[]
  | ((snapshot: TSnapshot) => readonly EventPayload[]);

/**
 * How to explore a machine. Everything a guard can read must be reachable through `events` and
 * visible in `project`, or some transitions stay unreachable or the exploration does not end.
 */
export interface MachineModel<TSnapshot extends AnyMachineSnapshot = AnyMachineSnapshot> {
  /** The machine's input (what `createActor(machine, { input })` gets). */
  readonly input?: unknown;
  /**
   * Payload cases per event type. Actor outcomes are events: `xstate.done.actor.<invokeId>` with
   * `{ output }` and `xstate.error.actor.<invokeId>` with `{ error }`; human choices are ordinary
   * events with their payload. An event type the machine handles but the model does not list is
   * sent bare (`{ type }`). Delayed (`after`) events are never listed: time is simulated.
   */
  readonly events?: { readonly [eventType: string]: EventCases<TSnapshot> };
  /**
   * The abstraction of the snapshot that guards read, as plain JSON. Two snapshots with the same
   * state value, status and projection are the same model state. Defaults to the whole context,
   * which only ends for machines whose context takes few values.
   */
  readonly project?: (snapshot: TSnapshot) => JsonValue;
  /** Model states where exploration stops (no event is explored from them). */
  readonly stopWhen?: (snapshot: TSnapshot) => boolean;
  /** Tripwire: the most model states (state + "via") explored before giving up. Default 20,000. */
  readonly maxStates?: number;
}

/** The default for {@link MachineModel.maxStates}. */
export const DEFAULT_MAX_STATES = 20_000;

/**
 * Types a model against its machine (no runtime effect): `defineMachineModel(machine, { … })`
 * gives `project`, `stopWhen` and case functions the machine's snapshot type.
 */
export function defineMachineModel<TMachine extends AnyStateMachine>(
  _machine: TMachine,
  model: MachineModel<SnapshotFrom<TMachine>>,
): MachineModel<SnapshotFrom<TMachine>> {
  return model;
}

/**
 * What a model module exports for `loopchart paths <module.js>#<export>`: a host's own machine and
 * the model its paths are generated from. Without `model`, events are sent bare and the whole
 * context is the projection.
 */
export interface ModelledMachine<TMachine extends AnyStateMachine = AnyStateMachine> {
  readonly machine: TMachine;
  readonly model?: MachineModel<SnapshotFrom<TMachine>>;
}

/**
 * Types a model module's export against its machine (no runtime effect):
 * `export const wave = defineModelledMachine(waveMachine, { … })`.
 */
export function defineModelledMachine<TMachine extends AnyStateMachine>(
  machine: TMachine,
  model: MachineModel<SnapshotFrom<TMachine>>,
): ModelledMachine<TMachine> {
  return { machine, model };
}

/** Event types whose events the machine produces itself and the model must not send. */
export function isMachineProducedEvent(eventType: string): boolean {
  const kind = transitionKindOf(eventType);
  return kind === 'after' || kind === 'done.state' || kind === 'snapshot.actor';
}

/** Whether the event type `eventType` matches the transition descriptor `descriptor` (`*`, `a.*`). */
export function matchesDescriptor(eventType: string, descriptor: string): boolean {
  if (descriptor === eventType || descriptor === '*') return true;
  if (!descriptor.endsWith('.*')) return false;
  const prefix = descriptor.slice(0, -1);
  return eventType.startsWith(prefix);
}

/**
 * Checks a model against its machine and returns every problem found: event types that no state
 * handles (usually a typo), cases for events the machine produces itself, payloads that are not
 * plain JSON objects or whose `type` contradicts their key, options of the wrong type.
 */
export function checkMachineModel(machine: AnyStateMachine, model: MachineModel): Finding[] {
  const findings: Finding[] = [];
  if (typeof model !== 'object' || model === null) {
    return [finding('graph.model.shape', 0, 'the model must be an object')];
  }
  const descriptors = new Set<string>();
  for (const node of stateNodesInDocumentOrder(machine) as AnyStateNode[]) {
    for (const descriptor of node.transitions.keys()) descriptors.add(descriptor);
  }
  for (const [eventType, cases] of Object.entries(model.events ?? {})) {
    if (isMachineProducedEvent(eventType)) {
      findings.push(
        finding(
          'graph.model.event.machine-produced',
          0,
          `event "${eventType}" is produced by the machine itself (timers, state completion, snapshots); remove its cases`,
        ),
      );
      continue;
    }
    if (![...descriptors].some((descriptor) => matchesDescriptor(eventType, descriptor))) {
      findings.push(
        finding(
          'graph.model.event.unknown',
          0,
          `no state of machine "${machine.id}" handles event "${eventType}"`,
        ),
      );
    }
    if (typeof cases === 'function') continue;
    if (!Array.isArray(cases)) {
      findings.push(
        finding(
          'graph.model.cases.shape',
          0,
          `cases of "${eventType}" must be a list or a function of the snapshot`,
        ),
      );
      continue;
    }
    findings.push(...checkPayloads(eventType, cases));
  }
  if (model.project !== undefined && typeof model.project !== 'function') {
    findings.push(finding('graph.model.project', 0, 'project must be a function of the snapshot'));
  }
  if (model.stopWhen !== undefined && typeof model.stopWhen !== 'function') {
    findings.push(finding('graph.model.stop-when', 0, 'stopWhen must be a function of the snapshot'));
  }
  if (model.maxStates !== undefined && !(Number.isInteger(model.maxStates) && model.maxStates > 0)) {
    findings.push(finding('graph.model.max-states', 0, 'maxStates must be a positive integer'));
  }
  return findings;
}

/** Checks payload cases of `eventType`; used for fixed lists up front and for case functions per call. */
export function checkPayloads(eventType: string, cases: readonly unknown[]): Finding[] {
  const findings: Finding[] = [];
  cases.forEach((payload, index) => {
    const where = `case ${index + 1} of "${eventType}"`;
    if (typeof payload !== 'object' || payload === null || Array.isArray(payload)) {
      findings.push(finding('graph.model.payload.shape', 0, `${where} must be an object of event fields`));
    } else if (!isJsonValue(payload)) {
      findings.push(
        finding(
          'graph.model.payload.not-json',
          0,
          `${where} is not plain JSON (Error, Date, undefined or functions do not survive the suite file)`,
        ),
      );
    } else if ('type' in payload && (payload as { type?: unknown }).type !== eventType) {
      findings.push(finding('graph.model.payload.type', 0, `${where} has a type that is not "${eventType}"`));
    }
  });
  return findings;
}

/**
 * Throws {@link MachineModelError} when {@link checkMachineModel} finds anything.
 *
 * @throws MachineModelError listing every finding
 */
export function assertMachineModel(machine: AnyStateMachine, model: MachineModel): void {
  const findings = checkMachineModel(machine, model);
  if (findings.length > 0) throw new MachineModelError(machine.id, findings);
}
