import { beforeEach, describe, expect, it } from 'vitest';
import type { RunContract } from '../../src/cybernetic/index.js';
import {
  AFTER_RUN_ORDER,
  type AfterRunFacts,
  decideAfterRun,
  decideBaseline,
  findOscillation,
  findRepeatedEquivalentFailure,
  type RunRecord,
  recordRun,
} from '../../src/cybernetic/index.js';
import { contractOf, executions, runFailing } from './helpers.js';

let contract: RunContract;
// Built in each test, not while the file loads, so that Stryker's per-test coverage sees it.
beforeEach(() => {
  contract = contractOf({ budget: 5 });
});
const run = (n: number, failing: string[], sig = 's') => runFailing(contract, n, failing, sig);

function facts(
  history: RunRecord[],
  retained: RunRecord,
  current: RunRecord,
  extra: Partial<AfterRunFacts> = {},
) {
  return {
    contract,
    earlierRuns: history,
    retained,
    run: current,
    changedPaths: ['src/store.ts'],
    budgetSpent: current.run,
    ...extra,
  };
}

describe('decideBaseline', () => {
  it('returns already-holds when every frozen check passes before mutation', () => {
    expect(decideBaseline(run(0, []))).toEqual({ kind: 'already-holds' });
  });
  it('stops as unavailable-check when a check cannot run before mutation', () => {
    const baseline = recordRun(contract, 0, executions(contract, { invariant: 'unavailable' }));
    expect(decideBaseline(baseline)).toMatchObject({ kind: 'stop', stopClass: 'unavailable-check' });
  });
  it('continues when a check fails', () => {
    expect(decideBaseline(run(0, ['invariant']))).toEqual({ kind: 'continue' });
  });
});

describe('decideAfterRun: each verdict by name', () => {
  let baseline: RunRecord;
  beforeEach(() => {
    baseline = run(0, ['invariant', 'unit']);
  });

  it('restored: every frozen check passes together', () => {
    expect(decideAfterRun(facts([baseline], baseline, run(1, [])))).toEqual({ kind: 'restored' });
  });

  it('continue: progress made, budget left', () => {
    expect(decideAfterRun(facts([baseline], baseline, run(1, ['unit'])))).toEqual({ kind: 'continue' });
  });

  it('scope-widening: the candidate changed a path outside the recorded scope', () => {
    const verdict = decideAfterRun(
      facts([baseline], baseline, run(1, ['unit']), { changedPaths: ['package.json'] }),
    );
    expect(verdict).toMatchObject({ kind: 'stop', stopClass: 'scope-widening' });
    expect(verdict.kind === 'stop' && verdict.why).toContain('package.json');
  });

  it('unavailable-check: a frozen check could not be executed', () => {
    const current = recordRun(contract, 1, executions(contract, { lint: 'unavailable', unit: 'failed' }));
    expect(decideAfterRun(facts([baseline], baseline, current))).toMatchObject({
      stopClass: 'unavailable-check',
    });
  });

  it('budget-exhaustion: the last unit is spent and checks still fail', () => {
    const verdict = decideAfterRun(facts([baseline], baseline, run(1, ['unit']), { budgetSpent: 5 }));
    expect(verdict).toMatchObject({ kind: 'stop', stopClass: 'budget-exhaustion' });
  });

  it('repeated-equivalent-failure: same failing set and fingerprint as an earlier candidate run', () => {
    const c1 = run(1, ['invariant', 'unit'], 'x');
    const c2 = run(2, ['invariant', 'unit'], 'x');
    expect(decideAfterRun(facts([baseline, c1], baseline, c2))).toMatchObject({
      stopClass: 'repeated-equivalent-failure',
    });
  });

  it('oscillation: results return to an earlier retained state', () => {
    const c1 = run(1, ['unit']); // kept
    const c2 = run(2, ['invariant', 'unit'], 'other'); // back to the baseline's failing set
    expect(decideAfterRun(facts([baseline, c1], c1, c2))).toMatchObject({ stopClass: 'oscillation' });
  });
});

