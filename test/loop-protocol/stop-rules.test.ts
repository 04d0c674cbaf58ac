import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  budgetLimitsOf,
  completeEntryContract,
  decideContinuation,
  exhaustedBudget,
  type LoopFacts,
  parseEntryContract,
  plateauThresholdOfContract,
  STOP_RULE_ORDER,
} from '../../src/loop-protocol/index.js';

/** A cycle that made progress, with room in every budget and nothing wrong. */
const healthy: LoopFacts = {
  userCancelled: false,
  sourceAvailable: true,
  userChangesOverlapRollbackBoundary: false,
  successEvidence: [],
  terminalFailureEvidence: [],
  nextActionNeedsBroaderScope: false,
  limits: { iterations: 6, timeMs: 60_000, tokens: 1000, cost: 5 },
  usage: { iterations: 2, elapsedMs: 1000, tokens: 10, cost: 0.1 },
  progress: ['hypothesis-eliminated'],
  nonProgressStreak: 0,
  plateauThreshold: 3,
  repeatedErrorStreak: 0,
  repeatedErrorThreshold: 3,
  pivotAvailable: false,
  crossTurn: false,
  wakeupAuthorized: false,
  permittedActionRemains: true,
};

/** Facts that make each stop rule hold on its own. */
const TRIGGERS: Record<(typeof STOP_RULE_ORDER)[number], Partial<LoopFacts>> = {
  'user-cancelled': { userCancelled: true },
  'source-lost': { sourceAvailable: false },
  'rollback-boundary-overlap': { userChangesOverlapRollbackBoundary: true },
  success: { successEvidence: ['npm test exit 0 on the final diff'] },
  'terminal-failure': { terminalFailureEvidence: ['the evaluator binary is gone'] },
  'scope-needs-broadening': { nextActionNeedsBroaderScope: true },
  'budget-exhausted': { usage: { ...healthy.usage, iterations: 6 } },
  'no-wakeup': { crossTurn: true, wakeupAuthorized: false },
  plateau: { progress: [], nonProgressStreak: 3 },
  'repeated-error': { repeatedErrorStreak: 3 },
  'no-permitted-action': { permittedActionRemains: false },
};

