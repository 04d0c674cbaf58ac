import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type LoopContext,
  loopImplementationMachine,
  returnOutcomeOf,
  rulesOutcome,
} from '../../machines/loop-implementation/index.js';
import { homeMember } from '../../src/gauntlet/leg-entries.js';
import type { RulesOutcome } from '../../src/gauntlet/rules.js';
import { assertMachineModel } from '../../src/graph/machine-model.js';
import { createModelExplorer, type ModelState } from '../../src/graph/model-exploration.js';
import { loopImplementationModel } from '../../src/graph/models/loop-implementation.js';
import { WORLD_ALLOWANCE, WORLD_SPEC_WITH_GRANT } from '../../src/graph/models/loop-implementation-world.js';
import { enumerateTransitions } from '../../src/graph/transitions.js';

// Differential check: for random event sequences, every decision the statechart takes in its
// ordered table and its validation equals the decision of the pure protocol core for the same
// ledger, history and return.

assertMachineModel(loopImplementationMachine, loopImplementationModel);
const explorer = createModelExplorer(loopImplementationMachine, loopImplementationModel);
const byKey = new Map(enumerateTransitions(loopImplementationMachine).map((t) => [t.key, t]));

/** Where the pure core's answer sends the machine from `beforeDispatch`. */
function destinationOf(outcome: RulesOutcome): string {
  switch (outcome.kind) {
    case 'configuration-stop':
      return 'loop-implementation.invalid';
    case 'bound-spent-stop':
      return 'loop-implementation.humanStop.boundSpent';
    case 'unreachable-amend':
      return outcome.autoApply
        ? 'loop-implementation.implement.cuttingUnreachable'
        : 'loop-implementation.humanStop.unreachableAmend';
    case 'spec-amend':
      return outcome.autoApply
        ? 'loop-implementation.implement.applyingAmendItem'
        : 'loop-implementation.humanStop.specAmend';
    case 'repeated-evidence-stop':
      return 'loop-implementation.humanStop.repeatedEvidence';
    case 'redraw-stop':
      return 'loop-implementation.humanStop.redraw';
    case 'verify':
      return 'loop-implementation.verify';
    case 'row-stop':
      return 'loop-implementation.humanStop.rowAllowance';
    case 'seed-stop':
      return 'loop-implementation.humanStop.seedExhaustion';
    case 'dispatch-seed':
    case 'dispatch-row':
      return 'loop-implementation.implement.escalation';
  }
}

const VALIDATION_DESTINATION: Record<string, string> = {
  interrupted: 'loop-implementation.implement.recovery',
  unattributed: 'loop-implementation.humanStop.recoveryIncomplete',
  miss: 'loop-implementation.implement.repairing',
  admitted: 'loop-implementation.implement.admitting',
};

/** Checks every ordered-table and validation decision the step into `state` took. */
function checkStep(state: ModelState, exercised: Set<string>): void {
  const context = state.snapshot.context as LoopContext;
  for (const key of state.transitions) {
    const taken = byKey.get(key);
    if (taken === undefined) continue;
    if (taken.source === 'loop-implementation.implement.beforeDispatch') {
      const outcome = rulesOutcome(context);
      exercised.add(`rules:${outcome.kind}`);
      expect(taken.targets).toEqual([destinationOf(outcome)]);
    }
    if (taken.source === 'loop-implementation.implement.validating') {
      const verdict = returnOutcomeOf(context);
      exercised.add(`validation:${verdict?.kind}`);
      expect(verdict).not.toBeNull();
      // A companion's admitted return is recorded in home by the legs region (§3.20);
      // the spec's `## Legs` says which member is home, and a ledger without the
      // coordinated part is a single leg (`home`), whatever the spec declares.
      const plan = context.plan;
      const companion =
        context.spec !== null &&
        context.spec.legs !== undefined &&
        plan !== null &&
        plan.saved.legs !== undefined &&
        plan.pending.repo !== homeMember(context.spec);
      if (companion) exercised.add(`validation:companion-${verdict?.kind}`);
      expect(taken.targets).toEqual([
        companion && verdict?.kind === 'admitted'
          ? 'loop-implementation.legs.recording'
          : VALIDATION_DESTINATION[verdict?.kind ?? ''],
      ]);
    }
  }
}

