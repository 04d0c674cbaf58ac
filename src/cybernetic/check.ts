import type { CheckCommand } from './check-command.js';
import { InvalidCheckExecutionError } from './errors.js';

/** When a check passes. Only exit codes are judged; the default is exit code 0. */
export interface PassCriterion {
  readonly kind: 'exit-code';
  /** The exit code that means pass; every other exit code means fail. */
  readonly exitCode: number;
}

/** Where a frozen check comes from: the caller's invariant or the repository's existing checks. */
export type CheckRole = 'invariant' | 'existing';

/** One member of the frozen executable check set. */
export interface Check {
  /** Unique name within the check set; results and fingerprints refer to checks by name. */
  readonly name: string;
  readonly role: CheckRole;
  /** The exact command, run without a shell. */
  readonly command: CheckCommand;
  readonly pass: PassCriterion;
}

/** Result of one check in one run. `unavailable` means the check could not be executed at all. */
export type CheckOutcome = 'passed' | 'failed' | 'unavailable';

/**
 * What the host observed when it ran one check. `signature` is the host's digest of the
 * normalized failure output (e.g. a hash of the failing test names); equal signatures mean the
 * same failure, so the host decides how much detail makes two failures different.
 */
export type CheckExecution =
  /** The process ran and exited with this code. */
  | { readonly kind: 'exited'; readonly exitCode: number; readonly signature?: string }
  /** The process ran and was ended by a signal (e.g. killed on timeout): a failure of the check. */
  | { readonly kind: 'terminated'; readonly signal: string; readonly signature?: string }
  /** The process could not be started or compiled (missing program, permission denied). */
  | { readonly kind: 'not-executed'; readonly reason: string };

/** One check's judged result in one run. */
export interface CheckResult {
  readonly name: string;
  readonly outcome: CheckOutcome;
  /** Exit code when the process exited, else null. */
  readonly exitCode: number | null;
  /** Signal name when terminated, reason when unavailable, else null. */
  readonly detail: string | null;
  /** The host's failure signature for a non-passing check, else null. */
  readonly signature: string | null;
}

/**
 * Judges one execution against the check's pass criterion.
 *
 * @param check the frozen check
 * @param execution what the host observed
 * @returns `passed` when the exit code matches the criterion, `failed` for any other exit code or
 *   a termination by signal, `unavailable` when the check could not be executed
 * @throws InvalidCheckExecutionError when the exit code is not an integer or a reason/signal is empty
 */
export function judgeCheck(check: Check, execution: CheckExecution): CheckResult {
  switch (execution.kind) {
    case 'exited': {
      if (!Number.isInteger(execution.exitCode))
        throw new InvalidCheckExecutionError(check.name, `exit code ${execution.exitCode} is not an integer`);
      const passed = execution.exitCode === check.pass.exitCode;
      return {
        name: check.name,
        outcome: passed ? 'passed' : 'failed',
        exitCode: execution.exitCode,
        detail: null,
        signature: passed ? null : (execution.signature ?? null),
      };
    }
    case 'terminated':
      if (execution.signal.trim() === '')
        throw new InvalidCheckExecutionError(check.name, 'a terminated check must name its signal');
      return {
        name: check.name,
        outcome: 'failed',
        exitCode: null,
        detail: execution.signal,
        signature: execution.signature ?? null,
      };
    case 'not-executed':
      if (execution.reason.trim() === '')
        throw new InvalidCheckExecutionError(
          check.name,
          'an unavailable check must say why it could not run',
        );
      return {
        name: check.name,
        outcome: 'unavailable',
        exitCode: null,
        detail: execution.reason,
        signature: null,
      };
  }
}
