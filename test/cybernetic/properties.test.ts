import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  allChecksPass,
  beginRun,
  type CheckExecution,
  type CheckOutcome,
  concludeRun,
  decideAfterRun,
  decideCandidate,
  mayApplyCandidate,
  type RunContract,
  RunStoppedError,
  recordCandidate,
  recordRun,
} from '../../src/cybernetic/index.js';
import { contractOf } from './helpers.js';

const RUNS = 1000;
const NAMES = ['invariant', 'unit', 'lint'] as const;

/** One check's observation: outcome and (for failures) a signature from a small alphabet, so repeats happen. */
const observation = fc.record({
  outcome: fc.constantFrom<CheckOutcome>('passed', 'passed', 'failed', 'failed', 'unavailable'),
  signature: fc.constantFrom('a', 'b'),
});
const runObservation = fc.tuple(observation, observation, observation);
type RunObservation = [
  { outcome: CheckOutcome; signature: string },
  { outcome: CheckOutcome; signature: string },
  { outcome: CheckOutcome; signature: string },
];

function toExecutions(obs: RunObservation): Record<string, CheckExecution> {
  return Object.fromEntries(
    NAMES.map((name, i) => {
      const { outcome, signature } = obs[i] as RunObservation[0];
      const execution: CheckExecution =
        outcome === 'passed'
          ? { kind: 'exited', exitCode: 0 }
          : outcome === 'failed'
            ? { kind: 'exited', exitCode: 1, signature }
            : { kind: 'not-executed', reason: 'missing tool' };
      return [name, execution];
    }),
  );
}

const contracts = new Map<number, RunContract>();
function contractWithBudget(budget: number): RunContract {
  let contract = contracts.get(budget);
  if (!contract) {
    contract = contractOf({ budget });
    contracts.set(budget, contract);
  }
  return contract;
}

describe('properties of the cybernetic decisions', () => {
  it('following the verdicts never attempts more candidates than the budget, and exhaustion spends it exactly', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        runObservation,
        fc.array(fc.tuple(runObservation, fc.boolean()), { minLength: 0, maxLength: 12 }),
        (budget, baselineObs, candidates) => {
          const contract = contractWithBudget(budget);
          let t = beginRun(contract, recordRun(contract, 0, toExecutions(baselineObs as RunObservation)));
          for (const [obs, inScope] of candidates) {
            if (!mayApplyCandidate(t)) break;
            const target = t.retained.failingSet[0] as string;
            const paths = inScope ? ['src/store.ts'] : ['README.md'];
            const run = recordRun(contract, t.attempts.length + 1, toExecutions(obs as RunObservation));
            t = recordCandidate(t, { id: `p${t.attempts.length + 1}`, target, summary: 'x', paths }, run);
            expect(t.budgetSpent).toBeLessThanOrEqual(budget);
          }
          expect(t.attempts.length).toBe(t.budgetSpent);
          expect(t.budgetSpent).toBeLessThanOrEqual(budget);
          if (t.verdict.kind === 'stop' && t.verdict.stopClass === 'budget-exhaustion')
            expect(t.budgetSpent).toBe(budget);
          if (t.budgetSpent === budget) expect(t.verdict.kind).not.toBe('continue');
          if (t.verdict.kind !== 'continue') {
            const any = recordRun(
              contract,
              t.attempts.length + 1,
              toExecutions(baselineObs as RunObservation),
            );
            expect(() =>
              recordCandidate(t, { id: 'late', target: 'invariant', summary: 'x', paths: [] }, any),
            ).toThrow(RunStoppedError);
          }
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('decideAfterRun never answers continue once the budget is spent', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 0, max: 8 }),
        runObservation,
        runObservation,
        (budget, spent, retainedObs, candidateObs) => {
          const contract = contractWithBudget(budget);
          const retained = recordRun(contract, 0, toExecutions(retainedObs as RunObservation));
          const run = recordRun(contract, 1, toExecutions(candidateObs as RunObservation));
          const verdict = decideAfterRun({
            contract,
            earlierRuns: [retained],
            retained,
            run,
            changedPaths: ['src/index/a.ts'],
            budgetSpent: spent,
          });
          if (spent >= budget) expect(verdict.kind).not.toBe('continue');
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a candidate that breaks a passing check is never kept; keep means something newly passes', () => {
    fc.assert(
      fc.property(runObservation, runObservation, (retainedObs, candidateObs) => {
        const contract = contractWithBudget(3);
        const retained = recordRun(contract, 0, toExecutions(retainedObs as RunObservation));
        const candidate = recordRun(contract, 1, toExecutions(candidateObs as RunObservation));
        const breaks = NAMES.some(
          (_, i) => retainedObs[i]?.outcome === 'passed' && candidateObs[i]?.outcome !== 'passed',
        );
        const improves = NAMES.some(
          (_, i) => retainedObs[i]?.outcome !== 'passed' && candidateObs[i]?.outcome === 'passed',
        );
        const decision = decideCandidate(retained, candidate);
        if (breaks) expect(decision.decision).toBe('revert');
        expect(decision.decision === 'keep').toBe(improves && !breaks);
      }),
      { numRuns: RUNS },
    );
  });

  it('restored only when every frozen check passes in the run (and the candidate stayed in scope)', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 6 }),
        fc.integer({ min: 1, max: 6 }),
        runObservation,
        runObservation,
        fc.constantFrom<string[]>(['src/store.ts'], ['README.md'], []),
        (budget, spent, retainedObs, candidateObs, changedPaths) => {
          const contract = contractWithBudget(budget);
          const retained = recordRun(contract, 0, toExecutions(retainedObs as RunObservation));
          const run = recordRun(contract, 1, toExecutions(candidateObs as RunObservation));
          const verdict = decideAfterRun({
            contract,
            earlierRuns: [retained],
            retained,
            run,
            changedPaths,
            budgetSpent: spent,
          });
          const everyCheckPasses = candidateObs.every((o) => o.outcome === 'passed');
          if (verdict.kind === 'restored') {
            expect(everyCheckPasses).toBe(true);
            expect(changedPaths).not.toContain('README.md');
          }
          if (everyCheckPasses && !changedPaths.includes('README.md')) expect(verdict.kind).toBe('restored');
        },
      ),
      { numRuns: RUNS },
    );
  });

  it('a restored terminal record always ends with a run where every check passes', () => {
    let reached = 0;
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 4 }),
        fc.array(runObservation, { minLength: 1, maxLength: 6 }),
        (budget, candidates) => {
          const contract = contractWithBudget(budget);
          let t = beginRun(contract, recordRun(contract, 0, toExecutions(candidates[0] as RunObservation)));
          for (const obs of candidates.slice(1)) {
            if (!mayApplyCandidate(t)) break;
            const run = recordRun(contract, t.attempts.length + 1, toExecutions(obs as RunObservation));
            const target = t.retained.failingSet[0] as string;
            t = recordCandidate(t, { id: 'p', target, summary: 'x', paths: ['src/store.ts'] }, run);
          }
          if (t.verdict.kind !== 'restored') return;
          reached += 1;
          const record = concludeRun(t);
          expect(record.status === 'restored' && allChecksPass(record.finalRun)).toBe(true);
        },
      ),
      { numRuns: RUNS },
    );
    // The filter above must leave cases that reach the assertions.
    console.log(`cases that reached the assertions: ${reached}`);
    expect(reached).toBeGreaterThanOrEqual(10);
  });
});
