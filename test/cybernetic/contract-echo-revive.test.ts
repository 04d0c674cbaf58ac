import { describe, expect, it } from 'vitest';
import {
  type RunContract,
  renderRunContract,
  reviveRunContract,
  summarizeResults,
  UnfrozenContractError,
  validateRunInput,
} from '../../src/cybernetic/index.js';
import { isFrozenRunContract } from '../../src/cybernetic/run-contract.js';
import { contractOf, request as requestOf, runFailing } from './helpers.js';

// docs/cybernetic-loop.md, step 3: the frozen contract is echoed before the first mutation (the
// invariant, every check with its exact command and pass criterion, the scope, the budget), and a
// contract that went through JSON is frozen again only when it re-freezes to the same contract.
// The request of helpers.ts: checks invariant, unit (`npm test`), lint; scope src/index, src/store.ts.

describe('the echo of a frozen contract', () => {
  it('shows the invariant, each check with its command and pass exit code, the scope and the budget', () => {
    const lines = renderRunContract(contractOf({ budget: 5 })).split('\n');
    expect(lines[0]).toMatch(/frozen/i);
    expect(lines).toContain('invariant: after an index rebuild every stored key is still found');
    expect(lines).toContain('outside the happy path: index recovery after a crash mid-rebuild');
    expect(lines).toContain('checks (3):');
    const checkLines = lines.filter((line) => line.startsWith('  - ') && line.includes('exit code'));
    expect(checkLines.map((line) => line.slice(4, line.indexOf(' ', 4)))).toEqual([
      'invariant',
      'unit',
      'lint',
    ]);
    expect(checkLines[0]).toContain('node scripts/check-index.js --after-rebuild');
    expect(checkLines[1]).toContain('npm test');
    for (const line of checkLines) expect(line).toMatch(/exit code 0\b/);
    const scopeAt = lines.findIndex((line) => /^scope\b/.test(line));
    expect(scopeAt).toBeGreaterThan(0);
    expect(lines.slice(scopeAt + 1, scopeAt + 3)).toEqual(['  - src/index', '  - src/store.ts']);
    expect(lines.at(-2)).toMatch(/^patch budget: 5 candidate patches\b/);
    expect(lines.at(-1)).toBe(''); // the text ends with a newline
  });

  it('says one candidate patch, not patches, for a budget of one', () => {
    const text = renderRunContract(contractOf({ budget: 1 }));
    expect(text).toMatch(/\npatch budget: 1 candidate patch \(/);
  });
});

describe('the failing set of a run', () => {
  it('is sorted by name, whatever the order of the checks in the contract', () => {
    // Contract order is invariant, unit, lint; by name it is invariant, lint, unit.
    expect(runFailing(contractOf(), 0, ['unit', 'lint']).failingSet).toEqual(['lint', 'unit']);
    expect(runFailing(contractOf(), 0, ['lint', 'invariant', 'unit']).failingSet).toEqual([
      'invariant',
      'lint',
      'unit',
    ]);
    const passed = { name: 'b', outcome: 'passed' as const, exitCode: 0 };
    expect(
      summarizeResults([
        { name: 'c', outcome: 'failed', exitCode: 1 },
        passed,
        { name: 'a', outcome: 'unavailable', exitCode: null },
      ] as never).failingSet,
    ).toEqual(['a', 'c']);
  });
});

describe('reviving a contract', () => {
  it('returns a frozen contract itself, and freezes its JSON round trip again to an equal contract', () => {
    const contract = contractOf();
    expect(reviveRunContract(contract)).toBe(contract);
    const json = JSON.parse(JSON.stringify(contract)) as RunContract;
    expect(isFrozenRunContract(json)).toBe(false);
    const revived = reviveRunContract(json);
    expect(isFrozenRunContract(revived)).toBe(true);
    expect(revived).toEqual(contract);
  });

  it('refuses, with UnfrozenContractError, anything that does not re-freeze to the same contract', () => {
    const json = JSON.parse(JSON.stringify(contractOf())) as Record<string, unknown>;
    const checks = json.checks as Record<string, unknown>[];
    const refused: unknown[] = [
      null,
      'contract',
      [json],
      { ...json, checks: 'invariant' },
      { ...json, checks: [checks[0], { ...checks[1], command: 'npm test' }] },
      { ...json, checks: [checks[0], { ...checks[1], pass: 0 }] },
      { ...json, checks: [checks[0], { name: 'unit', command: ['npm', 'test'] }] },
      { ...json, checks: undefined },
      { ...json, invariant: 'an invariant' },
      { ...json, scope: 'src/index' },
      { ...json, scope: ['./src/index', 'src/store.ts'] },
      { ...json, extra: true },
      { ...json, budget: 0 },
    ];
    for (const value of refused)
      expect(() => reviveRunContract(value as RunContract), JSON.stringify(value)).toThrow(
        UnfrozenContractError,
      );
  });
});

describe('the request (docs/cybernetic-loop.md, step 1)', () => {
  it('may leave out the existing checks: the contract then holds the invariant check alone', () => {
    const { existingChecks: _, ...request } = requestOf();
    const result = validateRunInput(request);
    expect(result.ok).toBe(true);
    if (result.ok) expect(result.input.checks.map((check) => check.name)).toEqual(['invariant']);
  });

  it('refuses an invariant that is not an object with a finding whose reason names the invariant', () => {
    const result = validateRunInput({ ...requestOf(), invariant: 'keys survive' });
    expect(result.ok).toBe(false);
    if (!result.ok) {
      expect(result.findings.map((f) => f.code)).toEqual(['cybernetic.invariant.not-object']);
      expect(result.findings[0]?.reason).toMatch(/invariant/);
    }
  });
});
