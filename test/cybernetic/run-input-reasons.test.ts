import { describe, expect, it } from 'vitest';
import { validateRunInput } from '../../src/cybernetic/index.js';
import { request } from './helpers.js';

// The cybernetic loop's Inputs and Procedure step 1: exactly one falsifiable invariant outside the
// prior happy path, one finite positive-integer patch budget, a recorded scope. A refused request
// is `invalid-input`; each finding says what is wrong and quotes the value, so the caller can fix
// the request without reading the source.

function reasons(raw: unknown): { code: string; reason: string }[] {
  const result = validateRunInput(raw);
  return result.ok ? [] : result.findings.map(({ code, reason }) => ({ code, reason }));
}

function only(raw: unknown): { code: string; reason: string } {
  const found = reasons(raw);
  expect(found).toHaveLength(1);
  return found[0] as { code: string; reason: string };
}

describe('a refused invariant says why', () => {
  const invariant = request().invariant as Record<string, unknown>;

  it('none, several, or not an object', () => {
    expect(only(request({ invariant: undefined })).reason).toMatch(/no invariant; exactly one/);
    expect(only(request({ invariant: [invariant, invariant] })).reason).toMatch(
      /names 2 invariants; a cybernetic run restores exactly one/,
    );
    expect(only(request({ invariant: 'keys survive' })).reason).toMatch(/invariant must be an object/);
  });

  it('no statement, or no situation outside the happy path', () => {
    expect(only(request({ invariant: { ...invariant, statement: ' ' } })).reason).toMatch(
      /non-empty statement/,
    );
    const happy = only(request({ invariant: { ...invariant, offHappyPath: '' } }));
    expect(happy.code).toBe('cybernetic.invariant.happy-path');
    expect(happy.reason).toMatch(/outside the prior happy path/);
    expect(happy.reason).toMatch(/offHappyPath/);
  });

  it('no check, or a check without a command: nothing can falsify it', () => {
    const { check: _check, ...noCheck } = invariant;
    expect(only(request({ invariant: noCheck }))).toEqual({
      code: 'cybernetic.invariant.not-falsifiable',
      reason: expect.stringMatching(/no check, so nothing can falsify/),
    });
    expect(only(request({ invariant: { ...invariant, check: {} } }))).toEqual({
      code: 'cybernetic.invariant.not-falsifiable',
      reason: expect.stringMatching(/^the invariant's check has no command, so nothing can falsify/),
    });
  });

  it('trims the statement and the situation it keeps', () => {
    const result = validateRunInput(
      request({ invariant: { ...invariant, statement: '  keys survive ', offHappyPath: ' crash ' } }),
    );
    expect(result.ok && result.input.invariant).toEqual({ statement: 'keys survive', offHappyPath: 'crash' });
  });
});

describe('a refused check says which check and why', () => {
  const existing = (check: unknown) => request({ existingChecks: [check] });

  it('not an object, no name, no command', () => {
    expect(only(existing('npm test'))).toEqual({
      code: 'cybernetic.check.not-object',
      reason: 'existing check 1 must be an object with a command',
    });
    expect(only(existing({ command: 'npm test' }))).toEqual({
      code: 'cybernetic.check.name-missing',
      reason: 'existing check 1 needs a name',
    });
    expect(only(existing({ name: 'unit' }))).toEqual({
      code: 'cybernetic.check.command-missing',
      reason: 'existing check 1 has no command',
    });
  });

  it('a bad name or pass exit code is quoted', () => {
    const name = only(existing({ name: '-x', command: 'npm test' }));
    expect(name.code).toBe('cybernetic.check.name-invalid');
    expect(name.reason).toMatch(/^existing check 1 name "-x" must be 1-100 characters/);
    const exit = only(existing({ name: 'unit', command: 'npm test', passExitCode: 256 }));
    expect(exit.code).toBe('cybernetic.check.pass-exit-code-invalid');
    expect(exit.reason).toBe('existing check 1 passExitCode 256 must be an integer from 0 to 255');
    for (const bad of [-1, 1.5, '0'])
      expect(only(existing({ name: 'unit', command: 'npm test', passExitCode: bad })).code).toBe(
        'cybernetic.check.pass-exit-code-invalid',
      );
    for (const good of [0, 255]) {
      const result = validateRunInput(existing({ name: 'unit', command: 'npm test', passExitCode: good }));
      expect(result.ok && result.input.checks[1]?.pass.exitCode).toBe(good);
    }
  });

  it('numbers existing checks from 1 in the caller order', () => {
    const found = reasons(request({ existingChecks: [{ name: 'a', command: 'x' }, { name: 'b' }] }));
    expect(found.map((f) => f.reason)).toEqual(['existing check 2 has no command']);
  });

  it('a command refusal names the check', () => {
    const found = only(existing({ name: 'unit', command: 'npm test && rm -rf x' }));
    expect(found.reason).toMatch(/^existing check 1: /);
  });

  it('the invariant check may go unnamed (it is called invariant); a duplicate name is named', () => {
    const result = validateRunInput(request());
    expect(result.ok && result.input.checks[0]?.name).toBe('invariant');
    const dup = only(request({ existingChecks: [{ name: 'invariant', command: 'npm test' }] }));
    expect(dup).toEqual({
      code: 'cybernetic.check.name-duplicate',
      reason: 'two checks are named "invariant"; check names must be unique',
    });
  });

  it('existingChecks that is not a list', () => {
    expect(only(request({ existingChecks: 'npm test' }))).toEqual({
      code: 'cybernetic.existing-checks.not-list',
      reason: 'existingChecks must be a list of checks',
    });
    expect(validateRunInput(request({ existingChecks: [] })).ok).toBe(true);
  });
});

describe('a refused budget or scope says why, quoting the value', () => {
  it('the patch budget must be a finite positive integer', () => {
    expect(only(request({ budget: undefined })).reason).toMatch(/no patch budget/);
    expect(only(request({ budget: '5' })).reason).toBe('patch budget "5" is not a number');
    expect(only(request({ budget: Number.POSITIVE_INFINITY })).reason).toMatch(/must be finite/);
    expect(only(request({ budget: 2.5 })).reason).toBe('patch budget 2.5 is not a whole number');
    expect(only(request({ budget: 0 })).reason).toBe('patch budget 0 must be at least 1');
    expect(validateRunInput(request({ budget: 1 })).ok).toBe(true);
  });

  it('the scope must be a non-empty list of path strings', () => {
    expect(only(request({ scope: undefined })).reason).toMatch(/records no scope/);
    expect(only(request({ scope: 'src' })).reason).toMatch(/list of repository-relative paths/);
    expect(only(request({ scope: [] })).reason).toMatch(/scope is empty; name at least one path/);
    expect(only(request({ scope: ['src', 7] })).reason).toBe('scope entry 7 is not a string');
  });

  it('an unknown field is named where it sits', () => {
    expect(only(request({ budgt: 3 }))).toEqual({
      code: 'cybernetic.input.unknown-field',
      reason: expect.stringMatching(/^the request has an unknown field "budgt"/),
    });
    const invariant = { ...(request().invariant as object), severity: 'high' };
    expect(only(request({ invariant })).reason).toMatch(/^the invariant has an unknown field "severity"/);
    const check = only(request({ existingChecks: [{ name: 'u', command: 'x', timeout: 5 }] }));
    expect(check.reason).toMatch(/^existing check 1 has an unknown field "timeout"/);
  });

  it('a request that is not an object', () => {
    for (const raw of [null, [], 'run'])
      expect(reasons(raw)).toEqual([
        { code: 'cybernetic.input.not-object', reason: 'the run request must be an object' },
      ]);
  });
});
