import { LoopchartError } from '../common/errors.js';
import { finding } from '../common/finding.js';
import type { MissingTransition, TransitionCoverage } from './coverage.js';

/**
 * The two lines a model-based suite prints for a machine:
 * `<machine>: transitions covered N/M` and `<machine>: states covered N/M`.
 */
export function formatCoverageLines(coverage: TransitionCoverage): [string, string] {
  return [
    `${coverage.machine}: transitions covered ${coverage.transitions.covered}/${coverage.transitions.total}`,
    `${coverage.machine}: states covered ${coverage.states.covered}/${coverage.states.total}`,
  ];
}

/** One line per uncovered transition and state, naming source, event, index, guard and rule. */
export function formatMissingCoverage(coverage: TransitionCoverage): string[] {
  return [
    ...coverage.transitions.missing.map(
      (t) => `${coverage.machine}: transition not covered: ${describeMissing(t)}`,
    ),
    ...coverage.states.missing.map((id) => `${coverage.machine}: state not entered: ${id}`),
  ];
}

/** `source --event[#index] [guard] rule--> targets (key)`, the way a person looks a transition up. */
export function describeMissing(transition: MissingTransition): string {
  const guard = transition.guard === undefined ? '' : ` [${transition.guard}]`;
  const rule = transition.rule === undefined ? '' : ` ${transition.rule}`;
  return (
    `${transition.source} --${transition.event}#${transition.index}${guard}${rule}--> ` +
    `${transition.targets.join(', ')} (${transition.key})`
  );
}

/** Coverage below 100 % (code `graph.coverage.incomplete`); the message names every gap. */
export class CoverageGapError extends LoopchartError {
  constructor(coverage: TransitionCoverage) {
    super(
      'graph.coverage.incomplete',
      formatCoverageLines(coverage).join('; '),
      formatMissingCoverage(coverage).map((line) => finding('graph.coverage.missing', 0, line)),
    );
  }
}

/**
 * Fails unless every transition and every state of the machine was covered.
 *
 * @throws CoverageGapError naming each uncovered transition and state
 */
export function assertFullCoverage(coverage: TransitionCoverage): void {
  if (coverage.transitions.missing.length > 0 || coverage.states.missing.length > 0) {
    throw new CoverageGapError(coverage);
  }
}
