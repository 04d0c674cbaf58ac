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
import { createModelExplorer } from '../../src/graph/model-exploration.js';
import { loopImplementationModel } from '../../src/graph/models/loop-implementation.js';
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

describe('loop-implementation: the machine decides as the pure core does', () => {
  it('on 1,000 random walks through the model world', () => {
    const exercised = new Set<string>();
    fc.assert(
      // An effect fails on about one step in twenty, so walks get deep enough to decide often.
      fc.property(
        fc.array(fc.record({ pick: fc.nat(), fail: fc.nat(19) }), { minLength: 1, maxLength: 80 }),
        (choices) => {
          let state = explorer.initial;
          for (const { pick, fail } of choices) {
            const all = explorer.offeredEvents(state);
            const offered = fail === 0 ? all : all.filter((e) => !e.type.startsWith('xstate.error.actor.'));
            if (offered.length === 0) break;
            const event = offered[pick % offered.length];
            if (event === undefined) break;
            state = explorer.advance(state, event, explorer.deliveryOf(event));
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
        },
      ),
      { numRuns: 1000 },
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
