/**
 * What the loop protocol machine hands its effects and what it records from them, driven with
 * scripted actors: the baseline's sample numbers and noise floor, the comparison `choose` reads
 * (baseline, previous and seen fingerprints, the metric against the best known value), a new
 * observed state as progress, the budget `act` reports summed, the recorded strategy change of a
 * pivot, and the evidence each failed or refused effect leaves. Expected values are written by
 * hand from docs/loop-protocol.md (Baseline of a noisy metric, Progress, Continue, pivot or stop,
 * How to run it) and docs/decisions/cybernetic-machines.md (M20-M25, M32, M33).
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, toPromise } from 'xstate';
import {
  type ActInput,
  type ActOutput,
  type CheckpointInput,
  type CheckpointResult,
  type Choice,
  type ChooseInput,
  type LoopProtocolContext,
  type LoopProtocolOutput,
  type LoopProtocolStartEvent,
  loopProtocolMachine,
  type Observation,
  type ObserveInput,
  type RollbackInput,
  type RollbackResult,
  type Verification,
  type VerifyInput,
} from '../../machines/loop-protocol/index.js';

/** Every material field given; budget of 5 cycles, plateau after 2 cycles without progress. */
const CONTRACT = {
  outcome: 'zero failing tests',
  observableSource: 'npm test --reporter json',
  allowedActions: 'scoped local edits and tests',
  actor: 'the current task',
  evaluator: 'npm test',
  iterationBudget: 5,
  plateauRule: 'stop after 2 non-improving attempts',
} as const;

const seen = (fingerprint: string, metric: number | null = null): Observation => ({
  available: true,
  summary: `observed ${fingerprint}`,
  metric,
  fingerprint,
  userChangesOverlap: false,
});

const act = (summary: string, fields: Partial<Choice> = {}): Choice => ({
  action: { kind: 'action', summary },
  reason: `reason for ${summary}`,
  needsBroaderScope: false,
  pivotAvailable: false,
  permittedActionRemains: true,
  crossTurn: false,
  ...fields,
});

/** A choice that ends the run at the table (scope-needs-broadening), with nothing acted. */
const BROADER: Choice = { ...act('edit the CI config'), needsBroaderScope: true };

const verified = (fields: Partial<Verification> = {}): Verification => ({
  verdict: 'fail',
  detail: null,
  evidence: ['npm test exit 1'],
  successEvidence: [],
  terminalFailureEvidence: [],
  claim: {},
  errorFingerprint: null,
  ...fields,
});

const ACTED: ActOutput = { evidence: ['edited src/tokenizer.ts'], elapsedMs: 0, tokens: 0, cost: 0 };

/** A scripted answer: the value to resolve with, or `{ reject }` to reject with that value. */
type Answer<T> = T | { readonly reject: unknown };

interface Script {
  readonly observe: readonly Answer<Observation>[];
  readonly choose?: readonly Answer<Choice>[];
  readonly act?: readonly Answer<ActOutput>[];
  readonly verify?: readonly Answer<Verification>[];
  /** Checkpoint answers in call order (default: ok, `cp-<cycle>`). */
  readonly checkpoint?: readonly Answer<CheckpointResult>[];
  readonly rollback?: readonly Answer<RollbackResult>[];
}

function settle<T>(answers: readonly Answer<T>[] | undefined, index: number, fallback: () => T): T {
  const answer = answers?.[index];
  if (answer === undefined) return fallback();
  if (typeof answer === 'object' && answer !== null && 'reject' in answer) throw answer.reject;
  return answer as T;
}

function exhausted(actor: string): never {
  throw new Error(`the script has no further ${actor} answer`);
}

