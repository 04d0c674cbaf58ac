import { renderCheckCommand } from './check-command.js';
import { assertFrozenRunContract, type RunContract } from './run-contract.js';

/**
 * Renders the frozen run contract as the text echoed before the first mutation: the invariant,
 * every check with its exact command and pass criterion, the bounded scope and the patch budget.
 *
 * @param contract a frozen contract
 * @returns multi-line text ending with a newline
 * @throws UnfrozenContractError for a value not created by `freezeRunContract`
 */
export function renderRunContract(contract: RunContract): string {
  assertFrozenRunContract(contract);
  const lines = [
    'Frozen run contract (no check may be added, removed, weakened or replaced after this point)',
    `invariant: ${contract.invariant.statement}`,
    `outside the happy path: ${contract.invariant.offHappyPath}`,
    `checks (${contract.checks.length}):`,
    ...contract.checks.map(
      (check) =>
        `  - ${check.name} [${check.role}]: ${renderCheckCommand(check.command)}  (pass: exit code ${check.pass.exitCode}; any other exit code fails)`,
    ),
    'scope (changes outside it are scope widening):',
    ...contract.scope.map((path) => `  - ${path}`),
    `patch budget: ${contract.budget} candidate patch${contract.budget === 1 ? '' : 'es'} (each attempt spends one unit, kept or reverted)`,
  ];
  return `${lines.join('\n')}\n`;
}
