/**
 * Hand-written expectations for verify steps 2-5 of the loop engine (gauntlet-protocol §3.18 and
 * conformance-check step 6), written from the protocol text, not from src/gauntlet/review.ts:
 *
 * - where a review's verdict leads: SHIP / CONFORMS accepted; REVISE / GAPS with `used` below the
 *   cap (maxFixRounds plus granted rounds) run the next fix round; at the cap a conformance GAPS
 *   under amend permission with `used` below the ledger allowance is funded with `allowance - used`
 *   rounds (or, with `enforce` false, continues without a grant); otherwise the step-6 stop; a
 *   malformed return is a named miss; no whole-diff reviewer skips step 2; no conformance reviewer
 *   stops (closure not audited) unless the caller waived the audit, which closes with the waiver
 *   recorded (the issue 12 decision, docs/decisions.md);
 * - the inputs of the reviews, the fix rounds, the grant record and the step-5 hook;
 * - the first line and the cap-block line of the step-6 stop.
 */
import type { PathStep } from '../../src/graph/path-suite-schema.js';
import type { StepContext } from '../../src/graph/run-path.js';
import type { Oracle } from './harness.js';

/** conformance-check step 6's first output line. */
export const STEP6 = 'gauntlet: gate=verification-before-completion/step-6';

/** Offers of the review stops (the human funds rounds outside the loop, or stops). */
export const REVIEW_STOP_OFFERS: Record<string, readonly string[]> = {
  reviewMiss: ['human.stop'],
  reviewCap: ['human.stop'],
  conformanceStep6: ['human.stop'],
  closureNotAudited: ['human.stop'],
  closureCarriedOpen: ['human.stop'],
};

/** Headers of the review stops. */
export const REVIEW_STOP_HEADERS: Record<string, RegExp> = {
  'review-miss': /^Stopped: the (whole-diff|conformance) review return was rejected$/,
  'review-cap': /^Stopped: whole-diff review answers REVISE at the fix-round cap$/,
  'conformance-step6': /^Stopped: conformance review answers GAPS at the fix-round cap$/,
  'closure-not-audited': /^Stopped: verification passed; closure not audited$/,
  'closure-carried-open':
    /^Stopped: verification complete with [1-9]\d* open gap\(s\) carried to the finishing gate$/,
};

interface Gap {
  readonly id: string;
  readonly text: string;
  readonly verdict?: string;
  readonly recommended?: string;
}

/*
 * The partition of the conformance reference: an UNAUTHORIZED gap, or one recommended accept or
 * rescope, defers to the finishing gate; a gap recommended fix (the default) is the fix loop's,
 * unless that loop never starts (cap 0: maxFixRounds 0, nothing granted, nothing used). Verify
 * completes on GAPS only when every open gap is deferred ("valid carried-open inventory").
 */
function deferredReason(gap: Gap, report: Report): string | null {
  if (gap.verdict === 'UNAUTHORIZED') return 'UNAUTHORIZED: deferred to the finishing gate';
  if (gap.recommended === 'accept' || gap.recommended === 'rescope')
    return `recommended ${gap.recommended}: deferred to the finishing gate`;
  const used = report.counts?.used ?? 0;
  const cap = (report.settings?.maxFixRounds ?? 5) + (report.counts?.granted ?? 0);
  return used === 0 && cap === 0 ? 'fix loop not started: maxFixRounds 0' : null;
}

function loopsGap(gap: Gap): boolean {
  return gap.verdict !== 'UNAUTHORIZED' && gap.recommended !== 'accept' && gap.recommended !== 'rescope';
}

interface Report {
  readonly ran: boolean;
  readonly role: 'whole-diff' | 'conformance';
  /** No conformance reviewer, audit waived (`--no-conformance-review`). */
  readonly waived?: boolean;
  readonly returned?: {
    readonly ok: boolean;
    readonly review?: {
      readonly verdict: string;
      readonly minors?: readonly string[];
      readonly fixTasks: readonly string[];
      readonly openGaps?: readonly Gap[];
      readonly happyPath?: string;
    };
  };
  readonly counts?: { readonly used: number; readonly granted: number };
  readonly settings?: { readonly maxFixRounds: number; readonly enforce: boolean };
  readonly head?: string;
  readonly fixCommits?: readonly string[];
}

interface View {
  readonly input: { readonly specPath: string; readonly ledgerPath: string };
  readonly specText: string | null;
  readonly ledger: {
    readonly base: string;
    readonly allowance: number;
    readonly rows: readonly { row: number; status: string; evidence: string }[];
  } | null;
}

