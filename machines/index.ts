/**
 * The machine registry: every statechart of the project by its name. Tools over machines
 * (`loopchart viz`, `loopchart paths`, the generated diagrams and coverage) iterate this registry.
 */
import type { AnyStateMachine } from 'xstate';
import { crankMachine } from './crank.js';
import { cyberneticLoopMachine } from './cybernetic-loop.js';
import { loopImplementationMachine } from './loop-implementation/index.js';
import { loopProtocolMachine } from './loop-protocol/index.js';
import { rpiMachine } from './rpi/index.js';

export { crankMachine } from './crank.js';
export { cyberneticLoopMachine } from './cybernetic-loop.js';
export { loopImplementationMachine } from './loop-implementation/index.js';
export { loopProtocolMachine } from './loop-protocol/index.js';
export { rpiMachine } from './rpi/index.js';

/** Registered machines by name, in the order tools list them. */
export const machines = {
  'loop-implementation': loopImplementationMachine,
  rpi: rpiMachine,
  crank: crankMachine,
  'cybernetic-loop': cyberneticLoopMachine,
  'loop-protocol': loopProtocolMachine,
} as const satisfies Record<string, AnyStateMachine>;

/** The name of a registered machine. */
export type MachineName = keyof typeof machines;
