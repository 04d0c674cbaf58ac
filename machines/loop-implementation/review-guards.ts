/**
 * Guards and views of verify steps 2-4 (reviews, fix rounds, funding, closure): thin calls into
 * the pure review rules (src/gauntlet/review.ts) over the review report that just arrived.
 */
import {
  carriedOpenReason,
  isFixGap,
  type LegHead,
  nextReviewStep,
  type ReviewReturn,
  type ReviewStep,
  renderClosure,
  renderWaivedClosure,
} from '../../src/gauntlet/review.js';
import type { LoopContext, ReviewReport } from './context.js';
import { legHeadsOf } from './verify-legs.js';
import { headLedger } from './views.js';

/** The review report of the `runReview` done event. */
export function reportOf(event: unknown): ReviewReport {
  return (event as { output: ReviewReport }).output;
}

/** The decoded amend-grant sentence when amend permission is active, else `null`. */
export function amendGrantSentence(context: LoopContext): string | null {
  const grant = context.spec?.amendGrant;
  return grant?.kind === 'active' ? grant.sentence : null;
}

/** What the review report leads to (`null` when no reviewer ran or its return is a miss). */
export function reviewStepOf(context: LoopContext, report: ReviewReport): ReviewStep | null {
  if (!report.ran || !report.returned.ok) return null;
  return nextReviewStep({
    review: report.returned.review,
    counts: report.counts,
    settings: report.settings,
    allowance: headLedger(context).allowance,
    amendGrant: amendGrantSentence(context),
  });
}

/** The validated review of a report (throws when there is none: callers guard first). */
export function reviewOf(report: ReviewReport | null): ReviewReturn {
  if (report === null || !report.ran || !report.returned.ok) throw new Error('no valid review');
  return report.returned.review;
}

/**
 * The fix tasks of a review: its fix tasks, and for conformance each open fix gap
 * `G<n>: <text>` (gaps carried open to the finishing gate are not the fixer's).
 */
export function fixTasksOf(review: ReviewReturn): string[] {
  const gaps =
    review.role === 'conformance' ? review.openGaps.filter(isFixGap).map((g) => `${g.id}: ${g.text}`) : [];
  return [...gaps, ...review.fixTasks];
}

/** Whether verify closed on a GAPS review (a carried-open deferred inventory). */
export function closedWithGaps(context: LoopContext): boolean {
  const report = context.review;
  if (!report?.ran || !report.returned.ok) return false;
  return report.returned.review.verdict === 'GAPS';
}

/** Whether a report is the waived conformance step (no reviewer, `--no-conformance-review`). */
export function isWaived(report: ReviewReport | null): report is Extract<ReviewReport, { waived: true }> {
  return report !== null && !report.ran && 'waived' in report && report.waived;
}

/** The closure block of a CONFORMS report, or of a waived conformance step. */
export function closureOf(context: LoopContext): string {
  const report = context.review;
  if (isWaived(report))
    return renderWaivedClosure({
      verifiedHead: report.head,
      ledger: headLedger(context),
      fixCommits: report.fixCommits,
      minors: context.minors,
      ...legHeadsField(context),
    });
  const review = reviewOf(report);
  if (review.role !== 'conformance' || report === null || !report.ran)
    throw new Error('no conformance review');
  const carried: Record<string, string> = {};
  for (const gap of review.openGaps) {
    const reason = carriedOpenReason(gap, report.counts, report.settings);
    if (reason !== null) carried[gap.id] = reason;
  }
  return renderClosure({
    review,
    carried,
    auditedBase: report.head,
    ledger: headLedger(context),
    fixCommits: report.fixCommits,
    minors: context.minors,
    ...legHeadsField(context),
  });
}

/** `legHeads` of a coordinated run's closure (each leg's verified HEAD), or nothing. */
function legHeadsField(context: LoopContext): { legHeads?: LegHead[] } {
  const legHeads = legHeadsOf(context);
  return legHeads === undefined ? {} : { legHeads };
}

/** The HEAD verify closes on: the audited HEAD, or the verified HEAD of a waived step. */
export function closedHeadOf(context: LoopContext): string {
  const report = context.review;
  if (report === null) return '';
  if (report.ran || isWaived(report)) return report.head;
  return '';
}

/** The arguments XState passes a guard of the review regions (exported so declarations can name it). */
export interface GuardArgs {
  readonly context: LoopContext;
  readonly event: unknown;
}

const stepKind = ({ context, event }: GuardArgs) => reviewStepOf(context, reportOf(event))?.kind ?? null;

/** Guards of the review states, spread into the machine's guards. */
export const reviewGuards = {
  /** The host has no reviewer for this role. */
  reviewNotRun: ({ event }: GuardArgs) => !reportOf(event).ran,
  /** No conformance reviewer, and the caller waived the audit (`--no-conformance-review`). */
  conformanceWaived: ({ event }: GuardArgs) => isWaived(reportOf(event)),
  /** The reviewer's return is malformed or missing: a named miss. */
  reviewMiss: ({ event }: GuardArgs) => {
    const report = reportOf(event);
    return report.ran && !report.returned.ok;
  },
  /** SHIP or CONFORMS. */
  reviewAccepted: (args: GuardArgs) => stepKind(args) === 'accept',
  /** GAPS whose every open gap is carried open: a valid deferred inventory completes verify. */
  reviewCarriedOpen: (args: GuardArgs) => stepKind(args) === 'carried-open',
  /** Verify closed with open gaps carried to the finishing gate: the run stops there (exit 3). */
  closureCarriesOpenGaps: ({ context }: GuardArgs) => closedWithGaps(context),
  /** REVISE or GAPS with a fix round left under the cap (plus grants). */
  reviewFixRoundLeft: (args: GuardArgs) => stepKind(args) === 'fix',
  /** Conformance cap block under amend permission with rounds below the allowance: fund. */
  reviewFundable: (args: GuardArgs) => stepKind(args) === 'fund',
  /** The gates passed and the last review was the conformance review: re-review conformance. */
  gatesPassedInConformance: ({ context, event }: GuardArgs) =>
    (event as { output: { passed: boolean } }).output.passed && context.review?.role === 'conformance',
};
