import { describe, expect, it } from 'vitest';
import {
  actionDisposition,
  aggregateBaseline,
  assessProgress,
  type CycleStreaks,
  decideContinuation,
  exhaustedBudget,
  FRESH_STREAKS,
  type LoopFacts,
  median,
  type NoisyBaseline,
  nextStreaks,
  startProgressLedger,
} from '../../src/loop-protocol/index.js';

// The loop protocol's cycle (observe → … → record → stop or continue): every decision records
// why, the patience counters feed the plateau and repeated-error rules, and a cycle's action is
// kept, discarded or skipped. Expected values here are written from the protocol text: a stop
// names its condition, a pivot asks for the strategy change to be recorded, a continue names the
// progress the cycle made.

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

describe('every decision says why', () => {
  const cases: [string, Partial<LoopFacts>, RegExp[]][] = [
    ['user-cancelled', { userCancelled: true }, [/cancel/]],
    ['source-lost', { sourceAvailable: false }, [/source/, /disappeared|lost/]],
    ['rollback-boundary-overlap', { userChangesOverlapRollbackBoundary: true }, [/rollback boundary/]],
    ['success', { successEvidence: ['tests pass'] }, [/success/, /terminal evidence/]],
    ['terminal-failure', { terminalFailureEvidence: ['binary gone'] }, [/terminal failure/]],
    ['scope-needs-broadening', { nextActionNeedsBroaderScope: true }, [/broader scope|new authority/]],
    ['no-wakeup', { crossTurn: true }, [/wakeup/, /later turn|cross-turn/]],
    ['no-permitted-action', { permittedActionRemains: false }, [/permitted action/]],
  ];
  for (const [rule, trigger, patterns] of cases)
    it(`${rule}: the reason names the condition`, () => {
      const decision = decideContinuation({ ...healthy, ...trigger });
      expect(decision).toMatchObject({ decision: 'stop', rule });
      for (const pattern of patterns) expect(decision.reason).toMatch(pattern);
    });

  it('the terminal evidence rides with success and terminal failure, and nowhere else', () => {
    expect(decideContinuation({ ...healthy, terminalFailureEvidence: ['binary gone'] }).evidence).toEqual([
      'binary gone',
    ]);
    expect(decideContinuation({ ...healthy, userCancelled: true }).evidence).toBeUndefined();
    expect(decideContinuation(healthy).evidence).toBeUndefined();
  });

  it('a budget stop names the budget that ran out, one budget at a time', () => {
    const { usage } = healthy;
    const expected: [Partial<LoopFacts['usage']>, string][] = [
      [{ iterations: 6 }, 'iteration'],
      [{ elapsedMs: 60_000 }, 'time'],
      [{ tokens: 1000 }, 'token'],
      [{ cost: 5 }, 'cost'],
    ];
    for (const [spent, budget] of expected) {
      const decision = decideContinuation({ ...healthy, usage: { ...usage, ...spent } });
      expect(decision).toMatchObject({ decision: 'stop', rule: 'budget-exhausted', budget });
      expect(decision.reason).toContain(`${budget} budget`);
      expect(decision.reason).toMatch(/exhausted/);
    }
    // A budget with room is not named.
    expect(decideContinuation(healthy).budget).toBeUndefined();
  });

  it('a budget is exhausted at its limit, not one before (used >= limit)', () => {
    const limits = { iterations: 6, timeMs: 100, tokens: 100, cost: 2 };
    const room = { iterations: 5, elapsedMs: 99, tokens: 99, cost: 1.99 };
    expect(exhaustedBudget(limits, room)).toBeNull();
    expect(exhaustedBudget(limits, { ...room, elapsedMs: 100 })).toBe('time');
    expect(exhaustedBudget(limits, { ...room, tokens: 100 })).toBe('token');
    expect(exhaustedBudget(limits, { ...room, cost: 2 })).toBe('cost');
    // Absent limits never run out; the order is iteration, time, token, cost.
    expect(exhaustedBudget({ iterations: 6, cost: 2 }, { ...room, elapsedMs: 1e9, tokens: 1e9 })).toBeNull();
    expect(exhaustedBudget({ iterations: 6, tokens: 5, cost: 2 }, { ...room, tokens: 9, cost: 9 })).toBe(
      'token',
    );
    expect(
      exhaustedBudget({ iterations: 6, timeMs: 5, tokens: 5 }, { ...room, elapsedMs: 9, tokens: 9 }),
    ).toBe('time');
  });

  it('the plateau stop names the streak; a pivot asks to record the strategy change', () => {
    const plateau = { ...healthy, progress: [], nonProgressStreak: 4 };
    const stop = decideContinuation(plateau);
    expect(stop).toMatchObject({ decision: 'stop', rule: 'plateau' });
    expect(stop.reason).toContain('4 cycle(s) without progress');
    expect(stop.reason).toMatch(/no different strategy/);
    const pivot = decideContinuation({ ...plateau, pivotAvailable: true });
    expect(pivot).toMatchObject({ decision: 'pivot', rule: 'plateau' });
    expect(pivot.reason).toContain('4 cycle(s) without progress');
    expect(pivot.reason).toMatch(/different strategy remains/);
    expect(pivot.reason).toMatch(/record the change/);
  });

  it('the repeated-error stop names how often the same error came', () => {
    const repeated = { ...healthy, repeatedErrorStreak: 5 };
    const stop = decideContinuation(repeated);
    expect(stop).toMatchObject({ decision: 'stop', rule: 'repeated-error' });
    expect(stop.reason).toContain('the same error 5 time(s) in a row');
    const pivot = decideContinuation({ ...repeated, pivotAvailable: true });
    expect(pivot).toMatchObject({ decision: 'pivot', rule: 'repeated-error' });
    expect(pivot.reason).toContain('the same error 5 time(s) in a row');
  });

  it('the thresholds are reached at equality and not one before', () => {
    expect(decideContinuation({ ...healthy, progress: [], nonProgressStreak: 2 }).decision).toBe('continue');
    expect(decideContinuation({ ...healthy, progress: [], nonProgressStreak: 3 }).rule).toBe('plateau');
    expect(decideContinuation({ ...healthy, repeatedErrorStreak: 2 }).decision).toBe('continue');
    expect(decideContinuation({ ...healthy, repeatedErrorStreak: 3 }).rule).toBe('repeated-error');
  });

  it('a continue names the progress made, or the patience left', () => {
    const progressed = decideContinuation({ ...healthy, progress: ['queue-reduced', 'new-evidence'] });
    expect(progressed).toMatchObject({ decision: 'continue', rule: 'progress-made' });
    expect(progressed.reason).toContain('queue-reduced, new-evidence');
    const patient = decideContinuation({ ...healthy, progress: [], nonProgressStreak: 1 });
    expect(patient).toMatchObject({ decision: 'continue', rule: 'within-patience' });
    expect(patient.reason).toContain('1 of 3');
    expect(patient.reason).toMatch(/no progress/);
  });
});

