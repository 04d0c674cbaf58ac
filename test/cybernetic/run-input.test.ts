import { describe, expect, it } from 'vitest';
import { freezeRunContract, validateRunInput } from '../../src/cybernetic/index.js';
import { request } from './helpers.js';

function codesOf(raw: unknown): string[] {
  const result = validateRunInput(raw);
  return result.ok ? [] : result.findings.map((f) => f.code);
}

describe('validateRunInput: the invariant', () => {
  it('accepts one invariant with a falsifying check, a positive budget and a scope', () => {
    const result = validateRunInput(request());
    expect(result.ok).toBe(true);
    if (!result.ok) return;
    expect(result.input.checks.map((c) => c.name)).toEqual(['invariant', 'unit', 'lint']);
    expect(result.input.checks[0]?.role).toBe('invariant');
    expect(result.input.checks[1]?.command).toEqual(['npm', 'test']);
    expect(result.input.checks.every((c) => c.pass.exitCode === 0)).toBe(true);
  });

  it('refuses a request with no invariant', () => {
    expect(codesOf(request({ invariant: undefined }))).toContain('cybernetic.invariant.missing');
  });

  it('refuses two invariants and zero invariants given as a list, but accepts a list of one', () => {
    const one = (request().invariant as object) ?? {};
    expect(codesOf(request({ invariant: [one, one] }))).toContain('cybernetic.invariant.not-singular');
    expect(codesOf(request({ invariant: [] }))).toContain('cybernetic.invariant.not-singular');
    expect(validateRunInput(request({ invariant: [one] })).ok).toBe(true);
  });

  it('refuses an invariant without a check or with an empty command (not falsifiable)', () => {
    const base = request().invariant as Record<string, unknown>;
    expect(codesOf(request({ invariant: { ...base, check: undefined } }))).toContain(
      'cybernetic.invariant.not-falsifiable',
    );
    expect(codesOf(request({ invariant: { ...base, check: {} } }))).toContain(
      'cybernetic.invariant.not-falsifiable',
    );
    expect(codesOf(request({ invariant: { ...base, check: { command: '   ' } } }))).toContain(
      'cybernetic.check.command-empty',
    );
    expect(codesOf(request({ invariant: { ...base, check: { command: [] } } }))).toContain(
      'cybernetic.check.command-empty',
    );
  });

  it('refuses an invariant with no statement or no off-happy-path situation', () => {
    const base = request().invariant as Record<string, unknown>;
    expect(codesOf(request({ invariant: { ...base, statement: ' ' } }))).toContain(
      'cybernetic.invariant.statement-missing',
    );
    expect(codesOf(request({ invariant: { ...base, offHappyPath: undefined } }))).toContain(
      'cybernetic.invariant.happy-path',
    );
  });

  it('refuses a command string with shell syntax and asks for an argument list', () => {
    const codes = codesOf(request({ existingChecks: [{ name: 'unit', command: 'npm test | tee log' }] }));
    expect(codes).toContain('cybernetic.check.command-needs-argv');
    expect(codesOf(request({ existingChecks: [{ name: 'unit', command: "echo 'a b'" }] }))).toContain(
      'cybernetic.check.command-needs-argv',
    );
  });

  it('refuses duplicate, missing and malformed check names and bad pass exit codes', () => {
    expect(
      codesOf(
        request({
          existingChecks: [
            { name: 'unit', command: 'a' },
            { name: 'unit', command: 'b' },
          ],
        }),
      ),
    ).toContain('cybernetic.check.name-duplicate');
    expect(codesOf(request({ existingChecks: [{ name: 'invariant', command: 'a' }] }))).toContain(
      'cybernetic.check.name-duplicate',
    );
    expect(codesOf(request({ existingChecks: [{ command: 'a' }] }))).toContain(
      'cybernetic.check.name-missing',
    );
    expect(codesOf(request({ existingChecks: [{ name: 'has space', command: 'a' }] }))).toContain(
      'cybernetic.check.name-invalid',
    );
    for (const passExitCode of [-1, 256, 1.5, '0'])
      expect(codesOf(request({ existingChecks: [{ name: 'x', command: 'a', passExitCode }] }))).toContain(
        'cybernetic.check.pass-exit-code-invalid',
      );
  });

  it('keeps a given pass exit code', () => {
    const result = validateRunInput(
      request({ existingChecks: [{ name: 'x', command: 'a', passExitCode: 3 }] }),
    );
    expect(result.ok && result.input.checks[1]?.pass).toEqual({ kind: 'exit-code', exitCode: 3 });
  });
});

