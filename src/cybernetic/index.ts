/**
 * The cybernetic loop, pure: validate one falsifiable invariant and a finite patch budget, freeze
 * the run contract, judge check runs, keep or revert candidates, decide stop classes and build
 * terminal records. See docs/cybernetic-loop.md and docs/api/cybernetic.md.
 */

export * from './check.js';
export * from './check-command.js';
export * from './decide-after-run.js';
export * from './decide-candidate.js';
export * from './errors.js';
export * from './render-run-contract.js';
export * from './render-terminal-record.js';
export { reviveRunContract } from './revive-contract.js';
export * from './run-contract.js';
export * from './run-input.js';
export * from './run-record.js';
export * from './run-transcript.js';
export * from './scope.js';
export { failingInRetained, selectCandidateTarget } from './select-target.js';
export {
  isShellCheckCommand,
  SHELL_CHECK_PREFIX,
  SHELL_NOT_EXECUTED_EXIT_CODES,
  shellCheckCommand,
} from './shell-check.js';
export * from './stop-class.js';
export * from './terminal-record.js';
