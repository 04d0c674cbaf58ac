import { InputError } from '../common/errors.js';
import type { RepairPhaseResult } from './repair-phase.js';
import type { ReportStatus } from './report-status.js';
import { isSubjectDigest } from './subject-digest.js';

/** The report's schema tag. */
export const RPI_REPORT_SCHEMA_VERSION = 'rpi-report.v1';

/**
 * The RPI report: exactly these nine keys, no more (in particular no next action). Digests are
 * 64 lowercase hex characters or null. Open findings never go into `not_checked`.
 */
export interface RpiReportV1 {
  readonly schema_version: typeof RPI_REPORT_SCHEMA_VERSION;
  readonly status: ReportStatus;
  readonly intent_ref: string | null;
  readonly acceptance_digest: string | null;
  readonly subject_manifest_digest: string | null;
  readonly verdict_ref: string | null;
  readonly verdict_digest: string | null;
  readonly checked: readonly string[];
  readonly not_checked: readonly string[];
}

/** The nine keys of {@link RpiReportV1}, in the order the report lists them. */
export const RPI_REPORT_KEYS = [
  'schema_version',
  'status',
  'intent_ref',
  'acceptance_digest',
  'subject_manifest_digest',
  'verdict_ref',
  'verdict_digest',
  'checked',
  'not_checked',
] as const satisfies readonly (keyof RpiReportV1)[];

/** Identities the caller knows about a run that reached the repair phase; each is optional. */
export interface RpiReportIdentity {
  /** Where the intent came from (a bead, an issue, `caller`). */
  readonly intentRef?: string | null;
  /** Digest of the exact resolved intent bytes. */
  readonly acceptanceDigest?: string | null;
  /** Reference to a persisted verdict artifact; given together with `verdictDigest`. */
  readonly verdictRef?: string | null;
  /** Digest of that artifact; given together with `verdictRef`. */
  readonly verdictDigest?: string | null;
}

/** A report identity that does not check: a malformed digest or a verdict ref without its digest. */
export class RpiReportIdentityError extends InputError {
  /**
   * @param field the offending field
   * @param message what is wrong with it
   */
  constructor(
    readonly field: keyof RpiReportIdentity,
    message: string,
  ) {
    super('report.identity-invalid', `${field}: ${message}`);
  }
}

function checkDigest(field: keyof RpiReportIdentity, value: string | null | undefined): string | null {
  if (value === undefined || value === null) return null;
  if (!isSubjectDigest(value))
    throw new RpiReportIdentityError(field, 'must be 64 lowercase hex characters or null');
  return value;
}

function checkIdentity(identity: RpiReportIdentity) {
  const intentRef = identity.intentRef ?? null;
  const verdictRef = identity.verdictRef ?? null;
  for (const [field, value] of [
    ['intentRef', intentRef],
    ['verdictRef', verdictRef],
  ] as const) {
    if (value !== null && (typeof value !== 'string' || value.trim() === '')) {
      throw new RpiReportIdentityError(field, 'must be a non-blank string or null');
    }
  }
  const acceptanceDigest = checkDigest('acceptanceDigest', identity.acceptanceDigest);
  const verdictDigest = checkDigest('verdictDigest', identity.verdictDigest);
  if ((verdictRef === null) !== (verdictDigest === null)) {
    throw new RpiReportIdentityError(
      verdictRef === null ? 'verdictRef' : 'verdictDigest',
      'a verdict reference and its digest are given together or not at all',
    );
  }
  return { intentRef, acceptanceDigest, verdictRef, verdictDigest };
}

/**
 * The report of a run that reached the repair phase: the phase's status, the current round's
 * subject digest, its per-round `checked` lines followed by the legs' `checked`, and its
 * `not_checked`.
 *
 * @param result the repair phase result
 * @param identity the run's identities (all optional)
 * @returns the nine-key report
 * @throws RpiReportIdentityError for a malformed digest, a blank ref, or a verdict ref without
 *   its digest (or the reverse)
 */
export function repairPhaseReport(result: RepairPhaseResult, identity: RpiReportIdentity = {}): RpiReportV1 {
  const id = checkIdentity(identity);
  return {
    schema_version: RPI_REPORT_SCHEMA_VERSION,
    status: result.status,
    intent_ref: id.intentRef,
    acceptance_digest: id.acceptanceDigest,
    subject_manifest_digest: result.subjectDigest,
    verdict_ref: id.verdictRef,
    verdict_digest: id.verdictDigest,
    checked: [...result.checked],
    not_checked: [...result.notChecked],
  };
}

/**
 * The report when the anti-ceremony guard says STOP: NOT_PLANNED, nothing dispatched, every
 * identity null.
 *
 * @param reason the guard's one-sentence reason
 * @returns the nine-key report
 */
export function antiCeremonyStopReport(reason: string): RpiReportV1 {
  return {
    schema_version: RPI_REPORT_SCHEMA_VERSION,
    status: 'NOT_PLANNED',
    intent_ref: null,
    acceptance_digest: null,
    subject_manifest_digest: null,
    verdict_ref: null,
    verdict_digest: null,
    checked: [`anti-ceremony guard: STOP — ${reason}`],
    not_checked: ['plan', 'implement', 'validate'],
  };
}

/**
 * The report when Plan returned nothing: NOT_PLANNED; implement and validate never ran.
 *
 * @returns the nine-key report
 */
export function notPlannedReport(): RpiReportV1 {
  return {
    schema_version: RPI_REPORT_SCHEMA_VERSION,
    status: 'NOT_PLANNED',
    intent_ref: null,
    acceptance_digest: null,
    subject_manifest_digest: null,
    verdict_ref: null,
    verdict_digest: null,
    checked: [],
    not_checked: ['implement', 'validate'],
  };
}

/**
 * The report when Implement returned nothing: NOT_BUILT; Plan's identities are kept, nothing
 * was validated.
 *
 * @param identity Plan's `intentRef` and `acceptanceDigest`
 * @returns the nine-key report
 * @throws RpiReportIdentityError for a malformed digest or a blank ref
 */
export function notBuiltReport(
  identity: Pick<RpiReportIdentity, 'intentRef' | 'acceptanceDigest'>,
): RpiReportV1 {
  const id = checkIdentity({ intentRef: identity.intentRef, acceptanceDigest: identity.acceptanceDigest });
  return {
    schema_version: RPI_REPORT_SCHEMA_VERSION,
    status: 'NOT_BUILT',
    intent_ref: id.intentRef,
    acceptance_digest: id.acceptanceDigest,
    subject_manifest_digest: null,
    verdict_ref: null,
    verdict_digest: null,
    checked: ['plan'],
    not_checked: ['validate'],
  };
}
