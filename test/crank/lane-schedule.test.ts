import { describe, expect, it } from 'vitest';
import type { LaneConflict } from '../../src/crank/lane-partition.js';
import { lanesReadyToStart } from '../../src/crank/lane-schedule.js';
import type { Lane } from '../../src/crank/wave.js';

// Reference §2 step 2: lanes that share a surface are serialized (in caller order); lanes that
// share nothing may run at once. The conflicts are written by hand here, not computed.
const lane = (id: string): Lane => ({
  id,
  scope: [`${id}/**`],
  brief: `work on ${id}`,
  acceptance: ['true'],
  regenSurfaces: [],
});
const lanes = ['a', 'b', 'c', 'd'].map(lane);
const conflict = (earlier: string, later: string): LaneConflict => ({
  lanes: [earlier, later],
  reason: 'write-scope',
  surfaces: [`${earlier}/**`, `${later}/**`],
});

describe('lanesReadyToStart', () => {
  it('without conflicts every lane may start at once, in caller order', () => {
    expect(lanesReadyToStart(lanes, [], [], [])).toEqual(['a', 'b', 'c', 'd']);
  });

  it('a lane already started (running or returned) is never offered again', () => {
    expect(lanesReadyToStart(lanes, [], ['b', 'd'], ['d'])).toEqual(['a', 'c']);
  });

  it('the later lane of a conflicting pair waits until the earlier one has returned', () => {
    const conflicts = [conflict('a', 'c')];
    expect(lanesReadyToStart(lanes, conflicts, [], [])).toEqual(['a', 'b', 'd']);
    // a is running: c still waits, b and d are unrelated to it.
    expect(lanesReadyToStart(lanes, conflicts, ['a'], [])).toEqual(['b', 'd']);
    expect(lanesReadyToStart(lanes, conflicts, ['a', 'b', 'd'], ['a'])).toEqual(['c']);
  });

  it('a lane with several earlier conflicts waits for all of them', () => {
    const conflicts = [conflict('a', 'd'), conflict('b', 'd')];
    expect(lanesReadyToStart(lanes, conflicts, ['a', 'b', 'c'], ['a'])).toEqual([]);
    expect(lanesReadyToStart(lanes, conflicts, ['a', 'b', 'c'], ['b'])).toEqual([]);
    expect(lanesReadyToStart(lanes, conflicts, ['a', 'b', 'c'], ['a', 'b'])).toEqual(['d']);
  });

  it('the earlier lane of a pair never waits for the later one', () => {
    expect(lanesReadyToStart(lanes, [conflict('a', 'b')], [], [])).toEqual(['a', 'c', 'd']);
  });
});
