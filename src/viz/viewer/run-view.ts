/**
 * The run view: a transcript laid over its machine, as the data the viewer page plays back. For
 * each record it resolves the state value to the machine's state nodes and each transition taken
 * to the SVG edges toDot drew for it (see ../element-ids.ts), so the page only toggles classes on
 * elements it finds by id. Anything in the transcript that the machine does not have (a record
 * from another version of it) becomes a warning shown on the page, never a failure.
 */
import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { type HumanStop, menuFor } from '../../gauntlet/human-stop.js';
import { shortEventLabel } from '../../graph/labels.js';
import { assertMachine } from '../../graph/state-nodes.js';
import { stateValueLabel } from '../../graph/state-value-label.js';
import { enumerateTransitions, type TransitionInfo } from '../../graph/transitions.js';
import type { StateValue, TranscriptRecord } from '../../loop-protocol/transcript-record.js';
import { stateElementId, transitionElementId } from '../element-ids.js';

/** The format tag of {@link RunView}. */
export const RUN_VIEW_FORMAT = 'loopchart-run-view/1';

/** One transition a step took, as the page lists and highlights it. */
export interface RunViewTransition {
  /** `<source id>|<event type>|<index>`. */
  readonly key: string;
  /** `source --event [guard] rule--> target` with state keys relative to the machine. */
  readonly label: string;
  /** Ids of the SVG edges drawn for it (one per target); empty when the machine lacks it. */
  readonly elements: readonly string[];
}

/** One record of the transcript, resolved against the machine. */
export interface RunViewStep {
  /** 0-based position in the transcript. */
  readonly index: number;
  /** The state value as a label: `implement.running`, regions joined with `+`. */
  readonly stateLabel: string;
  /** The event in short: `done: runGates`, `always`, `xstate.init`, `START`. */
  readonly eventLabel: string;
  /** Ids of the active leaf states (atomic or final), one per parallel region. */
  readonly activeStates: readonly string[];
  /** SVG element ids of the active leaf states. */
  readonly activeElements: readonly string[];
  /** SVG element ids of the active compound and parallel states (drawn as clusters). */
  readonly activeParentElements: readonly string[];
  readonly transitions: readonly RunViewTransition[];
  /** SVG element id of the top-level state holding the first active leaf (the page zooms to it). */
  readonly regionElement: string | null;
  /**
   * The run session the record belongs to, from 1: each `xstate.init` record after the first
   * starts a new session (a resumed run appends to the same transcript).
   */
  readonly session: number;
  /** The human stop the record ends at, when it ends at one. */
  readonly stop: RunViewStop | null;
  /** The record itself, as the transcript has it. */
  readonly record: TranscriptRecord;
}

/** A human stop as the person read it: the rendered text and its numbered menu. */
export interface RunViewStop {
  readonly kind: string;
  /** The stop text as printed; `null` when the record carries only the stop's fields. */
  readonly text: string | null;
  readonly menu: readonly { readonly number: number; readonly label: string; readonly reply: string }[];
}

/** A transcript resolved against its machine: everything the viewer page needs besides the SVG. */
export interface RunView {
  readonly format: typeof RUN_VIEW_FORMAT;
  /** The machine's registry name (or module name) the records were drawn on. */
  readonly machine: string;
  /** The machine's id (its diagram's title). */
  readonly machineId: string;
  /** Where the transcript came from, for the page title. */
  readonly source: string;
  readonly steps: readonly RunViewStep[];
  /** Problems a person should know about (records the machine cannot place, transcript order). */
  readonly warnings: readonly string[];
  /** Remarks about what the records carry, shown under each step's details. */
  readonly notes: readonly string[];
}

/** Options of {@link buildRunView}. */
export interface RunViewOptions {
  /** The machine's name as the page shows it; defaults to the records' `machine`. */
  readonly name?: string;
  /** Where the transcript came from (a file name). */
  readonly source?: string;
  /** Warnings found earlier (e.g. transcript findings), shown first. */
  readonly warnings?: readonly string[];
}

/**
 * Resolves every record of a transcript against `machine`.
 *
 * @param records the transcript's records, in order
 * @param machine the machine the run executed (or the same machine from the registry)
 * @throws MachineShapeError when `machine` is not a machine
 */
