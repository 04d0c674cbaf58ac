/**
 * Verify steps 2-4 of the loop engine (gauntlet-protocol §3.18): the review-return contract
 * (docs/review-contract.md), the conformance fix-round cap and its funding under amend permission,
 * the durable record of fix rounds and grants in branch history, and the `## Closure / conformance`
 * block. Pure.
 *
 * The protocol says "never store a grant counter yourself; never count rounds yourself": the
 * tracker holds them. loopchart is its own tracker, and its durable record is branch history: one
 * empty `loop: <role> fix round <k>` marker per fix round and one empty
 * `loop: fund conformance rounds` commit per grant (body `rounds: <n>`, `reason: <sentence>`).
 * Nothing is held in memory or in a side file, so a crash or a resume reads the same counts.
 */
import { z } from 'zod';
import type { Ledger } from './types.js';

/** The two reviewer roles of verify: step 2 (whole-diff) and step 3 (conformance). */
export type ReviewRole = 'whole-diff' | 'conformance';

/** The task a reviewer reads (docs/review-contract.md). */
export interface ReviewTask {
  readonly version: 1;
  readonly role: ReviewRole;
  readonly worktree: string;
  /** The ledger base: the review covers `base..head`. */
  readonly base: string;
  /** Full SHA of the committed HEAD under review. */
  readonly head: string;
  /** Repo-relative spec path (its acceptance rows are the conformance checklist). */
  readonly spec: string;
  /** Repo-relative ledger path. */
  readonly ledger: string;
  /** The command that prints the diff under review. */
  readonly diffCommand: string;
  /** Fix rounds of this role already used, and the cap (maxFixRounds plus grants). */
  readonly fixRoundsUsed: number;
  readonly fixRoundCap: number;
  /** Where to write the return. */
  readonly returnFile: string;
}

/** `closureReview.maxFixRounds` when the setting is missing or not an integer. */
export const DEFAULT_MAX_FIX_ROUNDS = 5;

/** First line of the conformance step-6 human escalation (conformance-check step 6). */
export const STEP6_LINE = 'gauntlet: gate=verification-before-completion/step-6';

/** Subject of the durable record of one fix round of a role. */
export function fixRoundSubject(role: ReviewRole, round: number): string {
  return `loop: ${role} fix round ${round}`;
}

/** Subject of the durable record of one conformance funding grant. */
export const FUND_SUBJECT = 'loop: fund conformance rounds';

/** The verdict of one gap (conformance-reviewer's gap block). */
export const GAP_VERDICTS = ['PARTIAL', 'MISSING', 'DRIFTED', 'UNAUTHORIZED'] as const;
/** What the reviewer recommends for one gap: fix it in the loop, or leave it to the finishing gate. */
export const GAP_RECOMMENDATIONS = ['fix', 'accept', 'rescope'] as const;

const gapSchema = z
  .object({
    id: z.string().regex(/^G\d+$/, 'a gap id is G<n>'),
    text: z.string().min(1),
    /** The gap's verdict; `UNAUTHORIZED` (unrequested behaviour) is never fixed in the loop. */
    verdict: z.enum(GAP_VERDICTS).optional(),
    /** `fix` (the default when absent), `accept` or `rescope`. */
    recommended: z.enum(GAP_RECOMMENDATIONS).optional(),
  })
  .refine((g) => !(g.verdict === 'UNAUTHORIZED' && g.recommended === 'rescope'), {
    message: 'an UNAUTHORIZED gap has no origin requirement to rescope',
    path: ['recommended'],
  });

/** One open gap of a conformance return. */
export type OpenGap = z.infer<typeof gapSchema>;

const lines = z.array(
  z
    .string()
    .min(1)
    .refine((s) => !s.includes('\n'), 'one line each'),
);

/** Schema of a whole-diff (step 2) review return. */
export const wholeDiffReturnSchema = z
  .object({
    role: z.literal('whole-diff'),
    verdict: z.enum(['SHIP', 'REVISE']),
    minors: lines.default([]),
    fixTasks: lines.default([]),
  })
  .strict()
  .refine((r) => r.verdict === 'SHIP' || r.fixTasks.length > 0, {
    message: 'REVISE names at least one fix task',
    path: ['fixTasks'],
  });

