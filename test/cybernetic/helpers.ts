import type { CheckExecution, CheckOutcome, RunContract, RunRecord } from '../../src/cybernetic/index.js';
import { freezeRunContract, recordRun } from '../../src/cybernetic/index.js';

/** A request with the invariant check plus `unit` and `lint` existing checks. */
export function request(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    invariant: {
      statement: 'after an index rebuild every stored key is still found',
      offHappyPath: 'index recovery after a crash mid-rebuild',
      check: { command: ['node', 'scripts/check-index.js', '--after-rebuild'] },
    },
    budget: 5,
    scope: ['src/index', 'src/store.ts'],
    existingChecks: [
      { name: 'unit', command: 'npm test' },
      { name: 'lint', command: ['npx', 'biome', 'check', '.'] },
    ],
    ...overrides,
  };
}

/** A frozen contract; fails the test when the request is refused. */
export function contractOf(overrides: Record<string, unknown> = {}): RunContract {
  const frozen = freezeRunContract(request(overrides));
  if (!frozen.ok) throw new Error(`fixture request refused: ${JSON.stringify(frozen.record.findings)}`);
  return frozen.contract;
}

/** Executions giving each named check the outcome; unnamed checks pass. `sig` varies failure signatures. */
export function executions(
  contract: RunContract,
  outcomes: Record<string, CheckOutcome>,
  sig = 's',
): Record<string, CheckExecution> {
  const out: Record<string, CheckExecution> = {};
  for (const check of contract.checks) {
    const outcome = outcomes[check.name] ?? 'passed';
    out[check.name] =
      outcome === 'passed'
        ? { kind: 'exited', exitCode: check.pass.exitCode }
        : outcome === 'failed'
          ? { kind: 'exited', exitCode: 1, signature: `${check.name}:${sig}` }
          : { kind: 'not-executed', reason: 'program not found' };
  }
  return out;
}

/** A run where the listed checks fail (with signature `sig`) and the rest pass. */
export function runFailing(
  contract: RunContract,
  run: number,
  failing: readonly string[],
  sig = 's',
): RunRecord {
  return recordRun(
    contract,
    run,
    executions(contract, Object.fromEntries(failing.map((name) => [name, 'failed' as const])), sig),
  );
}
