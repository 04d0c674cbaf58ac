import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { converged, diversityUnsatisfied } from '../../src/convergence/convergence-check.js';
import {
  findingSetGrew,
  lawViolation,
  reopenedFinding,
  subjectOrEvidenceChanged,
} from '../../src/convergence/law.js';
import { normalizeRound } from '../../src/convergence/normalize-round.js';
import { withinRepairBudget } from '../../src/convergence/repair-budget.js';
import {
  admitRound,
  exhaustRepairBudget,
  finishRepairPhase,
  type RepairPhaseResult,
  runRepairPhase,
  startRepairPhase,
} from '../../src/convergence/repair-phase.js';
import type { NormalizedRound } from '../../src/convergence/round.js';
import {
  LAW_VIOLATIONS,
  type LawViolation,
  STOP_REASONS,
  type StopReason,
} from '../../src/convergence/stop-reason.js';
import type { Verdict } from '../../src/convergence/verdict.js';
import { A, B, C } from './fixtures.js';

const RUNS = { numRuns: 1500 };

// A small universe so that unchanged digests, reopened ids and binding evidence all occur often.
const IDS = ['f1', 'f2', 'f3', 'f4'];
const DIGESTS = [A, B, C];
const REFS = ['r1', 'r2', 'r3'];
const FAMILIES = ['claude', 'codex', 'gemini'];

const evidenceArb = fc.oneof(
  fc.constantFrom(...REFS),
  fc.record(
    {
      ref: fc.constantFrom(...REFS),
      subject_digest: fc.constantFrom(...DIGESTS),
      resolves: fc.subarray(IDS),
    },
    { requiredKeys: ['ref'] },
  ),
);

function legArb(digest: string) {
  const findingsFor = (status: Verdict) =>
    status === 'PASS'
      ? fc.constant([])
      : fc.subarray(IDS, { minLength: status === 'FAIL' ? 1 : 0 }).map((ids) => ids.map((id) => ({ id })));
  return fc.constantFrom<Verdict>('PASS', 'FAIL', 'NOT_PROVEN').chain((status) =>
    fc.record(
      {
        status: fc.constant(status),
        findings: findingsFor(status),
        subject_digest: fc.constant(digest),
        evidence_refs: fc.array(evidenceArb, { maxLength: 3 }),
        validator_family: fc.constantFrom(...FAMILIES),
        checked: fc.array(fc.constantFrom('unit', 'lint', 'e2e'), { maxLength: 2 }),
      },
      { requiredKeys: ['status', 'findings', 'subject_digest', 'evidence_refs'] },
    ),
  );
}

const validRoundArb: fc.Arbitrary<unknown> = fc
  .constantFrom(...DIGESTS)
  .chain((digest) =>
    fc.oneof(
      legArb(digest),
      fc.array(legArb(digest), { minLength: 1, maxLength: 3 }) as fc.Arbitrary<unknown>,
    ),
  );

// Now and then a malformed round, to check that both sides read (and refuse) the same rounds.
const roundArb = fc.oneof(
  { weight: 12, arbitrary: validRoundArb },
  { weight: 1, arbitrary: fc.constant('garbage') },
);

const phaseArb = fc.record({
  validations: fc.array(roundArb, { minLength: 1, maxLength: 6 }),
  repairRounds: fc.nat({ max: 4 }),
  riskySurface: fc.boolean(),
});

type Outcome = RepairPhaseResult | { error: string };

function outcome(run: () => RepairPhaseResult): Outcome {
  try {
    return run();
  } catch (error) {
    return { error: (error as { code?: string }).code ?? String(error) };
  }
}

/**
 * The repair phase transcribed directly from the protocol text (reference §1.2), with its own set
 * arithmetic for the law: an independent model the library must match.
 */