/** Schema of a conformance (step 3) review return. */
export const conformanceReturnSchema = z
  .object({
    role: z.literal('conformance'),
    verdict: z.enum(['CONFORMS', 'GAPS']),
    openGaps: z.array(gapSchema).default([]),
    fixTasks: lines.default([]),
    happyPath: z.string().min(1).optional(),
  })
  .strict()
  .refine((r) => (r.verdict === 'CONFORMS') === (r.openGaps.length === 0), {
    message: 'CONFORMS has no open gap and GAPS has at least one',
    path: ['openGaps'],
  })
  .refine((r) => new Set(r.openGaps.map((g) => g.id)).size === r.openGaps.length, {
    message: 'gap ids are unique',
    path: ['openGaps'],
  });

/** A validated whole-diff return. */
export type WholeDiffReturn = z.infer<typeof wholeDiffReturnSchema>;
/** A validated conformance return. */
export type ConformanceReturn = z.infer<typeof conformanceReturnSchema>;
/** A validated review return of either role. */
export type ReviewReturn = WholeDiffReturn | ConformanceReturn;

/** A review return: validated, or a named miss (never an exception). */
export type ReviewReturnResult =
  | { readonly ok: true; readonly review: ReviewReturn }
  | { readonly ok: false; readonly miss: string };

/**
 * Validates what a reviewer wrote to its return file.
 *
 * @param role the role the reviewer was dispatched for
 * @param text the return file's text, or `null` when the reviewer wrote none
 * @returns the review, or a named miss: `review miss: <what>`
 */
export function parseReviewReturn(role: ReviewRole, text: string | null): ReviewReturnResult {
  const miss = (what: string): ReviewReturnResult => ({ ok: false, miss: `review miss: ${what}` });
  if (text === null || text.trim() === '') return miss(`the ${role} reviewer wrote no return`);
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return miss(`the ${role} return is not JSON`);
  }
  if (typeof json === 'object' && json !== null && 'role' in json && json.role !== role)
    return miss(`the return is for role ${JSON.stringify(json.role)}, expected "${role}"`);
  const parsed =
    role === 'whole-diff' ? wholeDiffReturnSchema.safeParse(json) : conformanceReturnSchema.safeParse(json);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    const where = issue === undefined || issue.path.length === 0 ? 'return' : issue.path.join('.');
    return miss(`the ${role} return is malformed at ${where}: ${issue?.message ?? 'invalid'}`);
  }
  return { ok: true, review: parsed.data };
}

/**
 * `closureReview.maxFixRounds` normalized: default 5, negatives floor at 0, a missing or
 * non-integer value gives 5 (conformance-check step 6).
 *
 * @param value the raw setting
 */
export function normalizeMaxFixRounds(value: unknown): number {
  if (typeof value !== 'number' || !Number.isInteger(value)) return DEFAULT_MAX_FIX_ROUNDS;
  return Math.max(0, value);
}

/** The cap-block text the funding rule reads `<used>` from. */
export function capBlockText(used: number, cap: number): string {
  return `${used} fix round(s) used against a cap of ${cap}`;
}

/** Fix rounds and grants of one role as branch history records them. */
export interface FixRoundCounts {
  /** Fix rounds used (the role's `loop: <role> fix round <k>` markers since base). */
  readonly used: number;
  /** Rounds granted by `loop: fund conformance rounds` commits (conformance only; 0 for whole-diff). */
  readonly granted: number;
}

/** A commit as far as the fix-round record reads it. */
export interface FixRecordCommit {
  readonly sha: string;
  readonly subject: string;
  readonly body: string;
}

const FIX_ROUND = /^loop: (whole-diff|conformance) fix round (\d+)$/;

/**
 * Reads the fix rounds and grants of a role from the commits since the ledger base.
 *
 * @param commits commits since base, oldest first
 * @param role the role
 */
export function fixRoundCounts(commits: readonly FixRecordCommit[], role: ReviewRole): FixRoundCounts {
  let used = 0;
  let granted = 0;
  for (const commit of commits) {
    const subject = commit.subject.trim();
    const m = FIX_ROUND.exec(subject);
    if (m !== null && m[1] === role) used += 1;
    if (role === 'conformance' && subject === FUND_SUBJECT) {
      const rounds = /^rounds: (\d+)$/m.exec(commit.body);
      if (rounds !== null) granted += Number(rounds[1]);
    }
  }
  return { used, granted };
}

