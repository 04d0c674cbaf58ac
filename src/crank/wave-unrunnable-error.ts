import { InputError } from '../common/errors.js';
import type { Finding } from '../common/finding.js';

/** Codes of the findings that make a wave unrunnable. */
export const WAVE_FINDING_CODES = [
  'wave.not-an-object',
  'wave.lanes-not-a-list',
  'wave.no-lanes',
  'wave.repair-rounds-missing',
  'wave.repair-rounds-invalid',
  'wave.acceptance-missing',
  'wave.acceptance-invalid',
  'wave.lane-not-an-object',
  'wave.lane-id-invalid',
  'wave.duplicate-lane-id',
  'wave.lane-scope-missing',
  'wave.lane-scope-invalid',
  'wave.lane-brief-missing',
  'wave.lane-acceptance-missing',
  'wave.lane-acceptance-invalid',
  'wave.lane-regen-surfaces-invalid',
] as const;

/** One of {@link WAVE_FINDING_CODES}. */
export type WaveFindingCode = (typeof WAVE_FINDING_CODES)[number];

/**
 * A wave crank cannot run: a lane lacks its scope, brief or executable acceptance, or the wave
 * lacks its repair bound or acceptance. Crank reports this and stops; it never shapes the
 * missing part. `findings` names every problem (codes from {@link WAVE_FINDING_CODES}).
 */
export class WaveUnrunnableError extends InputError {
  /**
   * @param findings every problem of the wave, at least one
   */
  constructor(findings: readonly Finding[]) {
    super('wave.unrunnable', 'the wave is unrunnable', findings);
  }
}
