/**
 * Model-based tests of the loop protocol machine: every generated path runs as its own test
 * against a live actor whose effects the test settles. After each step the live context is
 * compared with an oracle that follows the protocol's procedure on the same events using only
 * the pure core (completeEntryContract, aggregateBaseline, assessProgress, nextStreaks,
 * decideContinuation); the file fails unless every transition and every state was taken.
 */
import { afterAll, describe, expect, it } from 'vitest';
import type {
  Choice,
  LoopProtocolContext,
  Observation,
  Verification,
} from '../../machines/loop-protocol/index.js';
import { loopProtocolMachine } from '../../machines/loop-protocol/index.js';
import { createAssertionTally } from '../../src/graph/assertion-tally.js';
import { transitionCoverage } from '../../src/graph/coverage.js';
import { loopProtocolModel } from '../../src/graph/models/loop-protocol.js';
import { generatePathSuite } from '../../src/graph/path-suite.js';
import type { PathStep } from '../../src/graph/path-suite-schema.js';
import { createSuiteRun } from '../../src/graph/run-path.js';
import { actionDisposition, FRESH_STREAKS, nextStreaks } from '../../src/loop-protocol/cycle-record.js';
import type { EntryContract, PartialEntryContract } from '../../src/loop-protocol/entry-contract.js';
import { completeEntryContract } from '../../src/loop-protocol/infer-or-stop.js';
import { aggregateBaseline, type NoisyBaseline } from '../../src/loop-protocol/noisy-baseline.js';
import {
  assessProgress,
  type ProgressKind,
  type ProgressLedger,
  startProgressLedger,
} from '../../src/loop-protocol/progress.js';
import {
  budgetLimitsOf,
  type ContinuationDecision,
  decideContinuation,
  plateauThresholdOfContract,
} from '../../src/loop-protocol/stop-rules.js';
import { dotted, oracleOf, reportAndRequireFull } from '../oracles/harness.js';
import { loopProtocolReference } from '../oracles/loop-protocol.js';

const suite = generatePathSuite(loopProtocolMachine, loopProtocolModel);
const run = createSuiteRun(loopProtocolMachine, loopProtocolModel, suite);

interface Settings {
  metric?: { direction: 'lower-is-better' | 'higher-is-better'; minSamples?: number } | null;
  repeatedErrorThreshold?: number;
  wakeupAuthorized?: boolean;
}

/** The protocol followed by hand on the same events. */
class Oracle {
  phase: 'entry' | 'baseline' | 'cycle' | 'retaining' | 'rolling-back' | 'done' = 'entry';
  given: PartialEntryContract = {};
  settings: Settings = {};
  contract: EntryContract | null = null;
  samples: number[] = [];
  baseline: NoisyBaseline | null = null;
  baselineFingerprint: string | null = null;
  ledger: ProgressLedger | null = null;
  completed = 0;
  streaks = FRESH_STREAKS;
  elapsedMs = 0;
  cancelled = false;
  sourceLost = false;
  overlap = false;
  failures: string[] = [];
  observation: Observation | null = null;
  choice: Choice | null = null;
  verification: Verification | null = null;
  progress: readonly ProgressKind[] = [];
  decision: ContinuationDecision | null = null;
  pivots = 0;

  enter(): void {
    const done = completeEntryContract(this.given, {});
    if (done.kind === 'complete') {
      this.contract = done.contract;
      this.phase = 'baseline';
    } else if (done.kind === 'invalid') this.phase = 'done';
  }

  decide(): void {
    const contract = this.contract as EntryContract;
    const plateau = plateauThresholdOfContract(contract);
    this.decision = decideContinuation({
      userCancelled: this.cancelled,
      sourceAvailable: !this.sourceLost,
      userChangesOverlapRollbackBoundary: this.overlap,
      successEvidence: this.verification?.successEvidence ?? [],
      terminalFailureEvidence: [...(this.verification?.terminalFailureEvidence ?? []), ...this.failures],
      nextActionNeedsBroaderScope: this.choice?.needsBroaderScope ?? false,
      limits: budgetLimitsOf(contract),
      usage: { iterations: this.completed, elapsedMs: this.elapsedMs, tokens: 0, cost: 0 },
      progress: [...this.progress],
      nonProgressStreak: this.streaks.nonProgress,
      plateauThreshold: plateau,
      repeatedErrorStreak: this.streaks.repeatedError,
      repeatedErrorThreshold: this.settings.repeatedErrorThreshold ?? plateau,
      pivotAvailable: this.choice?.pivotAvailable ?? false,
      crossTurn: this.choice?.crossTurn ?? false,
      wakeupAuthorized: this.settings.wakeupAuthorized ?? false,
      permittedActionRemains: this.choice?.permittedActionRemains ?? true,
    });
    if (this.decision.decision === 'stop') {
      this.phase = 'done';
      return;
    }
    if (this.decision.decision === 'pivot') {
      this.pivots += 1;
      this.streaks = FRESH_STREAKS;
    }
    this.phase = 'cycle';
    this.observation = null;
    this.choice = null;
    this.verification = null;
    this.progress = [];
  }

