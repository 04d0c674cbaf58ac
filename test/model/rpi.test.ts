/**
 * Model-based tests of the RPI statechart: every generated path runs as its own test against a
 * live actor whose effects the test settles, and each step is checked against the pure law in
 * src/convergence/ (the fold over the rounds judged so far, and `runRepairPhase` at the end). A
 * property test then drives the live machine with random validator scripts and compares the stop
 * with `runRepairPhase` over the same rounds. The suite fails unless every transition and every
 * state of the machine was exercised.
 */
import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createActor, fromPromise, type SnapshotFrom, toPromise } from 'xstate';
import {
  type FinalCiOutcome,
  type FinalCiRequest,
  type ImplementOutcome,
  type ImplementRequest,
  type PlanOutcome,
  type RpiContext,
  type RpiOutcome,
  rpiMachine,
  type SubjectMeasure,
  type ValidateRequest,
} from '../../machines/rpi/index.js';
import { withinRepairBudget } from '../../src/convergence/repair-budget.js';
import {
  admitRound,
  exhaustRepairBudget,
  type RepairPhaseState,
  runRepairPhase,
  startRepairPhase,
} from '../../src/convergence/repair-phase.js';
import { rpiReportSchema } from '../../src/convergence/schemas.js';
import type { StopReason } from '../../src/convergence/stop-reason.js';
import { createAssertionTally } from '../../src/graph/assertion-tally.js';
import type { ControlledInvocation } from '../../src/graph/controlled-actors.js';
import { transitionCoverage } from '../../src/graph/coverage.js';
import { rpiModel } from '../../src/graph/models/rpi.js';
import { generatePathSuite } from '../../src/graph/path-suite.js';
import { createSuiteRun } from '../../src/graph/run-path.js';
import { dotted, oracleOf, reportAndRequireFull } from '../oracles/harness.js';
import { rpiReferenceStates } from '../oracles/rpi.js';

type RpiSnapshot = SnapshotFrom<typeof rpiMachine>;

const LAW_STOPS: readonly string[] = [
  'converged',
  'diversity_unsatisfied',
  'repair_budget_exhausted',
  'reopened_finding',
  'finding_set_grew',
  'no_subject_or_evidence_change',
];

/** The pure fold over the rounds the machine judged, with the bound exhausted the way the machine does. */
function foldRounds(context: RpiContext): RepairPhaseState | null {
  const [first, ...rest] = context.rounds;
  if (first === undefined) return null;
  let state = startRepairPhase(first, {
    repairRounds: context.repairRounds,
    riskySurface: context.riskySurface,
  });
  for (const round of rest) state = admitRound(state, round);
  if (
    state.stopReason === null &&
    context.phase?.stopReason === 'repair_budget_exhausted' &&
    !withinRepairBudget(state.roundsUsed, state.repairRounds)
  ) {
    state = exhaustRepairBudget(state);
  }
  return state;
}

/** What `runRepairPhase` says about the same rounds; a live loop ends `not_converged` on the bound. */
function lawStop(context: RpiContext): StopReason {
  const result = runRepairPhase(context.rounds, {
    repairRounds: context.repairRounds,
    riskySurface: context.riskySurface,
  });
  return result.stopReason === 'not_converged' ? 'repair_budget_exhausted' : result.stopReason;
}