/**
 * The fix commits of every fix round since base (the closure's auto-applied fix commits index):
 * each marker's `fix commit: <sha> <subject>` lines, oldest first.
 */
export function fixCommitIndex(commits: readonly FixRecordCommit[]): string[] {
  const index: string[] = [];
  for (const commit of commits) {
    const m = FIX_ROUND.exec(commit.subject.trim());
    if (m === null) continue;
    for (const line of commit.body.split('\n'))
      if (line.startsWith('fix commit: ') && line !== 'fix commit: none')
        index.push(`${m[1]} round ${m[2]}: ${line.slice(12)}`);
  }
  return index;
}

/**
 * The body of a fix round's marker.
 *
 * @param tasks the fix tasks (whole-diff) or open gap ids with text (conformance) the round worked on
 * @param fixCommits the round's commits, `<sha> <subject>` each
 */
export function fixRoundBody(tasks: readonly string[], fixCommits: readonly string[]): string {
  return [
    ...tasks.map((t) => `task: ${t}`),
    ...(fixCommits.length === 0 ? ['fix commit: none'] : fixCommits.map((c) => `fix commit: ${c}`)),
  ].join('\n');
}

/** The body of a funding grant record. */
export function grantBody(rounds: number, reason: string): string {
  return `rounds: ${rounds}\nreason: ${reason}`;
}

/** Closure-review settings (`closureReview`). */
export interface ClosureReviewSettings {
  /** Normalized `maxFixRounds`. */
  readonly maxFixRounds: number;
  /** `enforce` (default true). */
  readonly enforce: boolean;
}

/**
 * Whether the fix loop may work on a gap: a gap that is not `UNAUTHORIZED` and whose
 * recommendation is `fix` (or absent). `UNAUTHORIZED`, `accept` and `rescope` gaps always defer to
 * the finishing gate (conformance-check disposition partition).
 */
export function isFixGap(gap: OpenGap): boolean {
  return gap.verdict !== 'UNAUTHORIZED' && (gap.recommended ?? 'fix') === 'fix';
}

/**
 * Why a gap is carried open to the finishing gate, or `null` when it is not: it is
 * `UNAUTHORIZED`, recommended `accept` or `rescope`, or a fix gap whose fix loop never started
 * because its cap is 0 (no fix round used, `maxFixRounds` 0 and no granted round).
 *
 * @param gap the open gap
 * @param counts the conformance fix rounds used and granted (branch history)
 * @param settings the closureReview settings
 */
export function carriedOpenReason(
  gap: OpenGap,
  counts: FixRoundCounts,
  settings: ClosureReviewSettings,
): string | null {
  if (gap.verdict === 'UNAUTHORIZED') return 'UNAUTHORIZED: deferred to the finishing gate';
  const recommended = gap.recommended ?? 'fix';
  if (recommended !== 'fix') return `recommended ${recommended}: deferred to the finishing gate`;
  if (!fixLoopStarts(counts, settings)) return 'fix loop not started: maxFixRounds 0';
  return null;
}

/** A positive cap (or a round already used) starts the fix loop; cap 0 is audit-only. */
function fixLoopStarts(counts: FixRoundCounts, settings: ClosureReviewSettings): boolean {
  return counts.used > 0 || settings.maxFixRounds + counts.granted > 0;
}

/**
 * Whether a GAPS return is a valid carried-open deferred inventory (§3.18 step 4): at least one
 * open gap, and every open gap carried open ({@link carriedOpenReason}). Verify then completes
 * with `status: GAPS (N open)`; a started positive-cap loop with an open fix gap never does.
 */
export function isCarriedOpenInventory(
  review: ConformanceReturn,
  counts: FixRoundCounts,
  settings: ClosureReviewSettings,
): boolean {
  return (
    review.verdict === 'GAPS' &&
    review.openGaps.length > 0 &&
    review.openGaps.every((gap) => carriedOpenReason(gap, counts, settings) !== null)
  );
}

