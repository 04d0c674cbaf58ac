/**
 * The model registry: the path-generation model of each machine, keyed by its name in the
 * machine registry (machines/index.ts). Tools that generate path suites and coverage for every
 * machine (`loopchart paths`, the generated visualizations/coverage.json) read this registry.
 */
import type { MachineModel } from '../machine-model.js';
import { crankModel } from './crank.js';
import { cyberneticLoopModel } from './cybernetic-loop.js';
import { loopImplementationModel } from './loop-implementation.js';
import { loopProtocolModel } from './loop-protocol.js';
import { rpiModel } from './rpi.js';

/** Registered models by machine name. */
export const models: Readonly<Record<string, MachineModel>> = {
  'loop-implementation': loopImplementationModel as MachineModel,
  'cybernetic-loop': cyberneticLoopModel as MachineModel,
  'loop-protocol': loopProtocolModel as MachineModel,
  rpi: rpiModel as MachineModel,
  crank: crankModel as MachineModel,
};
