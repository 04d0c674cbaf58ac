/**
 * "Before each dispatch": the loop engine's preconditions and ordered table as one pure function
 * (gauntlet-protocol §3.4-§3.8, §3.11, §3.13).
 *
 * {@link evaluateRules} answers, for the ledger on disk and the replayed history, exactly one of:
 * a configuration stop, an unreachable-routing stop or amend item, rule 1 (go verify), rule 2 (row
 * stop), the seed stop, a seed dispatch, or a numbered dispatch with its hint and escalation. The
 * statechart's guards call the named step functions below, one guard per rule, in this order:
 *
 * 1. preconditions: the ledger parses, has a `checks:` line, an `allowance:` line and no `cap:`;
 * 2. unreachable routing of the latest admitted failed target, when the caller passes the spec;
 * 3. rule 1: no `open` or `failed` row → After the loop;
 * 4. rule 2: the lowest exhausted row → `Stopped on row <n>` (options 4 and 5 alike);
 * 5. target selection; for the seed, the seed count replaces rule 3;
 * 6. rule 3: the selected row's stagnation hint, unless a pending human retry hint wins;
 * 7. rule 4: dispatch, with the escalated round when its threshold is reached.
 *
 * Nothing here reads the clock, the disk or git. Data problems become outcomes, never exceptions.
 */

import type { Finding } from '../common/finding.js';
import { finding } from '../common/finding.js';
import { effectiveAllowance, exhaustedRows } from './allowance.js';
import { routeAmendmentMarker } from './amendment-items.js';
import { escalationThreshold, isEscalationSpent } from './escalation.js';
import type { LoopHistory } from './history.js';
import { rowAsCriterion, specRowOfLedgerRow } from './leg-amendments.js';
import { type Rule3Hint, rule3HintFor } from './stagnation.js';
import { selectTarget, type TargetReason } from './targeting.js';
import type { Ledger, Spec } from './types.js';
import { type BOUND_SPENT_RECOMMENDATION, routeUnreachableReturn } from './unreachable.js';

// ---------------------------------------------------------------------------------------------
// Fixed texts

/** The stop for a ledger without `allowance:` or with a legacy `cap:` line (§3.4, exact text). */
export const NO_ALLOWANCE_LINE = 'ledger has no allowance: line - resume through /skill:gauntlet-resume';

/** The stop for a ledger without its `checks:` line (§3.4 "require its `checks:` line"; wording ours). */
export const NO_CHECKS_LINE =
  'ledger has no checks: line - add `checks: commands` after the verification: header';

/** The stop when `loopEngine.escalateAfter` could not be resolved (§3.2, exact text). */
export const ESCALATE_AFTER_UNRESOLVED =
  'cannot resolve escalation threshold: settings tool unavailable (loopEngine.escalateAfter)';

/**
 * The seed-contract instruction carried in the `hint:` field of every seed dispatch (§3.9 "explicitly
 * instruct the child to apply its seed contract even when iteration is greater than 0").
 */
export const SEED_CONTRACT_HINT = 'apply your seed contract, even when iteration is greater than 0';

/** What the child receives as `previous decision:` when there is none. */
export const NO_PREVIOUS_DECISION = 'none';

// ---------------------------------------------------------------------------------------------
// Input and outcomes

/** Spec-side input of unreachable routing. */
export interface RoutingContext {
  /** The spec as held at seed or authorized restore (row dispositions and texts). */
  readonly spec: Spec;
  /** True under approval option 5 or an active amendment grant; a budget-only grant gives none. */
  readonly amendPermission: boolean;
  /**
   * The spec's `## Amendments` entries (`amendmentEntries`), read by the repeated-evidence check
   * of `amend:` items; none when absent.
   */
  readonly amendments?: readonly string[];
}

/** Input of {@link evaluateRules}. */
export interface RulesInput {
  /** The ledger as on disk now, or `null` when it did not parse (`ledgerFindings` says why). */
  readonly ledger: Ledger | null;
  /**
   * The parser's findings for that ledger. `ledger.allowance.cap` and `ledger.allowance.missing`
   * become the no-allowance stop; a missing `checks:` header the no-checks stop.
   */
  readonly ledgerFindings?: readonly Finding[];
  /** The replayed history ({@link historyFromCommits}); ignored when the ledger is `null`. */
  readonly history: LoopHistory;
  /**
   * `loopEngine.escalateAfter` as held for the run, or `null` when the settings tool was
   * unavailable (then every dispatch stops with {@link ESCALATE_AFTER_UNRESOLVED}).
   */
  readonly escalateAfter: number | null;
  /**
   * Spec and amend permission for unreachable routing (§3.13). Without it the table skips routing
   * and the caller must route each admitted failed target itself with `routeUnreachableReturn`.
   */
  readonly routing?: RoutingContext;
}

