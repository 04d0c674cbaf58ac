import { describe, expect, it } from 'vitest';
import {
  freezeRunContract,
  isFrozenRunContract,
  type RunContract,
  recordRun,
  renderRunContract,
  runContractToRequest,
  UnfrozenContractError,
} from '../../src/cybernetic/index.js';
import { contractOf, executions } from './helpers.js';

describe('the frozen run contract', () => {
  it('holds the invariant check first, then the existing checks, with scope and budget', () => {
    const contract = contractOf();
    expect(contract.checks.map((c) => [c.name, c.role])).toEqual([
      ['invariant', 'invariant'],
      ['unit', 'existing'],
      ['lint', 'existing'],
    ]);
    expect(contract.scope).toEqual(['src/index', 'src/store.ts']);
    expect(contract.budget).toBe(5);
  });

  it('cannot gain, lose or swap a check, or change scope or budget, after freezing', () => {
    const contract = contractOf();
    const checks = contract.checks as unknown as unknown[];
    expect(() => checks.push({ name: 'extra' })).toThrow(TypeError);
    expect(() => checks.pop()).toThrow(TypeError);
    expect(() => {
      checks[1] = { name: 'weaker' };
    }).toThrow(TypeError);
    expect(() => {
      (contract.checks[0] as unknown as { command: string[] }).command = ['true'];
    }).toThrow(TypeError);
    expect(() => {
      (contract.checks[0]?.pass as { exitCode: number }).exitCode = 1;
    }).toThrow(TypeError);
    expect(() => {
      (contract as { budget: number }).budget = 99;
    }).toThrow(TypeError);
    expect(() => (contract.scope as string[]).push('.')).toThrow(TypeError);
    expect(contract.checks).toHaveLength(3);
  });

  it('refuses a look-alike contract that was not frozen by freezeRunContract', () => {
    const contract = contractOf();
    const copy = { ...contract, checks: contract.checks.slice(0, 2) } as RunContract;
    expect(isFrozenRunContract(copy)).toBe(false);
    expect(isFrozenRunContract(contract)).toBe(true);
    expect(() => renderRunContract(copy)).toThrow(UnfrozenContractError);
    expect(() => recordRun(copy, 0, executions(contract, {}))).toThrow(UnfrozenContractError);
  });

  it('echoes every check with its exact command and pass criterion, the scope and the budget', () => {
    const frozen = freezeRunContract({
      invariant: {
        statement: 'peers converge after a partition heals',
        offHappyPath: 'peer-to-peer partition',
        check: { name: 'converge', command: ['node', 'sim.js', '--partition', 'a b'] },
      },
      budget: 1,
      scope: ['lib/sync.ts'],
      existingChecks: [{ name: 'types', command: 'npx tsc --noEmit', passExitCode: 0 }],
    });
    if (!frozen.ok) throw new Error('refused');
    const text = renderRunContract(frozen.contract);
    expect(text).toContain('peers converge after a partition heals');
    expect(text).toContain('peer-to-peer partition');
    expect(text).toContain("converge [invariant]: node sim.js --partition 'a b'");
    expect(text).toContain('types [existing]: npx tsc --noEmit');
    expect(text.match(/pass: exit code 0/g)).toHaveLength(2);
    expect(text).toContain('  - lib/sync.ts');
    expect(text).toContain('patch budget: 1 candidate patch ');
  });

  it('re-freezes from its request form to an equal contract (persist and resume)', () => {
    const contract = contractOf();
    const again = freezeRunContract(runContractToRequest(contract));
    expect(again.ok).toBe(true);
    if (!again.ok) return;
    expect(again.contract).toEqual(contract);
    expect(again.contract).not.toBe(contract);
  });
});
