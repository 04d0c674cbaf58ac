import type { FinalReport, ObservedState, ReportedAction } from './final-report.js';

function describeState(state: ObservedState | null): string {
  if (!state) return '(not recorded)';
  const metric = state.metric === null ? '' : ` [metric ${state.metric}]`;
  const fingerprint = state.fingerprint === null ? '' : ` (fingerprint ${state.fingerprint})`;
  return `cycle ${state.cycle}: ${state.summary}${metric}${fingerprint}`;
}

function describeActions(title: string, actions: readonly ReportedAction[]): string[] {
  if (actions.length === 0) return [`${title}: none`];
  return [
    `${title} (${actions.length}):`,
    ...actions.map((a) => `  - cycle ${a.cycle} ${a.kind}: ${a.summary}`),
  ];
}

function describeBudget(budget: FinalReport['budget']): string {
  if (!budget) return 'not recorded';
  const parts = [
    `${budget.iterationsUsed}${budget.iterationLimit === null ? '' : ` of ${budget.iterationLimit}`} iterations`,
  ];
  if (budget.elapsedMs !== null) parts.push(`${budget.elapsedMs} ms elapsed`);
  if (budget.tokensUsed !== null) parts.push(`${budget.tokensUsed} tokens`);
  if (budget.costUsed !== null) parts.push(`cost ${budget.costUsed}`);
  return parts.join(', ');
}

function list(title: string, items: readonly string[]): string[] {
  return items.length === 0 ? [`${title}: none`] : [`${title}:`, ...items.map((item) => `  - ${item}`)];
}

/**
 * Renders the final report as text in the protocol's order: status, why the loop stopped,
 * baseline and final state, cycles and budget, actions kept / discarded / skipped, evaluator and
 * final evidence, unresolved risk, retained state and cleanup.
 *
 * @param report a report from `finalReport`
 * @returns multi-line text ending with a newline
 */
export function renderFinalReport(report: FinalReport): string {
  const lines = [
    `Loop report (${report.machines.join(', ') || 'no machine'}): ${
      report.status === 'complete' ? 'complete' : `INCOMPLETE: ${report.incompleteReason}`
    }`,
    `Why it stopped: ${
      report.stop
        ? `${report.stop.rule} (${report.stop.success ? 'success' : 'not a success'}): ${report.stop.reason}`
        : 'no terminal rule fired'
    }`,
    `Baseline: ${describeState(report.baseline)}`,
    `Final state: ${describeState(report.final)}`,
    `Cycles completed: ${report.cyclesCompleted}; budget used: ${describeBudget(report.budget)}`,
    ...describeActions('Actions kept', report.actions.kept),
    ...describeActions('Actions discarded', report.actions.discarded),
    ...describeActions('Actions skipped', report.actions.skipped),
    ...(report.actions.undecided.length > 0
      ? describeActions('Actions never decided', report.actions.undecided)
      : []),
    `Evaluator: ${
      report.evaluator
        ? `${report.evaluator.evaluator} -> ${report.evaluator.verdict}${report.evaluator.detail ? ` (${report.evaluator.detail})` : ''}`
        : 'no verifier result recorded'
    }`,
    ...list('Final evidence', report.finalEvidence),
    `Unresolved risk: ${report.unresolvedRisk ?? 'none recorded'}`,
    `Next useful hypothesis: ${report.nextHypothesis ?? 'none recorded'}`,
    ...list('Retained state', report.retainedState),
    ...list('Cleanup performed', report.cleanup),
  ];
  return `${lines.join('\n')}\n`;
}
