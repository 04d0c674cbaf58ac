import type { Verdict } from './verdict.js';

/**
 * Status of an RPI report (`rpi-report.v1.status`).
 *
 * It widens {@link Verdict} with two outcomes that are report statuses and never verdicts:
 * NOT_PLANNED (the anti-ceremony guard stopped, or Plan returned nothing) and NOT_BUILT (Implement
 * returned nothing). No validator mints them, so functions that take a `Verdict` refuse them at
 * compile time; narrow with {@link isVerdictStatus} first.
 */
export type ReportStatus = Verdict | NonVerdictStatus;

/** The report statuses that are not verdicts: the run stopped before anything was validated. */
export type NonVerdictStatus = 'NOT_PLANNED' | 'NOT_BUILT';

/** Every report status, in the order `rpi-report.v1` lists them. */
export const REPORT_STATUSES: readonly ReportStatus[] = [
  'PASS',
  'FAIL',
  'NOT_PROVEN',
  'NOT_PLANNED',
  'NOT_BUILT',
];

/** The report statuses no validator may return. */
export const NON_VERDICT_STATUSES: readonly NonVerdictStatus[] = ['NOT_PLANNED', 'NOT_BUILT'];

/**
 * Whether a report status is also a verdict, i.e. the run reached a validator.
 *
 * @param status a report status
 * @returns true for PASS, FAIL and NOT_PROVEN; false for NOT_PLANNED and NOT_BUILT
 */
export function isVerdictStatus(status: ReportStatus): status is Verdict {
  return status === 'PASS' || status === 'FAIL' || status === 'NOT_PROVEN';
}
