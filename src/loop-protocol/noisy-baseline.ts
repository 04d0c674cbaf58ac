import { InputError } from '../common/errors.js';
import { type Finding, finding } from '../common/finding.js';

/** Which way a metric improves. */
export type MetricDirection = 'lower-is-better' | 'higher-is-better';

/**
 * The baseline of a noisy metric: samples aggregated by their median, and a tolerance a change
 * must exceed before it counts as improvement.
 */
export interface NoisyBaseline {
  readonly direction: MetricDirection;
  /** The samples in the order taken. */
  readonly samples: readonly number[];
  /** The aggregation: the median of the samples (mean of the middle two for an even count). */
  readonly median: number;
  /** Smallest and largest sample. */
  readonly spread: { readonly min: number; readonly max: number };
  /** max(max - min, minimumTolerance): a change within the baseline's own noise is not improvement. */
  readonly tolerance: number;
}

/** Options of {@link aggregateBaseline}. */
export interface BaselineOptions {
  readonly direction: MetricDirection;
  /** Fewest samples that define a spread; default 3. */
  readonly minSamples?: number;
  /** A floor for the tolerance (e.g. the metric's resolution); default 0. */
  readonly minimumTolerance?: number;
}

/** The median of a non-empty list. */
export function median(values: readonly number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const mid = Math.floor(sorted.length / 2);
  return sorted.length % 2 === 1
    ? (sorted[mid] as number)
    : ((sorted[mid - 1] as number) + (sorted[mid] as number)) / 2;
}

/**
 * Aggregates baseline samples of a noisy metric.
 *
 * @param samples metric values observed before acting, without mutating anything
 * @param options direction, minimum sample count (default 3), minimum tolerance (default 0)
 * @returns the baseline, or findings `loop-protocol.baseline.too-few-samples`,
 *   `.sample-not-finite`, `.options-invalid`
 */
export function aggregateBaseline(
  samples: readonly number[],
  options: BaselineOptions,
): { ok: true; baseline: NoisyBaseline } | { ok: false; findings: readonly Finding[] } {
  const minSamples = options.minSamples ?? 3;
  const minimumTolerance = options.minimumTolerance ?? 0;
  const findings: Finding[] = [];
  if (
    !Number.isSafeInteger(minSamples) ||
    minSamples < 1 ||
    !(minimumTolerance >= 0) ||
    !Number.isFinite(minimumTolerance)
  )
    findings.push(
      finding(
        'loop-protocol.baseline.options-invalid',
        0,
        'minSamples must be a whole number >= 1 and minimumTolerance a finite number >= 0',
      ),
    );
  if (samples.length < minSamples)
    findings.push(
      finding(
        'loop-protocol.baseline.too-few-samples',
        0,
        `${samples.length} baseline sample(s) cannot define a tolerance; take at least ${minSamples}`,
      ),
    );
  samples.forEach((sample, i) => {
    if (!Number.isFinite(sample))
      findings.push(
        finding(
          'loop-protocol.baseline.sample-not-finite',
          0,
          `sample ${i + 1} (${sample}) is not a finite number`,
        ),
      );
  });
  if (findings.length > 0) return { ok: false, findings };
  const min = Math.min(...samples);
  const max = Math.max(...samples);
  return {
    ok: true,
    baseline: {
      direction: options.direction,
      samples: [...samples],
      median: median(samples),
      spread: { min, max },
      tolerance: Math.max(max - min, minimumTolerance),
    },
  };
}

/** Result of comparing an observation with a noisy baseline (or a best-known value). */
export interface ImprovementCheck {
  readonly improved: boolean;
  /** The observed value (the median when several samples were given). */
  readonly observed: number;
  /** How much better than the reference the observation is; negative when worse. */
  readonly gain: number;
  readonly tolerance: number;
}

/**
 * Whether an observation improves on a reference beyond the baseline's tolerance. The gain must
 * be strictly greater than the tolerance: a change the size of the baseline's own noise is not
 * progress.
 *
 * @param baseline the aggregated baseline (its direction and tolerance)
 * @param observed one value, or samples aggregated by their median
 * @param reference the value to beat; the baseline median by default (pass the best-known value
 *   to stop the same improvement from counting twice)
 * @throws InputError (`loop-protocol.metric.observation-invalid`) when no finite observation is given
 */
export function improvedBeyondTolerance(
  baseline: NoisyBaseline,
  observed: number | readonly number[],
  reference: number = baseline.median,
): ImprovementCheck {
  const values = typeof observed === 'number' ? [observed] : observed;
  if (values.length === 0 || !values.every(Number.isFinite))
    throw new InputError(
      'loop-protocol.metric.observation-invalid',
      'an observation needs at least one finite value',
    );
  const value = median(values);
  const gain = baseline.direction === 'lower-is-better' ? reference - value : value - reference;
  return { improved: gain > baseline.tolerance, observed: value, gain, tolerance: baseline.tolerance };
}
