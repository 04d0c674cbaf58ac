/**
 * Why a repair phase stopped. `converged` is the only success; `not_converged` means the supplied
 * rounds ran out while budget remained (in a live loop: "repair again").
 */
export type StopReason =
  | 'converged'
  | 'diversity_unsatisfied'
  | 'repair_budget_exhausted'
  | 'reopened_finding'
  | 'finding_set_grew'
  | 'no_subject_or_evidence_change'
  | 'not_converged';

/** Every stop reason. */
export const STOP_REASONS: readonly StopReason[] = [
  'converged',
  'diversity_unsatisfied',
  'repair_budget_exhausted',
  'reopened_finding',
  'finding_set_grew',
  'no_subject_or_evidence_change',
  'not_converged',
];

/** The stop reasons the convergence law itself returns (conditions 3, 2 and 4). */
export type LawViolation = Extract<
  StopReason,
  'reopened_finding' | 'finding_set_grew' | 'no_subject_or_evidence_change'
>;

/** The law's violations in the order they are evaluated: reopen, then growth, then progress. */
export const LAW_VIOLATIONS: readonly LawViolation[] = [
  'reopened_finding',
  'finding_set_grew',
  'no_subject_or_evidence_change',
];
