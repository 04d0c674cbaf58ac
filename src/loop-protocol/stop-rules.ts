import type { EntryContract } from './entry-contract.js';
import { plateauThresholdOf } from './entry-contract.js';
import type { ProgressKind } from './progress.js';

/** A budget of the loop that can run out. */
export type BudgetKind = 'iteration' | 'time' | 'token' | 'cost';

/** Limits of the loop; an absent limit never runs out (the iteration limit is always present). */
export interface BudgetLimits {
  readonly iterations: number;
  readonly timeMs?: number;
  readonly tokens?: number;
  readonly cost?: number;
}

/** What the loop has used so far. */
export interface BudgetUsage {
  /** Completed cycles (iterations or polls). */
  readonly iterations: number;
  readonly elapsedMs: number;
  readonly tokens: number;
  readonly cost: number;
}

/**
 * Everything the continue / pivot / stop decision reads after a cycle's verification and
 * record, before another cycle begins.
 */
export interface LoopFacts {
  readonly userCancelled: boolean;
  /** False when the authoritative source disappeared or access to it was lost. */
  readonly sourceAvailable: boolean;
  readonly userChangesOverlapRollbackBoundary: boolean;
  /** Terminal evidence that success holds; success is never confirmed without it. */
  readonly successEvidence: readonly string[];
  /** Terminal evidence that the loop failed for good; empty when none. */
  readonly terminalFailureEvidence: readonly string[];
  /** The next useful action needs broader scope or new authority. */
  readonly nextActionNeedsBroaderScope: boolean;
  readonly limits: BudgetLimits;
  readonly usage: BudgetUsage;
  /** Kinds of progress this cycle earned (see `assessProgress`). */
  readonly progress: readonly ProgressKind[];
  /** Consecutive cycles without progress, this one included. */
  readonly nonProgressStreak: number;
  readonly plateauThreshold: number;
  /** Consecutive cycles ending in the same error fingerprint, this one included. */
  readonly repeatedErrorStreak: number;
  readonly repeatedErrorThreshold: number;
  /** One meaningfully different strategy inside scope has not been tried yet. */
  readonly pivotAvailable: boolean;
  /** The next cycle would start in a later turn (needs a wakeup). */
  readonly crossTurn: boolean;
  readonly wakeupAuthorized: boolean;
  /** Another permitted action remains to try. */
  readonly permittedActionRemains: boolean;
}

/** Names of the stop rules, in the order {@link decideContinuation} checks them. */
export const STOP_RULE_ORDER = [
  'user-cancelled',
  'source-lost',
  'rollback-boundary-overlap',
  'success',
  'terminal-failure',
  'scope-needs-broadening',
  'budget-exhausted',
  'no-wakeup',
  'plateau',
  'repeated-error',
  'no-permitted-action',
] as const;

/** One stop rule of the loop protocol. */
export type StopRule = (typeof STOP_RULE_ORDER)[number];

/** The loop's decision after a cycle, with the rule that fired and why. */
export interface ContinuationDecision {
  readonly decision: 'continue' | 'pivot' | 'stop';
  /** The stop rule that fired; `progress-made` or `within-patience` for a continue. */
  readonly rule: StopRule | 'progress-made' | 'within-patience';
  readonly reason: string;
  /** For `budget-exhausted`: which budget ran out. */
  readonly budget?: BudgetKind;
  /** The terminal evidence, for `success` and `terminal-failure`. */
  readonly evidence?: readonly string[];
}

/** The user cancelled the loop. */
export function userCancelled(facts: LoopFacts): boolean {
  return facts.userCancelled;
}

/** The authoritative source disappeared or access was lost. */
export function sourceLost(facts: LoopFacts): boolean {
  return !facts.sourceAvailable;
}

/** User changes overlap the loop's rollback boundary. */
export function rollbackBoundaryOverlap(facts: LoopFacts): boolean {
  return facts.userChangesOverlapRollbackBoundary;
}

/** Success is confirmed: there is terminal evidence for it. */
export function successConfirmed(facts: LoopFacts): boolean {
  return facts.successEvidence.length > 0;
}

/** Terminal failure is confirmed: there is terminal evidence for it. */
export function terminalFailureConfirmed(facts: LoopFacts): boolean {
  return facts.terminalFailureEvidence.length > 0;
}

/** The next useful action needs broader scope or new authority. */
export function scopeNeedsBroadening(facts: LoopFacts): boolean {
  return facts.nextActionNeedsBroaderScope;
}

/**
 * The first budget that is exhausted (used >= limit), checked in the order iteration, time,
 * token, cost; null when every budget has room.
 */
export function exhaustedBudget(limits: BudgetLimits, usage: BudgetUsage): BudgetKind | null {
  if (usage.iterations >= limits.iterations) return 'iteration';
  if (limits.timeMs !== undefined && usage.elapsedMs >= limits.timeMs) return 'time';
  if (limits.tokens !== undefined && usage.tokens >= limits.tokens) return 'token';
  if (limits.cost !== undefined && usage.cost >= limits.cost) return 'cost';
  return null;
}

