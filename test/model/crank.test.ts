/**
 * Model-based tests of the crank statechart: every path of the shortest-path suite (every order in
 * which the model's lanes can return or fail) runs as its own test against a live actor, and each
 * step is checked against crank's rules: no two running lanes share a surface, conflicting lanes
 * start in caller order, each lane runs once, and the wave acceptance runs once, after every lane
 * returned. The suite fails unless every transition and every state was exercised.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { createActor, type SnapshotFrom, toPromise } from 'xstate';
import { type CrankContext, crankMachine, laneActorId, type WaveEvidence } from '../../machines/crank.js';
import { laneConflict, partitionLanes } from '../../src/crank/lane-partition.js';
import { lanesReadyToStart } from '../../src/crank/lane-schedule.js';
import type { Lane } from '../../src/crank/wave.js';
import { parseWave } from '../../src/crank/wave-input.js';
import { createAssertionTally } from '../../src/graph/assertion-tally.js';
import type { ControlledInvocation } from '../../src/graph/controlled-actors.js';
import { transitionCoverage } from '../../src/graph/coverage.js';
import { CRANK_MODEL_WAVE, crankModel } from '../../src/graph/models/crank.js';
import { generatePathSuite } from '../../src/graph/path-suite.js';
import { createSuiteRun } from '../../src/graph/run-path.js';
import { crankReference } from '../oracles/crank.js';
import { oracleOf, reportAndRequireFull } from '../oracles/harness.js';

type CrankSnapshot = SnapshotFrom<typeof crankMachine>;

const laneById = new Map(CRANK_MODEL_WAVE.lanes.map((lane) => [lane.id, lane]));
const callerOrder = CRANK_MODEL_WAVE.lanes.map((lane) => lane.id);

function checkStep(snapshot: CrankSnapshot, invocations: readonly ControlledInvocation[]): void {
  const context = snapshot.context as CrankContext;
  const running = context.started.filter((id) => !context.returned.includes(id));

  // No two lanes that share a write scope or a regen surface run at once.
  for (const a of running)
    for (const b of running)
      if (a < b) expect(laneConflict(laneById.get(a) as Lane, laneById.get(b) as Lane)).toBeNull();

  // Conflicting lanes start in caller order, the later one only after the earlier returned.
  for (const id of context.started) {
    const lane = laneById.get(id) as Lane;
    for (const earlier of callerOrder.slice(0, callerOrder.indexOf(id))) {
      if (laneConflict(laneById.get(earlier) as Lane, lane) === null) continue;
      // Checked after every step, so also on the step that started the later lane.
      expect(context.returned).toContain(earlier);
    }
  }

  // One RPI per lane, with the caller's bound; the acceptance once, after every lane returned.
  const laneRuns = invocations.filter((i) => i.src === 'runLane');
  expect(new Set(laneRuns.map((i) => i.id)).size).toBe(laneRuns.length);
  expect(laneRuns.map((i) => i.id)).toEqual(context.started.map(laneActorId));
  for (const i of laneRuns) expect((i.input as { repairRounds: number }).repairRounds).toBe(2);
  const acceptanceRuns = invocations.filter((i) => i.src === 'runAcceptance');
  expect(acceptanceRuns.length).toBeLessThanOrEqual(1);
  if (acceptanceRuns.length === 1) expect([...context.returned].sort()).toEqual([...callerOrder].sort());

  if (snapshot.status !== 'done') return;
  const evidence = snapshot.output as WaveEvidence;
  expect(evidence.lanes.map((lane) => lane.id)).toEqual(callerOrder);
  for (const lane of evidence.lanes) {
    if (lane.error !== null) expect(lane.status).toBeNull();
    else expect(lane.subjectDigest).toMatch(/^[0-9a-f]{64}$/);
  }
  expect(acceptanceRuns.length).toBe(1);
  if (snapshot.value === 'evidenced') expect(evidence.acceptance).not.toBeNull();
  else expect(evidence.failure).not.toBeNull();
}

// Every order in which lanes return, not just enough paths to cover the edges: the graph is small.
const suite = generatePathSuite(crankMachine, crankModel, { strategy: 'shortest' });
const run = createSuiteRun(crankMachine, crankModel, suite);

const tally = createAssertionTally(crankMachine);
const oracle = oracleOf(tally);

describe(`${suite.machine}: ${suite.paths.length} generated paths`, () => {
  for (const path of suite.paths) {
    it(path.description, async () => {
      await run.run(path, {
        assertStep: (snapshot, step, { invocations, index }) => {
          // Independent: the schedule a reference of the crank contract (test/oracles/crank.ts) expects.
          const expected = crankReference(CRANK_MODEL_WAVE.lanes, path.steps.slice(0, index + 1)).at(-1);
          const context = snapshot.context as CrankContext;
          const started = callerOrder.filter((id) => context.started.includes(id));
          oracle.same(
            step,
            'lanes started and wave state (reference schedule)',
            { started, state: snapshot.value },
            expected,
          );
          const lanesRun = invocations.filter((i) => i.src === 'runLane').map((i) => i.id);
          oracle.same(
            step,
            'one lane run per started lane',
            lanesRun,
            expected?.started.map((id) => `lane.${id}`),
          );
          // Consistency with the pure core (not counted as an independent assertion).
          checkStep(snapshot, invocations);
        },
      });
    });
  }

  afterAll(() => {
    reportAndRequireFull(
      crankMachine,
      transitionCoverage(crankMachine, run.collected()),
      tally,
      run.collected().transitions,
    );
  });
});

describe('lanesReadyToStart', () => {
  const wave = parseWave({
    lanes: [
      { id: 'a', scope: 'src/a/**', brief: 'a', acceptance: 'true', regen_surfaces: [] },
      { id: 'b', scope: 'src/b/**', brief: 'b', acceptance: 'true', regen_surfaces: [] },
      { id: 'c', scope: 'src/a/deep/**', brief: 'c', acceptance: 'true', regen_surfaces: [] },
      { id: 'd', scope: 'src/d/**', brief: 'd', acceptance: 'true' },
    ],
    repair_rounds: 1,
    acceptance: 'true',
  });
  const { conflicts } = partitionLanes(wave.lanes);

  it('starts every lane without an earlier conflicting lane', () => {
    // d declares no regen surfaces: unknown overlap, so it waits for every earlier lane.
    expect(lanesReadyToStart(wave.lanes, conflicts, [], [])).toEqual(['a', 'b']);
  });

  it('starts a lane once every earlier lane it conflicts with has returned', () => {
    expect(lanesReadyToStart(wave.lanes, conflicts, ['a', 'b'], ['b'])).toEqual([]);
    expect(lanesReadyToStart(wave.lanes, conflicts, ['a', 'b'], ['a'])).toEqual(['c']);
    expect(lanesReadyToStart(wave.lanes, conflicts, ['a', 'b', 'c'], ['a', 'b'])).toEqual([]);
    expect(lanesReadyToStart(wave.lanes, conflicts, ['a', 'b', 'c'], ['a', 'b', 'c'])).toEqual(['d']);
  });

  it('never starts a lane twice', () => {
    expect(lanesReadyToStart(wave.lanes, conflicts, ['a', 'b', 'c', 'd'], ['a', 'b', 'c', 'd'])).toEqual([]);
  });
});

describe('crank: effects the host did not provide', () => {
  it('are reported per lane, and the acceptance that could not run ends the wave', async () => {
    const actor = createActor(crankMachine, { input: { wave: CRANK_MODEL_WAVE } });
    actor.start();
    const evidence = (await toPromise(actor)) as WaveEvidence;
    expect(actor.getSnapshot().value).toBe('acceptance_failed');
    expect(evidence.lanes.map((lane) => [lane.id, lane.status, lane.error?.code])).toEqual([
      ['parser', null, 'actor.not-provided'],
      ['docs', null, 'actor.not-provided'],
      ['lexer', null, 'actor.not-provided'],
    ]);
    expect(evidence.startOrder).toEqual(['parser', 'docs', 'lexer']);
    expect(evidence.failure?.code).toBe('actor.not-provided');
  });
});
