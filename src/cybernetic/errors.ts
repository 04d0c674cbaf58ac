import { LoopchartError } from '../common/errors.js';

/**
 * Errors a host gets when it drives a cybernetic run against the protocol: results that do not
 * match the frozen check set, a candidate after the run stopped, a contract that was not frozen.
 * Bad caller *input* is never thrown: it becomes an `invalid-input` terminal record instead.
 */
export class CyberneticProtocolError extends LoopchartError {}

/** A value used as a run contract that did not come from `freezeRunContract`. */
export class UnfrozenContractError extends CyberneticProtocolError {
  constructor() {
    super(
      'cybernetic.contract-not-frozen',
      'the run contract was not created by freezeRunContract (contracts cannot be built or edited by hand)',
    );
  }
}

/** Check results whose check names differ from the frozen check set (a check added, removed or replaced). */
export class CheckSetMismatchError extends CyberneticProtocolError {
  /** Check names the frozen contract has but the results lack. */
  readonly missing: readonly string[];
  /** Check names the results have but the frozen contract does not. */
  readonly unexpected: readonly string[];

  constructor(missing: readonly string[], unexpected: readonly string[]) {
    const parts: string[] = [];
    if (missing.length > 0) parts.push(`missing ${missing.join(', ')}`);
    if (unexpected.length > 0) parts.push(`not in the frozen contract: ${unexpected.join(', ')}`);
    if (parts.length === 0) parts.push('check order differs from the frozen contract');
    super(
      'cybernetic.check-set-mismatch',
      `check results do not match the frozen check set (${parts.join('; ')})`,
    );
    this.missing = missing;
    this.unexpected = unexpected;
  }
}

/** A check execution report that is not well formed (e.g. a fractional exit code). */
export class InvalidCheckExecutionError extends CyberneticProtocolError {
  constructor(check: string, reason: string) {
    super('cybernetic.check-execution-invalid', `execution of check "${check}" is malformed: ${reason}`);
  }
}

/** A candidate was offered after the run already reached a verdict other than `continue`. */
export class RunStoppedError extends CyberneticProtocolError {
  constructor(verdict: string) {
    super(
      'cybernetic.run-stopped',
      `the run already ended with "${verdict}"; no further candidate may be applied`,
    );
  }
}

/** A candidate was offered with no patch budget left. */
export class BudgetExceededError extends CyberneticProtocolError {
  constructor(budget: number) {
    super(
      'cybernetic.budget-exceeded',
      `the patch budget of ${budget} is spent; no further candidate may be applied`,
    );
  }
}

/** A candidate patch that is malformed or does not aim at a currently failing check. */
export class InvalidCandidateError extends CyberneticProtocolError {
  constructor(reason: string) {
    super('cybernetic.candidate-invalid', `candidate patch rejected: ${reason}`);
  }
}

/** A terminal record was requested that the observed run does not support. */
export class UnsupportedConclusionError extends CyberneticProtocolError {
  constructor(requested: string, reason: string) {
    super('cybernetic.conclusion-unsupported', `cannot conclude "${requested}": ${reason}`);
  }
}
