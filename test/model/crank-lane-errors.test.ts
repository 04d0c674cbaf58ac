/**
 * What crank's wave evidence says about a lane that did not return a result: a lane actor that
 * rejects (with a coded error, an Error without a code, or a bare value), a lane that never
 * returned, and lane events that do not come from a running lane. Expected values are written by
 * hand from docs/decisions/rpi.md (Crank lane errors, 39-41) and docs/rpi.md (Evidence).
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, toPromise } from 'xstate';
import {
  type AcceptanceResult,
  type CrankContext,
  crankMachine,
  type LaneEvidence,
  type LaneRequest,
  type LaneReturn,
  laneIdOfEvent,
  type WaveEvidence,
  waveEvidence,
} from '../../machines/crank.js';
import type { Lane, Wave } from '../../src/crank/wave.js';

function lane(id: string, scope: string): Lane {
  return { id, scope: [scope], brief: `work on ${id}`, acceptance: ['true'], regenSurfaces: [] };
}

// parser and docs share nothing; lexer writes under parser's scope, so it waits for parser.
const WAVE: Wave = {
  lanes: [lane('parser', 'src/parser/**'), lane('docs', 'docs/**'), lane('lexer', 'src/parser/lexer/**')],
  repairRounds: 1,
  acceptance: ['npm test'],
};

const ONE_LANE: Wave = { lanes: [lane('solo', 'src/solo/**')], repairRounds: 1, acceptance: ['npm test'] };

const PASSED: AcceptanceResult = { passed: true, commands: ['npm test'], failure: null };

const PASS_RETURN: LaneReturn = {
  terminal: 'converged',
  status: 'PASS',
  stopReason: 'converged',
  openFindings: [],
  subjectDigest: 'd'.repeat(64),
  report: null,
  error: null,
  transcript: null,
};

/** The evidence of a failed lane as the decisions describe it, written out in full. */
function failedLane(id: string, code: string, message: string): LaneEvidence {
  return {
    id,
    terminal: 'failed',
    status: null,
    stopReason: null,
    openFindings: [],
    subjectDigest: null,
    report: null,
    error: { code, message },
    transcript: null,
  };
}

function coded(message: string, code: string): Error {
  return Object.assign(new Error(message), { code });
}

/** Runs a wave whose lanes reject with the given values (a lane not listed returns PASS). */
async function runWave(
  wave: Wave,
  rejections: { readonly [laneId: string]: unknown },
  acceptance: () => Promise<AcceptanceResult> = async () => PASSED,
): Promise<{ evidence: WaveEvidence; state: unknown }> {
  const machine = crankMachine.provide({
    actors: {
      runLane: fromPromise<LaneReturn, LaneRequest>(async ({ input }) => {
        if (Object.hasOwn(rejections, input.lane.id)) throw rejections[input.lane.id];
        return PASS_RETURN;
      }),
      runAcceptance: fromPromise<AcceptanceResult, { commands: readonly string[] }>(acceptance),
    },
  });
  const actor = createActor(machine, { input: { wave } });
  actor.start();
  const evidence = (await toPromise(actor)) as WaveEvidence;
  return { evidence, state: actor.getSnapshot().value };
}

describe('crank: a lane actor that rejects', () => {
  it('is a failed lane carrying its own code and message; the other lanes and the acceptance still run', async () => {
    const { evidence, state } = await runWave(WAVE, {
      parser: coded('validator not found: vitest', 'rpi.validator-missing'),
      lexer: new Error('implementer exited with 3'),
    });
    expect(state).toBe('evidenced');
    expect(evidence.lanes).toEqual([
      failedLane('parser', 'rpi.validator-missing', 'validator not found: vitest'),
      { ...PASS_RETURN, id: 'docs' },
      failedLane('lexer', 'internal', 'implementer exited with 3'),
    ]);
    // lexer still started after parser failed: a failed lane releases the lanes it held back.
    expect(evidence.startOrder).toEqual(['parser', 'docs', 'lexer']);
    expect(evidence.acceptance).toEqual(PASSED);
    expect(evidence.failure).toBeNull();
  });

  it('with a bare value: code internal, the value itself as the message', async () => {
    const cases: [unknown, string][] = [
      ['disk full', 'disk full'],
      [42, '42'],
      [null, 'null'],
      [undefined, 'undefined'],
    ];
    for (const [rejection, message] of cases) {
      const { evidence } = await runWave(ONE_LANE, { solo: rejection });
      expect(evidence.lanes).toEqual([failedLane('solo', 'internal', message)]);
    }
  });

  it('with a plain object: its string code and message, else its JSON, never "[object Object]"', async () => {
    const cases: [unknown, string, string][] = [
      [{ code: 'EIO', message: 'disk went away' }, 'EIO', 'disk went away'],
      [{ code: 'EIO', errno: -5 }, 'EIO', '{"code":"EIO","errno":-5}'],
      [{ code: 7, message: 'numeric code' }, 'internal', 'numeric code'],
      [{ message: 42 }, 'internal', '{"message":42}'],
      // String() of this object throws; the evidence must still say what the lane rejected with.
      [{ toString: false }, 'internal', '{"toString":false}'],
    ];
    for (const [rejection, code, message] of cases) {
      const { evidence, state } = await runWave(ONE_LANE, { solo: rejection });
      expect(state).toBe('evidenced');
      expect(evidence.lanes).toEqual([failedLane('solo', code, message)]);
    }
  });
});

