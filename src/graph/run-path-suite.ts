import type { AnyStateMachine, SnapshotFrom } from 'xstate';
import { type TransitionCoverage, transitionCoverage } from './coverage.js';
import type { MachineModel } from './machine-model.js';
import type { PathSuite } from './path-suite-schema.js';
import { createSuiteRun, type RunPathOptions } from './run-path.js';

/** A path that failed while running a whole suite. */
export interface PathFailure {
  readonly pathId: string;
  readonly description: string;
  readonly error: unknown;
}

/** The outcome of {@link runPathSuite}. */
export interface PathSuiteRunResult {
  /** Coverage of the machine by every path that ran (failed paths count up to where they failed). */
  readonly coverage: TransitionCoverage;
  /** Paths that failed, in suite order; empty when all passed. */
  readonly failures: readonly PathFailure[];
}

/**
 * Runs every path of a suite, one after the other, against live actors and returns the coverage
 * they reached. A failing path does not stop the others. For per-path test cases use
 * {@link createSuiteRun} instead.
 *
 * @throws InputError when the suite belongs to another machine
 */
export async function runPathSuite<TMachine extends AnyStateMachine>(
  machine: TMachine,
  model: MachineModel<SnapshotFrom<TMachine>>,
  suite: PathSuite,
  options: Omit<RunPathOptions<SnapshotFrom<TMachine>>, 'collector'> = {},
): Promise<PathSuiteRunResult> {
  const run = createSuiteRun(machine, model, suite);
  const failures: PathFailure[] = [];
  for (const path of suite.paths) {
    try {
      await run.run(path, options);
    } catch (error) {
      failures.push({ pathId: path.id, description: path.description, error });
    }
  }
  return { coverage: transitionCoverage(machine, run.collected()), failures };
}
