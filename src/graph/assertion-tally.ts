import type { AnyStateMachine } from 'xstate';
import { LoopchartError } from '../common/errors.js';
import { finding } from '../common/finding.js';
import type { PathStep } from './path-suite-schema.js';
import { enumerateTransitions, type TransitionInfo } from './transitions.js';

/**
 * Which transitions of a machine were taken by a step that made at least one assertion against an
 * independent oracle: an expected value written by hand from the protocol, or computed by a small
 * reference written separately in test code, never by the function under test.
 *
 * Covered is not asserted: a path can take a transition while its test checks nothing, or checks
 * the machine against the same function its guard calls. A model-based test records a step here
 * only after an independent comparison passed, and fails unless every transition was asserted.
 */
export interface AssertionTally {
  /**
   * Records that `step` made one passing independent assertion described by `what` (call it after
   * the comparison, never before): every transition the step took counts as asserted.
   */
  record(step: Pick<PathStep, 'transitions'>, what: string): void;
  /** Records an independent assertion on the state the machine started in (its initial `always` transitions). */
  recordInitial(transitions: readonly string[], what: string): void;
  /** Asserted and total counts, with the transitions never asserted named. */
  result(): AssertedTransitions;
}

/** What {@link AssertionTally.result} reports. */
export interface AssertedTransitions {
  readonly machine: string;
  readonly asserted: number;
  readonly total: number;
  /** Transitions no asserting step took, in document order. */
  readonly missing: readonly TransitionInfo[];
  /** How many independent assertions were recorded per description, for the report. */
  readonly checks: Readonly<Record<string, number>>;
}

/** Creates an empty {@link AssertionTally} for `machine`. */
export function createAssertionTally(machine: AnyStateMachine): AssertionTally {
  const defined = enumerateTransitions(machine);
  const asserted = new Set<string>();
  const checks: Record<string, number> = {};
  const add = (transitions: readonly string[], what: string): void => {
    for (const key of transitions) asserted.add(key);
    checks[what] = (checks[what] ?? 0) + 1;
  };
  return {
    record: (step, what) => add(step.transitions, what),
    recordInitial: (transitions, what) => add(transitions, what),
    result() {
      const missing = defined.filter((t) => !asserted.has(t.key));
      return {
        machine: machine.id,
        asserted: defined.length - missing.length,
        total: defined.length,
        missing,
        checks: { ...checks },
      };
    },
  };
}

/** `<machine>: transitions asserted N/M`, printed beside `transitions covered N/M`. */
export function formatAssertedLine(result: AssertedTransitions): string {
  return `${result.machine}: transitions asserted ${result.asserted}/${result.total}`;
}

/** Fewer than all transitions asserted (code `graph.assertions.incomplete`); names each gap. */
export class AssertionGapError extends LoopchartError {
  constructor(result: AssertedTransitions) {
    super(
      'graph.assertions.incomplete',
      formatAssertedLine(result),
      result.missing.map((t) =>
        finding(
          'graph.assertions.missing',
          0,
          `${result.machine}: no independent assertion on a step taking ${t.source} --${t.event}#${t.index}${
            t.rule === undefined ? '' : ` ${t.rule}`
          }--> ${t.targets.join(', ')} (${t.key})`,
        ),
      ),
    );
  }
}

/**
 * Fails unless every transition of the machine was taken by a step with an independent assertion.
 *
 * @throws AssertionGapError naming each transition no asserting step took
 */
export function assertEveryTransitionAsserted(result: AssertedTransitions): void {
  if (result.missing.length > 0) throw new AssertionGapError(result);
}