export function buildRunView(
  records: readonly TranscriptRecord[],
  machine: AnyStateMachine,
  options: RunViewOptions = {},
): RunView {
  assertMachine(machine);
  const transitions = new Map(enumerateTransitions(machine).map((t) => [t.key, t]));
  const warnings: string[] = [...(options.warnings ?? [])];
  let session = 0;
  const steps = records.map((record, index): RunViewStep => {
    if (index === 0 || record.event === 'xstate.init') session += 1;
    const place = placeStateValue(machine, record.state);
    for (const unknown of place.unknown)
      warnings.push(`record ${index + 1}: state "${unknown}" is not in machine "${machine.id}"`);
    return {
      index,
      stateLabel: stateValueLabel(record.state as never),
      eventLabel: shortEventLabel(record.event),
      activeStates: place.leaves,
      activeElements: place.leaves.map(stateElementId),
      activeParentElements: place.parents.map(stateElementId),
      regionElement: place.region === null ? null : stateElementId(place.region),
      session,
      stop: stopOf(record),
      transitions: record.transition.map((ref) => {
        const info = transitions.get(ref.key);
        if (info === undefined) {
          warnings.push(`record ${index + 1}: transition ${ref.key} is not in machine "${machine.id}"`);
          return { key: ref.key, label: ref.key, elements: [] };
        }
        return {
          key: ref.key,
          label: transitionLabel(machine, info),
          elements: info.targets.map((_, targetIndex) => transitionElementId(ref.key, targetIndex)),
        };
      }),
      record,
    };
  });
  return {
    format: RUN_VIEW_FORMAT,
    machine: options.name ?? records[0]?.machine ?? machine.id,
    machineId: machine.id,
    source: options.source ?? 'transcript',
    steps,
    warnings,
    notes: records.some((record) => record.data !== undefined && 'ledger' in record.data)
      ? []
      : [
          'These records carry no ledger view (data.ledger): shown are the protocol fields each record has. ' +
            'Any array of objects under data is drawn as a table.',
        ],
  };
}

/**
 * The state nodes a state value names: the leaves (where the value ends) and the compound or
 * parallel nodes above them, walking the machine's own `states` so custom state ids resolve too.
 */
function placeStateValue(
  machine: AnyStateMachine,
  value: StateValue,
): { leaves: string[]; parents: string[]; unknown: string[]; region: string | null } {
  const leaves: string[] = [];
  let region: string | null = null;
  const parents: string[] = [];
  const unknown: string[] = [];
  const visit = (node: AnyStateNode, inner: StateValue, path: string): void => {
    const entries: [string, StateValue | null][] =
      typeof inner === 'string' ? [[inner, null]] : Object.entries(inner);
    for (const [key, rest] of entries) {
      const child = (node.states as Record<string, AnyStateNode>)[key];
      const where = path === '' ? key : `${path}.${key}`;
      if (child === undefined || !Object.hasOwn(node.states, key)) {
        unknown.push(where);
        continue;
      }
      if (path === '' && region === null) region = child.id;
      if (rest === null || (typeof rest === 'object' && Object.keys(rest).length === 0))
        leaves.push(child.id);
      else {
        parents.push(child.id);
        visit(child, rest, where);
      }
    }
  };
  visit(machine.root, value, '');
  return { leaves, parents, unknown, region };
}

function isMenu(value: unknown): value is RunViewStop['menu'] {
  return (
    Array.isArray(value) &&
    value.every(
      (item) =>
        typeof item === 'object' &&
        item !== null &&
        typeof (item as { number?: unknown }).number === 'number' &&
        typeof (item as { label?: unknown }).label === 'string' &&
        typeof (item as { reply?: unknown }).reply === 'string',
    )
  );
}

/**
 * The stop a record ends at: `data.stop` as the loop engine records it (kind, rendered text,
 * menu), or, for a transcript written before that, the stop's fields from the terminal check's
 * evidence with the menu the stop offers.
 */
function stopOf(record: TranscriptRecord): RunViewStop | null {
  const recorded = (record.data as { stop?: unknown } | undefined)?.stop as
    | { kind?: unknown; text?: unknown; menu?: unknown }
    | undefined;
  if (
    typeof recorded === 'object' &&
    recorded !== null &&
    typeof recorded.kind === 'string' &&
    (typeof recorded.text === 'string' || recorded.text === null) &&
    isMenu(recorded.menu)
  )
    return { kind: recorded.kind, text: recorded.text, menu: recorded.menu };
  const check = record.terminalCheck;
  if (check === null || check.success || check.evidence.length !== 1) return null;
  try {
    const stop = JSON.parse(check.evidence[0] as string) as HumanStop;
    if (typeof stop !== 'object' || stop === null || typeof stop.kind !== 'string') return null;
    const menu = menuFor(stop).map((o) => ({ number: o.number, label: o.label, reply: o.reply }));
    return { kind: stop.kind, text: null, menu };
  } catch {
    return null;
  }
}

function relativeKey(machine: AnyStateMachine, id: string): string {
  const prefix = `${machine.id}.`;
  return id.startsWith(prefix) ? id.slice(prefix.length) : id;
}

/** `source --event [guard] rule--> target`, state keys relative to the machine. */
export function transitionLabel(machine: AnyStateMachine, info: TransitionInfo): string {
  const guard = info.guard === undefined ? '' : ` [${info.guard}]`;
  const rule = info.rule === undefined ? '' : ` ${info.rule}`;
  const targets = info.targetless ? '(stays)' : info.targets.map((t) => relativeKey(machine, t)).join(', ');
  return `${relativeKey(machine, info.source)} --${info.event}${guard}${rule}--> ${targets}`;
}