/** Runs one START against scripted effects to the end; every effect's inputs, in call order. */
async function runScripted(start: Omit<LoopProtocolStartEvent, 'type'>, script: Script) {
  const inputs = {
    observe: [] as ObserveInput[],
    choose: [] as ChooseInput[],
    act: [] as ActInput[],
    verify: [] as VerifyInput[],
    checkpoint: [] as CheckpointInput[],
    rollback: [] as RollbackInput[],
  };
  const machine = loopProtocolMachine.provide({
    actors: {
      observe: fromPromise<Observation, ObserveInput>(async ({ input }) =>
        settle(script.observe, inputs.observe.push(input) - 1, () => exhausted('observe')),
      ),
      choose: fromPromise<Choice, ChooseInput>(async ({ input }) =>
        settle(script.choose, inputs.choose.push(input) - 1, () => exhausted('choose')),
      ),
      act: fromPromise<ActOutput, ActInput>(async ({ input }) =>
        settle(script.act, inputs.act.push(input) - 1, () => ACTED),
      ),
      verify: fromPromise<Verification, VerifyInput>(async ({ input }) =>
        settle(script.verify, inputs.verify.push(input) - 1, () => verified()),
      ),
      checkpoint: fromPromise<CheckpointResult, CheckpointInput>(async ({ input }) =>
        settle(script.checkpoint, inputs.checkpoint.push(input) - 1, () => ({
          ok: true,
          checkpoint: `cp-${input.cycle}`,
          reason: null,
        })),
      ),
      rollback: fromPromise<RollbackResult, RollbackInput>(async ({ input }) =>
        settle(script.rollback, inputs.rollback.push(input) - 1, () => ({ restored: true, detail: null })),
      ),
    },
  });
  const actor = createActor(machine);
  actor.start();
  actor.send({ type: 'START', ...start });
  const output = (await toPromise(actor)) as LoopProtocolOutput;
  const snapshot = actor.getSnapshot();
  return { output, state: snapshot.value, context: snapshot.context as LoopProtocolContext, inputs };
}

describe('loop protocol: the baseline (M20, M21)', () => {
  it('numbers the baseline samples 1..minSamples, then observes cycle 1 as sample 1', async () => {
    const { inputs, context } = await runScripted(
      { contract: CONTRACT, metric: { direction: 'lower-is-better', minSamples: 3 } },
      { observe: [seen('b', 5), seen('b', 7), seen('b', 6), seen('b', 6)], choose: [BROADER] },
    );
    expect(inputs.observe.map(({ cycle, purpose, sample }) => ({ cycle, purpose, sample }))).toEqual([
      { cycle: 0, purpose: 'baseline', sample: 1 },
      { cycle: 0, purpose: 'baseline', sample: 2 },
      { cycle: 0, purpose: 'baseline', sample: 3 },
      { cycle: 1, purpose: 'cycle', sample: 1 },
    ]);
    expect(inputs.checkpoint).toEqual([{ cycle: 0, purpose: 'baseline' }]);
    // Median 6 of 5, 7, 6; the spread 5..7 makes the tolerance 2.
    expect(context.baseline).toEqual({
      direction: 'lower-is-better',
      samples: [5, 7, 6],
      median: 6,
      spread: { min: 5, max: 7 },
      tolerance: 2,
    });
  });

  it('a minimum tolerance floors the noise: a gain within it is no progress, so the action is rolled back', async () => {
    // Two equal samples have no spread; the floor of 2 still makes a gain of 1 noise.
    const script = (): Script => ({
      observe: [seen('b', 5), seen('b', 5), seen('b', 4)],
      choose: [act('fix the tokenizer')],
      verify: [verified({ claim: { metric: 4 } })],
    });
    const one = { ...CONTRACT, iterationBudget: 1 };
    const floored = await runScripted(
      { contract: one, metric: { direction: 'lower-is-better', minSamples: 2, minimumTolerance: 2 } },
      script(),
    );
    expect(floored.context.baseline?.tolerance).toBe(2);
    expect(floored.context.progress).toEqual([]);
    expect(floored.inputs.rollback).toEqual([{ cycle: 1, checkpoint: 'cp-0' }]);
    expect(floored.inputs.checkpoint).toEqual([{ cycle: 0, purpose: 'baseline' }]);
    expect(floored.output.decision).toMatchObject({ decision: 'stop', rule: 'budget-exhausted' });

    // Without the floor the tolerance is the spread, 0: the same gain is progress and is kept.
    const unfloored = await runScripted(
      { contract: one, metric: { direction: 'lower-is-better', minSamples: 2 } },
      script(),
    );
    expect(unfloored.context.baseline?.tolerance).toBe(0);
    expect(unfloored.context.progress).toEqual(['metric-improved-beyond-tolerance']);
    expect(unfloored.inputs.rollback).toEqual([]);
    expect(unfloored.inputs.checkpoint).toEqual([
      { cycle: 0, purpose: 'baseline' },
      { cycle: 1, purpose: 'kept' },
    ]);
  });

  it('fills a missing environment from the repository facts given with START', async () => {
    const { inputs, context } = await runScripted(
      { contract: CONTRACT, facts: { checkout: 'main at 3f2c1e0, clean' } },
      { observe: [seen('b'), seen('b')], choose: [BROADER] },
    );
    expect(inputs.observe[0]?.contract.environment).toBe('main at 3f2c1e0, clean');
    expect(context.inferred.find((field) => field.field === 'environment')).toMatchObject({
      value: 'main at 3f2c1e0, clean',
      source: 'repository inspection (read-only)',
    });
  });
});

