import type { LaneConflict } from './lane-partition.js';
import type { Lane } from './wave.js';

/**
 * Which lanes of a wave may start now. A lane starts once every earlier lane (in caller order) it
 * conflicts with has returned, so two conflicting lanes never run at once and keep the caller's
 * order, while a lane never waits for a lane it shares nothing with.
 *
 * This is the dependency order behind `partitionLanes`' batches, applied lane by lane instead of
 * batch by batch: a lane of a later batch does not wait for unrelated lanes of the batch before.
 *
 * @param lanes the wave's lanes, in caller order
 * @param conflicts the conflicting pairs from `partitionLanes` (each `[earlier, later]`)
 * @param started ids of lanes already started (running or returned)
 * @param returned ids of lanes that returned
 * @returns ids of lanes not yet started whose earlier conflicting lanes have all returned, in caller order
 */
export function lanesReadyToStart(
  lanes: readonly Lane[],
  conflicts: readonly LaneConflict[],
  started: readonly string[],
  returned: readonly string[],
): string[] {
  const startedSet = new Set(started);
  const returnedSet = new Set(returned);
  return lanes
    .map((lane) => lane.id)
    .filter(
      (id) =>
        !startedSet.has(id) &&
        conflicts.every((conflict) => conflict.lanes[1] !== id || returnedSet.has(conflict.lanes[0])),
    );
}