describe('the patience counters', () => {
  it('start at zero with no error', () => {
    expect(FRESH_STREAKS).toEqual({ nonProgress: 0, repeatedError: 0, lastError: null });
  });

  it('count cycles without progress and reset on progress', () => {
    const one = nextStreaks(FRESH_STREAKS, [], null);
    expect(one).toEqual({ nonProgress: 1, repeatedError: 0, lastError: null });
    const two = nextStreaks(one, [], null);
    expect(two.nonProgress).toBe(2);
    expect(nextStreaks(two, ['new-evidence'], null).nonProgress).toBe(0);
  });

  it('count the same error fingerprint in a row, restart at 1 for a new one, reset without one', () => {
    let s: CycleStreaks = nextStreaks(FRESH_STREAKS, [], 'E1');
    expect(s).toEqual({ nonProgress: 1, repeatedError: 1, lastError: 'E1' });
    s = nextStreaks(s, ['new-evidence'], 'E1');
    expect(s).toEqual({ nonProgress: 0, repeatedError: 2, lastError: 'E1' });
    s = nextStreaks(s, [], 'E1');
    expect(s.repeatedError).toBe(3);
    s = nextStreaks(s, [], 'E2');
    expect(s).toEqual({ nonProgress: 2, repeatedError: 1, lastError: 'E2' });
    s = nextStreaks(s, [], null);
    expect(s).toEqual({ nonProgress: 3, repeatedError: 0, lastError: null });
    // After a cycle without an error, the same fingerprint as two cycles ago starts over.
    expect(nextStreaks(s, [], 'E2').repeatedError).toBe(1);
  });
});