describe('decideAfterRun: order when several stop classes hold', () => {
  let baseline: RunRecord;
  let c1: RunRecord;
  beforeEach(() => {
    baseline = run(0, ['invariant', 'unit']);
    c1 = run(1, ['unit']);
  });

  it('documents the order', () => {
    expect(AFTER_RUN_ORDER).toEqual([
      'scope-widening',
      'unavailable-check',
      'restored',
      'repeated-equivalent-failure',
      'oscillation',
      'budget-exhaustion',
    ]);
  });

  it('scope widening wins over everything, even a run where every check passes', () => {
    expect(
      decideAfterRun(
        facts([baseline], baseline, run(1, []), { changedPaths: ['elsewhere.ts'], budgetSpent: 5 }),
      ),
    ).toMatchObject({ stopClass: 'scope-widening' });
  });

  it('an unavailable check wins over repetition and budget exhaustion', () => {
    const current = recordRun(
      contract,
      2,
      executions(contract, { unit: 'unavailable', invariant: 'failed' }),
    );
    expect(decideAfterRun(facts([baseline, c1], c1, current, { budgetSpent: 5 }))).toMatchObject({
      stopClass: 'unavailable-check',
    });
  });

  it('restored wins over budget exhaustion: the last unit may restore', () => {
    expect(decideAfterRun(facts([baseline, c1], c1, run(2, []), { budgetSpent: 5 }))).toEqual({
      kind: 'restored',
    });
  });

  it('repeated-equivalent-failure wins over oscillation and budget exhaustion', () => {
    const c2 = run(2, ['invariant', 'unit']); // same failure as the baseline failing set, reverted
    const c3 = run(3, ['invariant', 'unit']); // equivalent to c2 and a return to the baseline's set
    const verdict = decideAfterRun(facts([baseline, c1, c2], c1, c3, { budgetSpent: 5 }));
    expect(verdict).toMatchObject({ stopClass: 'repeated-equivalent-failure' });
  });

  it('oscillation wins over budget exhaustion', () => {
    const c2 = run(2, ['invariant', 'unit'], 'new');
    expect(decideAfterRun(facts([baseline, c1], c1, c2, { budgetSpent: 5 }))).toMatchObject({
      stopClass: 'oscillation',
    });
  });
});

describe('equivalence edge cases', () => {
  let baseline: RunRecord;
  beforeEach(() => {
    baseline = run(0, ['invariant']);
  });

  it('reproducing the baseline once is not a repeated failure (the baseline is not a candidate)', () => {
    expect(findRepeatedEquivalentFailure([], run(1, ['invariant']))).toBeUndefined();
    expect(decideAfterRun(facts([baseline], baseline, run(1, ['invariant'])))).toEqual({ kind: 'continue' });
  });

  it('the same failing set with a different fingerprint is not equivalent', () => {
    const c1 = run(1, ['invariant'], 'a');
    expect(findRepeatedEquivalentFailure([c1], run(2, ['invariant'], 'b'))).toBeUndefined();
    expect(decideAfterRun(facts([baseline, c1], baseline, run(2, ['invariant'], 'b')))).toEqual({
      kind: 'continue',
    });
  });

  it('an equivalent failure counts however far back it was', () => {
    const c1 = run(1, ['invariant', 'lint'], 'a');
    const c2 = run(2, ['invariant', 'unit'], 'a');
    const c3 = run(3, ['invariant', 'lint'], 'a');
    expect(findRepeatedEquivalentFailure([c1, c2], c3)).toBe(c1);
  });

  it('a run where everything passes is never a repeated failure', () => {
    expect(findRepeatedEquivalentFailure([run(1, [])], run(2, []))).toBeUndefined();
  });
});

describe('oscillation edge cases', () => {
  it('staying at the retained failing set is not oscillation, even after moving away', () => {
    const baseline = run(0, ['invariant']);
    const c1 = run(1, ['invariant', 'lint']); // broke lint, reverted
    const c2 = run(2, ['invariant'], 'other'); // back where the run stands (the retained state)
    expect(findOscillation([baseline, c1], baseline, c2)).toBeUndefined();
  });

  it('the same failing set twice in a row with different failures is not oscillation', () => {
    const baseline = run(0, ['invariant']);
    const c1 = run(1, ['invariant', 'lint'], 'a');
    const c2 = run(2, ['invariant', 'lint'], 'b');
    expect(findOscillation([baseline, c1], baseline, c2)).toBeUndefined();
  });

  it('alternating between two broken states is oscillation (A, B, A)', () => {
    const baseline = run(0, ['invariant']);
    const c1 = run(1, ['invariant', 'lint'], 'a');
    const c2 = run(2, ['invariant', 'unit'], 'a');
    const c3 = run(3, ['invariant', 'lint'], 'b');
    expect(findOscillation([baseline, c1, c2], baseline, c3)).toEqual({ returnedTo: c1, movedAwayIn: c2 });
  });

  it('falling back to a state the run had already improved past is oscillation', () => {
    const baseline = run(0, ['invariant', 'unit', 'lint']);
    const c1 = run(1, ['invariant', 'unit']); // kept
    const c2 = run(2, ['invariant']); // kept
    const c3 = run(3, ['invariant', 'unit'], 'z'); // back to c1's set
    expect(findOscillation([baseline, c1, c2], c2, c3)).toEqual({ returnedTo: c1, movedAwayIn: c2 });
  });
});