/** What to do with a review verdict of a role. */
export type ReviewStep =
  | { readonly kind: 'accept' }
  /** GAPS whose every open gap is carried open: verify completes with `status: GAPS (N open)`. */
  | { readonly kind: 'carried-open' }
  | { readonly kind: 'fix'; readonly round: number }
  /** Conformance cap block under amend permission: grant `rounds`, print the notice, fix. */
  | { readonly kind: 'fund'; readonly rounds: number; readonly notice: string }
  /** The whole-diff fix rounds reached the cap with REVISE (A-decision: a stop, no funding). */
  | { readonly kind: 'review-cap'; readonly used: number; readonly cap: number }
  /** Conformance-check step 6: the human escalation. */
  | { readonly kind: 'step-6'; readonly used: number; readonly cap: number; readonly block: string };

/** Inputs of {@link nextReviewStep}. */
export interface ReviewStepFacts {
  readonly review: ReviewReturn;
  readonly counts: FixRoundCounts;
  readonly settings: ClosureReviewSettings;
  /** The ledger's allowance (the funding ceiling). */
  readonly allowance: number;
  /** The decoded `**Amend-grant:**` sentence when amend permission is active, else `null`. */
  readonly amendGrant: string | null;
}

/**
 * The step after a valid review (§3.18 steps 2-3 and the funding paragraph).
 *
 * SHIP and CONFORMS are accepted; GAPS whose every open gap is carried open
 * ({@link isCarriedOpenInventory}) completes verify with its gaps open. Otherwise REVISE or GAPS
 * (with at least one fix gap) with rounds left under the cap (`maxFixRounds`
 * plus granted rounds) run the next fix round. At the cap a whole-diff REVISE stops; a conformance
 * GAPS under amend permission with `used` below the allowance is funded with `allowance - used`
 * rounds (or, with `enforce` false, continues without a grant), otherwise it takes the step-6 stop.
 */
export function nextReviewStep(facts: ReviewStepFacts): ReviewStep {
  const { review, counts, settings } = facts;
  if (review.verdict === 'SHIP' || review.verdict === 'CONFORMS') return { kind: 'accept' };
  if (review.role === 'conformance' && isCarriedOpenInventory(review, counts, settings))
    return { kind: 'carried-open' };
  const cap = settings.maxFixRounds + counts.granted;
  if (counts.used < cap) return { kind: 'fix', round: counts.used + 1 };
  if (review.role === 'whole-diff') return { kind: 'review-cap', used: counts.used, cap };
  const block = capBlockText(counts.used, cap);
  if (facts.amendGrant !== null && counts.used < facts.allowance) {
    if (!settings.enforce) return { kind: 'fix', round: counts.used + 1 };
    const rounds = facts.allowance - counts.used;
    return { kind: 'fund', rounds, notice: `funded ${rounds} conformance rounds under the grant` };
  }
  return { kind: 'step-6', used: counts.used, cap, block };
}

/** Everything the closure block shows. */
export interface ClosureFacts {
  readonly review: ConformanceReturn;
  /**
   * Why each open gap is carried open, by gap id ({@link carriedOpenReason}); given for a GAPS
   * closure, whose every gap is carried open.
   */
  readonly carried?: Readonly<Record<string, string>>;
  /** Full SHA of the audited HEAD. */
  readonly auditedBase: string;
  readonly ledger: Ledger;
  /** The fix commits index ({@link fixCommitIndex}). */
  readonly fixCommits: readonly string[];
  /** Final SHIP minor lines (empty: `whole-diff minors: none`). */
  readonly minors: readonly string[];
  /** Coordinated runs: each leg's verified HEAD, in gate-set order ({@link legHeadLines}). */
  readonly legHeads?: readonly LegHead[];
}

/** One leg's verified HEAD (§3.20 "retain each verified HEAD and clean status"). */
export interface LegHead {
  readonly leg: string;
  /** Full SHA of the leg's checkout HEAD its gate pairs passed on (a clean checkout). */
  readonly head: string;
}

/**
 * `verified-head <member>: <full SHA>`, one line per leg of a coordinated run, in gate-set order
 * (docs/decisions/legs.md); nothing for a single leg, whose closure keeps its fields unchanged.
 */
export function legHeadLines(legHeads: readonly LegHead[] | undefined): string[] {
  return (legHeads ?? []).map((leg) => `verified-head ${leg.leg}: ${leg.head}`);
}