function protocolModel(
  validations: readonly unknown[],
  repairRounds: number,
  risky: boolean,
): RepairPhaseResult {
  const lines: string[] = [];
  const closed = new Set<string>();
  let roundsUsed = 0;
  let current: NormalizedRound = normalizeRound(validations[0]);
  let previous = current;
  let lawStopped = false;
  let reason: StopReason | null = null;
  for (let i = 0; i < validations.length; i += 1) {
    if (i > 0) {
      if (roundsUsed >= repairRounds) {
        reason = 'repair_budget_exhausted';
        break;
      }
      current = normalizeRound(validations[i]);
      roundsUsed += 1;
      lines.push(`repair round ${roundsUsed}: ${current.openIds.length} open findings`);
      const open = new Set(current.openIds);
      const before = new Set(previous.openIds);
      const resolved = [...before].filter((id) => !open.has(id));
      let violation: StopReason | null = null;
      if ([...open].some((id) => closed.has(id))) violation = 'reopened_finding';
      else if (open.size > before.size) violation = 'finding_set_grew';
      else if (current.subjectDigest === previous.subjectDigest) {
        const previousRefs = new Set(previous.evidenceRefs.map((e) => e.ref));
        const binding = current.evidenceRefs.filter(
          (e) =>
            !previousRefs.has(e.ref) &&
            e.subject_digest === current.subjectDigest &&
            (e.resolves ?? []).some((id) => resolved.includes(id)),
        );
        const rescued = previous.status === 'NOT_PROVEN' && current.status !== 'FAIL' && binding.length > 0;
        if (!rescued) violation = 'no_subject_or_evidence_change';
      }
      if (violation !== null) {
        reason = violation;
        lawStopped = true;
        break;
      }
      for (const id of resolved) closed.add(id);
    } else {
      lines.push(`repair round 0: ${current.openIds.length} open findings`);
    }
    if (current.status === 'PASS' && risky && current.families.length < 2) {
      reason = 'diversity_unsatisfied';
      break;
    }
    if (current.status === 'PASS') {
      reason = 'converged';
      break;
    }
    previous = current;
  }
  let stopReason: StopReason = reason ?? 'not_converged';
  if (stopReason === 'not_converged' && roundsUsed >= repairRounds && current.openIds.length > 0)
    stopReason = 'repair_budget_exhausted';
  let status = current.status;
  if (stopReason === 'diversity_unsatisfied' || (lawStopped && status === 'PASS')) status = 'NOT_PROVEN';
  return {
    stopReason,
    status,
    roundsUsed,
    openFindings: current.openFindings,
    checked: [...lines, ...current.checked],
    notChecked: current.notChecked,
    subjectDigest: current.subjectDigest,
  };
}

/**
 * Drives the phase the way a statechart does: one named guard per condition, in the order of the
 * evaluate state, and the incremental functions as actions. It asks for the next validation only
 * when the budget allows a repair.
 */
function statechartDriver(
  validations: readonly unknown[],
  repairRounds: number,
  risky: boolean,
): RepairPhaseResult {
  let state = startRepairPhase(validations[0], { repairRounds, riskySurface: risky });
  let next = 1;
  while (state.stopReason === null) {
    if (next >= validations.length) break; // the validator supplied no further round
    if (!withinRepairBudget(state.roundsUsed, state.repairRounds)) {
      state = exhaustRepairBudget(state);
      break;
    }
    const previous = state.current;
    state = admitRound(state, validations[next]);
    next += 1;
    // The guards the machine would evaluate must agree with the stop admitRound recorded. A law
    // stop leaves the closed set as it was, so state.closedIds is what the law judged against.
    const current = state.current;
    if (state.lawStopped) {
      expect(state.stopReason).toBe(lawViolation(previous, current, state.closedIds));
    } else if (diversityUnsatisfied(current, risky)) {
      expect(state.stopReason).toBe('diversity_unsatisfied');
    } else if (converged(current, risky)) {
      expect(state.stopReason).toBe('converged');
    } else {
      expect(state.stopReason).toBeNull();
    }
  }
  return finishRepairPhase(state);
}

