/**
 * The comparison helpers every model-based suite uses to assert a step against an independent
 * oracle and count it: `same(step, what, actual, expected)` fails the path when they differ and,
 * once they agree, records the step in the {@link AssertionTally}, so `transitions asserted N/M`
 * counts only transitions taken by steps that really compared something with a hand-written
 * expectation or a reference written in test code.
 */
import { expect } from 'vitest';
import type { AnyStateMachine } from 'xstate';
import {
  type AssertionTally,
  assertEveryTransitionAsserted,
  formatAssertedLine,
} from '../../src/graph/assertion-tally.js';
import type { TransitionCoverage } from '../../src/graph/coverage.js';
import { assertFullCoverage, formatCoverageLines } from '../../src/graph/coverage-format.js';
import { formatGuardLine, guardCoverage } from '../../src/graph/guard-coverage.js';
import { unobservableGuardOutcomes } from '../../src/graph/models/guard-outcomes.js';
import type { PathStep } from '../../src/graph/path-suite-schema.js';

/** Compares and counts; see the file comment. */
export interface Oracle {
  /** `expect(actual).toEqual(expected)`, then counts the step's transitions as asserted. */
  same(step: Pick<PathStep, 'transitions'>, what: string, actual: unknown, expected: unknown): void;
  /** `expect(actual).toMatch(pattern)`, then counts the step. */
  matches(step: Pick<PathStep, 'transitions'>, what: string, actual: string, pattern: RegExp): void;
}

/** An {@link Oracle} recording into `tally`. */
export function oracleOf(tally: AssertionTally): Oracle {
  return {
    same(step, what, actual, expected) {
      expect(actual, what).toEqual(expected);
      tally.record(step, what);
    },
    matches(step, what, actual, pattern) {
      expect(actual, what).toMatch(pattern);
      tally.record(step, what);
    },
  };
}

/**
 * Prints `transitions covered`, `transitions asserted`, `guards covered` and `states covered` for
 * the machine and fails unless all are complete. Guard outcomes no step can show are taken from
 * src/graph/models/guard-outcomes.ts, where each one carries its reason.
 */
export function reportAndRequireFull(
  machine: AnyStateMachine,
  coverage: TransitionCoverage,
  tally: AssertionTally,
  taken: ReadonlyMap<string, number> | Iterable<string> = [],
  unobservable: Readonly<Record<string, string>> = unobservableGuardOutcomes[machine.id] ?? {},
): void {
  const asserted = tally.result();
  const guards = guardCoverage(machine, taken, unobservable);
  const [transitions, states] = formatCoverageLines(coverage);
  console.log(`${transitions}\n${formatAssertedLine(asserted)}\n${formatGuardLine(guards)}\n${states}`);
  expect(asserted.machine).toBe(machine.id);
  assertFullCoverage(coverage);
  assertEveryTransitionAsserted(asserted);
  expect(guards.missing, formatGuardLine(guards)).toEqual([]);
}

/** A state value as a dotted path (`{ validating: 'fresh' }` → `validating.fresh`). */
export function dotted(value: unknown): string {
  if (typeof value === 'string') return value;
  const [key, child] = Object.entries(value as Record<string, unknown>)[0] ?? ['', ''];
  return `${key}.${dotted(child)}`;
}