/** The `**Amend-grant:**` sentence when amend permission is active (no line or `none`: none). */
function grantSentence(specText: string | null): string | null {
  const m = /^\*\*Amend-grant:\*\* (.+)$/m.exec(specText ?? '');
  const value = m?.[1]?.trim() ?? '';
  return value === '' || value === 'none' ? null : value;
}

/** Where §3.18 sends a review report, as the state the machine must be in next. */
export function referenceReviewTarget(report: Report, allowance: number, specText: string | null): string {
  const step3 = report.role === 'conformance';
  if (!report.ran) {
    if (!step3) return 'verify.conformance.reviewing';
    return report.waived === true ? 'verify.closing' : 'humanStop.closureNotAudited';
  }
  if (report.returned?.ok !== true) return 'humanStop.reviewMiss';
  const verdict = report.returned.review?.verdict;
  if (verdict === 'SHIP') return 'verify.conformance.reviewing';
  if (verdict === 'CONFORMS') return 'verify.closing';
  const open = report.returned.review?.openGaps ?? [];
  if (step3 && open.length > 0 && open.every((g) => deferredReason(g, report) !== null))
    return 'verify.closing';
  const used = report.counts?.used ?? 0;
  const cap = (report.settings?.maxFixRounds ?? 5) + (report.counts?.granted ?? 0);
  const fixing = step3 ? 'verify.conformance.fixing' : 'verify.review.fixing';
  if (used < cap) return fixing;
  if (!step3) return 'humanStop.reviewCap';
  if (grantSentence(specText) !== null && used < allowance)
    return report.settings?.enforce === false ? fixing : 'verify.conformance.funding';
  return 'humanStop.conformanceStep6';
}

/** The latest review report in the path up to this step. */
function latestReport(context: StepContext): Report | null {
  for (let i = context.index; i >= 0; i--) {
    const event = context.path.steps[i]?.event;
    if (
      event?.type === 'xstate.done.actor.wholeDiffReview' ||
      event?.type === 'xstate.done.actor.conformanceReview'
    )
      return event.output as unknown as Report;
  }
  return null;
}

/** The minors of the latest SHIP in the path (what step 2 carries), or none. */
function carriedMinors(context: StepContext): readonly string[] {
  for (let i = context.index; i >= 0; i--) {
    const event = context.path.steps[i]?.event;
    if (event?.type !== 'xstate.done.actor.wholeDiffReview') continue;
    const report = event.output as unknown as Report;
    if (report.returned?.review?.verdict === 'SHIP') return report.returned.review.minors ?? [];
  }
  return [];
}

/** A review step's target: where the report leads, by the reference. */
export function checkReviewStep(
  oracle: Oracle,
  step: PathStep,
  leaf: string,
  status: string,
  c: View,
  context: StepContext,
): void {
  if (step.event.type === 'xstate.done.actor.finishBranch') {
    // Step 5 done: a CONFORMS (or waived) closure finishes; a GAPS closure never exits 0, the
    // finishing gate (a person) decides its carried-open gaps.
    const verdict = latestReport(context)?.returned?.review?.verdict;
    oracle.same(
      step,
      'after step 5: finished only without open gaps',
      leaf,
      verdict === 'GAPS' ? 'humanStop.closureCarriedOpen' : 'finished',
    );
    return;
  }
  if (
    step.event.type !== 'xstate.done.actor.wholeDiffReview' &&
    step.event.type !== 'xstate.done.actor.conformanceReview'
  )
    return;
  const report = step.event.output as unknown as Report;
  const expected = referenceReviewTarget(report, c.ledger?.allowance ?? 0, c.specText);
  const actual = status === 'done' ? leaf : leaf;
  oracle.same(
    step,
    'where the review verdict leads (§3.18, step 6)',
    actual.startsWith(expected) ? expected : actual,
    expected,
  );
}