/** Which step of "Before each dispatch" produced an outcome (used as the guard's label). */
export type RuleName = 'preconditions' | 'unreachable' | 'rule1' | 'rule2' | 'seed-count' | 'rule4';

/** A stop before the ordered table: the run cannot continue until a person fixes its input. */
export interface ConfigurationStop {
  readonly kind: 'configuration-stop';
  readonly rule: 'preconditions' | 'unreachable';
  readonly problem:
    | 'ledger-invalid'
    | 'checks-missing'
    | 'allowance-missing'
    | 'escalate-after-unresolved'
    | 'spec-row-missing';
  /** The stop text. */
  readonly message: string;
  /** The findings behind it (parser findings, or one naming the problem). */
  readonly findings: readonly Finding[];
  readonly why: string;
}

/** `bound spent:` on the latest admitted failed target: `Stopped on row <n>` with the row menu. */
export interface BoundSpentStop {
  readonly kind: 'bound-spent-stop';
  readonly rule: 'unreachable';
  readonly row: number;
  /** The first result segment, verbatim. */
  readonly marker: string;
  readonly recommendation: typeof BOUND_SPENT_RECOMMENDATION;
  readonly why: string;
}

/** `unreachable: <what> - <where>` on a non-venue row: one amend item before another dispatch. */
export interface UnreachableAmend {
  readonly kind: 'unreachable-amend';
  readonly rule: 'unreachable';
  readonly row: number;
  readonly what: string;
  readonly where: string;
  readonly disposition: string;
  readonly outOfScope: string;
  /** Cut automatically (amend permission) or take the amendment surface's human batch. */
  readonly autoApply: boolean;
  readonly amendedLine: string;
  readonly why: string;
}

/**
 * `amend: <what> - <evidence>` on the latest admitted failed target: one requirement-preserving amend
 * item before another dispatch (docs/decisions/amendments.md).
 */
export interface SpecAmendItem {
  readonly kind: 'spec-amend';
  readonly rule: 'unreachable';
  readonly row: number;
  readonly what: string;
  readonly evidence: string;
  /** The `## Amendments` entry the item writes. */
  readonly entry: string;
  /** Applied automatically (amend permission) or taken to the human. */
  readonly autoApply: boolean;
  readonly amendedLine: string;
  readonly why: string;
}

/** An `amend:` item whose evidence the spec already carries: a stop under options 4 and 5 alike. */
export interface RepeatedEvidenceStop {
  readonly kind: 'repeated-evidence-stop';
  readonly rule: 'unreachable';
  readonly row: number;
  readonly what: string;
  readonly evidence: string;
  /** The earlier `## Amendments` entry with the same evidence. */
  readonly earlier: string;
  readonly why: string;
}

/** `redraw: <why>` on the latest admitted failed target: a redraw always stops. */
export interface RedrawStop {
  readonly kind: 'redraw-stop';
  readonly rule: 'unreachable';
  readonly row: number;
  readonly reason: string;
  readonly why: string;
}

/** Rule 1: no `open` or `failed` row; continue at After the loop step 0. */
export interface Rule1Verify {
  readonly kind: 'verify';
  readonly rule: 'rule1';
  readonly why: string;
}

/** One row line of a stop: `row <n>: <attempts> of <effective allowance>`. */
export interface RowBudget {
  readonly row: number;
  readonly attempts: number;
  readonly effectiveAllowance: number;
}

/** Rule 2: an unresolved row at or above its effective allowance; `Stopped on row <n>`. */
export interface Rule2RowStop extends RowBudget {
  readonly kind: 'row-stop';
  readonly rule: 'rule2';
  /** Every exhausted row, ascending; `row` is the first (§6 A13). */
  readonly exhausted: readonly RowBudget[];
  /** True when the stopped row's escalated round is spent (the stop names `escalated round spent`). */
  readonly escalationSpent: boolean;
  readonly why: string;
}