  record(verification: Verification): void {
    this.verification = verification;
    const claim = {
      ...verification.claim,
      ...(this.observation ? { observationFingerprint: this.observation.fingerprint } : {}),
    };
    const assessed = assessProgress(claim, this.ledger as ProgressLedger, this.baseline);
    this.ledger = assessed.ledger;
    this.progress = assessed.kinds;
    this.completed += 1;
    this.streaks = nextStreaks(this.streaks, assessed.kinds, verification.errorFingerprint);
    const disposition = actionDisposition(this.choice?.action != null, assessed.kinds);
    if (disposition === 'kept') this.phase = 'retaining';
    else if (disposition === 'discarded') this.phase = 'rolling-back';
    else this.decide();
  }

  apply(event: PathStep['event']): void {
    const type = event.type;
    const output = event.output as never;
    const error = (event.error as { message?: string } | undefined)?.message ?? '';
    if (type === 'START') {
      const { contract, ...settings } = event as unknown as { contract: PartialEntryContract } & Settings;
      this.given = contract;
      this.settings = settings;
      this.enter();
    } else if (type === 'DIRECTION') {
      this.given = { ...this.given, ...(event.fields as PartialEntryContract) };
      this.enter();
    } else if (type === 'CANCEL') {
      if (this.contract === null) this.phase = 'done';
      else {
        this.cancelled = true;
        this.decide();
      }
    } else if (type === 'xstate.done.actor.observe') {
      const o = output as Observation;
      if (!o.available) {
        this.sourceLost = true;
        this.decide();
      } else if (this.phase === 'baseline') {
        if (this.settings.metric && o.metric === null) {
          this.sourceLost = true;
          this.decide();
          return;
        }
        if (o.metric !== null) this.samples.push(o.metric);
        this.baselineFingerprint = o.fingerprint;
        const metric = this.settings.metric;
        if (metric && this.samples.length >= (metric.minSamples ?? 3)) {
          const aggregated = aggregateBaseline(this.samples, {
            direction: metric.direction,
            minSamples: metric.minSamples ?? 3,
          });
          this.baseline = aggregated.ok ? aggregated.baseline : null;
        }
      } else if (o.userChangesOverlap) {
        this.overlap = true;
        this.decide();
      } else this.observation = o;
    } else if (type === 'xstate.error.actor.observe') {
      this.sourceLost = true;
      this.decide();
    } else if (type === 'xstate.done.actor.checkpoint') {
      const ok = (output as { ok: boolean }).ok;
      if (!ok) {
        this.overlap = true;
        this.decide();
      } else if (this.phase === 'baseline') {
        this.phase = 'cycle';
        this.ledger = startProgressLedger(this.baseline, this.baselineFingerprint);
      } else this.decide();
    } else if (type === 'xstate.error.actor.checkpoint') {
      this.failures.push(error);
      this.decide();
    } else if (type === 'xstate.done.actor.choose') {
      this.choice = output as Choice;
      if (this.choice.needsBroaderScope) this.decide();
    } else if (type === 'xstate.error.actor.choose') {
      this.choice = {
        action: null,
        reason: error,
        needsBroaderScope: false,
        pivotAvailable: false,
        permittedActionRemains: false,
        crossTurn: false,
      };
      this.decide();
    } else if (type === 'xstate.done.actor.act') {
      this.elapsedMs += (output as { elapsedMs: number }).elapsedMs;
    } else if (type === 'xstate.done.actor.verify') {
      this.record(output as Verification);
    } else if (type === 'xstate.error.actor.verify') {
      this.record({
        verdict: 'unavailable',
        detail: error,
        evidence: [],
        successEvidence: [],
        terminalFailureEvidence: [],
        claim: {},
        errorFingerprint: `evaluator-unavailable: ${error}`,
      });
    } else if (type === 'xstate.done.actor.rollback') {
      if (!(output as { restored: boolean }).restored) this.failures.push('rollback failed');
      this.decide();
    } else if (type === 'xstate.error.actor.rollback') {
      this.failures.push(error);
      this.decide();
    }
  }
}

