import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { MachineShapeError } from './errors.js';

/**
 * Checks that `value` is an XState v5 machine (the object `setup().createMachine()` returns).
 *
 * @throws MachineShapeError when it is not, naming what was given instead.
 */
export function assertMachine(value: unknown): asserts value is AnyStateMachine {
  const candidate = value as { root?: { id?: unknown; states?: unknown }; getStateNodeById?: unknown };
  if (
    typeof value !== 'object' ||
    value === null ||
    typeof candidate.getStateNodeById !== 'function' ||
    typeof candidate.root?.id !== 'string' ||
    typeof candidate.root.states !== 'object'
  ) {
    const what = value === null ? 'null' : Array.isArray(value) ? 'an array' : typeof value;
    throw new MachineShapeError(what);
  }
}

/**
 * Every state node of the machine in document order: the root first, then each child before its
 * own descendants, siblings in the order they are written.
 */
export function stateNodesInDocumentOrder(machine: AnyStateMachine): AnyStateNode[] {
  const nodes: AnyStateNode[] = [];
  const visit = (node: AnyStateNode): void => {
    nodes.push(node);
    for (const child of Object.values(node.states) as AnyStateNode[]) visit(child);
  };
  visit(machine.root);
  return nodes;
}
