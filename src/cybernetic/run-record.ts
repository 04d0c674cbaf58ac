import { type CheckExecution, type CheckResult, judgeCheck } from './check.js';
import { CheckSetMismatchError, InvalidCheckExecutionError } from './errors.js';
import { assertFrozenRunContract, type RunContract } from './run-contract.js';

/**
 * One full run of the frozen check set. Run 0 is the pre-mutation baseline; run k (k >= 1) is
 * the run after candidate patch k.
 *
 * - `failingSet`: names of the checks that did not pass (failed or unavailable), sorted.
 * - `failureFingerprint`: canonical text of every non-passing check's name, outcome, exit code or
 *   signal/reason, and failure signature. Two runs fail equivalently exactly when their
 *   fingerprints are equal (which implies equal failing sets); `[]` when everything passed.
 */
export interface RunRecord {
  readonly run: number;
  /** One result per frozen check, in contract order. */
  readonly results: readonly CheckResult[];
  readonly failingSet: readonly string[];
  readonly failureFingerprint: string;
}

/**
 * Judges one full run of the frozen check set.
 *
 * @param contract the frozen contract
 * @param run 0 for the baseline, k for the run after candidate k
 * @param executions what the host observed, keyed by check name: exactly one per frozen check
 * @returns the run record
 * @throws CheckSetMismatchError when a frozen check has no execution or an execution names a
 *   check outside the contract; InvalidCheckExecutionError for a malformed execution or run
 *   number; UnfrozenContractError for a contract not created by `freezeRunContract`
 */
export function recordRun(
  contract: RunContract,
  run: number,
  executions: Readonly<Record<string, CheckExecution>>,
): RunRecord {
  assertFrozenRunContract(contract);
  if (!Number.isSafeInteger(run) || run < 0)
    throw new InvalidCheckExecutionError('(run)', `run number ${run} must be a whole number >= 0`);
  const names = new Set(contract.checks.map((check) => check.name));
  const given = Object.keys(executions);
  const missing = [...names].filter((name) => !Object.hasOwn(executions, name));
  const unexpected = given.filter((name) => !names.has(name));
  if (missing.length > 0 || unexpected.length > 0) throw new CheckSetMismatchError(missing, unexpected);
  const results = contract.checks.map((check) => judgeCheck(check, executions[check.name] as CheckExecution));
  return Object.freeze({ run, ...summarizeResults(results) });
}

/**
 * The failing set and failure fingerprint of a list of results (see {@link RunRecord}).
 *
 * @param results one result per check
 */
export function summarizeResults(results: readonly CheckResult[]): {
  results: readonly CheckResult[];
  failingSet: readonly string[];
  failureFingerprint: string;
} {
  const failing = results
    .filter((result) => result.outcome !== 'passed')
    .sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return {
    results: Object.freeze([...results]),
    failingSet: Object.freeze(failing.map((result) => result.name)),
    failureFingerprint: JSON.stringify(
      failing.map((result) => [
        result.name,
        result.outcome,
        result.exitCode,
        result.detail,
        result.signature,
      ]),
    ),
  };
}

/** Whether every frozen check passed in this run. */
export function allChecksPass(record: RunRecord): boolean {
  return record.results.every((result) => result.outcome === 'passed');
}

/** Names of the checks that could not be executed in this run, in contract order. */
export function unavailableChecks(record: RunRecord): string[] {
  return record.results.filter((result) => result.outcome === 'unavailable').map((result) => result.name);
}

/** Whether two runs have the same failing set. */
export function sameFailingSet(a: RunRecord, b: RunRecord): boolean {
  return (
    a.failingSet.length === b.failingSet.length && a.failingSet.every((name, i) => name === b.failingSet[i])
  );
}

/**
 * Whether two runs fail equivalently: the same failing set and the same failure fingerprint
 * (same outcome, exit code or signal, and failure signature for every non-passing check).
 */
export function equivalentFailure(a: RunRecord, b: RunRecord): boolean {
  return sameFailingSet(a, b) && a.failureFingerprint === b.failureFingerprint;
}