/** The seed count reached the allowance: `Stopped on seed` with `seed: <k> of <allowance>`. */
export interface SeedStop {
  readonly kind: 'seed-stop';
  readonly rule: 'seed-count';
  readonly seedRepairs: number;
  readonly allowance: number;
  /** `seed: <k> of <allowance>` */
  readonly line: string;
  readonly why: string;
}

/** Dispatch the seed. */
export interface SeedDispatch {
  readonly kind: 'dispatch-seed';
  readonly rule: 'seed-count';
  /** The seed-contract instruction, plus the last `seed miss: …`/`seed interrupted: …` reason. */
  readonly hint: string;
  readonly previousDecision: typeof NO_PREVIOUS_DECISION;
  readonly seedRepairs: number;
  readonly allowance: number;
  readonly why: string;
}

/** Where a numbered dispatch's hint comes from. */
export type HintSource = 'human-retry' | 'rule3-empty-child' | 'rule3-validation-miss';

/** Rule 4: dispatch a numbered row. */
export interface RowDispatch extends RowBudget {
  readonly kind: 'dispatch-row';
  readonly rule: 'rule4';
  /** Why this row was selected (§3.6 priority). */
  readonly target: TargetReason;
  /** The `hint:` task field, or `null` for none. */
  readonly hint: string | null;
  readonly hintSource: HintSource | null;
  /** Rule 3's verdict for this row, even when a human retry hint wins over it. */
  readonly rule3: Rule3Hint | null;
  /** The `previous decision:` task field: the latest admitted target decision, or `none`. */
  readonly previousDecision: string;
  /** True when this dispatch is the row's escalated round (§3.7). */
  readonly escalated: boolean;
  readonly threshold: number;
  readonly escalationSpent: boolean;
  readonly why: string;
}

/** Exactly one answer of the "Before each dispatch" procedure. */
export type RulesOutcome =
  | ConfigurationStop
  | BoundSpentStop
  | UnreachableAmend
  | SpecAmendItem
  | RepeatedEvidenceStop
  | RedrawStop
  | Rule1Verify
  | Rule2RowStop
  | SeedStop
  | SeedDispatch
  | RowDispatch;

// ---------------------------------------------------------------------------------------------
// Step 1: preconditions

function configurationStop(
  problem: ConfigurationStop['problem'],
  message: string,
  findings: readonly Finding[],
  rule: ConfigurationStop['rule'] = 'preconditions',
): ConfigurationStop {
  return { kind: 'configuration-stop', rule, problem, message, findings, why: message };
}

function isChecksFinding(f: Finding): boolean {
  // The ledger parser reports a missing `checks:` line as a missing header naming `checks:`; it has
  // no dedicated code for it (a `ledger.checks.missing` alternative here was never produced).
  return f.code === 'ledger.header.missing' && f.reason.includes('checks:');
}

function isAllowanceFinding(f: Finding): boolean {
  return f.code === 'ledger.allowance.cap' || f.code === 'ledger.allowance.missing';
}

/**
 * Preconditions of the ordered table (§3.4 steps 3-4, scenario E9), in the protocol's order: the
 * `checks:` line, then `allowance:` without `cap:` — "including for seed and completed ledgers".
 * A ledger that does not parse for another reason stops as invalid, naming every finding.
 *
 * @param ledger the parsed ledger, or `null`.
 * @param findings the parser's findings for it.
 * @returns the configuration stop, or `null` when the table may run.
 */
export function ledgerPreconditionStop(
  ledger: Ledger | null,
  findings: readonly Finding[] = [],
): ConfigurationStop | null {
  const checksMissing =
    findings.some(isChecksFinding) ||
    (ledger !== null && (typeof ledger.checks !== 'string' || ledger.checks.trim() === ''));
  if (checksMissing)
    return configurationStop(
      'checks-missing',
      NO_CHECKS_LINE,
      withDefault(findings, 'rules.checks-missing', NO_CHECKS_LINE),
    );
  const allowanceMissing =
    findings.some(isAllowanceFinding) ||
    (ledger !== null && (!Number.isSafeInteger(ledger.allowance) || ledger.allowance < 0));
  if (allowanceMissing)
    return configurationStop(
      'allowance-missing',
      NO_ALLOWANCE_LINE,
      withDefault(findings, 'rules.allowance-missing', NO_ALLOWANCE_LINE),
    );
  if (ledger === null || findings.length > 0) {
    const message = 'the ledger is not valid; fix the findings before the loop continues';
    return configurationStop(
      'ledger-invalid',
      message,
      withDefault(findings, 'rules.ledger-missing', 'no ledger was given'),
    );
  }
  return null;
}

