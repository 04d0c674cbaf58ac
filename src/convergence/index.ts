/**
 * The RPI convergence law, pure: round-shape validation, the law's conditions as predicates, the
 * bounded repair phase as an incremental fold, the rpi-report.v1 builders, risky-surface
 * classification and zod schemas. See docs/convergence.md and docs/api/convergence.md.
 */

export { converged, diversityUnsatisfied, RISKY_SURFACE_MIN_FAMILIES } from './convergence-check.js';
export {
  bindingEvidence,
  findingSetGrew,
  lawViolation,
  reopenedFinding,
  reopenedIds,
  resolvedIds,
  subjectOrEvidenceChanged,
} from './law.js';
export { checkRound, inspectRound, normalizeRound, type RoundInspection } from './normalize-round.js';
export { type ReceiptFreshness, receiptFreshness, type StaleReceiptReason } from './receipt-freshness.js';
export { checkRepairRounds, REPAIR_ROUNDS_DEFAULT, withinRepairBudget } from './repair-budget.js';
export {
  admitRound,
  exhaustRepairBudget,
  finishRepairPhase,
  type RepairPhaseOptions,
  type RepairPhaseResult,
  type RepairPhaseState,
  repairRoundLine,
  runRepairPhase,
  startRepairPhase,
} from './repair-phase.js';
export { RepairPhaseError, type RepairPhaseErrorCode } from './repair-phase-error.js';
export {
  isVerdictStatus,
  NON_VERDICT_STATUSES,
  type NonVerdictStatus,
  REPORT_STATUSES,
  type ReportStatus,
} from './report-status.js';
export {
  canonicalChangedPath,
  isRiskySurface,
  RISKY_SURFACE_PATTERNS,
  RISKY_SURFACES,
  type RiskySurface,
  riskyPaths,
} from './risky-surface.js';
export { upgradeRiskySurface } from './risky-surface-upgrade.js';
export type {
  EvidenceBinding,
  NormalizedRound,
  OpenFinding,
  ValidationLeg,
  ValidationRound,
} from './round.js';
export {
  ROUND_SHAPE_CODES,
  type RoundShapeCode,
  RoundShapeError,
  type RoundShapeProblem,
} from './round-shape-error.js';
export {
  antiCeremonyStopReport,
  notBuiltReport,
  notPlannedReport,
  RPI_REPORT_KEYS,
  RPI_REPORT_SCHEMA_VERSION,
  type RpiReportIdentity,
  RpiReportIdentityError,
  type RpiReportV1,
  repairPhaseReport,
} from './rpi-report.js';
export {
  type ConvergenceSchemaName,
  convergenceJsonSchemas,
  convergenceSchemas,
  evidenceBindingSchema,
  normalizedRoundSchema,
  openFindingSchema,
  repairPhaseResultSchema,
  repairPhaseStateSchema,
  reportStatusSchema,
  rpiReportSchema,
  subjectDigestSchema,
  validationLegSchema,
  validationRoundSchema,
  verdictSchema,
} from './schemas.js';
export { repairFailedReport } from './stage-failure-report.js';
export { LAW_VIOLATIONS, type LawViolation, STOP_REASONS, type StopReason } from './stop-reason.js';
export { isSubjectDigest, SUBJECT_DIGEST_PATTERN } from './subject-digest.js';
export { isVerdict, VERDICTS, type Verdict, verdictRank, worstVerdict } from './verdict.js';