describe('repair phase properties (fast-check)', () => {
  it('roundsUsed never exceeds repairRounds', () => {
    let reached = 0;
    fc.assert(
      fc.property(phaseArb, ({ validations, repairRounds, riskySurface }) => {
        const result = outcome(() => runRepairPhase(validations, { repairRounds, riskySurface }));
        if ('error' in result) return;
        reached += 1;
        expect(result.roundsUsed).toBeLessThanOrEqual(repairRounds);
        expect(result.checked.filter((l) => l.startsWith('repair round ')).length).toBe(
          result.roundsUsed + 1,
        );
      }),
      RUNS,
    );
    // The filter above must leave cases that reach the assertions.
    console.log(`cases that reached the assertions: ${reached}`);
    expect(reached).toBeGreaterThanOrEqual(10);
  });

  it('status is PASS only when stopReason is converged, and converged is always PASS', () => {
    let reached = 0;
    fc.assert(
      fc.property(phaseArb, ({ validations, repairRounds, riskySurface }) => {
        const result = outcome(() => runRepairPhase(validations, { repairRounds, riskySurface }));
        if ('error' in result) return;
        reached += 1;
        expect(result.status === 'PASS').toBe(result.stopReason === 'converged');
      }),
      RUNS,
    );
    // The filter above must leave cases that reach the assertions.
    console.log(`cases that reached the assertions: ${reached}`);
    expect(reached).toBeGreaterThanOrEqual(10);
  });

  it('the batch function equals the protocol text transcribed as a loop (same result or same error)', () => {
    fc.assert(
      fc.property(phaseArb, ({ validations, repairRounds, riskySurface }) => {
        expect(outcome(() => runRepairPhase(validations, { repairRounds, riskySurface }))).toEqual(
          outcome(() => protocolModel(validations, repairRounds, riskySurface)),
        );
      }),
      RUNS,
    );
  });

  it('the fold driven by the statechart guards equals the batch function', () => {
    fc.assert(
      fc.property(phaseArb, ({ validations, repairRounds, riskySurface }) => {
        expect(outcome(() => statechartDriver(validations, repairRounds, riskySurface))).toEqual(
          outcome(() => runRepairPhase(validations, { repairRounds, riskySurface })),
        );
      }),
      RUNS,
    );
  });

  it('lawViolation is the first of the three guards that fires, in the order reopen → growth → progress', () => {
    const pairArb = fc.record({
      previous: validRoundArb,
      current: validRoundArb,
      closed: fc.subarray(IDS),
    });
    fc.assert(
      fc.property(pairArb, ({ previous, current, closed }) => {
        const p = normalizeRound(previous);
        const c = normalizeRound(current);
        const expected = reopenedFinding(c, closed)
          ? 'reopened_finding'
          : findingSetGrew(p, c)
            ? 'finding_set_grew'
            : subjectOrEvidenceChanged(p, c)
              ? null
              : 'no_subject_or_evidence_change';
        expect(lawViolation(p, c, closed)).toBe(expected);
      }),
      RUNS,
    );
  });

  it('a law stop over a PASS is reported NOT_PROVEN; any other law stop keeps the round status', () => {
    let reached = 0;
    fc.assert(
      fc.property(phaseArb, ({ validations, repairRounds, riskySurface }) => {
        const result = outcome(() => runRepairPhase(validations, { repairRounds, riskySurface }));
        if ('error' in result || !LAW_VIOLATIONS.includes(result.stopReason as LawViolation)) return;
        reached += 1;
        // The round that broke the law is the last one read: round number roundsUsed.
        const status = normalizeRound(validations[result.roundsUsed]).status;
        expect(result.status).toBe(status === 'PASS' ? 'NOT_PROVEN' : status);
      }),
      RUNS,
    );
    // The filter above must leave cases that reach the assertions.
    console.log(`cases that reached the assertions: ${reached}`);
    expect(reached).toBeGreaterThanOrEqual(10);
  });

  it('the generated phases reach every stop reason (the properties above are not vacuous)', () => {
    const seen = new Set<string>();
    fc.assert(
      fc.property(phaseArb, ({ validations, repairRounds, riskySurface }) => {
        const result = outcome(() => runRepairPhase(validations, { repairRounds, riskySurface }));
        seen.add('error' in result ? result.error : result.stopReason);
      }),
      RUNS,
    );
    expect([...seen].sort()).toEqual([...STOP_REASONS, 'round.not-a-list'].sort());
  });
});
