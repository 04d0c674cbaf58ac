/**
 * A reference of the loop protocol written in test code from the seed text ("One cycle",
 * "Continue, pivot, or stop") and docs/loop-protocol.md's rule order S1-S11, NOT from
 * src/loop-protocol: it replays a generated path's events and answers, after each step, the state
 * the loop must be in and the continue / pivot / stop decision it took, if it decided.
 */
import type { PathStep } from '../../src/graph/path-suite-schema.js';

interface Choice {
  readonly action: unknown;
  readonly needsBroaderScope: boolean;
  readonly pivotAvailable: boolean;
  readonly permittedActionRemains: boolean;
  readonly crossTurn: boolean;
}

/** The state and decision after each step. */
export function loopProtocolReference(
  steps: readonly PathStep[],
): { state: string; decision: string | null }[] {
  let contract: Record<string, unknown> = {};
  let settings: { minSamples: number; repeatedErrorThreshold: number | null; wakeup: boolean } = {
    minSamples: 3,
    repeatedErrorThreshold: null,
    wakeup: false,
  };
  let phase: 'entry' | 'baseline' | 'cycle' = 'entry';
  let cancelled = false;
  let sourceLost = false;
  let overlap = false;
  let failures = 0;
  let samples = 0;
  let completed = 0;
  let nonProgress = 0;
  let repeatedError = 0;
  let lastError: string | null = null;
  const observed = new Set<string>();
  const evidenceSeen = new Set<string>();
  let observation: string | null = null;
  let choice: Choice | null = null;
  let success = false;
  let terminal = false;
  let progress = 0;
  let decision: string | null = null;

  const plateau = () => Number(/(\d+)/.exec(String(contract.plateauRule ?? ''))?.[1] ?? 3);
  const entry = (): string => {
    const budget = contract.iterationBudget;
    if (budget !== undefined && !(Number.isInteger(budget) && (budget as number) > 0))
      return 'invalidContract';
    if (contract.outcome === undefined) return 'awaitingDirection';
    phase = 'baseline';
    return 'baseline.sampling';
  };
  const nextCycle = (): void => {
    choice = null;
    observation = null;
    success = false;
    terminal = false;
    progress = 0;
  };
  const decide = (): string => {
    const stop = (rule: string) => {
      decision = `stop:${rule}`;
      return 'stopped';
    };
    if (cancelled) return stop('user-cancelled');
    if (sourceLost) return stop('source-lost');
    if (overlap) return stop('rollback-boundary-overlap');
    if (success) return stop('success');
    if (terminal || failures > 0) return stop('terminal-failure');
    if (choice?.needsBroaderScope === true) return stop('scope-needs-broadening');
    if (completed >= Number(contract.iterationBudget)) return stop('budget-exhausted');
    if (choice?.crossTurn === true && !settings.wakeup) return stop('no-wakeup');
    const patience: [string, boolean][] = [
      ['plateau', nonProgress >= plateau()],
      ['repeated-error', repeatedError >= (settings.repeatedErrorThreshold ?? plateau())],
    ];
    for (const [rule, reached] of patience) {
      if (!reached) continue;
      if (choice?.pivotAvailable === true) {
        decision = `pivot:${rule}`;
        nonProgress = 0;
        repeatedError = 0;
        lastError = null;
        nextCycle();
        return 'cycle.observing';
      }
      return stop(rule);
    }
    if (choice !== null && !choice.permittedActionRemains) return stop('no-permitted-action');
    decision = progress > 0 ? 'continue:progress-made' : 'continue:within-patience';
    nextCycle();
    return 'cycle.observing';
  };
  const record = (verification: {
    successEvidence?: string[];
    terminalFailureEvidence?: string[];
    claim?: { evidenceFingerprints?: string[] };
    errorFingerprint?: string | null;
  }): string => {
    success = (verification.successEvidence ?? []).length > 0;
    terminal = (verification.terminalFailureEvidence ?? []).length > 0;
    progress = 0;
    for (const fp of verification.claim?.evidenceFingerprints ?? [])
      if (!evidenceSeen.has(fp)) {
        evidenceSeen.add(fp);
        progress = 1;
      }
    if (observation !== null && !observed.has(observation)) {
      observed.add(observation);
      progress = 1;
    }
    completed += 1;
    nonProgress = progress > 0 ? 0 : nonProgress + 1;
    const error = verification.errorFingerprint ?? null;
    repeatedError = error === null ? 0 : error === lastError ? repeatedError + 1 : 1;
    lastError = error;
    const acted = choice !== null && choice.action !== null;
    if (!acted) return decide();
    return progress > 0 ? 'cycle.retaining' : 'cycle.rollingBack';
  };

  return steps.map(({ event }) => {
    decision = null;
    const type = event.type;
    const output = event.output as Record<string, unknown> | undefined;
    let state: string;
    if (type === 'START') {
      contract = { ...(event.contract as Record<string, unknown>) };
      const metric = event.metric as { minSamples?: number } | undefined;
      settings = {
        minSamples: metric?.minSamples ?? 3,
        repeatedErrorThreshold: (event.repeatedErrorThreshold as number | undefined) ?? null,
        wakeup: event.wakeupAuthorized === true,
      };
      state = entry();
    } else if (type === 'DIRECTION') {
      contract = { ...contract, ...(event.fields as Record<string, unknown>) };
      state = entry();
    } else if (type === 'CANCEL') {
      if (phase === 'entry') state = 'cancelledBeforeStart';
      else {
        cancelled = true;
        state = decide();
      }
    } else if (type === 'xstate.done.actor.observe' && phase === 'baseline') {
      if (output?.available !== true) {
        sourceLost = true;
        state = decide();
      } else if (output.metric === null) {
        sourceLost = true;
        state = decide();
      } else {
        samples += 1;
        observed.clear();
        observed.add(String(output.fingerprint));
        state = samples < settings.minSamples ? 'baseline.sampling' : 'baseline.confirmingCheckpoint';
      }
    } else if (type === 'xstate.error.actor.observe') {
      sourceLost = true;
      state = decide();
    } else if (type === 'xstate.done.actor.checkpoint' || type === 'xstate.error.actor.checkpoint') {
      if (type === 'xstate.error.actor.checkpoint') failures += 1;
      else if (output?.ok !== true) overlap = true;
      if (phase === 'baseline' && type === 'xstate.done.actor.checkpoint' && output?.ok === true) {
        phase = 'cycle';
        state = 'cycle.observing';
      } else state = decide();
    } else if (type === 'xstate.done.actor.observe') {
      if (output?.available !== true) {
        sourceLost = true;
        state = decide();
      } else if (output.userChangesOverlap === true) {
        overlap = true;
        state = decide();
      } else {
        observation = String(output.fingerprint);
        state = 'cycle.choosing';
      }
    } else if (type === 'xstate.done.actor.choose') {
      choice = output as unknown as Choice;
      state = choice.needsBroaderScope
        ? decide()
        : choice.action === null
          ? 'cycle.verifying'
          : 'cycle.acting';
    } else if (type === 'xstate.error.actor.choose') {
      choice = {
        action: null,
        needsBroaderScope: false,
        pivotAvailable: false,
        permittedActionRemains: false,
        crossTurn: false,
      };
      state = decide();
    } else if (type === 'xstate.done.actor.act' || type === 'xstate.error.actor.act') {
      state = 'cycle.verifying';
    } else if (type === 'xstate.done.actor.verify') {
      state = record(output as never);
    } else if (type === 'xstate.error.actor.verify') {
      state = record({
        errorFingerprint: `evaluator-unavailable: ${String((event.error as { message?: string })?.message)}`,
      });
    } else if (type === 'xstate.done.actor.rollback' || type === 'xstate.error.actor.rollback') {
      if (type === 'xstate.error.actor.rollback' || output?.restored !== true) failures += 1;
      state = decide();
    } else state = `no expectation for ${type}`;
    return { state, decision };
  });
}
