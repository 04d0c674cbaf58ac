/**
 * The machine registry: every statechart of the project by its name. Tools over machines
 * (`loopchart viz`, `loopchart paths`, the generated diagrams and coverage) iterate this registry.
 */
import type { AnyStateMachine } from 'xstate';
import { cyberneticLoopMachine } from './cybernetic-loop.js';
import { loopImplementationMachine } from './loop-implementation.js';

export { cyberneticLoopMachine } from './cybernetic-loop.js';
export { loopImplementationMachine } from './loop-implementation.js';

/** Registered machines by name, in the order tools list them. */
export const machines = {
  'loop-implementation': loopImplementationMachine,
  'cybernetic-loop': cyberneticLoopMachine,
} as const satisfies Record<string, AnyStateMachine>;

/** The name of a registered machine. */
export type MachineName = keyof typeof machines;
