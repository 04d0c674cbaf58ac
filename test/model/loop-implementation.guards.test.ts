/**
 * The false outcome of the loop engine's reply guards (`choiceApplies`): a reply the ledger cannot
 * take (a row that does not exist, no allowance to add) is refused, so the stop stays where it is
 * and nothing is committed. Inspection cannot see an event that takes no transition, so this file
 * shows it on every stop the generated suite reaches, by asking XState for the next snapshot of
 * the live stop snapshot, and checks that guard coverage then reaches 100 %.
 */
import { describe, expect, it } from 'vitest';
import { getNextSnapshot } from 'xstate';
import { loopImplementationMachine } from '../../machines/loop-implementation/index.js';
import { guardCoverage } from '../../src/graph/guard-coverage.js';
import { unobservableGuardOutcomes } from '../../src/graph/models/guard-outcomes.js';
import { loopImplementationModel } from '../../src/graph/models/loop-implementation.js';
import { generatePathSuite } from '../../src/graph/path-suite.js';
import { createSuiteRun } from '../../src/graph/run-path.js';

const machine = loopImplementationMachine;
const suite = generatePathSuite(machine, loopImplementationModel);
const run = createSuiteRun(machine, loopImplementationModel, suite);

/** Replies no ledger of the model world can take (§3.16: a reply must name a real row and a raise). */
const REFUSED: Record<string, { type: string; [field: string]: unknown }> = {
  'human.retry': { type: 'human.retry', row: 99, hint: 'no such row' },
  'human.raise': { type: 'human.raise', amount: 0, words: '' },
  'human.amend': {
    type: 'human.amend',
    amendment: { kind: 'cut', row: 99, disposition: 'deviates: no such row' },
  },
};

describe('loop-implementation: refused replies keep the stop', () => {
  it('at every stop the suite reaches, a reply the ledger cannot take takes no transition', async () => {
    const refused = new Set<string>();
    for (const path of suite.paths) {
      await run.run(path, {
        assertStep: (snapshot) => {
          const stop = snapshot._nodes.find((node) => node.parent?.key === 'humanStop');
          if (stop === undefined) return;
          for (const [type, event] of Object.entries(REFUSED)) {
            if (!stop.transitions.has(type)) continue;
            const next = getNextSnapshot(machine, snapshot, event as never);
            expect(next.value, `${stop.id} ${type}`).toEqual(snapshot.value);
            expect(next.context.pendingChoice).toBe(snapshot.context.pendingChoice);
            refused.add(`${stop.id}|${type}`);
          }
        },
      });
    }
    // Every reply guard whose false outcome the model names as shown here was shown here.
    const named = Object.keys(unobservableGuardOutcomes['loop-implementation'] ?? {})
      .filter((key) => key.includes('.humanStop.'))
      .map((key) => key.replace(/\|\d+$/, ''));
    expect([...refused].sort()).toEqual([...new Set(named)].sort());
  });

  it('guards covered is 100 % with the named unobservable outcomes', () => {
    const taken = [
      ...suite.initial.transitions,
      ...suite.paths.flatMap((p) => p.steps.flatMap((s) => s.transitions)),
    ];
    const coverage = guardCoverage(machine, taken, unobservableGuardOutcomes['loop-implementation']);
    expect(coverage.missing).toEqual([]);
    expect(coverage.covered).toBe(coverage.total);
  });
});
