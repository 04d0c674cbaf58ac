import type { AnyStateMachine, AnyStateNode } from 'xstate';
import { assertMachine, stateNodesInDocumentOrder } from './state-nodes.js';

/** One state node of a machine definition (the root, the machine itself, is not listed). */
export interface StateInfo {
  /** The node's id (`<machine id>.<path>` unless the config sets `id`). */
  readonly id: string;
  /** The node's key in its parent's `states`. */
  readonly key: string;
  /** Keys from the root to this node. */
  readonly path: readonly string[];
  /** `atomic`, `compound`, `parallel`, `final` or `history`. */
  readonly type: AnyStateNode['type'];
  /** Id of the parent node (the root's id for top-level states). */
  readonly parent: string;
  /** Id of the initial child, for compound states. */
  readonly initial?: string;
  /** Invoked actors: invoke id and the `src` name. */
  readonly invokes: readonly { readonly id: string; readonly src: string }[];
  /** Tags declared on the node. */
  readonly tags: readonly string[];
  /** The node's `description`, if any. */
  readonly description?: string;
  /** True when coverage counts this node: every node except history pseudo-states. */
  readonly enterable: boolean;
}

/**
 * Every state node of the machine except the root, in document order.
 *
 * @param machine an XState v5 machine
 * @throws MachineShapeError when `machine` is not a machine
 */
export function enumerateStates(machine: AnyStateMachine): StateInfo[] {
  assertMachine(machine);
  return stateNodesInDocumentOrder(machine)
    .slice(1)
    .map((node) => describeState(node));
}

/** The id of a compound node's initial child, or `undefined` for other node types. */
export function initialChildId(node: AnyStateNode): string | undefined {
  if (node.type !== 'compound') return undefined;
  const target = node.initial?.target?.[0] as AnyStateNode | undefined;
  return target?.id;
}

function describeState(node: AnyStateNode): StateInfo {
  const initial = initialChildId(node);
  const description = typeof node.description === 'string' ? node.description : undefined;
  return {
    id: node.id,
    key: node.key,
    path: [...node.path],
    type: node.type,
    parent: (node.parent as AnyStateNode).id,
    ...(initial === undefined ? {} : { initial }),
    invokes: node.invoke.map((invoke) => ({ id: invoke.id, src: String(invoke.src) })),
    tags: [...node.tags],
    ...(description === undefined ? {} : { description }),
    enterable: node.type !== 'history',
  };
}