function withDefault(findings: readonly Finding[], code: string, reason: string): readonly Finding[] {
  return findings.length > 0 ? findings : [finding(code, 0, reason)];
}

// ---------------------------------------------------------------------------------------------
// Step 2: unreachable routing

/**
 * Unreachable routing before the ordered table (§3.4 step 6, §3.13): routes the latest admitted
 * return when its target failed and no human answered it yet.
 *
 * @param ledger the ledger; an admission for a row it no longer holds is not routed.
 * @param history the replayed history (`latestAdmission`).
 * @param routing the spec and amend permission.
 * @returns a bound-spent stop, an amend item, a configuration stop when the spec lacks the row, or
 *   `null` to continue at rule 1.
 */
export function unreachableRoutingStep(
  ledger: Ledger,
  history: LoopHistory,
  routing: RoutingContext,
):
  | BoundSpentStop
  | UnreachableAmend
  | SpecAmendItem
  | RepeatedEvidenceStop
  | RedrawStop
  | ConfigurationStop
  | null {
  const admission = history.latestAdmission;
  if (admission === null || admission.status !== 'failed' || admission.answeredBy !== null) return null;
  if (!ledger.rows.some((cells) => cells.row === admission.row)) return null;
  // A coordinated ledger's row stands for the criterion `## Leg mapping` maps it to (L12).
  const specRow = specRowOfLedgerRow(routing.spec, ledger, admission.row);
  if (specRow === undefined) {
    const message = `the spec has no acceptance criterion for ledger row ${admission.row}; its admitted failed return cannot be routed`;
    return configurationStop(
      'spec-row-missing',
      message,
      [finding('rules.spec-row-missing', 0, message)],
      'unreachable',
    );
  }
  const routed = routeUnreachableReturn({ admission, specRow, amendPermission: routing.amendPermission });
  switch (routed.kind) {
    case 'continue':
      return routed.why === 'no-marker' && admission.evidence !== null
        ? amendmentRoutingStep(
            admission.row,
            admission.evidence,
            routing,
            rowAsCriterion(ledger, admission.row),
          )
        : null;
    case 'bound-spent':
      return {
        kind: 'bound-spent-stop',
        rule: 'unreachable',
        row: routed.row,
        marker: routed.marker,
        recommendation: routed.recommendation,
        why: `row ${routed.row}'s admitted evidence starts with "${routed.marker}"`,
      };
    case 'amend':
      return {
        kind: 'unreachable-amend',
        rule: 'unreachable',
        row: routed.row,
        what: routed.what,
        where: routed.where,
        disposition: routed.disposition,
        outOfScope: routed.outOfScope,
        autoApply: routed.autoApply,
        amendedLine: routed.amendedLine,
        why: `row ${routed.row} reported "unreachable: ${routed.what} - ${routed.where}" and is not a venue: row`,
      };
  }
}

/**
 * The amendment markers of an unanswered admitted failed return (`amend:`, `redraw:`), read after
 * `bound spent:` and `unreachable:` found nothing (docs/decisions/amendments.md).
 *
 * @returns an amend item, the repeated-evidence stop, the redraw stop, or `null` to continue.
 */
function amendmentRoutingStep(
  row: number,
  evidence: string,
  routing: RoutingContext,
  rowName: string,
): SpecAmendItem | RepeatedEvidenceStop | RedrawStop | null {
  const routed = routeAmendmentMarker({
    row,
    evidence,
    amendments: routing.amendments ?? [],
    amendPermission: routing.amendPermission,
    rowName,
  });
  switch (routed.kind) {
    case 'continue':
      return null;
    case 'redraw':
      return {
        kind: 'redraw-stop',
        rule: 'unreachable',
        row,
        reason: routed.why,
        why: `row ${row} reported "redraw: ${routed.why}": a redraw always stops`,
      };
    case 'repeated-evidence':
      return {
        kind: 'repeated-evidence-stop',
        rule: 'unreachable',
        row,
        what: routed.what,
        evidence: routed.evidence,
        earlier: routed.earlier,
        why: `row ${row} reported "amend: ${routed.what} - ${routed.evidence}" and the spec already carries an amendment for that evidence`,
      };
    case 'spec-amend':
      return {
        kind: 'spec-amend',
        rule: 'unreachable',
        row,
        what: routed.what,
        evidence: routed.evidence,
        entry: routed.entry,
        autoApply: routed.autoApply,
        amendedLine: routed.amendedLine,
        why: `row ${row} reported "amend: ${routed.what} - ${routed.evidence}"`,
      };
  }
}

