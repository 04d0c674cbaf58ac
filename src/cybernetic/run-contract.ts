import type { Check } from './check.js';
import { UnfrozenContractError } from './errors.js';
import type { InvalidInputRecord } from './invalid-input.js';
import { type RunRequest, validateRunInput } from './run-input.js';
import type { Scope } from './scope.js';

/**
 * The frozen run contract: the complete executable check set (the invariant's check first, then
 * the repository's existing checks) with exact commands and pass criteria, the bounded scope and
 * the patch budget. It is echoed before the first mutation and never changes afterwards.
 *
 * Only {@link freezeRunContract} creates one. The value is deeply frozen (assignment throws in
 * strict mode), and every function that consumes a contract checks that it came from
 * `freezeRunContract`, so a copy with a check added, removed or replaced is refused.
 */
export interface RunContract {
  readonly invariant: { readonly statement: string; readonly offHappyPath: string };
  readonly checks: readonly Check[];
  readonly scope: Scope;
  readonly budget: number;
}

/** Outcome of {@link freezeRunContract}: the contract, or the `invalid-input` terminal record. */
export type FreezeResult =
  | { readonly ok: true; readonly contract: RunContract }
  | { readonly ok: false; readonly record: InvalidInputRecord };

const frozenContracts = new WeakSet<object>();

function deepFreeze<T>(value: T): T {
  if (typeof value === 'object' && value !== null && !Object.isFrozen(value)) {
    for (const inner of Object.values(value)) deepFreeze(inner);
    Object.freeze(value);
  }
  return value;
}

/**
 * Validates the caller's request and freezes it into the run contract. Nothing is mutated by
 * this step; a refused request yields the `invalid-input` terminal record with every finding.
 *
 * @param request the caller's request (see {@link RunRequest}); unknown shapes are findings
 * @returns the frozen contract, or `{ ok: false, record }` with `record.status === 'invalid-input'`
 */
export function freezeRunContract(request: RunRequest | unknown): FreezeResult {
  const validation = validateRunInput(request);
  if (!validation.ok)
    return { ok: false, record: deepFreeze({ status: 'invalid-input', findings: [...validation.findings] }) };
  const { invariant, checks, scope, budget } = validation.input;
  const contract: RunContract = deepFreeze({
    invariant: { ...invariant },
    checks: checks.map((check) => ({
      ...check,
      command: [...check.command],
      pass: { ...check.pass },
    })) as Check[],
    scope: [...scope],
    budget,
  });
  frozenContracts.add(contract);
  return { ok: true, contract };
}

/**
 * Whether a value is a contract created by {@link freezeRunContract} in this process.
 *
 * @param value anything
 */
export function isFrozenRunContract(value: unknown): value is RunContract {
  return typeof value === 'object' && value !== null && frozenContracts.has(value);
}

/**
 * Asserts that a value is a frozen run contract.
 *
 * @throws UnfrozenContractError when it was not created by {@link freezeRunContract}
 */
export function assertFrozenRunContract(value: unknown): asserts value is RunContract {
  if (!isFrozenRunContract(value)) throw new UnfrozenContractError();
}

/**
 * The contract as the request that freezes to an equal contract, for persisting a run and
 * re-freezing it on resume (`freezeRunContract(runContractToRequest(c))` has the same checks,
 * scope and budget as `c`).
 *
 * @param contract a frozen contract
 * @returns a plain JSON-safe request
 * @throws UnfrozenContractError for a value not created by {@link freezeRunContract}
 */
export function runContractToRequest(contract: RunContract): RunRequest {
  assertFrozenRunContract(contract);
  const [invariantCheck, ...existing] = contract.checks;
  const toRequest = (check: Check) => ({
    name: check.name,
    command: [...check.command],
    passExitCode: check.pass.exitCode,
  });
  return {
    invariant: {
      statement: contract.invariant.statement,
      offHappyPath: contract.invariant.offHappyPath,
      check: invariantCheck ? toRequest(invariantCheck) : { command: [] },
    },
    budget: contract.budget,
    scope: [...contract.scope],
    existingChecks: existing.map(toRequest),
  };
}

/**
 * Names of the frozen checks, in contract order.
 *
 * @param contract a frozen contract
 */
export function frozenCheckNames(contract: RunContract): string[] {
  return contract.checks.map((check) => check.name);
}
