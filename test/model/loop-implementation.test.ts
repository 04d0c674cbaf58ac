import { afterAll, describe, expect, it } from 'vitest';
import type { AnyStateNode } from 'xstate';
import {
  type CommitRequest,
  type LoopContext,
  loopImplementationMachine,
  returnOutcomeOf,
  rulesOutcome,
  verificationOutcomeOf,
} from '../../machines/loop-implementation.js';
import { menuFor, QUESTION_LINE, renderHumanStop } from '../../src/gauntlet/human-stop.js';
import type { RulesOutcome } from '../../src/gauntlet/rules.js';
import { transitionCoverage } from '../../src/graph/coverage.js';
import { formatCoverageLines, formatMissingCoverage } from '../../src/graph/coverage-format.js';
import { loopImplementationModel } from '../../src/graph/models/loop-implementation.js';
import { generatePathSuite } from '../../src/graph/path-suite.js';
import type { PathStep } from '../../src/graph/path-suite-schema.js';
import { createSuiteRun, type StepContext } from '../../src/graph/run-path.js';
import { enumerateTransitions } from '../../src/graph/transitions.js';

const machine = loopImplementationMachine;
const model = loopImplementationModel;
const suite = generatePathSuite(machine, model);
const run = createSuiteRun(machine, model, suite);
const definitions = new Map(enumerateTransitions(machine).map((t) => [t.key, t]));

/** The rule-table label the protocol prescribes for an ordered-table outcome (the pure core's answer). */
function expectedRule(outcome: RulesOutcome): string {
  switch (outcome.kind) {
    case 'configuration-stop':
      return 'preconditions';
    case 'bound-spent-stop':
      return 'unreachable routing: bound spent';
    case 'unreachable-amend':
      return outcome.autoApply
        ? 'unreachable routing: cut under amend permission'
        : 'unreachable routing: amend batch';
    case 'verify':
      return 'R1 ';
    case 'row-stop':
      return 'R2 ';
    case 'seed-stop':
      return 'R4 seed count';
    case 'dispatch-seed':
      return 'R4 select seed';
    case 'dispatch-row':
      return outcome.hintSource === 'rule3-empty-child' || outcome.hintSource === 'rule3-validation-miss'
        ? 'R3 '
        : 'R4 dispatch';
  }
}

/** The stop state of each human-stop kind. */
const STOP_STATE: Record<string, string> = {
  'row-allowance': 'rowAllowance',
  'missing-model': 'missingModel',
  'seed-exhaustion': 'seedExhaustion',
  'bound-spent': 'boundSpent',
  'unreachable-amend': 'unreachableAmend',
  'recovery-incomplete': 'recoveryIncomplete',
  'commit-boundary': 'commitBoundary',
  'verification-failed': 'verificationFailed',
  'reopened-during-verify': 'reopenedDuringVerify',
};

const OFFER_EVENT: Record<string, string> = {
  retry: 'human.retry',
  raise: 'human.raise',
  amend: 'human.amend',
  stop: 'human.stop',
  discard: 'human.discard',
  return: 'human.return',
};

function takenFrom(step: PathStep, sourceSuffix: string) {
  return step.transitions.map((key) => definitions.get(key)).filter((t) => t?.source.endsWith(sourceSuffix));
}

