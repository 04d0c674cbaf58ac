import { InputError } from '../common/errors.js';
import { firstOverlap } from './scope.js';
import type { Lane } from './wave.js';

/**
 * Why two lanes must not run at once.
 * - `write-scope`: their write scopes overlap;
 * - `regen-surface`: a regen surface of one overlaps a write scope or regen surface of the other;
 * - `regen-unknown`: at least one of them did not declare its regen surfaces.
 */
export type LaneConflictReason = 'write-scope' | 'regen-surface' | 'regen-unknown';

/** One pair of lanes that shares a surface (or might), in caller order. */
export interface LaneConflict {
  readonly lanes: readonly [string, string];
  readonly reason: LaneConflictReason;
  /** The overlapping entries, or null for `regen-unknown`. */
  readonly surfaces: readonly [string, string] | null;
}

/**
 * How crank may schedule a wave's lanes.
 *
 * - `batches`: run one batch after another, the lanes of a batch in parallel. Each lane sits in the
 *   earliest batch after every earlier conflicting lane, so conflicting lanes keep caller order.
 * - `serialGroups`: the lanes linked by conflicts, directly or through other lanes; each group runs
 *   its lanes one at a time in caller order, and different groups may run in parallel.
 *
 * Both list lane ids in caller order; every lane appears exactly once in each.
 */
export interface LanePartition {
  readonly batches: readonly (readonly string[])[];
  readonly serialGroups: readonly (readonly string[])[];
  readonly conflicts: readonly LaneConflict[];
}

/**
 * Why two lanes must be serialized, or null when they may run in parallel: only when their write
 * scopes are disjoint and their regen surfaces are disjoint (from each other and from the other
 * lane's write scope). An undeclared regen surface counts as overlap.
 *
 * @param a a lane
 * @param b another lane
 * @returns the conflict, or null
 */
export function laneConflict(a: Lane, b: Lane): LaneConflict | null {
  const lanes = [a.id, b.id] as const;
  const writes = firstOverlap(a.scope, b.scope);
  if (writes !== null) return { lanes, reason: 'write-scope', surfaces: writes };
  if (a.regenSurfaces === null || b.regenSurfaces === null)
    return { lanes, reason: 'regen-unknown', surfaces: null };
  const regen =
    firstOverlap(a.regenSurfaces, [...b.scope, ...b.regenSurfaces]) ?? firstOverlap(a.scope, b.regenSurfaces);
  if (regen !== null) return { lanes, reason: 'regen-surface', surfaces: regen };
  return null;
}

/**
 * Partitions a wave's lanes for scheduling (see {@link LanePartition}). No lane is selected,
 * dropped or re-ranked.
 *
 * @param lanes the wave's lanes, in caller order
 * @returns batches, serial groups and every conflicting pair
 * @throws InputError `wave.duplicate-lane-id` when two lanes share an id
 */
export function partitionLanes(lanes: readonly Lane[]): LanePartition {
  const seen = new Set<string>();
  for (const lane of lanes) {
    if (seen.has(lane.id))
      throw new InputError('wave.duplicate-lane-id', `lane id "${lane.id}" is used twice`);
    seen.add(lane.id);
  }

  const conflicts: LaneConflict[] = [];
  const conflictsWith: number[][] = lanes.map(() => []);
  lanes.forEach((b, j) => {
    for (let i = 0; i < j; i += 1) {
      const conflict = laneConflict(lanes[i] as Lane, b);
      if (conflict === null) continue;
      conflicts.push(conflict);
      conflictsWith[j]?.push(i);
    }
  });

  const batchOf: number[] = [];
  const batches: string[][] = [];
  lanes.forEach((lane, j) => {
    const batch = Math.max(-1, ...(conflictsWith[j] ?? []).map((i) => batchOf[i] as number)) + 1;
    batchOf.push(batch);
    const members = batches[batch] ?? [];
    members.push(lane.id);
    batches[batch] = members;
  });

  // Union-find over conflicts; a group is named by its first lane, so groups come in caller order.
  const root = lanes.map((_, i) => i);
  const find = (i: number): number => {
    while (root[i] !== i) i = root[i] as number;
    return i;
  };
  conflictsWith.forEach((earlier, j) => {
    for (const i of earlier) {
      const [ri, rj] = [find(i), find(j)];
      if (ri !== rj) root[Math.max(ri, rj)] = Math.min(ri, rj);
    }
  });
  const groups = new Map<number, string[]>();
  lanes.forEach((lane, i) => {
    const r = find(i);
    const group = groups.get(r) ?? [];
    group.push(lane.id);
    groups.set(r, group);
  });

  return { batches, serialGroups: [...groups.values()], conflicts };
}
