import { beforeEach, describe, expect, it } from 'vitest';
import {
  admitCandidate,
  BudgetExceededError,
  beginRun,
  CheckSetMismatchError,
  concludeRun,
  InvalidCandidateError,
  isTerminalSuccess,
  type RunContract,
  RunStoppedError,
  type RunTranscript,
  recordCandidate,
  UnsupportedConclusionError,
} from '../../src/cybernetic/index.js';
import { contractOf, runFailing } from './helpers.js';

// docs/cybernetic-loop.md, "What the records say": each mistake of the host is thrown with its
// code and the message typed here from that table; and the verdicts of step 8 that look back at
// earlier runs see the baseline and every earlier candidate run.

let contract: RunContract;
// Built in each test, not while the file loads, so that Stryker's per-test coverage sees it.
beforeEach(() => {
  contract = contractOf();
});

const patch = (id: string, target = 'invariant', paths = ['src/store.ts']) => ({
  id,
  target,
  summary: `fix ${target}`,
  paths,
});

/** Runs `act` and returns what it threw, failing the test when it throws nothing. */
function thrown(act: () => unknown): { name: string; code: string; message: string } {
  try {
    act();
  } catch (error) {
    return error as { name: string; code: string; message: string };
  }
  throw new Error('nothing was thrown');
}

describe('refused candidates and runs', () => {
  it('a baseline that is not run 0', () => {
    const error = thrown(() => beginRun(contract, runFailing(contract, 1, ['invariant'])));
    expect(error).toBeInstanceOf(InvalidCandidateError);
    expect(error.code).toBe('cybernetic.candidate-invalid');
    expect(error.message).toBe('candidate patch rejected: the baseline must be run 0, got run 1');
  });

  it('a candidate run with the wrong number', () => {
    const t = beginRun(contract, runFailing(contract, 0, ['invariant']));
    const error = thrown(() => recordCandidate(t, patch('p1'), runFailing(contract, 2, [])));
    expect(error.message).toBe('candidate patch rejected: candidate 1 must come with run 1, got run 2');
  });

  it('a blank id, an unknown target and a target that already passes', () => {
    const t = beginRun(contract, runFailing(contract, 0, ['invariant']));
    const run = runFailing(contract, 1, []);
    expect(thrown(() => recordCandidate(t, patch('  '), run)).message).toBe(
      'candidate patch rejected: the patch has no id',
    );
    expect(thrown(() => recordCandidate(t, patch('p1', 'docs'), run)).message).toBe(
      'candidate patch rejected: target "docs" is not a check of the frozen contract',
    );
    const passing = thrown(() => admitCandidate(t, patch('p1', 'unit')));
    expect(passing).toBeInstanceOf(InvalidCandidateError);
    expect(passing.message).toBe(
      'candidate patch rejected: target "unit" already passes; a candidate must aim at a failing check',
    );
  });

  it('a candidate after a verdict names the verdict', () => {
    const refused = admitCandidate(
      beginRun(contract, runFailing(contract, 0, ['invariant'])),
      patch('p1', 'invariant', ['README.md']),
    );
    if (refused.admitted) throw new Error('a patch outside the scope was admitted');
    const afterStop = thrown(() =>
      recordCandidate(refused.transcript, patch('p2'), runFailing(contract, 1, [])),
    );
    expect(afterStop).toBeInstanceOf(RunStoppedError);
    expect(afterStop.code).toBe('cybernetic.run-stopped');
    expect(afterStop.message).toBe(
      'the run already ended with "non-converged: scope-widening"; no further candidate may be applied',
    );
    const holds = beginRun(contract, runFailing(contract, 0, []));
    expect(thrown(() => admitCandidate(holds, patch('p1'))).message).toBe(
      'the run already ended with "already-holds"; no further candidate may be applied',
    );
  });

  it('a candidate with the budget spent (a transcript a host edited: the verdicts never allow it)', () => {
    const t = beginRun(contract, runFailing(contract, 0, ['invariant']));
    const spent: RunTranscript = { ...t, budgetSpent: 5 };
    const error = thrown(() => admitCandidate(spent, patch('p1')));
    expect(error).toBeInstanceOf(BudgetExceededError);
    expect(error.code).toBe('cybernetic.budget-exceeded');
    expect(error.message).toBe('the patch budget of 5 is spent; no further candidate may be applied');
  });
});

describe('a baseline must have the frozen checks in the frozen order', () => {
  it('names a missing check', () => {
    const other = contractOf({ existingChecks: [{ name: 'unit', command: 'npm test' }] });
    const error = thrown(() => beginRun(contract, runFailing(other, 0, ['invariant'])));
    expect(error).toBeInstanceOf(CheckSetMismatchError);
    expect(error.code).toBe('cybernetic.check-set-mismatch');
    expect(error.message).toBe('check results do not match the frozen check set (missing lint)');
    expect(error).toMatchObject({ missing: ['lint'], unexpected: [] });
  });

  it('names a check not in the contract, and a missing one', () => {
    const other = contractOf({
      existingChecks: [
        { name: 'unit', command: 'npm test' },
        { name: 'docs', command: 'npm run docs' },
      ],
    });
    const error = thrown(() => beginRun(contract, runFailing(other, 0, ['invariant'])));
    expect(error.message).toBe(
      'check results do not match the frozen check set (missing lint; not in the frozen contract: docs)',
    );
    expect(error).toMatchObject({ missing: ['lint'], unexpected: ['docs'] });
  });

  it('names an added check', () => {
    const other = contractOf({
      existingChecks: [
        { name: 'unit', command: 'npm test' },
        { name: 'lint', command: ['npx', 'biome', 'check', '.'] },
        { name: 'types', command: 'npx tsc' },
      ],
    });
    const error = thrown(() => beginRun(contract, runFailing(other, 0, ['invariant'])));
    expect(error.message).toBe(
      'check results do not match the frozen check set (not in the frozen contract: types)',
    );
  });

  it('refuses the same checks in another order', () => {
    const other = contractOf({
      existingChecks: [
        { name: 'lint', command: ['npx', 'biome', 'check', '.'] },
        { name: 'unit', command: 'npm test' },
      ],
    });
    const error = thrown(() => beginRun(contract, runFailing(other, 0, ['invariant'])));
    expect(error).toBeInstanceOf(CheckSetMismatchError);
    expect(error.message).toBe(
      'check results do not match the frozen check set (check order differs from the frozen contract)',
    );
  });
});