describe("a cycle's action disposition", () => {
  it('is skipped when no action was taken, whatever the progress', () => {
    expect(actionDisposition(false, [])).toBe('skipped');
    expect(actionDisposition(false, ['new-evidence'])).toBe('skipped');
  });
  it('is kept with progress and discarded without (repeated activity is not progress)', () => {
    expect(actionDisposition(true, ['queue-reduced'])).toBe('kept');
    expect(actionDisposition(true, [])).toBe('discarded');
  });
});

describe('claims that do not count say why', () => {
  // Samples 10, 12, 11: median 11, spread 10..12, tolerance 2 (written out, not computed).
  const baseline: NoisyBaseline = {
    direction: 'lower-is-better',
    samples: [10, 12, 11],
    median: 11,
    spread: { min: 10, max: 12 },
    tolerance: 2,
  };

  it('a repeated criterion, hypothesis or evidence fingerprint', () => {
    const first = assessProgress(
      { closedCriteria: ['AC1'], eliminatedHypotheses: ['h1'], evidenceFingerprints: ['log-1'] },
      startProgressLedger(null, null),
    );
    const again = assessProgress(
      { closedCriteria: ['AC1'], eliminatedHypotheses: ['h1'], evidenceFingerprints: ['log-1'] },
      first.ledger,
    );
    expect(again.kinds).toEqual([]);
    expect(again.notProgress).toEqual([
      { kind: 'acceptance-criterion-closed', why: expect.stringMatching(/criterion.*already recorded/) },
      { kind: 'hypothesis-eliminated', why: expect.stringMatching(/hypothesis.*already recorded/) },
      { kind: 'new-evidence', why: expect.stringMatching(/evidence fingerprint.*already recorded/) },
    ]);
  });

  it('an empty claim list is no claim at all', () => {
    const result = assessProgress(
      { closedCriteria: [], eliminatedHypotheses: [], evidenceFingerprints: [] },
      startProgressLedger(null, null),
    );
    expect(result).toMatchObject({ kinds: [], notProgress: [] });
  });

  it('one new item among old ones counts, and the ledger records it once', () => {
    const first = assessProgress({ closedCriteria: ['AC1'] }, startProgressLedger(null, null));
    const second = assessProgress({ closedCriteria: ['AC1', 'AC2', 'AC2'] }, first.ledger);
    expect(second.kinds).toEqual(['acceptance-criterion-closed']);
    expect(second.ledger.closedCriteria).toEqual(['AC1', 'AC2']);
    // The earlier ledger is not changed.
    expect(first.ledger.closedCriteria).toEqual(['AC1']);
  });

  it('a metric without a baseline, and a gain within the tolerance (with the numbers)', () => {
    const noBaseline = assessProgress({ metric: 1 }, startProgressLedger(null, null), null);
    expect(noBaseline.notProgress).toEqual([
      { kind: 'metric-improved-beyond-tolerance', why: expect.stringMatching(/no metric baseline/) },
    ]);
    // A baseline given but a ledger without a metric is the same case.
    const noBest = assessProgress({ metric: 1 }, startProgressLedger(null, null), baseline);
    expect(noBest.kinds).toEqual([]);
    expect(noBest.notProgress[0]?.why).toMatch(/no metric baseline/);
    // 10 beats the median 11 by 1, within the tolerance 2.
    const small = assessProgress({ metric: 10 }, startProgressLedger(baseline, null), baseline);
    expect(small.kinds).toEqual([]);
    expect(small.ledger.bestMetric).toBe(11);
    expect(small.notProgress).toEqual([
      {
        kind: 'metric-improved-beyond-tolerance',
        why: expect.stringMatching(/gain 1 .*best known 11.*tolerance 2/),
      },
    ]);
  });

  it('a queue that did not shrink, or with nothing to compare, and the ledger keeps the new length', () => {
    const noEarlier = assessProgress({ queueLength: 4 }, startProgressLedger(null, null));
    expect(noEarlier.notProgress).toEqual([
      { kind: 'queue-reduced', why: expect.stringMatching(/no earlier queue length/) },
    ]);
    expect(noEarlier.ledger.queueLength).toBe(4);
    const same = assessProgress({ queueLength: 4 }, noEarlier.ledger);
    expect(same.kinds).toEqual([]);
    expect(same.notProgress[0]?.why).toMatch(/queue length 4 is not below 4/);
    const grown = assessProgress({ queueLength: 6 }, same.ledger);
    expect(grown.ledger.queueLength).toBe(6);
    expect(assessProgress({ queueLength: 5 }, grown.ledger).kinds).toEqual(['queue-reduced']);
  });

  it('a state already observed', () => {
    const result = assessProgress({ observationFingerprint: 'A' }, startProgressLedger(null, 'A'));
    expect(result.notProgress).toEqual([
      { kind: 'state-transition-observed', why: expect.stringMatching(/already seen/) },
    ]);
    expect(result.ledger.observedFingerprints).toEqual(['A']);
  });

  it('the ledger at baseline records the baseline observation, median and queue', () => {
    expect(startProgressLedger(baseline, 'obs-0', 7)).toEqual({
      closedCriteria: [],
      eliminatedHypotheses: [],
      evidenceFingerprints: [],
      observedFingerprints: ['obs-0'],
      bestMetric: 11,
      queueLength: 7,
    });
    expect(startProgressLedger(null, null)).toMatchObject({
      observedFingerprints: [],
      bestMetric: null,
      queueLength: null,
    });
  });
});

