import { InputError } from '../common/errors.js';
import type { Finding } from '../common/finding.js';

/**
 * Stable codes of every round-shape error, in the order the checks run for one leg (round-level
 * codes first, the cross-leg digest check last). A shape error is never a law stop: the round is
 * not a round at all, so it cannot be judged.
 */
export const ROUND_SHAPE_CODES = [
  'round.not-a-list',
  'round.empty',
  'round.leg-not-an-object',
  'round.status-invalid',
  'round.findings-missing',
  'round.findings-not-a-list',
  'round.finding-not-an-object',
  'round.finding-id-invalid',
  'round.duplicate-finding-id',
  'round.pass-with-findings',
  'round.fail-without-findings',
  'round.evidence-refs-missing',
  'round.evidence-refs-not-a-list',
  'round.evidence-ref-missing',
  'round.evidence-resolves-invalid',
  'round.evidence-digest-invalid',
  'round.evidence-entry-invalid',
  'round.digest-missing',
  'round.digest-invalid',
  'round.validator-family-invalid',
  'round.checked-invalid',
  'round.not-checked-invalid',
  'round.legs-disagree-digest',
] as const;

/** One of {@link ROUND_SHAPE_CODES}. */
export type RoundShapeCode = (typeof ROUND_SHAPE_CODES)[number];

/**
 * Where a shape problem sits and what it is. `legIndex` is the 0-based position of the leg in the
 * round (0 for a single-leg round; null when the round itself is wrong); `field` names the key,
 * with a list index when one entry is at fault (e.g. `findings[2].id`).
 */
export interface RoundShapeProblem {
  readonly code: RoundShapeCode;
  readonly legIndex: number | null;
  readonly field: string | null;
  /** One sentence a validator author can act on. */
  readonly message: string;
}

/**
 * A validation round that does not have the shape of §1.4 of the convergence reference. Thrown by
 * `normalizeRound` (and so by the repair phase) for the first problem found; `findings` lists every
 * problem of the round so that one report names them all.
 */
export class RoundShapeError extends InputError {
  /** The first problem's code. */
  declare readonly code: RoundShapeCode;
  /** 0-based leg of the first problem, or null when the round itself is not a round. */
  readonly legIndex: number | null;
  /** The offending field of the first problem, or null. */
  readonly field: string | null;

  /**
   * @param problem the first problem, which names the error
   * @param findings every problem of the round, as findings (the first one included)
   */
  constructor(problem: RoundShapeProblem, findings: readonly Finding[] = []) {
    super(problem.code, `invalid validation round: ${locate(problem)}${problem.message}`, findings);
    this.legIndex = problem.legIndex;
    this.field = problem.field;
  }
}

/**
 * Renders the location prefix of a problem: `leg 1, findings[0].id: `.
 *
 * @param problem a shape problem
 * @returns a prefix ending in `: `, or the empty string when the problem has no location
 */
export function locate(problem: RoundShapeProblem): string {
  const parts: string[] = [];
  if (problem.legIndex !== null) parts.push(`leg ${problem.legIndex}`);
  if (problem.field !== null) parts.push(problem.field);
  return parts.length > 0 ? `${parts.join(', ')}: ` : '';
}
