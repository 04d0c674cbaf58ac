/**
 * What the explorer shows under "why" for a registered machine: the verdicts of the protocol core
 * that its guards read, computed from the snapshot by the same functions the guards call. Keyed
 * by machine name like the model registry; a machine without an entry shows its projection only.
 */
import type { AnyMachineSnapshot } from 'xstate';
import type { LoopContext } from '../../../machines/loop-implementation/index.js';
import { outcomeKind, rules, verificationOutcome } from '../../../machines/loop-implementation/views.js';
import type { JsonValue } from '../../common/json-value.js';

/** The core's verdicts over a snapshot, as plain JSON. */
export type Explanation = (snapshot: AnyMachineSnapshot) => JsonValue;

function attempt(read: () => unknown): JsonValue {
  try {
    const value = read();
    return value === undefined ? null : (JSON.parse(JSON.stringify(value)) as JsonValue);
  } catch (error) {
    return { unavailable: error instanceof Error ? error.message : String(error) };
  }
}

/** Explanations by machine name. */
export const explanations: Readonly<Record<string, Explanation>> = {
  'loop-implementation': (snapshot) => {
    const context = snapshot.context as LoopContext;
    return {
      'ordered table (evaluateRules)': context.ledger === null ? null : attempt(() => rules(context)),
      'return validation': attempt(() => outcomeKind(context)),
      'verification return': attempt(() => verificationOutcome(context)?.kind ?? null),
    };
  },
};