// ---------------------------------------------------------------------------------------------
// Steps 3-7: the ordered table

/**
 * Rule 1: true when no row is `open` or `failed` (all-cut and baseline-complete ledgers included).
 *
 * @param ledger the ledger.
 */
export function rule1NoOpenOrFailedRow(ledger: Ledger): boolean {
  return !ledger.rows.some((cells) => cells.status === 'open' || cells.status === 'failed');
}

/**
 * Rule 2: the lowest unresolved row whose attempts reached its effective allowance (§6 A13), or
 * `null`. `done` and `cut` rows are exempt.
 *
 * @param ledger the ledger.
 */
export function rule2LowestExhaustedRow(ledger: Ledger): number | null {
  return exhaustedRows(ledger)[0]?.row ?? null;
}

/**
 * The seed count check (§3.11): true when the `loop: repair seed` count has reached the bare header
 * allowance. Only a raised allowance lifts it; a numbered retry never does (scenario SC3, §6 A16).
 *
 * @param ledger the ledger (header allowance).
 * @param history the replayed history (seed repair count).
 */
export function seedCountReached(ledger: Ledger, history: LoopHistory): boolean {
  return history.seedRepairCount >= ledger.allowance;
}

/**
 * The `hint:` of a seed dispatch: the seed-contract instruction, then the last seed repair's reason
 * when there is one (`seed miss: …` or `seed interrupted: …`), joined by `; `.
 *
 * @param history the replayed history.
 */
export function seedHint(history: LoopHistory): string {
  return history.lastSeedRepairReason === null
    ? SEED_CONTRACT_HINT
    : `${SEED_CONTRACT_HINT}; ${history.lastSeedRepairReason}`;
}

/**
 * Rule 3 for the selected row: its hint text and source. A pending human retry of this row wins
 * over the fixed rule-3 hint (§3.4); an empty human hint does not displace it.
 *
 * @param ledger the ledger.
 * @param history the replayed history (windows and pending retries).
 * @param row the selected row.
 * @returns the hint to send (or `null`), where it comes from, and rule 3's own verdict.
 */
export function rule3HintForTarget(
  ledger: Ledger,
  history: LoopHistory,
  row: number,
): { readonly hint: string | null; readonly source: HintSource | null; readonly rule3: Rule3Hint | null } {
  const rule3 = rule3HintFor(ledger, history, row);
  const retry = history.pendingRetries.find((pending) => pending.row === row);
  if (retry !== undefined && retry.hint.trim() !== '')
    return { hint: retry.hint, source: 'human-retry', rule3 };
  if (rule3 === null) return { hint: null, source: null, rule3 };
  return {
    hint: rule3.text,
    source: rule3.kind === 'empty-child' ? 'rule3-empty-child' : 'rule3-validation-miss',
    rule3,
  };
}

function escalateAfterProblem(escalateAfter: number | null): ConfigurationStop | null {
  if (escalateAfter === null)
    return configurationStop('escalate-after-unresolved', ESCALATE_AFTER_UNRESOLVED, [
      finding('rules.escalate-after', 0, ESCALATE_AFTER_UNRESOLVED),
    ]);
  if (!Number.isSafeInteger(escalateAfter) || escalateAfter < 0) {
    const message = `escalateAfter must be a non-negative integer (loopEngine.escalateAfter), got ${String(escalateAfter)}`;
    return configurationStop('escalate-after-unresolved', message, [
      finding('rules.escalate-after', 0, message),
    ]);
  }
  return null;
}

/**
 * Rule 4 for a numbered target: the dispatch with its hint, previous decision and escalated round
 * (`threshold = min(escalateAfter, effective allowance - 1)`, no durable escalation decision,
 * pre-dispatch attempts >= threshold).
 *
 * @param ledger the ledger before the dispatch.
 * @param history the replayed history.
 * @param row the selected row.
 * @param target why it was selected.
 * @param escalateAfter the held, valid `escalateAfter`.
 */
