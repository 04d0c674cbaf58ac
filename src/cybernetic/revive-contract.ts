import type { Check } from './check.js';
import { UnfrozenContractError } from './errors.js';
import { freezeRunContract, isFrozenRunContract, type RunContract } from './run-contract.js';

/**
 * Returns a frozen contract for a value that has the shape of one. A contract that went through
 * JSON (a persisted machine snapshot, a transcript) is a plain object and no longer registered
 * as frozen; it is frozen again from its own fields, and the result must equal the value field
 * for field, so nothing can be added, removed or replaced on the way.
 *
 * @param value a frozen contract, or its JSON round trip
 * @returns the value itself when it is frozen, else an equal freshly frozen contract
 * @throws UnfrozenContractError when the value does not re-freeze to an equal contract
 */
export function reviveRunContract(value: RunContract): RunContract {
  if (isFrozenRunContract(value)) return value;
  // Read it as untrusted JSON: any field may be missing or of another type after a careless round trip.
  if (!isObject(value)) throw new UnfrozenContractError();
  const shape = value as Partial<RunContract>;
  if (shape.checks !== undefined && !(Array.isArray(shape.checks) && shape.checks.every(isCheckShape)))
    throw new UnfrozenContractError();
  if (shape.invariant !== undefined && !isObject(shape.invariant)) throw new UnfrozenContractError();
  if (shape.scope !== undefined && !Array.isArray(shape.scope)) throw new UnfrozenContractError();
  const [invariantCheck, ...existing] = shape.checks ?? [];
  const toRequest = (check: Check) => ({
    name: check.name,
    command: [...check.command],
    passExitCode: check.pass.exitCode,
  });
  const frozen = freezeRunContract({
    invariant: {
      statement: shape.invariant?.statement,
      offHappyPath: shape.invariant?.offHappyPath,
      check: invariantCheck ? toRequest(invariantCheck) : undefined,
    },
    budget: shape.budget,
    scope: shape.scope === undefined ? undefined : [...shape.scope],
    existingChecks: existing.map(toRequest),
  });
  if (!frozen.ok || JSON.stringify(frozen.contract) !== JSON.stringify(value))
    throw new UnfrozenContractError();
  return frozen.contract;
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

/** Enough of a check to rebuild its request; the re-freeze judges the rest. */
function isCheckShape(value: unknown): value is Check {
  return isObject(value) && Array.isArray(value.command) && isObject(value.pass);
}
