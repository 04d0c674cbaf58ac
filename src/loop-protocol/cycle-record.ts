import type { ProgressKind } from './progress.js';

/**
 * The patience counters the plateau and repeated-error rules read, carried from cycle to cycle.
 * A pivot resets them: the new strategy starts with fresh patience.
 */
export interface CycleStreaks {
  /** Consecutive completed cycles without progress. */
  readonly nonProgress: number;
  /** Consecutive completed cycles ending in the same error fingerprint. */
  readonly repeatedError: number;
  /** The error fingerprint of the last completed cycle, or null when it ended without an error. */
  readonly lastError: string | null;
}

/** The counters before the first cycle (and after a pivot). */
export const FRESH_STREAKS: CycleStreaks = { nonProgress: 0, repeatedError: 0, lastError: null };

/**
 * The counters after one completed cycle: the no-progress streak grows when the cycle earned no
 * kind of progress and resets otherwise; the repeated-error streak grows when the cycle ended in
 * the same error fingerprint as the one before, restarts at 1 for a new error, and resets when
 * the cycle ended without one.
 *
 * @param before the counters after the previous cycle
 * @param progress the kinds of progress this cycle earned (see `assessProgress`)
 * @param errorFingerprint the fingerprint of this cycle's error, or null
 */
export function nextStreaks(
  before: CycleStreaks,
  progress: readonly ProgressKind[],
  errorFingerprint: string | null,
): CycleStreaks {
  return {
    nonProgress: progress.length === 0 ? before.nonProgress + 1 : 0,
    repeatedError:
      errorFingerprint === null ? 0 : errorFingerprint === before.lastError ? before.repeatedError + 1 : 1,
    lastError: errorFingerprint,
  };
}

/** What became of a cycle's action, as the final report lists it. */
export type ActionDisposition = 'kept' | 'discarded' | 'skipped';

/**
 * The disposition of a cycle's action: `skipped` when the loop explicitly chose no action, `kept`
 * when the action was taken and the cycle made progress, `discarded` when it was taken without
 * progress (the loop then rolls back to its checkpoint, since repeated activity is not progress).
 *
 * @param actionTaken whether an action was chosen and applied
 * @param progress the kinds of progress the cycle earned
 */
export function actionDisposition(
  actionTaken: boolean,
  progress: readonly ProgressKind[],
): ActionDisposition {
  if (!actionTaken) return 'skipped';
  return progress.length > 0 ? 'kept' : 'discarded';
}