/** The inputs of the review-side effects. Returns false when the invocation is not one of them. */
export function checkReviewInvocation(
  oracle: Oracle,
  step: PathStep,
  invocation: { id: string; input: unknown },
  c: View,
  context: StepContext,
): boolean {
  const input = invocation.input as Record<string, unknown>;
  const what = `input of ${invocation.id}`;
  switch (invocation.id) {
    case 'wholeDiffReview':
    case 'conformanceReview':
      oracle.same(step, what, input, {
        role: invocation.id === 'wholeDiffReview' ? 'whole-diff' : 'conformance',
        base: c.ledger?.base,
        specPath: c.input.specPath,
        ledgerPath: c.input.ledgerPath,
      });
      return true;
    case 'wholeDiffFixRound':
    case 'conformanceFixRound': {
      const report = latestReport(context);
      const review = report?.returned?.review;
      oracle.same(
        step,
        what,
        [input.role, input.round, [...((input.tasks as string[] | undefined) ?? [])].sort()],
        [
          invocation.id === 'wholeDiffFixRound' ? 'whole-diff' : 'conformance',
          (report?.counts?.used ?? -1) + 1,
          [
            ...(review?.openGaps ?? []).filter(loopsGap).map((g) => `${g.id}: ${g.text}`),
            ...(review?.fixTasks ?? []),
          ].sort(),
        ],
      );
      return true;
    }
    case 'commitGrant': {
      // "grant_fix_rounds, rounds: <allowance - used>, reason: <Amend-grant sentence verbatim>",
      // recorded in branch history; the ledger itself is unchanged.
      const report = latestReport(context);
      const used = report?.counts?.used ?? 0;
      const ledger = input.ledger as { allowance: number; rows: unknown };
      oracle.same(
        step,
        what,
        [input.subject, input.body, ledger.allowance, ledger.rows, input.allowEmpty],
        [
          'loop: fund conformance rounds',
          `rounds: ${(c.ledger?.allowance ?? 0) - used}\nreason: ${grantSentence(c.specText)}`,
          c.ledger?.allowance,
          c.ledger?.rows,
          true,
        ],
      );
      return true;
    }
    case 'finishBranch': {
      // Step 4's exact schema: status, audited-base (full HEAD SHA), happy path when run,
      // Deferred/deviates per spec when a row is cut with a disposition, fix commits, minors.
      const report = latestReport(context);
      const review = report?.returned?.review;
      const deferred = (c.ledger?.rows ?? []).filter(
        (r) => r.status === 'cut' && /^(deviates|deferred|elsewhere):/.test(r.evidence),
      );
      const minors = carriedMinors(context);
      const fixes = report?.fixCommits ?? [];
      const tail = [
        ...(deferred.length === 0
          ? []
          : ['Deferred/deviates per spec:', ...deferred.map((r) => `- row ${r.row}: ${r.evidence}`)]),
        ...(fixes.length === 0 ? ['fix commits: none'] : ['fix commits:', ...fixes.map((f) => `- ${f}`)]),
        ...(minors.length === 0
          ? ['whole-diff minors: none']
          : ['whole-diff minors:', ...minors.map((m) => `- ${m}`)]),
        '',
      ];
      if (report?.waived === true) {
        // A waived audit keeps the field names, claims no audited base and names the verified HEAD.
        const waived = [
          '## Closure / conformance',
          'status: not audited (waived)',
          'audited-base: none',
          `verified-head: ${report.head}`,
          ...tail,
        ].join('\n');
        oracle.same(step, what, [input.closure, input.head], [waived, report.head]);
        return true;
      }
      const open = review?.openGaps ?? [];
      const gapLines = open.flatMap((g) => [
        `open ${g.id}: ${g.text}`,
        ...(g.verdict === undefined ? [] : [`  verdict: ${g.verdict}`]),
        ...(g.recommended === undefined ? [] : [`  recommended: ${g.recommended}`]),
        `  carried open: ${report === null ? '' : deferredReason(g, report)}`,
      ]);
      const expected = [
        '## Closure / conformance',
        open.length === 0 ? 'status: CONFORMS (0 open)' : `status: GAPS (${open.length} open)`,
        `audited-base: ${report?.head}`,
        ...(review?.happyPath === undefined ? [] : [`happy-path: ${review.happyPath}`]),
        ...(deferred.length === 0
          ? []
          : ['Deferred/deviates per spec:', ...deferred.map((r) => `- row ${r.row}: ${r.evidence}`)]),
        ...gapLines,
        ...tail.slice(deferred.length === 0 ? 0 : deferred.length + 1),
      ].join('\n');
      oracle.same(step, what, [input.closure, input.head], [expected, report?.head]);
      return true;
    }
    default:
      return false;
  }
}

/** The step-6 stop's first two protocol lines: the gate line alone, then the cap-block text. */
export function checkStep6Lines(
  oracle: Oracle,
  step: PathStep,
  lines: readonly string[],
  stop: { readonly used?: unknown; readonly cap?: unknown },
): void {
  oracle.same(step, 'first line of the step-6 stop', lines[0], STEP6);
  oracle.same(
    step,
    'cap block of the step-6 stop',
    lines[2],
    `${String(stop.used)} fix round(s) used against a cap of ${String(stop.cap)}`,
  );
}
