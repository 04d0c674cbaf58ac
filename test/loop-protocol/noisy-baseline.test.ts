import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { aggregateBaseline, improvedBeyondTolerance, median } from '../../src/loop-protocol/index.js';

function baselineOf(
  samples: number[],
  direction: 'lower-is-better' | 'higher-is-better' = 'lower-is-better',
) {
  const result = aggregateBaseline(samples, { direction });
  if (!result.ok) throw new Error('fixture refused');
  return result.baseline;
}

describe('a noisy-metric baseline', () => {
  it('aggregates by the median and takes the spread as the tolerance', () => {
    const b = baselineOf([120, 100, 110]);
    expect(b.median).toBe(110);
    expect(b.spread).toEqual({ min: 100, max: 120 });
    expect(b.tolerance).toBe(20);
    expect(baselineOf([4, 1, 3, 2]).median).toBe(2.5);
  });

  it('uses the minimum tolerance when the samples agree exactly', () => {
    const result = aggregateBaseline([7, 7, 7], { direction: 'lower-is-better', minimumTolerance: 0.5 });
    expect(result.ok && result.baseline.tolerance).toBe(0.5);
  });

  it('refuses too few samples and non-finite samples by name', () => {
    const few = aggregateBaseline([1, 2], { direction: 'lower-is-better' });
    expect(!few.ok && few.findings.map((f) => f.code)).toEqual(['loop-protocol.baseline.too-few-samples']);
    const nan = aggregateBaseline([1, Number.NaN, 3], { direction: 'lower-is-better' });
    expect(!nan.ok && nan.findings.map((f) => f.code)).toEqual(['loop-protocol.baseline.sample-not-finite']);
  });

  it('counts only a gain strictly beyond the tolerance, in the metric direction', () => {
    const lower = baselineOf([100, 110, 120]); // median 110, tolerance 20
    expect(improvedBeyondTolerance(lower, 90).improved).toBe(false); // gain 20 = tolerance
    expect(improvedBeyondTolerance(lower, 89).improved).toBe(true);
    expect(improvedBeyondTolerance(lower, 140).gain).toBe(-30);
    const higher = baselineOf([100, 110, 120], 'higher-is-better');
    expect(improvedBeyondTolerance(higher, 131).improved).toBe(true);
    expect(improvedBeyondTolerance(higher, 89).improved).toBe(false);
  });

  it('aggregates several observed samples by their median and compares with a given reference', () => {
    const b = baselineOf([100, 110, 120]);
    expect(improvedBeyondTolerance(b, [60, 200, 70])).toMatchObject({ observed: 70, improved: true });
    expect(improvedBeyondTolerance(b, 70, 80).improved).toBe(false);
  });

  it('refuses an empty or non-finite observation with a named error', () => {
    const b = baselineOf([1, 2, 3]);
    expect(() => improvedBeyondTolerance(b, [])).toThrow(InputError);
    expect(() => improvedBeyondTolerance(b, Number.POSITIVE_INFINITY)).toThrow(InputError);
    // One bad sample among good ones is still refused: a median over NaN is meaningless.
    expect(() => improvedBeyondTolerance(b, [1, Number.NaN, 2])).toThrow(InputError);
    let thrown: unknown;
    try {
      improvedBeyondTolerance(b, []);
    } catch (error) {
      thrown = error;
    }
    // The error is named by its code and says what was wrong in words a person can act on.
    expect(thrown).toMatchObject({ code: 'loop-protocol.metric.observation-invalid' });
    expect((thrown as Error).message).toMatch(/finite/);
  });

  it('never calls a value inside the baseline spread an improvement (property, 1,000 runs)', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: -1e6, max: 1e6, noNaN: true }), { minLength: 3, maxLength: 15 }),
        fc.double({ min: 0, max: 1, noNaN: true }),
        fc.constantFrom('lower-is-better' as const, 'higher-is-better' as const),
        (samples, t, direction) => {
          const b = baselineOf(samples, direction);
          // Clamped so that rounding cannot leave the spread.
          const inside = Math.min(
            b.spread.max,
            Math.max(b.spread.min, b.spread.min + t * (b.spread.max - b.spread.min)),
          );
          expect(improvedBeyondTolerance(b, inside).improved).toBe(false);
          expect(median(samples)).toBeGreaterThanOrEqual(b.spread.min);
          expect(median(samples)).toBeLessThanOrEqual(b.spread.max);
        },
      ),
      { numRuns: 1000 },
    );
  });
});
