import { beforeEach, describe, expect, it } from 'vitest';
import type { RunContract } from '../../src/cybernetic/index.js';
import {
  type AfterRunFacts,
  decideAfterRun,
  decideBaseline,
  type RunRecord,
  recordRun,
} from '../../src/cybernetic/index.js';
import { contractOf, executions, runFailing } from './helpers.js';

// docs/cybernetic-loop.md: a non-converged record carries the stop class *and why*. The sentence
// must name the facts a person needs to check the stop: which run, which checks or paths, which
// earlier runs, which budget. Expected facts are the inputs of each case, not the code's text.
let contract: RunContract;
// Built in each test, not while the file loads, so that Stryker's per-test coverage sees it.
beforeEach(() => {
  contract = contractOf({ budget: 5 });
});
const run = (n: number, failing: string[], sig = 's') => runFailing(contract, n, failing, sig);
const facts = (
  history: RunRecord[],
  retained: RunRecord,
  current: RunRecord,
  extra: Partial<AfterRunFacts> = {},
) => ({
  contract,
  earlierRuns: history,
  retained,
  run: current,
  changedPaths: ['src/store.ts'],
  budgetSpent: current.run,
  ...extra,
});
const why = (verdict: ReturnType<typeof decideAfterRun> | ReturnType<typeof decideBaseline>): string => {
  if (verdict.kind !== 'stop') throw new Error(`expected a stop, got ${verdict.kind}`);
  return verdict.why;
};

describe('why a cybernetic run stopped', () => {
  let baseline: RunRecord;
  beforeEach(() => {
    baseline = run(0, ['invariant', 'unit']);
  });

  it('unavailable before mutation: names the checks that could not run', () => {
    const verdict = decideBaseline(
      recordRun(contract, 0, executions(contract, { unit: 'unavailable', lint: 'unavailable' })),
    );
    expect(why(verdict)).toMatch(/before mutation/);
    expect(why(verdict)).toMatch(/unit, lint/);
  });

  it('scope widening: names the candidate and every path outside the scope', () => {
    const verdict = decideAfterRun(
      facts([baseline], baseline, run(3, ['unit']), {
        changedPaths: ['package.json', 'src/store.ts', 'README.md'],
      }),
    );
    expect(why(verdict)).toMatch(/candidate 3\b/);
    expect(why(verdict)).toMatch(/package\.json, README\.md/);
    expect(why(verdict)).not.toMatch(/src\/store\.ts/);
  });

  it('unavailable in a candidate run: names the run and the check', () => {
    const current = recordRun(contract, 2, executions(contract, { lint: 'unavailable', unit: 'failed' }));
    const text = why(decideAfterRun(facts([baseline], baseline, current)));
    expect(text).toMatch(/run 2\b/);
    expect(text).toMatch(/\blint\b/);
    expect(text).not.toMatch(/\bunit\b/);
    const both = recordRun(contract, 2, executions(contract, { lint: 'unavailable', unit: 'unavailable' }));
    expect(why(decideAfterRun(facts([baseline], baseline, both)))).toMatch(/run 2, unit, lint could not/);
  });

  it('repeated equivalent failure: names both runs and the failing set', () => {
    const c1 = run(1, ['invariant', 'unit'], 'x');
    const c2 = run(2, ['unit'], 'y');
    const c3 = run(3, ['invariant', 'unit'], 'x');
    const text = why(decideAfterRun(facts([baseline, c1, c2], c2, c3)));
    expect(text).toMatch(/^run 3 .*run 1\b/);
    expect(text).toMatch(/\{invariant, unit\}/);
  });

  it('oscillation: names the run it returned to, the run that moved away and both failing sets', () => {
    const c1 = run(1, ['unit']);
    const c2 = run(2, ['invariant', 'unit'], 'other');
    const text = why(decideAfterRun(facts([baseline, c1], c1, c2)));
    expect(text).toMatch(/^run 2 .*\{invariant, unit\}.*run 0\b.*run 1\b.*\{unit\}/);
  });

  it('budget exhaustion: names the budget, the last run and what still fails', () => {
    const text = why(decideAfterRun(facts([baseline], baseline, run(5, ['lint']), { budgetSpent: 5 })));
    expect(text).toMatch(/\b5 budget units\b/);
    expect(text).toMatch(/run 5\b/);
    expect(text).toMatch(/\{lint\}/);
  });

  it('a budget not yet spent does not stop a run that made progress', () => {
    expect(decideAfterRun(facts([baseline], baseline, run(4, ['unit']), { budgetSpent: 4 }))).toEqual({
      kind: 'continue',
    });
  });
});