/** One random walk from `start`; an effect fails on the steps whose `fail` is 0. */
function walk(start: ModelState, choices: readonly Choice[], exercised: Set<string>): void {
  let state = start;
  for (const { pick, fail } of choices) {
    const all = explorer.offeredEvents(state);
    const offered = fail === 0 ? all : all.filter((e) => !e.type.startsWith('xstate.error.actor.'));
    if (offered.length === 0) break;
    const event = offered[pick % offered.length];
    if (event === undefined) break;
    state = explorer.advance(state, event, explorer.deliveryOf(event));
    checkStep(state, exercised);
  }
}

interface Choice {
  readonly pick: number;
  readonly fail: number;
}
// An effect fails on about one step in twenty, so walks get deep enough to decide often.
const choices = fc.array(fc.record({ pick: fc.nat(), fail: fc.nat(19) }), { minLength: 1, maxLength: 80 });

/** The state `event` of `type` leads to, the event chosen among the offered ones by its payload. */
function follow(
  state: ModelState,
  type: string,
  which: (output: Record<string, unknown>) => boolean,
  exercised: Set<string>,
): ModelState {
  const event = explorer
    .offeredEvents(state)
    .find((e) => e.type === type && which((e.output ?? {}) as Record<string, unknown>));
  if (event === undefined) throw new Error(`the model world offers no such ${type}`);
  const next = explorer.advance(state, event, explorer.deliveryOf(event));
  checkStep(next, exercised);
  return next;
}

/**
 * A start the walks from the initial state reach about once in a thousand (measured: 0 to 2 of
 * 1,000 walks on eight seeds): a restore under the standing grant whose refresh shows row 1's
 * `amend:` item, applied (`loop: amend`, one `## Amendments` entry). From there, a refresh showing
 * the same item again must take the repeated-evidence stop (17 to 25 of 200 walks on ten seeds,
 * so a change of the world cannot silently drop the case). The events are chosen by what they
 * carry, not by their place in the model's lists, so adding a case to the world does not move it.
 */
function afterAppliedAmendment(exercised: Set<string>): ModelState {
  let state = follow(
    explorer.initial,
    'xstate.done.actor.inspectWorkspace',
    (o) => o.specText === WORLD_SPEC_WITH_GRANT && o.reservation === undefined,
    exercised,
  );
  state = follow(
    state,
    'xstate.done.actor.resolveSettings',
    (o) => o.allowance === WORLD_ALLOWANCE,
    exercised,
  );
  state = follow(
    state,
    'xstate.done.actor.refresh',
    (o) => String(o.ledgerText).includes('amend: the header row is named Title - fixture header.csv line 1'),
    exercised,
  );
  expect(state.snapshot.value).toEqual({ implement: 'applyingAmendItem' });
  state = follow(state, 'xstate.done.actor.commitAmendItem', () => true, exercised);
  expect(state.snapshot.value).toEqual({ implement: 'refreshing' });
  return state;
}

describe('loop-implementation: the machine decides as the pure core does', () => {
  it('on 1,000 random walks through the model world, and 200 after an applied amendment', () => {
    const exercised = new Set<string>();
    fc.assert(
      fc.property(choices, (walkChoices) => walk(explorer.initial, walkChoices, exercised)),
      { numRuns: 1000 },
    );
    const amended = afterAppliedAmendment(exercised);
    fc.assert(
      fc.property(choices, (walkChoices) => walk(amended, walkChoices, exercised)),
      { numRuns: 200 },
    );
    // The walks must exercise every kind of decision they check.
    expect([...exercised].sort()).toEqual(
      [
        'rules:configuration-stop',
        'rules:bound-spent-stop',
        'rules:unreachable-amend',
        'rules:spec-amend',
        'rules:redraw-stop',
        'rules:repeated-evidence-stop',
        'rules:verify',
        'rules:row-stop',
        'rules:seed-stop',
        'rules:dispatch-seed',
        'rules:dispatch-row',
        'validation:interrupted',
        'validation:unattributed',
        'validation:miss',
        'validation:admitted',
        'validation:companion-admitted',
        'validation:companion-miss',
        'validation:companion-interrupted',
        'validation:companion-unattributed',
      ].sort(),
    );
  });
});
