/**
 * fast-check arbitraries of a machine's event sequences, for property tests with shrinking. The
 * caller passes its own fast-check (a peer dependency of loopchart): this module imports
 * only fast-check's types, so `loopchart/testing` loads without it.
 */
import type * as FastCheckModule from 'fast-check';
import type { AnyStateMachine, SnapshotFrom } from 'xstate';
import { assertMachineModel, type MachineModel } from './machine-model.js';
import { createModelExplorer } from './model-exploration.js';
import type { SuitePath } from './path-suite-schema.js';
import { enabledMoves } from './path-walks.js';
import { assertMachine } from './state-nodes.js';
import { createJsonCache, toSuitePath, walk } from './suite-paths.js';

/** The part of fast-check the arbitraries use: pass `fc` from `import fc from 'fast-check'`. */
export type FastCheck = Pick<typeof FastCheckModule, 'array' | 'nat'>;

/** Options of {@link eventSequenceArbitrary}. */
export interface EventSequenceOptions {
  /** Fewest choices drawn (default 1). A path ends early where no event moves the machine. */
  readonly minLength?: number;
  /** Most events in a path (default 20). */
  readonly maxLength?: number;
}

/** The most choices one step can tell apart; more enabled events than this is no model. */
const MAX_CHOICE = 0xffff;

/**
 * An arbitrary of event sequences a machine accepts, as paths in the suite format: from the
 * initial state, each step sends one of the events the model offers that moves the machine
 * (takes a transition or changes its status), so every generated path is a possible run. It
 * draws a list of numbers and maps number i to the (i mod n)-th enabled event, so fast-check
 * shrinks a failing path to a shorter one whose events come earlier in the model's order.
 *
 * Replay a path on the statechart with `runPath`, or on your own implementation with the same
 * `observe`/`deliver` functions a JSON suite needs (docs/path-suites.md).
 *
 * @param fc fast-check (`import fc from 'fast-check'`), so loopchart needs no copy of its own
 * @param machine an XState v5 machine
 * @param model the machine's model: input, event cases, projection (as for generatePathSuite)
 * @param options path lengths
 * @returns an arbitrary of {@link SuitePath}s (each with at least one step unless nothing moves
 *   the initial state)
 * @throws MachineShapeError when `machine` is not a machine
 * @throws MachineModelError when the model names unknown events or has non-JSON payloads
 * @throws PathGenerationError when the initial state cannot be computed
 */
export function eventSequenceArbitrary<TMachine extends AnyStateMachine>(
  fc: FastCheck,
  machine: TMachine,
  model: MachineModel<SnapshotFrom<TMachine>>,
  options: EventSequenceOptions = {},
): FastCheckModule.Arbitrary<SuitePath> {
  assertMachine(machine);
  assertMachineModel(machine, model as MachineModel);
  const minLength = options.minLength ?? 1;
  const maxLength = options.maxLength ?? 20;
  if (!Number.isInteger(minLength) || !Number.isInteger(maxLength) || minLength < 0 || maxLength < minLength)
    throw new RangeError(
      `eventSequenceArbitrary: need integers 0 <= minLength <= maxLength, got ${minLength} and ${maxLength}`,
    );
  const explorer = createModelExplorer(machine, model as MachineModel);
  return fc.array(fc.nat({ max: MAX_CHOICE }), { minLength, maxLength }).map((choices) => {
    let state = explorer.initial;
    const events = [];
    for (const choice of choices) {
      const moves = enabledMoves(explorer, state);
      if (moves.length === 0) break;
      const move = moves[choice % moves.length] as (typeof moves)[number];
      events.push(move.event);
      state = move.next;
    }
    return toSuitePath(walk(explorer, events), createJsonCache());
  });
}