describe('loop protocol: what choose reads, and what counts as progress (M22, M24)', () => {
  it('compares each observation with the baseline, the previous one, every one seen and the best metric', async () => {
    const { inputs, output } = await runScripted(
      { contract: CONTRACT, metric: { direction: 'lower-is-better', minSamples: 1 } },
      {
        // baseline b (metric 5), then c1, c1 again, and back to b
        observe: [seen('b', 5), seen('c1', 4), seen('c1', 3), seen('b', 5)],
        choose: [
          act('fix the tokenizer'), // cycle 1: acted; the new state c1 is its progress, so it is kept
          { ...act('none'), action: null, reason: 'wait for the flaky test' }, // cycle 2: nothing new
          BROADER, // cycle 3
        ],
        verify: [verified(), verified()],
      },
    );
    expect(inputs.choose.map((input) => [input.cycle, input.comparison])).toEqual([
      [1, { sameAsBaseline: false, sameAsPrevious: false, seenBefore: false, metricDeltaFromBest: -1 }],
      [2, { sameAsBaseline: false, sameAsPrevious: true, seenBefore: true, metricDeltaFromBest: -2 }],
      [3, { sameAsBaseline: true, sameAsPrevious: false, seenBefore: true, metricDeltaFromBest: 0 }],
    ]);
    // Cycle 1 made progress by observing a state never seen before (no claim of its own): kept,
    // so the checkpoint moved; nothing was rolled back.
    expect(inputs.checkpoint).toEqual([
      { cycle: 0, purpose: 'baseline' },
      { cycle: 1, purpose: 'kept' },
    ]);
    expect(inputs.choose[1]?.ledger.observedFingerprints).toEqual(['b', 'c1']);
    expect(output.decision).toMatchObject({ decision: 'stop', rule: 'scope-needs-broadening' });
  });

  it('the observed state is progress only when new: the same state as the baseline is rolled back', async () => {
    const { inputs, context } = await runScripted(
      { contract: { ...CONTRACT, iterationBudget: 1 } },
      { observe: [seen('b'), seen('b')], choose: [act('fix the tokenizer')], verify: [verified()] },
    );
    expect(context.progress).toEqual([]);
    expect(context.disposition).toBe('discarded');
    expect(inputs.rollback).toEqual([{ cycle: 1, checkpoint: 'cp-0' }]);
  });

  it('sums the time, tokens and cost act reports, and stops on the token budget (M25)', async () => {
    const { context, output, inputs } = await runScripted(
      { contract: { ...CONTRACT, timeOrCostBudget: { tokens: 80 } } },
      {
        observe: [seen('b'), seen('c1'), seen('c2')],
        choose: [act('first fix'), act('second fix')],
        act: [
          { evidence: ['edited a'], elapsedMs: 1500, tokens: 40, cost: 0.25 },
          { evidence: ['edited b'], elapsedMs: 500, tokens: 40, cost: 0.5 },
        ],
      },
    );
    expect(inputs.act).toEqual([
      { cycle: 1, action: { kind: 'action', summary: 'first fix' } },
      { cycle: 2, action: { kind: 'action', summary: 'second fix' } },
    ]);
    expect(context.usage).toEqual({ elapsedMs: 2000, tokens: 80, cost: 0.75 });
    expect(output.decision).toMatchObject({ decision: 'stop', rule: 'budget-exhausted', budget: 'token' });
    expect(output.completedCycles).toBe(2);
  });

  it('records a pivot as the strategy change the next choose reads: after which cycle, which rule, why', async () => {
    const { inputs, output } = await runScripted(
      { contract: CONTRACT },
      {
        observe: [seen('b'), seen('b'), seen('b'), seen('b')],
        choose: [
          act('retry the build', { reason: 'the cache may be stale' }),
          act('retry the build again', { reason: 'the cache is still stale', pivotAvailable: true }),
          BROADER,
        ],
      },
    );
    // Two cycles without progress reach the plateau of 2; a different strategy remains: pivot.
    expect(inputs.rollback).toEqual([
      { cycle: 1, checkpoint: 'cp-0' },
      { cycle: 2, checkpoint: 'cp-0' },
    ]);
    expect(inputs.choose.map((input) => input.pivots)).toEqual([
      [],
      [],
      ['after cycle 2 (plateau): the cache is still stale'],
    ]);
    expect(inputs.choose[2]?.cycle).toBe(3);
    expect(output.decision).toMatchObject({ decision: 'stop', rule: 'scope-needs-broadening' });
  });
});