function checkStep(snapshot: RpiSnapshot, invocations: readonly ControlledInvocation[]): void {
  const context = snapshot.context as RpiContext;
  // The phase the guards walked is the fold of the pure law over the same rounds.
  expect(context.phase).toEqual(foldRounds(context));

  // Effects: one Plan, one implementation, a cross-family leg only on risky surfaces, never more
  // repairs than the bound.
  const count = (id: string) => invocations.filter((i) => i.id === id).length;
  expect(count('plan')).toBeLessThanOrEqual(1);
  expect(count('implement')).toBeLessThanOrEqual(1);
  expect(count('repair')).toBeLessThanOrEqual(context.repairRounds);
  if (!context.riskySurface) expect(count('validateCrossFamily')).toBe(0);
  for (const invocation of invocations.filter(
    (i) => i.src === 'validateFresh' || i.src === 'validateCrossFamily',
  )) {
    expect((invocation.input as { subjectDigest: string }).subjectDigest).toMatch(/^[0-9a-f]{64}$/);
  }

  if (snapshot.status !== 'done') return;
  const outcome = snapshot.output as RpiOutcome;
  const terminal = snapshot.value as string;
  expect(outcome.terminal).toBe(terminal);
  if (LAW_STOPS.includes(terminal)) {
    // The terminal the guards reached, the stop the fold recorded and the batch law agree.
    expect(context.phase?.stopReason).toBe(terminal);
    expect(lawStop(context)).toBe(terminal);
    expect(outcome.stopReason).toBe(terminal);
    if (terminal === 'repair_budget_exhausted')
      expect(withinRepairBudget(context.phase?.roundsUsed ?? 0, context.repairRounds)).toBe(false);
  }
  if (outcome.report !== null) {
    expect(rpiReportSchema.safeParse(outcome.report).success).toBe(true);
    expect(outcome.report.status === 'PASS').toBe(outcome.converged);
  }
  const expectedStatus: Record<string, string | null> = {
    not_planned: 'NOT_PLANNED',
    not_built: 'NOT_BUILT',
    repair_failed: 'NOT_PROVEN',
    diversity_unsatisfied: 'NOT_PROVEN',
    converged: 'PASS',
    final_ci_failed: 'NOT_PROVEN',
    final_ci_stale_receipt: 'NOT_PROVEN',
    round_rejected: null,
    failed: null,
  };
  if (terminal in expectedStatus) expect(outcome.report?.status ?? null).toBe(expectedStatus[terminal]);
  if (terminal === 'repair_failed') expect(outcome.report?.subject_manifest_digest).toBeNull();
  if (terminal === 'round_rejected') expect(outcome.rejection.length).toBeGreaterThan(0);
  // A final CI stop comes only after the repair phase converged, and records its receipt.
  if (terminal === 'final_ci_failed' || terminal === 'final_ci_stale_receipt') {
    expect(context.phase?.stopReason).toBe('converged');
    expect(context.finalCi?.status).toBe(terminal === 'final_ci_failed' ? 'failed' : 'stale');
  }
  if (terminal === 'converged') expect(['passed', 'not_configured']).toContain(context.finalCi?.status);
}

const suite = generatePathSuite(rpiMachine, rpiModel);
const run = createSuiteRun(rpiMachine, rpiModel, suite);

const tally = createAssertionTally(rpiMachine);
const oracle = oracleOf(tally);

describe(`${suite.machine}: ${suite.paths.length} generated paths`, () => {
  for (const path of suite.paths) {
    it(path.description, async () => {
      await run.run(path, {
        assertStep: (snapshot, step, { invocations, index }) => {
          // Independent: the state a reference of the law (test/oracles/rpi.ts) expects.
          const expected = rpiReferenceStates(path.steps.slice(0, index + 1), rpiModel.input as never).at(-1);
          oracle.same(step, 'state after the step (reference law)', dotted(snapshot.value), expected);
          // Consistency with the pure core (not counted as an independent assertion).
          checkStep(snapshot, invocations);
        },
      });
    });
  }

  afterAll(() => {
    reportAndRequireFull(
      rpiMachine,
      transitionCoverage(rpiMachine, run.collected()),
      tally,
      run.collected().transitions,
    );
  });
});

// ---------------------------------------------------------------------------------------------
// The live machine against runRepairPhase on random validator scripts.

const DIGESTS = ['a', 'b', 'c'].map((c) => c.repeat(64));
const FINDING_SETS = [[], ['f1'], ['f2'], ['f1', 'f2'], ['f1', 'f2', 'f3']];

interface ScriptedRound {
  readonly digest: number;
  readonly status: 'PASS' | 'FAIL' | 'NOT_PROVEN';
  readonly findings: number;
  readonly bindEvidence: boolean;
}

