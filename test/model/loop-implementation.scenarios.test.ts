/**
 * Scenarios of gauntlet-protocol §5 that concern the statechart rather than one pure rule: R7,
 * RS1 and VF9, walked through the model world event by event.
 */

import { describe, expect, it } from 'vitest';
import type { AnyEventObject } from 'xstate';
import {
  type LoopContext,
  loopImplementationMachine,
  returnOutcomeOf,
} from '../../machines/loop-implementation/index.js';
import { renderHumanStop } from '../../src/gauntlet/human-stop.js';
import { parseLedger } from '../../src/gauntlet/ledger.js';
import { assertMachineModel } from '../../src/graph/machine-model.js';
import { createModelExplorer } from '../../src/graph/model-exploration.js';
import { loopImplementationModel } from '../../src/graph/models/loop-implementation.js';

assertMachineModel(loopImplementationMachine, loopImplementationModel);
const explorer = createModelExplorer(loopImplementationMachine, loopImplementationModel);

type Step = readonly [type: string, match?: (event: AnyEventObject) => boolean];

const output = (event: AnyEventObject) => (event as { output?: Record<string, unknown> }).output ?? {};

/** Walks the model by picking, at each step, the offered event of that type that matches. */
function walk(steps: readonly Step[]) {
  let state = explorer.initial;
  for (const [type, match] of steps) {
    const event = explorer.offeredEvents(state).find((e) => e.type === type && (match?.(e) ?? true));
    if (event === undefined) throw new Error(`no ${type} offered at ${JSON.stringify(state.snapshot.value)}`);
    state = explorer.advance(state, event, explorer.deliveryOf(event));
  }
  return state.snapshot as typeof state.snapshot & { context: LoopContext };
}

const settings: Step = ['xstate.done.actor.resolveSettings', (e) => output(e).allowance === 2];
const restoreInFlight: Step = [
  'xstate.done.actor.inspectWorkspace',
  (e) => output(e).savedLedgerText !== null && String(output(e).ledgerText).includes('pending: 1 |'),
];
const launchedDone: Step = ['xstate.done.actor.recoverDispatch', (e) => output(e).launched === true];

describe('§5 scenarios on the statechart', () => {
  it('RS1: a resumed dispatch with one matching commit is admitted through normal validation without another bump or attempt', () => {
    const snapshot = walk([
      restoreInFlight,
      settings,
      launchedDone,
      [
        'xstate.done.actor.readBoundary',
        (e) => output(e).commitCount === 1 && String(output(e).headLedgerText).includes('| 1 | done |'),
      ],
    ]);
    expect(snapshot.value).toEqual({ implement: 'admitting' });
    const plan = snapshot.context.plan;
    const verdict = returnOutcomeOf(snapshot.context);
    expect(plan).not.toBeNull();
    expect(verdict?.kind).toBe('admitted');
    if (plan === null || verdict?.kind !== 'admitted') return;
    // The consumed count is the reserved one (i + 1), not bumped again on resume.
    expect(verdict.ledger.iterations).toBe(plan.saved.iterations + 1);
    const before = plan.saved.rows.find((r: { row: number }) => r.row === 1)?.attempts ?? 0;
    expect(verdict.ledger.rows.find((r) => r.row === 1)?.attempts).toBe(before + 1);
  });

  it('R7: a tree still dirty after reset stops as recovery incomplete, consuming no attempt', () => {
    const snapshot = walk([
      restoreInFlight,
      settings,
      launchedDone,
      ['xstate.done.actor.readBoundary', (e) => String(output(e).porcelain).trim() !== ''],
      ['xstate.done.actor.checkProvenance', (e) => output(e).owned === true],
      ['xstate.done.actor.cleanupJobs', (e) => output(e).problem === null],
      ['xstate.done.actor.collectActionRecords', () => true],
      ['xstate.done.actor.resetCheckout', (e) => output(e).clean === false],
    ]);
    expect(snapshot.value).toEqual({ humanStop: 'recoveryIncomplete' });
    const { stop, stopLedger, plan } = snapshot.context;
    expect(stop).toMatchObject({ kind: 'recovery-incomplete', what: 'tree dirty after reset' });
    // The stop lists the saved pre-dispatch cells: nothing was repaired, no attempt consumed.
    expect(stopLedger).toEqual(plan?.saved);
    const text = renderHumanStop(stop as NonNullable<typeof stop>, stopLedger);
    expect(text).toContain(
      `Stopped: iteration ${plan?.iteration} recovery incomplete - tree dirty after reset`,
    );
    expect(text).not.toMatch(/rows \+N/);
  });

  it('VF9: re-bounding a done row during verify reopens it, stops, and returns it to the dispatch loop on approval', () => {
    const closedAndSpent = (e: AnyEventObject) => {
      const ledger = parseLedger(String(output(e).ledgerText)).ledger;
      const rows = ledger?.rows ?? [];
      return (
        rows.every((r) => r.status === 'done' || r.status === 'cut') &&
        (output(e).commits as unknown[]).length > 3
      );
    };
    const toVerificationStop: Step[] = [
      [
        'xstate.done.actor.inspectWorkspace',
        (e) =>
          output(e).ledgerText !== null && output(e).savedLedgerText === null && output(e).porcelain === '',
      ],
      settings,
      ['xstate.done.actor.refresh', closedAndSpent],
      ['xstate.done.actor.runGates', (e) => output(e).passed === false],
    ];
    const reopen: Step[] = [
      ['human.amend', (e) => (e as { amendment?: { kind: string } }).amendment?.kind === 'reopen'],
      ['xstate.done.actor.commitReopen'],
    ];
    expect(walk(toVerificationStop).value).toEqual({ humanStop: 'verificationFailed' });

    const reopened = walk([...toVerificationStop, ...reopen]);
    expect(reopened.value).toEqual({ humanStop: 'reopenedDuringVerify' });
    const { stop, stopLedger } = reopened.context;
    expect(stop).toEqual({ kind: 'reopened-during-verify', row: 1 });
    expect(stopLedger?.rows.find((r: { row: number }) => r.row === 1)).toMatchObject({
      status: 'open',
      evidence: 'reopened by amendment',
    });
    expect(renderHumanStop(stop as NonNullable<typeof stop>, stopLedger)).toContain(
      'Stopped: row 1 reopened by amendment during verify',
    );

    const returned = walk([...toVerificationStop, ...reopen, ['human.return']]);
    expect(returned.value).toEqual({ implement: 'refreshing' });
  });
});
