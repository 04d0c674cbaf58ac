import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { assertMachine } from '../graph/state-nodes.js';
import { initialChildId } from '../graph/states.js';
import { enumerateTransitions, type TransitionInfo } from '../graph/transitions.js';

/** One state in {@link MachineJson}'s tree. */
export interface MachineJsonState {
  readonly id: string;
  readonly key: string;
  readonly type: AnyStateNode['type'];
  /** Id of the initial child, for compound states. */
  readonly initial?: string;
  readonly description?: string;
  readonly tags: readonly string[];
  readonly invokes: readonly { readonly id: string; readonly src: string }[];
  readonly states: readonly MachineJsonState[];
}

/** A machine as JSON: its states as a tree and its transitions with labels, in document order. */
export interface MachineJson {
  readonly format: 'loopchart-machine/1';
  readonly id: string;
  /** Id of the machine's initial state. */
  readonly initial?: string;
  readonly states: readonly MachineJsonState[];
  readonly transitions: readonly TransitionInfo[];
}

/**
 * Describes a machine as plain JSON (the `--format json` of diagram commands): the states tree and
 * every transition with key, source, targets, short event, guard and rule labels.
 *
 * @param machine an XState v5 machine
 * @throws MachineShapeError when `machine` is not a machine
 */
export function machineToJson(machine: AnyStateMachine): MachineJson {
  assertMachine(machine);
  const initial = initialChildId(machine.root);
  return {
    format: 'loopchart-machine/1',
    id: machine.id,
    ...(initial === undefined ? {} : { initial }),
    states: childrenOf(machine.root),
    transitions: enumerateTransitions(machine),
  };
}

function childrenOf(node: AnyStateNode): MachineJsonState[] {
  return (Object.values(node.states) as AnyStateNode[]).map((child) => {
    const initial = initialChildId(child);
    const description = typeof child.description === 'string' ? child.description : undefined;
    return {
      id: child.id,
      key: child.key,
      type: child.type,
      ...(initial === undefined ? {} : { initial }),
      ...(description === undefined ? {} : { description }),
      tags: [...child.tags],
      invokes: child.invoke.map((invoke) => ({ id: invoke.id, src: String(invoke.src) })),
      states: childrenOf(child),
    };
  });
}