describe('validateRunInput: the patch budget', () => {
  const cases: [unknown, string][] = [
    [undefined, 'cybernetic.budget.missing'],
    ['5', 'cybernetic.budget.not-a-number'],
    [Number.NaN, 'cybernetic.budget.not-a-number'],
    [Number.POSITIVE_INFINITY, 'cybernetic.budget.not-finite'],
    [2.5, 'cybernetic.budget.not-integer'],
    [2 ** 60, 'cybernetic.budget.not-integer'],
    [0, 'cybernetic.budget.not-positive'],
    [-3, 'cybernetic.budget.not-positive'],
  ];
  for (const [budget, code] of cases)
    it(`refuses budget ${String(budget)} as ${code}`, () => {
      expect(codesOf(request({ budget }))).toEqual([code]);
    });
});

describe('validateRunInput: the scope', () => {
  const cases: [unknown, string][] = [
    [undefined, 'cybernetic.scope.missing'],
    ['src', 'cybernetic.scope.not-list'],
    [[], 'cybernetic.scope.empty'],
    [['/etc/passwd'], 'cybernetic.scope.path-absolute'],
    [['C:/repo/src'], 'cybernetic.scope.path-absolute'],
    [['src/../../x'], 'cybernetic.scope.path-parent'],
    [['.'], 'cybernetic.scope.path-whole-repository'],
    [['./'], 'cybernetic.scope.path-whole-repository'],
    [['.git'], 'cybernetic.scope.path-git-dir'],
    [['./.git/hooks'], 'cybernetic.scope.path-git-dir'],
    [['vendor/lib/.GIT'], 'cybernetic.scope.path-git-dir'],
    [[' src'], 'cybernetic.scope.path-whitespace'],
    [['src\\a.ts'], 'cybernetic.scope.path-backslash'],
    [[''], 'cybernetic.scope.path-empty'],
    [[7], 'cybernetic.scope.path-invalid'],
  ];
  for (const [scope, code] of cases)
    it(`refuses scope ${JSON.stringify(scope)} as ${code}`, () => {
      expect(codesOf(request({ scope }))).toEqual([code]);
    });

  it('normalizes scope paths: ./ and // removed, duplicates and nested entries folded, sorted', () => {
    const result = validateRunInput(
      request({ scope: ['./src//store.ts', 'src/index/', 'src/index/a.ts', 'docs'] }),
    );
    expect(result.ok && result.input.scope).toEqual(['docs', 'src/index', 'src/store.ts']);
  });
});

describe('validateRunInput: the request as a whole', () => {
  it('refuses non-objects and unknown fields', () => {
    expect(codesOf(null)).toEqual(['cybernetic.input.not-object']);
    expect(codesOf([])).toEqual(['cybernetic.input.not-object']);
    expect(codesOf(request({ budgett: 3 }))).toContain('cybernetic.input.unknown-field');
  });

  it('reports every problem at once', () => {
    const codes = codesOf(request({ budget: 0, scope: ['/abs'], invariant: [] }));
    expect(codes).toEqual(
      expect.arrayContaining([
        'cybernetic.budget.not-positive',
        'cybernetic.scope.path-absolute',
        'cybernetic.invariant.not-singular',
      ]),
    );
  });

  it('turns a refused request into the invalid-input terminal record', () => {
    const frozen = freezeRunContract(request({ budget: -1 }));
    expect(frozen.ok).toBe(false);
    if (frozen.ok) return;
    expect(frozen.record.status).toBe('invalid-input');
    expect(frozen.record.findings.map((f) => f.code)).toEqual(['cybernetic.budget.not-positive']);
  });
});
