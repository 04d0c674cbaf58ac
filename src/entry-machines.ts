/**
 * `loopchart/machines`: the XState statecharts (layer 2) and the machine registry. Every side
 * effect is a named actor the host provides (docs/host.md). Needs the `xstate` peer dependency.
 */

export * from '../machines/actor-contract.js';
export * from '../machines/crank.js';
export * from '../machines/cybernetic-loop.js';
export * from '../machines/index.js';
export * from '../machines/loop-implementation/index.js';
export * from '../machines/loop-protocol/index.js';
export * from '../machines/rpi/index.js';
