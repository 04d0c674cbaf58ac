/**
 * Crank's pure helpers: wave and lane input checking, write-scope and regen-surface overlap, and
 * the partition of a wave's lanes into parallel batches and serial groups. See
 * docs/convergence.md (crank) and docs/api/convergence.md.
 */

export {
  type LaneConflict,
  type LaneConflictReason,
  type LanePartition,
  laneConflict,
  partitionLanes,
} from './lane-partition.js';
export { lanesReadyToStart } from './lane-schedule.js';
export { laneSchema, waveSchema } from './schemas.js';
export { firstOverlap, scopePrefix, scopesOverlap, WHOLE_REPOSITORY } from './scope.js';
export type { Lane, Wave } from './wave.js';
export { checkWave, parseWave, scopeEntryProblem } from './wave-input.js';
export { WAVE_FINDING_CODES, type WaveFindingCode, WaveUnrunnableError } from './wave-unrunnable-error.js';
