import { beforeEach, describe, expect, it } from 'vitest';
import { deriveScope, scopeCovers } from '../../src/cybernetic/derive-scope.js';
import type { RunContract } from '../../src/cybernetic/index.js';
import {
  BudgetExceededError,
  beginRun,
  findOscillation,
  InvalidCandidateError,
  parseCheckCommand,
  RunStoppedError,
  STOP_CLASSES,
  selectCandidateTarget,
  UnfrozenContractError,
  UnsupportedConclusionError,
} from '../../src/cybernetic/index.js';
import { contractOf, runFailing } from './helpers.js';

// docs/cybernetic-loop.md: procedure steps 5-9 and the stop classes of a non-converged record.
let contract: RunContract;
// Built in each test, not while the file loads, so that Stryker's per-test coverage sees it.
beforeEach(() => {
  contract = contractOf({ budget: 5 });
});

describe('cybernetic decisions: edges', () => {
  it('names every stop class, checkpoint first (it is decided before any run)', () => {
    expect(STOP_CLASSES).toEqual([
      'checkpoint-unavailable',
      'scope-widening',
      'unavailable-check',
      'repeated-equivalent-failure',
      'oscillation',
      'budget-exhaustion',
    ]);
  });

  it('the next target is the first check, in contract order, that does not pass in the retained state', () => {
    const baseline = runFailing(contract, 0, ['unit', 'lint']);
    expect(selectCandidateTarget(beginRun(contract, baseline))).toBe('unit');
    expect(selectCandidateTarget(beginRun(contract, runFailing(contract, 0, ['lint', 'invariant'])))).toBe(
      'invariant',
    );
    expect(selectCandidateTarget(beginRun(contract, runFailing(contract, 0, [])))).toBeNull();
  });

  it('oscillation names the earliest state it returned to when the run passed through others', () => {
    const r0 = runFailing(contract, 0, ['invariant']);
    const r1 = runFailing(contract, 1, ['unit']);
    const r2 = runFailing(contract, 2, ['lint']);
    const back = runFailing(contract, 3, ['invariant']);
    const found = findOscillation([r0, r1, r2], r2, back);
    expect(found?.returnedTo.run).toBe(0);
    expect(found?.movedAwayIn.run).toBe(1);
  });

  it('a command list whose program is blank names no program', () => {
    expect(parseCheckCommand([' ', 'x'])).toMatchObject({
      ok: false,
      code: 'cybernetic.check.command-empty',
    });
    expect(parseCheckCommand('')).toMatchObject({ ok: false, code: 'cybernetic.check.command-empty' });
  });

  it('command refusals say why', () => {
    const reason = (raw: unknown) => {
      const parsed = parseCheckCommand(raw);
      return parsed.ok ? '' : parsed.reason;
    };
    expect(reason('a | b')).toMatch(/"a \| b".*shell/);
    expect(reason(['a', 1])).toMatch(/string/);
    expect(reason(7)).toMatch(/string or a list of strings/);
    expect(reason([])).toMatch(/no program/);
  });

  it('a scope covers a file when any of its entries does', () => {
    expect(scopeCovers(['lib', 'src'], 'src/a.ts')).toBe(true);
    expect(scopeCovers(['lib', 'src'], 'test/a.ts')).toBe(false);
    const derivation = deriveScope(
      [{ name: 'unit', output: 'src/a.ts:3 failed' }],
      ['src/a.ts', 'src/b.ts'],
      ['src'],
    );
    expect(derivation.declared).toEqual(['src']);
    expect(derivation.derived).toEqual(['src/a.ts']);
    expect(derivation.wider).toEqual(['src/b.ts']);
  });

  it('protocol errors carry their code and the fact they refuse', () => {
    const unfrozen = new UnfrozenContractError();
    expect(unfrozen.code).toBe('cybernetic.contract-not-frozen');
    expect(unfrozen.message).toMatch(/freezeRunContract/);
    const stopped = new RunStoppedError('restored');
    expect(stopped.code).toBe('cybernetic.run-stopped');
    expect(stopped.message).toMatch(/"restored"/);
    const spent = new BudgetExceededError(3);
    expect(spent.code).toBe('cybernetic.budget-exceeded');
    expect(spent.message).toMatch(/budget of 3 is spent/);
    const invalid = new InvalidCandidateError('aims at a passing check');
    expect(invalid.code).toBe('cybernetic.candidate-invalid');
    expect(invalid.message).toMatch(/rejected: aims at a passing check/);
    const unsupported = new UnsupportedConclusionError('restored', 'a check still fails');
    expect(unsupported.code).toBe('cybernetic.conclusion-unsupported');
    expect(unsupported.message).toMatch(/"restored": a check still fails/);
  });
});
