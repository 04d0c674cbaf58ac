import { InputError, LoopchartError } from '../common/errors.js';
import type { Finding } from '../common/finding.js';

/**
 * A value given where an XState v5 machine was expected (code `graph.machine.invalid`).
 * Thrown by every graph and viz function before it reads the machine.
 */
export class MachineShapeError extends InputError {
  constructor(what: string) {
    super('graph.machine.invalid', `expected an XState v5 state machine, got ${what}`);
  }
}

/**
 * A machine model that cannot drive path generation: unknown event types, payloads that are
 * not plain JSON, a `type` that contradicts its key (code `graph.model.invalid`).
 */
export class MachineModelError extends InputError {
  constructor(machineId: string, findings: readonly Finding[]) {
    super('graph.model.invalid', `the model of machine "${machineId}" is not usable`, findings);
  }
}

/**
 * Path generation failed: the initial state failed, a step or a model function threw, or the
 * state space outgrew the model's bound (code `graph.paths.failed`).
 */
export class PathGenerationError extends LoopchartError {
  constructor(machineId: string, message: string, findings: readonly Finding[] = []) {
    super('graph.paths.failed', `cannot generate paths for machine "${machineId}": ${message}`, findings);
  }
}

/**
 * A generated path did not run on the live actor as planned (code `graph.path.failed`).
 * The message names the path, the step, what was expected and what happened.
 */
export class PathRunError extends LoopchartError {
  /** Id of the failing path. */
  readonly pathId: string;
  /** 0-based index of the failing step, or -1 when the actor failed before the first step. */
  readonly stepIndex: number;

  constructor(pathId: string, stepIndex: number, message: string) {
    super(
      'graph.path.failed',
      `path ${pathId}${stepIndex >= 0 ? ` step ${stepIndex + 1}` : ' (start)'}: ${message}`,
    );
    this.pathId = pathId;
    this.stepIndex = stepIndex;
  }
}