/** A cross-turn loop has no authorized wakeup mechanism to continue. */
export function noWakeup(facts: LoopFacts): boolean {
  return facts.crossTurn && !facts.wakeupAuthorized;
}

/** The plateau (no-progress) threshold is reached. */
export function plateauReached(facts: LoopFacts): boolean {
  return facts.nonProgressStreak >= facts.plateauThreshold;
}

/** The repeated-error threshold is reached. */
export function repeatedErrorReached(facts: LoopFacts): boolean {
  return facts.repeatedErrorStreak >= facts.repeatedErrorThreshold;
}

/**
 * Decides continue, pivot or stop after a cycle. Stop rules are checked in
 * {@link STOP_RULE_ORDER}; the first that holds decides:
 *
 * 1. `user-cancelled`, `source-lost`, `rollback-boundary-overlap`: the user's authority and the
 *    evidence's trustworthiness come before any claim about the outcome.
 * 2. `success`, `terminal-failure`: need terminal evidence.
 * 3. `scope-needs-broadening`, `budget-exhausted` (iteration, time, token, cost), `no-wakeup`.
 * 4. `plateau`, `repeated-error`: pivot when one meaningfully different strategy remains, else stop.
 * 5. `no-permitted-action`: stop.
 *
 * Otherwise continue: `progress-made`, or `within-patience` for a cycle without progress whose
 * streak is still below the plateau threshold.
 *
 * @param facts see {@link LoopFacts}
 * @returns the decision, the rule that fired and why
 */
export function decideContinuation(facts: LoopFacts): ContinuationDecision {
  const stop = (
    rule: StopRule,
    reason: string,
    extra: Partial<ContinuationDecision> = {},
  ): ContinuationDecision => ({
    decision: 'stop',
    rule,
    reason,
    ...extra,
  });
  if (userCancelled(facts)) return stop('user-cancelled', 'the user cancelled the loop');
  if (sourceLost(facts))
    return stop('source-lost', 'the authoritative source disappeared or access to it was lost');
  if (rollbackBoundaryOverlap(facts))
    return stop('rollback-boundary-overlap', "user changes overlap the loop's rollback boundary");
  if (successConfirmed(facts))
    return stop('success', 'success is confirmed by terminal evidence', { evidence: facts.successEvidence });
  if (terminalFailureConfirmed(facts))
    return stop('terminal-failure', 'terminal failure is confirmed', {
      evidence: facts.terminalFailureEvidence,
    });
  if (scopeNeedsBroadening(facts))
    return stop('scope-needs-broadening', 'the next useful action needs broader scope or new authority');
  const budget = exhaustedBudget(facts.limits, facts.usage);
  if (budget) return stop('budget-exhausted', `the ${budget} budget is exhausted`, { budget });
  if (noWakeup(facts))
    return stop('no-wakeup', 'no authorized wakeup mechanism can continue the loop in a later turn');
  for (const [rule, reached, what] of [
    ['plateau', plateauReached(facts), `${facts.nonProgressStreak} cycle(s) without progress`],
    [
      'repeated-error',
      repeatedErrorReached(facts),
      `the same error ${facts.repeatedErrorStreak} time(s) in a row`,
    ],
  ] as const) {
    if (!reached) continue;
    if (facts.pivotAvailable)
      return {
        decision: 'pivot',
        rule,
        reason: `${what} reached the threshold; one meaningfully different strategy remains (record the change)`,
      };
    return stop(rule, `${what} reached the threshold and no different strategy remains`);
  }
  if (!facts.permittedActionRemains) return stop('no-permitted-action', 'no permitted action remains to try');
  if (facts.progress.length > 0)
    return {
      decision: 'continue',
      rule: 'progress-made',
      reason: `this cycle made progress: ${facts.progress.join(', ')}`,
    };
  return {
    decision: 'continue',
    rule: 'within-patience',
    reason: `no progress this cycle (${facts.nonProgressStreak} of ${facts.plateauThreshold} before the plateau rule)`,
  };
}

/**
 * The budget limits an entry contract sets: the iteration or poll budget, and the time, token
 * and cost limits of its time or cost budget.
 *
 * @param contract a complete entry contract
 */
export function budgetLimitsOf(contract: EntryContract): BudgetLimits {
  const { timeMs, tokens, cost } = contract.timeOrCostBudget;
  return {
    iterations: contract.iterationBudget,
    ...(timeMs !== undefined ? { timeMs } : {}),
    ...(tokens !== undefined ? { tokens } : {}),
    ...(cost !== undefined ? { cost: cost.amount } : {}),
  };
}

/**
 * The plateau threshold an entry contract sets (the number in its plateau rule).
 *
 * @param contract a complete entry contract (the schema guarantees the number)
 */
export function plateauThresholdOfContract(contract: EntryContract): number {
  return plateauThresholdOf(contract.plateauRule) as number;
}