describe('concluding a run the observation does not support', () => {
  it('a run without a verdict, and a success given a restoration', () => {
    const running = beginRun(contract, runFailing(contract, 0, ['invariant']));
    const error = thrown(() => concludeRun(running));
    expect(error).toBeInstanceOf(UnsupportedConclusionError);
    expect(error.code).toBe('cybernetic.conclusion-unsupported');
    expect(error.message).toBe('cannot conclude "a terminal record": the run has not reached a verdict yet');
    const holds = beginRun(contract, runFailing(contract, 0, []));
    expect(thrown(() => concludeRun(holds, { kind: 'not-mutated' })).message).toBe(
      'cannot conclude "already-holds": nothing was mutated, nothing is restored',
    );
    const restored = recordCandidate(running, patch('p1'), runFailing(contract, 1, []));
    expect(restored.verdict.kind).toBe('restored');
    const restoration = {
      kind: 'restored',
      checkpoint: 'cp',
      operation: 'restore cp',
      remainingDelta: [],
    } as const;
    expect(thrown(() => concludeRun(restored, restoration)).message).toBe(
      'cannot conclude "restored": a restored run keeps its candidates; it is not rolled back',
    );
  });

  it('a stop without a restoration, and not-mutated after candidates were applied', () => {
    const two = contractOf({ budget: 2 });
    let t = beginRun(two, runFailing(two, 0, ['invariant']));
    t = recordCandidate(t, patch('p1'), runFailing(t.contract, 1, ['invariant'], 'a'));
    t = recordCandidate(t, patch('p2'), runFailing(t.contract, 2, ['invariant'], 'b'));
    expect(t.verdict).toMatchObject({ kind: 'stop', stopClass: 'budget-exhaustion' });
    expect(thrown(() => concludeRun(t)).message).toBe(
      'cannot conclude "non-converged": the bounded scope must be restored to the checkpoint first; pass the restoration observation',
    );
    expect(thrown(() => concludeRun(t, { kind: 'not-mutated' })).message).toBe(
      'cannot conclude "non-converged": 2 candidate(s) were applied, so the scope was mutated and must be restored',
    );
  });

  it('a completed restoration that left a delta keeps the delta and is no success', () => {
    const refused = admitCandidate(
      beginRun(contract, runFailing(contract, 0, ['invariant'])),
      patch('p1', 'invariant', ['README.md']),
    );
    if (refused.admitted) throw new Error('a patch outside the scope was admitted');
    const record = concludeRun(refused.transcript, {
      kind: 'restored',
      checkpoint: 'cp',
      operation: 'restore cp',
      remainingDelta: ['src/store.ts', 'src/index/a.ts'],
    });
    expect(record).toMatchObject({
      status: 'recovery-failure',
      checkpoint: 'cp',
      failedOperation: 'restore cp',
      error:
        'the restoration operation completed but the working tree still differs from its pre-run state (see the remaining delta)',
      remainingDelta: ['src/store.ts', 'src/index/a.ts'],
    });
    expect(isTerminalSuccess(record)).toBe(false);
  });
});

describe('the verdicts after a candidate look back at every earlier run', () => {
  it('an equivalent failure of an earlier candidate run', () => {
    let t = beginRun(contract, runFailing(contract, 0, ['invariant']));
    t = recordCandidate(t, patch('p1'), runFailing(contract, 1, ['invariant'], 'a'));
    expect(t.verdict.kind).toBe('continue');
    t = recordCandidate(t, patch('p2'), runFailing(contract, 2, ['invariant'], 'a'));
    expect(t.verdict).toMatchObject({ kind: 'stop', stopClass: 'repeated-equivalent-failure' });
  });

  it('results that return to the baseline after moving away', () => {
    let t = beginRun(contract, runFailing(contract, 0, ['invariant', 'unit']));
    t = recordCandidate(t, patch('p1', 'unit'), runFailing(contract, 1, ['invariant']));
    expect(t.attempts[0]?.decision.decision).toBe('keep');
    t = recordCandidate(t, patch('p2'), runFailing(contract, 2, ['invariant', 'lint']));
    expect(t.verdict.kind).toBe('continue');
    t = recordCandidate(t, patch('p3'), runFailing(contract, 3, ['invariant', 'unit'], 'x'));
    expect(t.verdict).toMatchObject({ kind: 'stop', stopClass: 'oscillation' });
  });
});