describe('continue, pivot or stop', () => {
  it('continues when the cycle made progress and an action remains', () => {
    expect(decideContinuation(healthy)).toMatchObject({ decision: 'continue', rule: 'progress-made' });
  });

  it('continues without progress while the plateau threshold is not reached', () => {
    expect(decideContinuation({ ...healthy, progress: [], nonProgressStreak: 2 })).toMatchObject({
      decision: 'continue',
      rule: 'within-patience',
    });
  });

  for (const rule of STOP_RULE_ORDER)
    it(`stops for ${rule}`, () => {
      expect(decideContinuation({ ...healthy, ...TRIGGERS[rule] })).toMatchObject({ decision: 'stop', rule });
    });

  it('applies the rules in the documented order when several hold', () => {
    for (let i = 0; i < STOP_RULE_ORDER.length; i++) {
      const facts: LoopFacts = Object.assign(
        {},
        healthy,
        ...STOP_RULE_ORDER.slice(i).map((rule) => TRIGGERS[rule]),
      );
      expect(decideContinuation(facts).rule).toBe(STOP_RULE_ORDER[i]);
    }
  });

  it('pivots at the plateau or repeated-error threshold when a different strategy remains', () => {
    expect(decideContinuation({ ...healthy, ...TRIGGERS.plateau, pivotAvailable: true })).toMatchObject({
      decision: 'pivot',
      rule: 'plateau',
    });
    expect(
      decideContinuation({ ...healthy, ...TRIGGERS['repeated-error'], pivotAvailable: true }),
    ).toMatchObject({
      decision: 'pivot',
      rule: 'repeated-error',
    });
  });

  it('does not pivot past an exhausted budget or a missing wakeup', () => {
    const stuck = { ...healthy, ...TRIGGERS.plateau, pivotAvailable: true };
    expect(decideContinuation({ ...stuck, ...TRIGGERS['budget-exhausted'] }).decision).toBe('stop');
    expect(decideContinuation({ ...stuck, ...TRIGGERS['no-wakeup'] }).decision).toBe('stop');
  });

  it('needs terminal evidence to confirm success', () => {
    expect(decideContinuation({ ...healthy, successEvidence: [] }).rule).not.toBe('success');
    expect(decideContinuation({ ...healthy, ...TRIGGERS.success }).evidence).toEqual(
      TRIGGERS.success.successEvidence,
    );
  });

  it('names which budget ran out: iteration, time, token or cost', () => {
    const { limits, usage } = healthy;
    expect(exhaustedBudget(limits, { ...usage, iterations: 6 })).toBe('iteration');
    expect(exhaustedBudget(limits, { ...usage, elapsedMs: 60_000 })).toBe('time');
    expect(exhaustedBudget(limits, { ...usage, tokens: 1000 })).toBe('token');
    expect(exhaustedBudget(limits, { ...usage, cost: 5 })).toBe('cost');
    expect(
      exhaustedBudget({ iterations: 6 }, { ...usage, cost: 1e9, tokens: 1e9, elapsedMs: 1e12 }),
    ).toBeNull();
    expect(decideContinuation({ ...healthy, usage: { ...usage, tokens: 2000 } })).toMatchObject({
      rule: 'budget-exhausted',
      budget: 'token',
    });
  });

  it('never continues or pivots once any budget is spent (property, 1,000 runs)', () => {
    const facts = fc.record({
      userCancelled: fc.boolean(),
      sourceAvailable: fc.boolean(),
      userChangesOverlapRollbackBoundary: fc.boolean(),
      successEvidence: fc.array(fc.string(), { maxLength: 1 }),
      terminalFailureEvidence: fc.array(fc.string(), { maxLength: 1 }),
      nextActionNeedsBroaderScope: fc.boolean(),
      limits: fc.record({
        iterations: fc.integer({ min: 1, max: 10 }),
        timeMs: fc.integer({ min: 1, max: 100 }),
        tokens: fc.integer({ min: 1, max: 100 }),
        cost: fc.integer({ min: 1, max: 100 }),
      }),
      usage: fc.record({
        iterations: fc.integer({ min: 0, max: 12 }),
        elapsedMs: fc.integer({ min: 0, max: 120 }),
        tokens: fc.integer({ min: 0, max: 120 }),
        cost: fc.integer({ min: 0, max: 120 }),
      }),
      progress: fc.subarray(['new-evidence', 'queue-reduced'] as const),
      nonProgressStreak: fc.integer({ min: 0, max: 5 }),
      plateauThreshold: fc.integer({ min: 1, max: 5 }),
      repeatedErrorStreak: fc.integer({ min: 0, max: 5 }),
      repeatedErrorThreshold: fc.integer({ min: 1, max: 5 }),
      pivotAvailable: fc.boolean(),
      crossTurn: fc.boolean(),
      wakeupAuthorized: fc.boolean(),
      permittedActionRemains: fc.boolean(),
    });
    fc.assert(
      fc.property(facts, (f) => {
        const { limits, usage } = f;
        const spent =
          usage.iterations >= limits.iterations ||
          usage.elapsedMs >= limits.timeMs ||
          usage.tokens >= limits.tokens ||
          usage.cost >= limits.cost;
        const decision = decideContinuation(f);
        if (spent) expect(decision.decision).toBe('stop');
        if (decision.decision !== 'stop') {
          expect(f.userCancelled || !f.sourceAvailable || f.successEvidence.length > 0).toBe(false);
        }
      }),
      { numRuns: 1000 },
    );
  });
});

describe('limits from the entry contract', () => {
  it('reads the iteration budget, the time/token/cost limits and the plateau threshold', () => {
    const parsed = parseEntryContract(
      [
        'Outcome: x',
        'Observable source: y',
        'Allowed actions: z',
        'Actor and sole writer: me',
        'Evaluator or guard: e',
        'Iteration or poll budget: 9 polls',
        'Time or cost budget: 2h, 300k tokens, $4',
        'Plateau or no-progress rule: stop after 4 flat cycles',
      ].join('\n'),
    );
    const result = completeEntryContract(parsed.contract);
    if (result.kind !== 'complete') throw new Error('expected a complete contract');
    expect(budgetLimitsOf(result.contract)).toEqual({
      iterations: 9,
      timeMs: 7_200_000,
      tokens: 300_000,
      cost: 4,
    });
    expect(plateauThresholdOfContract(result.contract)).toBe(4);
  });

  it('leaves out a limit the contract does not set (absent, not undefined)', () => {
    const parsed = parseEntryContract(
      [
        'Outcome: x',
        'Observable source: y',
        'Allowed actions: z',
        'Actor and sole writer: me',
        'Evaluator or guard: e',
        'Iteration or poll budget: 3 iterations',
        'Time or cost budget: $2',
        'Plateau or no-progress rule: stop after 2 flat cycles',
      ].join('\n'),
    );
    const result = completeEntryContract(parsed.contract);
    if (result.kind !== 'complete') throw new Error('expected a complete contract');
    const limits = budgetLimitsOf(result.contract);
    expect(limits).toStrictEqual({ iterations: 3, cost: 2 });
    expect(Object.keys(limits).sort()).toEqual(['cost', 'iterations']);
  });
});