describe('the noisy baseline refuses bad options and samples by name', () => {
  const codes = (result: ReturnType<typeof aggregateBaseline>) =>
    result.ok ? [] : result.findings.map((f) => f.code);

  it('minSamples must be a whole number >= 1, minimumTolerance finite and >= 0', () => {
    for (const options of [
      { minSamples: 0 },
      { minSamples: 1.5 },
      { minimumTolerance: -1 },
      { minimumTolerance: Number.NaN },
      { minimumTolerance: Number.POSITIVE_INFINITY },
    ]) {
      const result = aggregateBaseline([1, 2, 3], { direction: 'lower-is-better', ...options });
      expect(codes(result)).toEqual(['loop-protocol.baseline.options-invalid']);
      // The finding names both options, so a person knows what to fix.
      const message = result.ok ? '' : (result.findings[0]?.reason ?? '');
      expect(message).toMatch(/minSamples/);
      expect(message).toMatch(/minimumTolerance/);
    }
    const ok = aggregateBaseline([5], { direction: 'higher-is-better', minSamples: 1, minimumTolerance: 0 });
    expect(ok).toEqual({
      ok: true,
      baseline: {
        direction: 'higher-is-better',
        samples: [5],
        median: 5,
        spread: { min: 5, max: 5 },
        tolerance: 0,
      },
    });
  });

  it('the findings name the count, the minimum and the bad sample', () => {
    const few = aggregateBaseline([1, 2], { direction: 'lower-is-better', minSamples: 4 });
    expect(few.ok).toBe(false);
    if (!few.ok) expect(few.findings[0]?.reason).toMatch(/2 baseline sample\(s\).*at least 4/);
    const bad = aggregateBaseline([1, 2, Number.POSITIVE_INFINITY], { direction: 'lower-is-better' });
    if (bad.ok) throw new Error('expected a refusal');
    expect(bad.findings[0]?.reason).toMatch(/sample 3 \(Infinity\) is not a finite number/);
    expect(aggregateBaseline([1, 2, 3], { direction: 'lower-is-better', minSamples: 1 }).ok).toBe(true);
    expect(aggregateBaseline([1, 2, 3], { direction: 'lower-is-better', minSamples: 3 }).ok).toBe(true);
  });

  it('the median sorts numerically and takes the middle (or the mean of the middle two)', () => {
    expect(median([10, 9, 100])).toBe(10);
    expect(median([3])).toBe(3);
    expect(median([1, 100, 2, 50])).toBe(26);
    expect(median([-5, -1, -3])).toBe(-3);
  });
});