function assertStep(
  snapshot: { value: unknown; context: LoopContext; _nodes: AnyStateNode[] },
  step: PathStep,
  context: StepContext,
) {
  const c = snapshot.context;

  // The ordered table took the transition the pure core prescribes.
  for (const taken of takenFrom(step, '.implement.beforeDispatch')) {
    expect(taken?.rule ?? '').toContain(expectedRule(rulesOutcome(c)));
  }

  // Validation took the branch of the pure verdict.
  for (const taken of takenFrom(step, '.implement.validating')) {
    const verdict = returnOutcomeOf(c);
    expect(verdict).not.toBeNull();
    const label = taken?.rule ?? '';
    const expected = {
      interrupted: 'interrupted',
      unattributed: 'not attributable',
      miss: 'miss',
      admitted: 'admitted',
    }[verdict?.kind ?? 'admitted'];
    expect(label).toContain(expected);
  }
  for (const taken of takenFrom(step, '.verify.repair.validating')) {
    const verdict = verificationOutcomeOf(c);
    const expected = {
      admitted: 'repair admitted',
      unattributed: 'not attributable',
      'not-admitted': 'not admitted',
    }[verdict?.kind ?? 'not-admitted'];
    expect(taken?.rule ?? '').toContain(expected);
  }

  // A reserved dispatch is the saved ledger plus exactly the bump and the tuple, on the current HEAD.
  if (JSON.stringify(snapshot.value).includes('"reserving"') && c.plan !== null) {
    const { saved, reserved, pending } = c.plan;
    expect(reserved).toEqual({ ...saved, iterations: saved.iterations + 1, pending });
    expect(pending.head).toBe(c.head);
    expect(c.plan.iteration).toBe(saved.iterations);
  }

  // At a human stop: the rendered stop starts with the question line and the state accepts
  // exactly the choices its menu offers.
  const stopState = snapshot._nodes.find((node) => node.parent?.key === 'humanStop');
  if (stopState !== undefined) {
    const stop = c.stop;
    expect(stop).not.toBeNull();
    if (stop === null) return;
    expect(STOP_STATE[stop.kind]).toBe(stopState.key);
    const text = renderHumanStop(stop, c.stopLedger);
    expect(text.startsWith(`${QUESTION_LINE}\n`)).toBe(true);
    expect(text).toContain("Preserve every row's attempts.");
    const offered = new Set(menuFor(stop).map((offer) => OFFER_EVENT[offer.kind]));
    const accepted = new Set([...stopState.transitions.keys()].filter((type) => type.startsWith('human.')));
    expect(accepted).toEqual(offered);
  }

  // Every ledger the machine asks to commit keeps the protocol's invariants: attempts and
  // iterations never go down, only `rows +N` raises the allowance.
  const latest = context.invocations.at(-1);
  if (latest !== undefined && latest.src === 'commitLedger' && c.ledger !== null) {
    const request = latest.input as CommitRequest;
    if (!request.subject.startsWith('loop: seed ledger')) {
      const before = c.plan?.saved ?? c.ledger;
      expect(request.ledger.iterations).toBeGreaterThanOrEqual(before.iterations);
      for (const row of before.rows) {
        const after = request.ledger.rows.find((r) => r.row === row.row);
        expect(after?.attempts ?? 0).toBeGreaterThanOrEqual(row.attempts);
      }
      if (request.subject === 'loop: raise allowance')
        expect(request.ledger.allowance).toBeGreaterThan(before.allowance);
      else expect(request.ledger.allowance).toBe(before.allowance);
    }
  }
}

describe(`loop-implementation: ${suite.paths.length} generated paths`, () => {
  it('the suite covers every transition and state of the definition', () => {
    expect(suite.summary.uncoveredTransitions).toEqual([]);
    expect(suite.summary.uncoveredStates).toEqual([]);
  });

  for (const path of suite.paths) {
    it(path.description, async () => {
      await run.run(path, {
        assertStep: (snapshot, step, context) => assertStep(snapshot as never, step, context),
      });
    });
  }

  afterAll(() => {
    const coverage = transitionCoverage(machine, run.collected());
    for (const line of formatCoverageLines(coverage)) console.log(line);
    const missing = formatMissingCoverage(coverage);
    expect(missing, `uncovered:\n${missing.join('\n')}`).toEqual([]);
    expect(coverage.transitions.covered).toBe(coverage.transitions.total);
    expect(coverage.states.covered).toBe(coverage.states.total);
  });
});

// Referenced so a rename in the machine's exports fails to compile here.
void rulesOutcome;
