import type { EvidenceBinding, NormalizedRound } from './round.js';
import type { LawViolation } from './stop-reason.js';

/**
 * The convergence law's conditions 2-4 over two consecutive rounds (condition 1, the budget, is in
 * repair-budget.ts). Each condition is its own predicate so that a statechart can give it its own
 * named guard; {@link lawViolation} fixes the order reopen → growth → progress.
 */

/**
 * Ids that left the open set between two rounds: open in `previous`, not open in `current`.
 *
 * @param previous the round before
 * @param current the round just validated
 * @returns the resolved ids, in `previous` order
 */
export function resolvedIds(previous: NormalizedRound, current: NormalizedRound): string[] {
  const open = new Set(current.openIds);
  return previous.openIds.filter((id) => !open.has(id));
}

/**
 * Open ids of `current` that an earlier round closed.
 *
 * @param current the round just validated
 * @param closedIds ids closed in earlier rounds
 * @returns the reopened ids, in `current` order
 */
export function reopenedIds(current: NormalizedRound, closedIds: Iterable<string>): string[] {
  const closed = new Set(closedIds);
  return current.openIds.filter((id) => closed.has(id));
}

/**
 * Condition 3: a finding id closed in an earlier round is open again.
 *
 * @param current the round just validated
 * @param closedIds ids closed in earlier rounds
 * @returns true when the law is broken this way
 */
export function reopenedFinding(current: NormalizedRound, closedIds: Iterable<string>): boolean {
  return reopenedIds(current, closedIds).length > 0;
}

/**
 * Condition 2: the open finding set is larger than the previous round's. Only the size counts:
 * swapping ids one for one at equal size is not growth.
 *
 * @param previous the round before
 * @param current the round just validated
 * @returns true when the law is broken this way
 */
export function findingSetGrew(previous: NormalizedRound, current: NormalizedRound): boolean {
  return current.openIds.length > previous.openIds.length;
}

/**
 * The evidence that admits a round over an unchanged subject (condition 4, evidence branch).
 *
 * Only when `previous` was NOT_PROVEN and `current` is not FAIL; then an entry binds when its ref
 * is new (absent from `previous`), it is bound to the current subject digest, and it names in
 * `resolves` an id that left the open set this round. A bare label has no digest and never binds.
 *
 * @param previous the round before
 * @param current the round just validated
 * @returns the binding entries of `current`, in order; empty when none admits the round
 */
export function bindingEvidence(previous: NormalizedRound, current: NormalizedRound): EvidenceBinding[] {
  if (previous.status !== 'NOT_PROVEN' || current.status === 'FAIL') return [];
  const previousRefs = new Set(previous.evidenceRefs.map((e) => e.ref));
  const resolved = new Set(resolvedIds(previous, current));
  return current.evidenceRefs.filter(
    (e) =>
      !previousRefs.has(e.ref) &&
      e.subject_digest === current.subjectDigest &&
      (e.resolves ?? []).some((id) => resolved.has(id)),
  );
}

/**
 * Condition 4: between the rounds the subject digest changed, or binding evidence was supplied
 * (see {@link bindingEvidence}). When the digest moved, evidence is not consulted.
 *
 * @param previous the round before
 * @param current the round just validated
 * @returns true when the round made progress the law accepts
 */
export function subjectOrEvidenceChanged(previous: NormalizedRound, current: NormalizedRound): boolean {
  if (current.subjectDigest !== previous.subjectDigest) return true;
  return bindingEvidence(previous, current).length > 0;
}

/**
 * The first law condition (2-4) a repair round breaks, checked in the order reopen → growth →
 * progress, so a round that both reopens and grows is reported as `reopened_finding`.
 *
 * @param previous the round before (round 0 or the last admitted repair round)
 * @param current the repair round just validated
 * @param closedIds ids closed in rounds before `current`
 * @returns the violation, or null when the round is admitted
 */
export function lawViolation(
  previous: NormalizedRound,
  current: NormalizedRound,
  closedIds: Iterable<string>,
): LawViolation | null {
  if (reopenedFinding(current, closedIds)) return 'reopened_finding';
  if (findingSetGrew(previous, current)) return 'finding_set_grew';
  if (!subjectOrEvidenceChanged(previous, current)) return 'no_subject_or_evidence_change';
  return null;
}