const roundArbitrary: fc.Arbitrary<ScriptedRound> = fc.record({
  digest: fc.integer({ min: 0, max: 2 }),
  status: fc.constantFrom('PASS' as const, 'FAIL' as const, 'NOT_PROVEN' as const),
  findings: fc.integer({ min: 0, max: FINDING_SETS.length - 1 }),
  bindEvidence: fc.boolean(),
});

function scriptedLeg(round: ScriptedRound, index: number, digest: string, family: string): unknown {
  let ids = FINDING_SETS[round.findings] ?? [];
  if (round.status === 'PASS') ids = [];
  if (round.status === 'FAIL' && ids.length === 0) ids = ['f1'];
  return {
    status: round.status,
    findings: ids.map((id) => ({ id })),
    subject_digest: digest,
    evidence_refs: round.bindEvidence
      ? [{ ref: `receipt-${index}`, subject_digest: digest, resolves: ['f1', 'f2', 'f3'] }]
      : [],
    validator_family: family,
  };
}

describe('rpi: the live machine stops where runRepairPhase stops', () => {
  it('on random validator scripts', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.array(roundArbitrary, { minLength: 1, maxLength: 5 }),
        fc.integer({ min: 0, max: 3 }),
        fc.boolean(),
        async (script, repairRounds, risky) => {
          let measured = 0;
          let validated = 0;
          const machine = rpiMachine.provide({
            actors: {
              plan: fromPromise<PlanOutcome, Record<string, never>>(async () => ({
                planned: true as const,
                intentRef: 'caller',
                acceptanceDigest: null,
              })),
              implement: fromPromise<ImplementOutcome, ImplementRequest>(async () => ({
                built: true,
                detail: null,
              })),
              measureSubject: fromPromise<SubjectMeasure, { round: number }>(async () => {
                const round = script[Math.min(measured++, script.length - 1)] as ScriptedRound;
                return { digest: DIGESTS[round.digest] as string, changedPaths: ['src/app.ts'] };
              }),
              validateFresh: fromPromise<unknown, ValidateRequest>(async ({ input }) => {
                const index = Math.min(validated++, script.length - 1);
                return scriptedLeg(script[index] as ScriptedRound, index, input.subjectDigest, 'alpha');
              }),
              validateCrossFamily: fromPromise<unknown, ValidateRequest>(async ({ input }) => ({
                status: 'PASS',
                findings: [],
                subject_digest: input.subjectDigest,
                evidence_refs: [],
                validator_family: 'beta',
              })),
              finalCi: fromPromise<FinalCiOutcome, FinalCiRequest>(async () => ({ configured: false })),
            },
          });
          const actor = createActor(machine, {
            input: { repairRounds, risky: risky ? 'yes' : 'no', crossFamily: false },
          });
          actor.start();
          const outcome = (await toPromise(actor)) as RpiOutcome;
          const context = actor.getSnapshot().context as RpiContext;
          expect(LAW_STOPS).toContain(outcome.terminal);
          expect(outcome.terminal).toBe(lawStop(context));
          // The rounds the machine judged are the script's rounds, in order, never beyond the bound.
          expect(context.rounds.length).toBeLessThanOrEqual(repairRounds + 1);
          const pure = runRepairPhase(context.rounds, { repairRounds, riskySurface: risky });
          expect(outcome.result).toEqual(
            pure.stopReason === 'not_converged' ? { ...pure, stopReason: 'repair_budget_exhausted' } : pure,
          );
        },
      ),
      { numRuns: 150 },
    );
  });
});

describe('rpi: effects the host did not provide', () => {
  it('end the run in failed, naming the actor', async () => {
    const actor = createActor(rpiMachine, { input: {} });
    actor.start();
    const outcome = (await toPromise(actor)) as RpiOutcome;
    expect(outcome.terminal).toBe('failed');
    expect(outcome.failure).toMatchObject({ stage: 'planning', code: 'actor.not-provided', input: false });
    expect(outcome.report).toBeNull();
  });
});
