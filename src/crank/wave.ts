/**
 * Crank's input: a wave of lanes chosen by the caller (reference §2). Crank reads it as given: it
 * never selects, extends, drops or re-ranks lanes, and never fills in a missing part.
 *
 * The input record uses snake_case keys like the rest of the RPI contract; these are the records
 * after checking (see wave-input.ts), in camelCase.
 */

/** One lane: a bounded piece of work that crank hands to RPI once. */
export interface Lane {
  /** The caller's id, or `lane-<n>` (1-based position) when none was given. Unique in the wave. */
  readonly id: string;
  /** Write scope: repository-relative paths or globs the lane may write, as given. */
  readonly scope: readonly string[];
  /** What the lane is for: the intent RPI plans from. */
  readonly brief: string;
  /** The lane's own executable acceptance: one or more commands. */
  readonly acceptance: readonly string[];
  /**
   * Regen surfaces the lane reaches (generated outputs, mirrors, manifests), as given; `null` when
   * the caller did not declare them, which counts as overlapping every other lane.
   */
  readonly regenSurfaces: readonly string[] | null;
}

/** A checked wave. */
export interface Wave {
  readonly lanes: readonly Lane[];
  /** The caller's repair bound, forwarded unchanged to every lane's RPI. */
  readonly repairRounds: number;
  /** The wave acceptance: one command set, run once after every lane has returned. */
  readonly acceptance: readonly string[];
}