/**
 * The exact `## Closure / conformance` block (§3.18 step 4): `status:`, `audited-base:`,
 * `happy-path:` exactly when run, `Deferred/deviates per spec:` exactly when a row is cut with a
 * disposition, open gaps, the fix commits index and the whole-diff minors.
 */
export function renderClosure(facts: ClosureFacts): string {
  const { review } = facts;
  const open = review.openGaps.length;
  const lines = [
    CLOSURE_HEADING,
    review.verdict === 'CONFORMS' ? 'status: CONFORMS (0 open)' : `status: GAPS (${open} open)`,
    `audited-base: ${facts.auditedBase}`,
    ...legHeadLines(facts.legHeads),
  ];
  if (review.happyPath !== undefined) lines.push(`happy-path: ${review.happyPath}`);
  lines.push(...deferredLines(facts.ledger));
  for (const gap of review.openGaps) {
    lines.push(`open ${gap.id}: ${gap.text}`);
    if (gap.verdict !== undefined) lines.push(`  verdict: ${gap.verdict}`);
    if (gap.recommended !== undefined) lines.push(`  recommended: ${gap.recommended}`);
    const reason = facts.carried?.[gap.id];
    if (reason !== undefined) lines.push(`  carried open: ${reason}`);
  }
  lines.push(...tailLines(facts));
  return `${lines.join('\n')}\n`;
}

/** The heading of the closure block. */
export const CLOSURE_HEADING = '## Closure / conformance';

/**
 * The `status:` value of a closure whose conformance audit the caller waived
 * (`--no-conformance-review`). It keeps the field's name but matches neither audited sentinel
 * (`CONFORMS (0 open)`, `GAPS (N open)`), so a reader that validates the sentinel audits afresh
 * instead of inferring CONFORMS.
 */
export const WAIVED_STATUS = 'status: not audited (waived)';

/** Everything a waived closure shows: no review, so no audited base, happy path or gaps. */
export interface WaivedClosureFacts {
  /** Full SHA of the HEAD verify completed on (gates passed, whole-diff review done). */
  readonly verifiedHead: string;
  readonly ledger: Ledger;
  /** The fix commits index (whole-diff fix rounds; {@link fixCommitIndex}). */
  readonly fixCommits: readonly string[];
  /** Final SHIP minor lines (empty: `whole-diff minors: none`). */
  readonly minors: readonly string[];
  /** Coordinated runs: each leg's verified HEAD ({@link legHeadLines}). */
  readonly legHeads?: readonly LegHead[];
}

/**
 * The closure block of a verify whose conformance audit was waived: the same field names as
 * {@link renderClosure}, `status: not audited (waived)`, `audited-base: none` (nothing was
 * audited), then `verified-head: <full SHA>`, `Deferred/deviates per spec:` when applicable, the
 * fix commits index and the whole-diff minors.
 */
export function renderWaivedClosure(facts: WaivedClosureFacts): string {
  const lines = [
    CLOSURE_HEADING,
    WAIVED_STATUS,
    'audited-base: none',
    `verified-head: ${facts.verifiedHead}`,
    ...legHeadLines(facts.legHeads),
    ...deferredLines(facts.ledger),
    ...tailLines(facts),
  ];
  return `${lines.join('\n')}\n`;
}

/** `Deferred/deviates per spec:` and one line per row cut with a disposition, or nothing. */
function deferredLines(ledger: Ledger): string[] {
  const deferred = ledger.rows.filter(
    (r) => r.status === 'cut' && /^(deviates|deferred|elsewhere):/.test(r.evidence),
  );
  if (deferred.length === 0) return [];
  return ['Deferred/deviates per spec:', ...deferred.map((row) => `- row ${row.row}: ${row.evidence}`)];
}

/** The fix commits index and the whole-diff minors, closing every closure block. */
function tailLines(facts: {
  readonly fixCommits: readonly string[];
  readonly minors: readonly string[];
}): string[] {
  const lines: string[] = [];
  if (facts.fixCommits.length === 0) lines.push('fix commits: none');
  else lines.push('fix commits:', ...facts.fixCommits.map((c) => `- ${c}`));
  if (facts.minors.length === 0) lines.push('whole-diff minors: none');
  else lines.push('whole-diff minors:', ...facts.minors.map((m) => `- ${m}`));
  return lines;
}