describe('crank: an acceptance that cannot run', () => {
  it('ends the wave with the same code and message rules, the lane evidence standing', async () => {
    const bare = await runWave(ONE_LANE, {}, async () => {
      throw 'no shell';
    });
    expect(bare.state).toBe('acceptance_failed');
    expect(bare.evidence.failure).toEqual({ code: 'internal', message: 'no shell' });
    expect(bare.evidence.acceptance).toBeNull();
    expect(bare.evidence.lanes).toEqual([{ ...PASS_RETURN, id: 'solo' }]);

    const withCode = await runWave(ONE_LANE, {}, async () => {
      throw coded('spawn sh ENOENT', 'ENOENT');
    });
    expect(withCode.evidence.failure).toEqual({ code: 'ENOENT', message: 'spawn sh ENOENT' });
  });
});

describe('crank: a lane that never returned', () => {
  it('is reported as failed with crank.lane-missing, naming the lane', () => {
    const context: CrankContext = {
      lanes: WAVE.lanes,
      repairRounds: 1,
      acceptanceCommands: ['npm test'],
      conflicts: [],
      started: ['parser', 'docs'],
      returned: ['parser'],
      evidence: { parser: { ...PASS_RETURN, id: 'parser' } },
      acceptance: null,
      failure: null,
    };
    expect(waveEvidence(context).lanes).toEqual([
      { ...PASS_RETURN, id: 'parser' },
      failedLane('docs', 'crank.lane-missing', 'lane docs never returned'),
      failedLane('lexer', 'crank.lane-missing', 'lane lexer never returned'),
    ]);
  });
});

describe('crank: lane events', () => {
  it('laneIdOfEvent names the lane of a lane done or error event, and nothing else', () => {
    expect(laneIdOfEvent('xstate.done.actor.lane.parser')).toBe('parser');
    expect(laneIdOfEvent('xstate.error.actor.lane.lane-2')).toBe('lane-2');
    expect(laneIdOfEvent('xstate.done.actor.runAcceptance')).toBeNull();
    expect(laneIdOfEvent('xstate.error.actor.runAcceptance')).toBeNull();
    expect(laneIdOfEvent('lane.parser')).toBeNull();
  });

  it('a stray or repeated lane done event changes nothing: only a running lane returns, once', async () => {
    const settle = new Map<string, (value: LaneReturn) => void>();
    const machine = crankMachine.provide({
      actors: {
        runLane: fromPromise<LaneReturn, LaneRequest>(
          ({ input }) => new Promise((resolve) => settle.set(input.lane.id, resolve)),
        ),
        runAcceptance: fromPromise<AcceptanceResult, { commands: readonly string[] }>(async () => PASSED),
      },
    });
    const actor = createActor(machine, { input: { wave: WAVE } });
    actor.start();
    const context = () => actor.getSnapshot().context as CrankContext;
    expect(context().started).toEqual(['parser', 'docs']);

    // A lane that is not in the wave.
    actor.send({ type: 'xstate.done.actor.lane.ghost', output: PASS_RETURN } as never);
    // A lane of the wave that has not started (lexer waits for parser).
    actor.send({ type: 'xstate.done.actor.lane.lexer', output: PASS_RETURN } as never);
    expect(context().returned).toEqual([]);
    expect(context().evidence).toEqual({});
    expect(context().started).toEqual(['parser', 'docs']);

    settle.get('parser')?.(PASS_RETURN);
    await new Promise((resolve) => setTimeout(resolve, 0));
    expect(context().returned).toEqual(['parser']);
    expect(context().started).toEqual(['parser', 'docs', 'lexer']);

    // parser again, after it returned: not a second return. (Only done events are sent: XState
    // treats an error event no transition takes as the crank actor's own error.)
    actor.send({
      type: 'xstate.done.actor.lane.parser',
      output: { ...PASS_RETURN, status: 'FAIL' },
    } as never);
    expect(context().returned).toEqual(['parser']);
    expect(context().evidence.parser).toEqual({ ...PASS_RETURN, id: 'parser' });
    expect(actor.getSnapshot().value).toBe('lanes');

    settle.get('docs')?.(PASS_RETURN);
    settle.get('lexer')?.(PASS_RETURN);
    const evidence = (await toPromise(actor)) as WaveEvidence;
    expect(evidence.lanes.map((l) => [l.id, l.status])).toEqual([
      ['parser', 'PASS'],
      ['docs', 'PASS'],
      ['lexer', 'PASS'],
    ]);
  });
});
