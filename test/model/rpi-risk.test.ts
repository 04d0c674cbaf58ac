/**
 * How the RPI statechart classifies the change (docs/rpi.md step 4, docs/decisions/rpi.md 8 and
 * 9): `--risky yes` and `no` declare it, `auto` measures the changed paths after the
 * implementation and after every repair and never lowers it. What the context records (the
 * subject as measured, the risky paths found so far) and which validators run are written by hand
 * from those texts and the risky surfaces of convergence.md §5.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise } from 'xstate';
import { type PlanOutcome, rpiMachine } from '../../machines/rpi/index.js';
import { digest, leg, runRpi } from '../support/rpi-host.js';

const A = digest('a');
const B = digest('b');

const CRLF = { id: 'parser:crlf' };

describe('rpi risk: declared', () => {
  it('a declared risky change is risky from the start, before any path is measured', () => {
    // Plan never answers here: the context is looked at while the run waits for it.
    const waiting = rpiMachine.provide({
      actors: { plan: fromPromise<PlanOutcome, Record<string, never>>(() => new Promise(() => {})) },
    });
    const context = (risky: 'yes' | 'no' | 'auto' | undefined) => {
      const actor = createActor(waiting, { input: risky === undefined ? {} : { risky } });
      actor.start();
      const snapshot = actor.getSnapshot();
      actor.stop();
      return {
        value: snapshot.value,
        riskySurface: snapshot.context.riskySurface,
        riskyPaths: snapshot.context.riskyPaths,
      };
    };
    expect(context('yes')).toEqual({ value: 'planning', riskySurface: true, riskyPaths: [] });
    expect(context('no')).toEqual({ value: 'planning', riskySurface: false, riskyPaths: [] });
    expect(context('auto')).toEqual({ value: 'planning', riskySurface: false, riskyPaths: [] });
    expect(context(undefined)).toEqual({ value: 'planning', riskySurface: false, riskyPaths: [] });
  });

  it('--risky no keeps a change to tests/** unrisky: one family converges, no cross-family leg runs', async () => {
    const { outcome, context, calls } = await runRpi(
      { risky: 'no', crossFamily: true },
      { measureSubject: () => ({ digest: A, changedPaths: ['tests/parser.test.ts', 'src/parser.ts'] }) },
    );
    expect(outcome.terminal).toBe('converged');
    expect(calls.map((c) => c.actor)).not.toContain('validateCrossFamily');
    expect(context.riskySurface).toBe(false);
    // Paths are classified only for auto.
    expect(context.riskyPaths).toEqual([]);
    expect(context.subject).toEqual({ digest: A, changedPaths: ['tests/parser.test.ts', 'src/parser.ts'] });
  });

  it('--risky yes does not classify the paths either', async () => {
    const { outcome, context } = await runRpi(
      { risky: 'yes', crossFamily: true },
      { measureSubject: () => ({ digest: A, changedPaths: ['lib/util.ts'] }) },
    );
    expect(outcome.terminal).toBe('converged');
    expect(context.riskySurface).toBe(true);
    expect(context.riskyPaths).toEqual([]);
  });
});

describe('rpi risk: auto', () => {
  it('records the risky paths of every measure, each once, and the subject as last measured', async () => {
    // Round 0 touches tests/; the repair touches lib/ as well and keeps the tests/ change.
    const { outcome, context, calls } = await runRpi(
      { risky: 'auto', crossFamily: true },
      {
        measureSubject: ({ round }) =>
          round === 0
            ? { digest: A, changedPaths: ['src/parser.ts', 'tests/parser.test.ts'] }
            : { digest: B, changedPaths: ['tests/parser.test.ts', 'lib/util.ts', 'src/parser.ts'] },
        validateFresh: (request) =>
          leg(request, request.round === 0 ? 'FAIL' : 'PASS', request.round === 0 ? [CRLF] : [], 'alpha'),
      },
    );
    expect(outcome.terminal).toBe('converged');
    expect(context.riskySurface).toBe(true);
    expect(context.riskyPaths).toEqual(['tests/parser.test.ts', 'lib/util.ts']);
    expect(context.subject).toEqual({
      digest: B,
      changedPaths: ['tests/parser.test.ts', 'lib/util.ts', 'src/parser.ts'],
    });
    expect(calls.filter((c) => c.actor === 'validateCrossFamily')).toHaveLength(2);
  });

  it('a change outside every risky surface is not risky and converges with one family', async () => {
    const { outcome, context, calls } = await runRpi(
      { crossFamily: true },
      { measureSubject: () => ({ digest: A, changedPaths: ['src/parser.ts', 'docs/parser.md'] }) },
    );
    expect(outcome.terminal).toBe('converged');
    expect(context.riskySurface).toBe(false);
    expect(context.riskyPaths).toEqual([]);
    expect(calls.map((c) => c.actor)).not.toContain('validateCrossFamily');
  });
});