function replay(steps: readonly PathStep[]): Oracle {
  const oracle = new Oracle();
  for (const step of steps) oracle.apply(step.event);
  return oracle;
}

const tally = createAssertionTally(loopProtocolMachine);
const independent = oracleOf(tally);

describe(`${suite.machine}: ${suite.paths.length} generated paths`, () => {
  for (const path of suite.paths) {
    it(path.description, async () => {
      await run.run(path, {
        assertStep: (snapshot, step, { index }) => {
          // Independent: the state and decision a reference of the protocol (test/oracles) expects.
          const expected = loopProtocolReference(path.steps.slice(0, index + 1)).at(-1);
          const decided = step.transitions.some((key) => key.startsWith('loop-protocol.deciding|'));
          const made = snapshot.context.decision;
          independent.same(
            step,
            'state and decision after the step (reference protocol)',
            {
              state: dotted(snapshot.value),
              decision: decided && made !== null ? `${made.decision}:${made.rule}` : null,
            },
            expected,
          );
          // Consistency with the pure core (not counted as an independent assertion).
          const oracle = replay(path.steps.slice(0, index + 1));
          const context = snapshot.context as LoopProtocolContext;
          expect(context.contract).toEqual(oracle.contract);
          expect(context.baseline).toEqual(oracle.baseline);
          expect(context.completedCycles).toBe(oracle.completed);
          expect(context.streaks).toEqual(oracle.streaks);
          expect(context.progress).toEqual(oracle.progress);
          expect(context.pivots).toHaveLength(oracle.pivots);
          // The continue / pivot / stop decision is the pure core's for the same observations.
          // (terminal evidence is compared by count: its wording is the machine's own)
          const view = (d: ContinuationDecision | null) =>
            d === null ? null : { decision: d.decision, rule: d.rule, evidence: d.evidence?.length ?? 0 };
          expect(view(context.decision)).toEqual(view(oracle.decision));
          if (snapshot.status === 'done') {
            expect(oracle.phase).toBe('done');
            if (oracle.contract === null)
              expect(snapshot.value).toBe(
                completeEntryContract(oracle.given, {}).kind === 'invalid'
                  ? 'invalidContract'
                  : 'cancelledBeforeStart',
              );
            else {
              expect(snapshot.value).toBe('stopped');
              expect(oracle.decision?.decision).toBe('stop');
            }
            const output = snapshot.output as { status: string } | undefined;
            expect(output?.status).toBe(
              snapshot.value === 'invalidContract'
                ? 'invalid-contract'
                : snapshot.value === 'cancelledBeforeStart'
                  ? 'cancelled-before-start'
                  : 'stopped',
            );
          } else if (snapshot.matches('awaitingDirection')) {
            const done = completeEntryContract(oracle.given, {});
            expect(done.kind).toBe('stop');
            expect(context.missing).toEqual(done.kind === 'stop' ? done.missing : []);
          }
        },
      });
    });
  }

  it('reaches every rule of the continue / pivot / stop table', () => {
    const decisions = new Set(
      suite.paths.flatMap((p) =>
        p.steps.map((s) => (s.stateAfter.projection as { decision: string | null }).decision),
      ),
    );
    for (const expected of [
      'stop:user-cancelled',
      'stop:source-lost',
      'stop:rollback-boundary-overlap',
      'stop:success',
      'stop:terminal-failure',
      'stop:scope-needs-broadening',
      'stop:budget-exhausted',
      'stop:no-wakeup',
      'pivot:plateau',
      'stop:plateau',
      'pivot:repeated-error',
      'stop:repeated-error',
      'stop:no-permitted-action',
      'continue:progress-made',
      'continue:within-patience',
    ])
      expect(decisions).toContain(expected);
  });

  afterAll(() => {
    reportAndRequireFull(
      loopProtocolMachine,
      transitionCoverage(loopProtocolMachine, run.collected()),
      tally,
      run.collected().transitions,
    );
  });
});