describe('loop protocol: the evidence a failed or refused effect leaves (M21-M23, M32, M33)', () => {
  const ONE_CYCLE = { ...CONTRACT, iterationBudget: 1 };

  it('a lost source at the baseline says so, with what observe reported', async () => {
    const cases: [Answer<Observation>, Omit<LoopProtocolStartEvent, 'type'>, string][] = [
      [
        { ...seen('b', 5), available: false, summary: 'the test runner is gone' },
        { contract: CONTRACT },
        'baseline: the test runner is gone',
      ],
      [
        seen('b', null),
        { contract: CONTRACT, metric: { direction: 'lower-is-better' } },
        'baseline: the observation gave no metric',
      ],
      [{ reject: new Error('permission denied') }, { contract: CONTRACT }, 'baseline: permission denied'],
    ];
    for (const [answer, start, sourceLost] of cases) {
      const { context, output, inputs } = await runScripted(start, { observe: [answer] });
      expect(context.sourceLost).toBe(sourceLost);
      expect(output.decision).toMatchObject({ decision: 'stop', rule: 'source-lost' });
      expect(inputs.checkpoint).toEqual([]);
    }
  });

  it('a checkpoint that cannot isolate loop changes is an overlap, with its reason or the default one', async () => {
    const cases: [CheckpointResult, string][] = [
      [
        { ok: false, checkpoint: null, reason: 'user edits inside the rollback boundary' },
        'user edits inside the rollback boundary',
      ],
      [{ ok: false, checkpoint: null, reason: null }, 'the checkpoint cannot isolate loop changes'],
    ];
    for (const [refusal, overlap] of cases) {
      // At the baseline.
      const baseline = await runScripted(
        { contract: CONTRACT },
        { observe: [seen('b')], checkpoint: [refusal] },
      );
      expect(baseline.context.boundaryOverlap).toBe(overlap);
      expect(baseline.output.decision).toMatchObject({ decision: 'stop', rule: 'rollback-boundary-overlap' });
      expect(baseline.inputs.choose).toEqual([]);
      // When a kept action would move the boundary.
      const kept = await runScripted(
        { contract: CONTRACT },
        {
          observe: [seen('b'), seen('c1')],
          choose: [act('fix the tokenizer')],
          checkpoint: [{ ok: true, checkpoint: 'cp-0', reason: null }, refusal],
        },
      );
      expect(kept.inputs.checkpoint).toEqual([
        { cycle: 0, purpose: 'baseline' },
        { cycle: 1, purpose: 'kept' },
      ]);
      expect(kept.context.boundaryOverlap).toBe(overlap);
      expect(kept.output.decision).toMatchObject({ decision: 'stop', rule: 'rollback-boundary-overlap' });
    }
  });

  it('a checkpoint or rollback that fails is terminal-failure evidence naming the cycle and the error', async () => {
    const noCheckpoint = await runScripted(
      { contract: CONTRACT },
      { observe: [seen('b')], checkpoint: [{ reject: new Error('no space left on device') }] },
    );
    expect(noCheckpoint.output.decision).toEqual({
      decision: 'stop',
      rule: 'terminal-failure',
      reason: 'terminal failure is confirmed',
      evidence: ['no checkpoint could be confirmed: no space left on device'],
    });

    const notMoved = await runScripted(
      { contract: CONTRACT },
      {
        observe: [seen('b'), seen('c1')],
        choose: [act('fix the tokenizer')],
        checkpoint: [
          { ok: true, checkpoint: 'cp-0', reason: null },
          { reject: new Error('disk quota exceeded') },
        ],
      },
    );
    expect(notMoved.output.decision).toMatchObject({
      rule: 'terminal-failure',
      evidence: ['cycle 1: the checkpoint could not be moved: disk quota exceeded'],
    });

    // A discarded action (the same state as the baseline, nothing claimed) whose rollback failed.
    const rollbacks: [Answer<RollbackResult>, string][] = [
      [
        { restored: false, detail: 'src/tokenizer.ts is locked' },
        'cycle 1: rollback failed: src/tokenizer.ts is locked',
      ],
      [{ restored: false, detail: null }, 'cycle 1: rollback failed: no detail'],
      [{ reject: new Error('git stash is forbidden') }, 'cycle 1: rollback failed: git stash is forbidden'],
    ];
    for (const [answer, evidence] of rollbacks) {
      const { output, inputs } = await runScripted(
        { contract: CONTRACT },
        { observe: [seen('b'), seen('b')], choose: [act('fix the tokenizer')], rollback: [answer] },
      );
      expect(inputs.rollback).toEqual([{ cycle: 1, checkpoint: 'cp-0' }]);
      expect(output.decision).toMatchObject({ rule: 'terminal-failure', evidence: [evidence] });
    }
  });

  it('a failed choose, act or verify is recorded with the error (M23)', async () => {
    const chooseFailed = await runScripted(
      { contract: CONTRACT },
      { observe: [seen('b'), seen('b')], choose: [{ reject: new Error('the planner crashed') }] },
    );
    expect(chooseFailed.context.choice).toEqual({
      action: null,
      reason: 'choosing failed: the planner crashed',
      needsBroaderScope: false,
      pivotAvailable: false,
      permittedActionRemains: false,
      crossTurn: false,
    });
    expect(chooseFailed.output.decision).toMatchObject({ decision: 'stop', rule: 'no-permitted-action' });

    // The action failed, and is still verified.
    const actFailed = await runScripted(
      { contract: ONE_CYCLE },
      {
        observe: [seen('b'), seen('b')],
        choose: [act('fix the tokenizer')],
        act: [{ reject: new Error('the edit did not apply') }],
      },
    );
    expect(actFailed.context.actEvidence).toEqual(['the action failed: the edit did not apply']);
    expect(actFailed.inputs.verify).toEqual([
      { cycle: 1, evaluator: 'npm test', action: { kind: 'action', summary: 'fix the tokenizer' } },
    ]);

    const verifyFailed = await runScripted(
      { contract: ONE_CYCLE },
      {
        observe: [seen('b'), seen('b')],
        choose: [act('fix the tokenizer')],
        verify: [{ reject: new Error('npm is not installed') }],
      },
    );
    expect(verifyFailed.context.verification).toEqual({
      verdict: 'unavailable',
      detail: 'npm is not installed',
      evidence: ['the evaluator could not run: npm is not installed'],
      successEvidence: [],
      terminalFailureEvidence: [],
      claim: {},
      errorFingerprint: 'evaluator-unavailable: npm is not installed',
    });
  });

  it("an effect's error text is its own string message, else the rejected value as text (M32)", async () => {
    const cases: [unknown, string][] = [
      [new Error('no space left on device'), 'no space left on device'],
      [{ message: 'disk went away', code: 'EIO' }, 'disk went away'],
      ['disk full', 'disk full'],
      [42, '42'],
      [null, 'null'],
      [undefined, 'undefined'],
      [{ message: 42 }, '{"message":42}'],
      [{ code: 'EIO', errno: -5 }, '{"code":"EIO","errno":-5}'],
    ];
    for (const [rejection, text] of cases) {
      const { output } = await runScripted(
        { contract: CONTRACT },
        { observe: [seen('b')], checkpoint: [{ reject: rejection }] },
      );
      expect(output.decision).toMatchObject({
        rule: 'terminal-failure',
        evidence: [`no checkpoint could be confirmed: ${text}`],
      });
    }
  });

  it('a rejection String() cannot print still reaches the table instead of stopping the machine', async () => {
    for (const [rejection, text] of [
      [Object.create(null), '{}'],
      [{ toString: false }, '{"toString":false}'],
    ] as const) {
      const { state, output } = await runScripted(
        { contract: CONTRACT },
        { observe: [seen('b')], checkpoint: [{ reject: rejection }] },
      );
      expect(state).toBe('stopped');
      expect(output.decision).toMatchObject({
        rule: 'terminal-failure',
        evidence: [`no checkpoint could be confirmed: ${text}`],
      });
    }
  });
});
