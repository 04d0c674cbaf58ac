/**
 * `loopchart/core`: the pure protocol cores (layer 1 of DESIGN.md): the loop engine's ledger,
 * spec, rules, validation and human stops; the convergence law and RPI; crank; the cybernetic
 * loop; the loop protocol; shared errors and findings. No xstate, no node built-ins, no I/O:
 * this entry bundles for a browser.
 */

export * from './common/errors.js';
export * from './common/finding.js';
export type { JsonValue } from './common/json-value.js';
export * from './convergence/index.js';
export * from './crank/index.js';
export * from './cybernetic/index.js';
export * from './gauntlet/action-records.js';
export * from './gauntlet/allowance.js';
export * from './gauntlet/amendment.js';
export * from './gauntlet/amendment-items.js';
export * from './gauntlet/child-contract.js';
export * from './gauntlet/commits.js';
export * from './gauntlet/decisions.js';
export * from './gauntlet/dispatch.js';
export * from './gauntlet/escalation.js';
export * from './gauntlet/evidence.js';
export * from './gauntlet/history.js';
export * from './gauntlet/human-stop.js';
export * from './gauntlet/ledger.js';
export * from './gauntlet/leg-entries.js';
export * from './gauntlet/reference-child.js';
export * from './gauntlet/repair.js';
export * from './gauntlet/rules.js';
export * from './gauntlet/seed.js';
export * from './gauntlet/spec.js';
export * from './gauntlet/stagnation.js';
export * from './gauntlet/targeting.js';
export * from './gauntlet/types.js';
export * from './gauntlet/unreachable.js';
export * from './gauntlet/validate.js';
export * from './gauntlet/verify.js';
export * from './loop-protocol/index.js';