export function rule4RowDispatch(
  ledger: Ledger,
  history: LoopHistory,
  row: number,
  target: Exclude<TargetReason, 'seed-not-survived'>,
  escalateAfter: number,
): RowDispatch {
  const attempts = ledger.rows.find((cells) => cells.row === row)?.attempts ?? 0;
  const effective = effectiveAllowance(ledger, row);
  const threshold = escalationThreshold(escalateAfter, effective);
  const escalationSpent = isEscalationSpent(ledger, row);
  const escalated = !escalationSpent && attempts >= threshold;
  const { hint, source, rule3 } = rule3HintForTarget(ledger, history, row);
  return {
    kind: 'dispatch-row',
    rule: 'rule4',
    row,
    attempts,
    effectiveAllowance: effective,
    target,
    hint,
    hintSource: source,
    rule3,
    previousDecision: history.previousDecision ?? NO_PREVIOUS_DECISION,
    escalated,
    threshold,
    escalationSpent,
    why: escalated
      ? `dispatch row ${row} as its escalated round: attempts ${attempts} >= threshold ${threshold}`
      : `dispatch row ${row} (${attempts} of ${effective})`,
  };
}

function budgetOf(ledger: Ledger, row: number): RowBudget {
  const attempts = ledger.rows.find((cells) => cells.row === row)?.attempts ?? 0;
  return { row, attempts, effectiveAllowance: effectiveAllowance(ledger, row) };
}

/**
 * Runs "Before each dispatch" once and returns exactly one outcome (scenarios E9, A1-A9, SC1,
 * SC3, T1-T5, S1-S11, X1-X7, U1-U9 through the named steps).
 *
 * Order: preconditions → unreachable routing (when `routing` is given) → rule 1 → rule 2 → target
 * selection → seed count (seed) or rule 3 + rule 4 (numbered). A missing `escalateAfter` stops
 * only where a dispatch would start, after rule 1, rule 2 and the seed stop had their say.
 *
 * @param input the ledger (or its findings), the history, `escalateAfter` and optional routing
 *   context.
 * @returns one {@link RulesOutcome}; never throws for any ledger or history value.
 */
export function evaluateRules(input: RulesInput): RulesOutcome {
  const { ledger, history } = input;
  const precondition = ledgerPreconditionStop(ledger, input.ledgerFindings ?? []);
  if (precondition !== null || ledger === null)
    return precondition ?? configurationStop('ledger-invalid', 'no ledger was given', []);

  if (input.routing !== undefined) {
    const routed = unreachableRoutingStep(ledger, history, input.routing);
    if (routed !== null) return routed;
  }

  if (rule1NoOpenOrFailedRow(ledger))
    return { kind: 'verify', rule: 'rule1', why: 'no open or failed row: continue at After the loop step 0' };

  const exhausted = exhaustedRows(ledger).map((cells) => budgetOf(ledger, cells.row));
  const first = exhausted[0];
  if (first !== undefined)
    return {
      kind: 'row-stop',
      rule: 'rule2',
      ...first,
      exhausted,
      escalationSpent: isEscalationSpent(ledger, first.row),
      why: `row ${first.row} is at ${first.attempts} of ${first.effectiveAllowance}`,
    };

  const selection = selectTarget(ledger, history);
  // Rule 1 did not fire, so some row is open or failed and a target exists.
  if (selection === null)
    return { kind: 'verify', rule: 'rule1', why: 'no open or failed row: continue at After the loop step 0' };

  if (selection.target === 'seed') {
    const seedRepairs = history.seedRepairCount;
    if (seedCountReached(ledger, history)) {
      const line = `seed: ${seedRepairs} of ${ledger.allowance}`;
      return {
        kind: 'seed-stop',
        rule: 'seed-count',
        seedRepairs,
        allowance: ledger.allowance,
        line,
        why: `the seed repair count reached the allowance (${line})`,
      };
    }
    const settings = escalateAfterProblem(input.escalateAfter);
    if (settings !== null) return settings;
    return {
      kind: 'dispatch-seed',
      rule: 'seed-count',
      hint: seedHint(history),
      previousDecision: NO_PREVIOUS_DECISION,
      seedRepairs,
      allowance: ledger.allowance,
      why: `${selection.because}; seed repairs ${seedRepairs} of ${ledger.allowance}`,
    };
  }

  const settings = escalateAfterProblem(input.escalateAfter);
  if (settings !== null) return settings;
  const dispatch = rule4RowDispatch(
    ledger,
    history,
    selection.target,
    selection.why,
    input.escalateAfter as number,
  );
  return { ...dispatch, why: `${selection.because}; ${dispatch.why}` };
}
