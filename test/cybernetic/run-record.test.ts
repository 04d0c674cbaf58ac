import { beforeEach, describe, expect, it } from 'vitest';
import type { Check, RunContract } from '../../src/cybernetic/index.js';
import {
  allChecksPass,
  CheckSetMismatchError,
  equivalentFailure,
  InvalidCheckExecutionError,
  judgeCheck,
  recordRun,
  sameFailingSet,
  unavailableChecks,
} from '../../src/cybernetic/index.js';
import { contractOf, executions, runFailing } from './helpers.js';

describe('check results', () => {
  // Built in each test, not while the file loads, so that Stryker's per-test coverage sees it.
  let odd: Check;
  beforeEach(() => {
    const check = contractOf({ existingChecks: [{ name: 'odd', command: 'x', passExitCode: 3 }] }).checks[1];
    if (!check) throw new Error('fixture');
    odd = check;
  });

  it('passes only on the exit code of the pass criterion', () => {
    expect(judgeCheck(odd, { kind: 'exited', exitCode: 3 }).outcome).toBe('passed');
    expect(judgeCheck(odd, { kind: 'exited', exitCode: 0 }).outcome).toBe('failed');
  });

  it('fails a check killed by a signal and marks a check that could not start unavailable', () => {
    expect(judgeCheck(odd, { kind: 'terminated', signal: 'SIGKILL' })).toMatchObject({
      outcome: 'failed',
      detail: 'SIGKILL',
    });
    expect(judgeCheck(odd, { kind: 'not-executed', reason: 'ENOENT' })).toMatchObject({
      outcome: 'unavailable',
      detail: 'ENOENT',
    });
  });

  it('refuses malformed executions by name', () => {
    expect(() => judgeCheck(odd, { kind: 'exited', exitCode: 1.5 })).toThrow(InvalidCheckExecutionError);
    expect(() => judgeCheck(odd, { kind: 'not-executed', reason: ' ' })).toThrow(InvalidCheckExecutionError);
  });
});

describe('run records', () => {
  let contract: RunContract;
  beforeEach(() => {
    contract = contractOf();
  });

  it('requires exactly one execution per frozen check', () => {
    const all = executions(contract, {});
    const { lint: _lint, ...withoutLint } = all;
    expect(() => recordRun(contract, 0, withoutLint)).toThrow(CheckSetMismatchError);
    expect(() => recordRun(contract, 0, { ...all, extra: { kind: 'exited', exitCode: 0 } })).toThrow(
      CheckSetMismatchError,
    );
    expect(() => recordRun(contract, -1, all)).toThrow(InvalidCheckExecutionError);
  });

  it('keeps results in contract order and sorts the failing set', () => {
    const run = runFailing(contract, 0, ['unit', 'invariant']);
    expect(run.results.map((r) => r.name)).toEqual(['invariant', 'unit', 'lint']);
    expect(run.failingSet).toEqual(['invariant', 'unit']);
    expect(allChecksPass(run)).toBe(false);
    expect(allChecksPass(runFailing(contract, 0, []))).toBe(true);
  });

  it('counts unavailable checks as not passing', () => {
    const run = recordRun(contract, 0, executions(contract, { lint: 'unavailable' }));
    expect(run.failingSet).toEqual(['lint']);
    expect(unavailableChecks(run)).toEqual(['lint']);
  });

  it('gives equal failures equal fingerprints whatever the run number', () => {
    const a = runFailing(contract, 1, ['unit'], 'boom');
    const b = runFailing(contract, 4, ['unit'], 'boom');
    expect(a.failureFingerprint).toBe(b.failureFingerprint);
    expect(equivalentFailure(a, b)).toBe(true);
  });

  it('tells apart the same failing set failing differently (signature or exit code)', () => {
    const a = runFailing(contract, 1, ['unit'], 'boom');
    const b = runFailing(contract, 2, ['unit'], 'bang');
    expect(sameFailingSet(a, b)).toBe(true);
    expect(equivalentFailure(a, b)).toBe(false);
    const exit2 = recordRun(contract, 3, {
      ...executions(contract, {}),
      unit: { kind: 'exited', exitCode: 2, signature: 'unit:boom' },
    });
    expect(equivalentFailure(a, exit2)).toBe(false);
  });

  it('ignores signatures of passing checks', () => {
    const a = recordRun(contract, 1, {
      ...executions(contract, {}),
      lint: { kind: 'exited', exitCode: 0, signature: 'x' },
    });
    const b = recordRun(contract, 2, executions(contract, {}));
    expect(a.failureFingerprint).toBe(b.failureFingerprint);
  });
});
