import type { CheckResult } from './check.js';
import type { RunTranscript } from './run-transcript.js';

/**
 * The checks that do not pass in the retained state (the baseline or the last kept candidate),
 * in contract order: what the next candidate may aim at.
 *
 * @param transcript the run so far
 */
export function failingInRetained(transcript: RunTranscript): CheckResult[] {
  return transcript.retained.results.filter((result) => result.outcome !== 'passed');
}

/**
 * Selects the one failing result the next candidate patch aims at (procedure step 6): the first
 * non-passing check in contract order. The invariant's check comes first in every contract, so
 * the invariant is targeted for as long as it fails; after it passes, the first broken existing
 * check is next.
 *
 * @param transcript the run so far
 * @returns the target's name, or null when every check passes in the retained state
 */
export function selectCandidateTarget(transcript: RunTranscript): string | null {
  return failingInRetained(transcript)[0]?.name ?? null;
}
