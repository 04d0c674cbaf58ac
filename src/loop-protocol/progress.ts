import { improvedBeyondTolerance, type NoisyBaseline } from './noisy-baseline.js';

/**
 * The six kinds of progress a completed cycle must make at least one of ("Repeated activity is
 * not progress").
 */
export const PROGRESS_KINDS = [
  'acceptance-criterion-closed',
  'metric-improved-beyond-tolerance',
  'hypothesis-eliminated',
  'queue-reduced',
  'new-evidence',
  'state-transition-observed',
] as const;

/** One kind of progress. */
export type ProgressKind = (typeof PROGRESS_KINDS)[number];

/**
 * What the loop has already achieved, read from the ledger before choosing the next action so
 * that nothing counts twice.
 */
export interface ProgressLedger {
  readonly closedCriteria: readonly string[];
  readonly eliminatedHypotheses: readonly string[];
  /** Fingerprints of every piece of evidence recorded so far. */
  readonly evidenceFingerprints: readonly string[];
  /** Fingerprints of every normalized observation so far (the baseline's included). */
  readonly observedFingerprints: readonly string[];
  /** Best metric value so far (the baseline median at the start), or null without a metric. */
  readonly bestMetric: number | null;
  /** Length of the finite queue or checklist after the last cycle, or null without one. */
  readonly queueLength: number | null;
}

/** What one completed cycle observed or claims. Every field is optional. */
export interface CycleClaim {
  readonly closedCriteria?: readonly string[];
  /** The metric observed this cycle (one value or samples). */
  readonly metric?: number | readonly number[];
  readonly eliminatedHypotheses?: readonly string[];
  readonly queueLength?: number;
  readonly evidenceFingerprints?: readonly string[];
  /** Fingerprint of this cycle's normalized observation of the authoritative source. */
  readonly observationFingerprint?: string;
}

/** Result of {@link assessProgress}. */
export interface ProgressAssessment {
  /** The kinds of progress actually earned, in {@link PROGRESS_KINDS} order. */
  readonly kinds: readonly ProgressKind[];
  /** Claims that did not count, each with why. */
  readonly notProgress: readonly { readonly kind: ProgressKind; readonly why: string }[];
  /** The ledger including this cycle. */
  readonly ledger: ProgressLedger;
}

/**
 * The empty ledger at baseline.
 *
 * @param baseline the noisy-metric baseline, when the loop has a metric
 * @param observationFingerprint the baseline observation's fingerprint
 * @param queueLength the queue length at baseline, when the loop works a queue
 */
export function startProgressLedger(
  baseline: NoisyBaseline | null,
  observationFingerprint: string | null,
  queueLength: number | null = null,
): ProgressLedger {
  return {
    closedCriteria: [],
    eliminatedHypotheses: [],
    evidenceFingerprints: [],
    observedFingerprints: observationFingerprint === null ? [] : [observationFingerprint],
    bestMetric: baseline ? baseline.median : null,
    queueLength,
  };
}

/**
 * Decides which kinds of progress a cycle made. A claim counts only when it is new against the
 * ledger: a criterion or hypothesis not closed or eliminated before, a metric better than the
 * best known value by more than the baseline tolerance, a queue shorter than after the last
 * cycle, evidence whose fingerprint was never recorded, an observation fingerprint never seen.
 *
 * @param claim what the cycle observed
 * @param ledger what the loop achieved before this cycle
 * @param baseline the noisy-metric baseline (needed for a metric claim)
 * @returns the kinds earned, the claims refused with reasons, and the updated ledger
 */
export function assessProgress(
  claim: CycleClaim,
  ledger: ProgressLedger,
  baseline: NoisyBaseline | null = null,
): ProgressAssessment {
  const kinds = new Set<ProgressKind>();
  const notProgress: { kind: ProgressKind; why: string }[] = [];
  const next = {
    closedCriteria: [...ledger.closedCriteria],
    eliminatedHypotheses: [...ledger.eliminatedHypotheses],
    evidenceFingerprints: [...ledger.evidenceFingerprints],
    observedFingerprints: [...ledger.observedFingerprints],
    bestMetric: ledger.bestMetric,
    queueLength: ledger.queueLength,
  };

  const fresh = (
    claimed: readonly string[] | undefined,
    seen: string[],
    kind: ProgressKind,
    noun: string,
  ) => {
    if (!claimed || claimed.length === 0) return;
    const newOnes = [...new Set(claimed)].filter((item) => !seen.includes(item));
    if (newOnes.length > 0) {
      kinds.add(kind);
      seen.push(...newOnes);
    } else notProgress.push({ kind, why: `every ${noun} claimed was already recorded` });
  };
  fresh(claim.closedCriteria, next.closedCriteria, 'acceptance-criterion-closed', 'criterion');
  fresh(claim.eliminatedHypotheses, next.eliminatedHypotheses, 'hypothesis-eliminated', 'hypothesis');
  fresh(claim.evidenceFingerprints, next.evidenceFingerprints, 'new-evidence', 'evidence fingerprint');

  if (claim.metric !== undefined) {
    if (!baseline || next.bestMetric === null)
      notProgress.push({ kind: 'metric-improved-beyond-tolerance', why: 'the loop has no metric baseline' });
    else {
      const check = improvedBeyondTolerance(baseline, claim.metric, next.bestMetric);
      if (check.improved) {
        kinds.add('metric-improved-beyond-tolerance');
        next.bestMetric = check.observed;
      } else
        notProgress.push({
          kind: 'metric-improved-beyond-tolerance',
          why: `gain ${check.gain} over the best known ${next.bestMetric} does not exceed the tolerance ${check.tolerance}`,
        });
    }
  }

  if (claim.queueLength !== undefined) {
    if (next.queueLength !== null && claim.queueLength < next.queueLength) kinds.add('queue-reduced');
    else
      notProgress.push({
        kind: 'queue-reduced',
        why:
          next.queueLength === null
            ? 'no earlier queue length to compare with'
            : `queue length ${claim.queueLength} is not below ${next.queueLength}`,
      });
    next.queueLength = claim.queueLength;
  }

  if (claim.observationFingerprint !== undefined) {
    if (!next.observedFingerprints.includes(claim.observationFingerprint)) {
      kinds.add('state-transition-observed');
      next.observedFingerprints.push(claim.observationFingerprint);
    } else
      notProgress.push({
        kind: 'state-transition-observed',
        why: 'the observation matches a state already seen (repeated activity is not progress)',
      });
  }

  return { kinds: PROGRESS_KINDS.filter((kind) => kinds.has(kind)), notProgress, ledger: next };
}
