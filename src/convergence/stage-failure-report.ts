import type { RepairPhaseState } from './repair-phase.js';
import { RPI_REPORT_SCHEMA_VERSION, type RpiReportIdentity, type RpiReportV1 } from './rpi-report.js';
import { isSubjectDigest } from './subject-digest.js';

/**
 * The report when a repair returned nothing (the implementer ran for a repair round and failed).
 *
 * The law has no stop reason for this: it judges rounds, and no round was made. The report is
 * NOT_PROVEN with no subject digest, so that no verdict about a subject the failed repair may have
 * half-changed survives; `checked` keeps the round lines of the rounds that were judged, and
 * `not_checked` says the repaired subject was never validated.
 *
 * @param state the running repair phase the repair belonged to
 * @param identity Plan's `intentRef` and `acceptanceDigest` (kept when well-formed, else null)
 * @returns the nine-key report
 */
export function repairFailedReport(
  state: RepairPhaseState,
  identity: Pick<RpiReportIdentity, 'intentRef' | 'acceptanceDigest'> = {},
): RpiReportV1 {
  const intentRef = identity.intentRef ?? null;
  const acceptanceDigest = identity.acceptanceDigest ?? null;
  return {
    schema_version: RPI_REPORT_SCHEMA_VERSION,
    status: 'NOT_PROVEN',
    intent_ref: intentRef !== null && intentRef.trim() !== '' ? intentRef : null,
    acceptance_digest:
      acceptanceDigest !== null && isSubjectDigest(acceptanceDigest) ? acceptanceDigest : null,
    subject_manifest_digest: null,
    verdict_ref: null,
    verdict_digest: null,
    checked: [...state.checkedLines],
    not_checked: ['validate'],
  };
}
