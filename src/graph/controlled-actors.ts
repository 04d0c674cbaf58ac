import { type AnyActorLogic, type AnyActorRef, type AnyStateMachine, fromPromise } from 'xstate';

/** One start of a host-controlled actor, as the machine invoked or spawned it. */
export interface ControlledInvocation {
  /** The actor's name in `setup({ actors })`. */
  readonly src: string;
  /** The invoke (or spawn) id: the suffix of its done/error event types. */
  readonly id: string;
  /** The input the machine gave it. */
  readonly input: unknown;
}

/**
 * Stand-ins for every named actor of a machine. Each start parks a promise until the test settles
 * it, so an actor's outcome happens exactly when a path step says so, with the step's payload.
 */
export interface ControlledActors {
  /** Implementations for `machine.provide({ actors })`, one per named actor. */
  readonly actors: Readonly<Record<string, AnyActorLogic>>;
  /** Every start so far, in order. */
  readonly invocations: readonly ControlledInvocation[];
  /**
   * Resolves (`done`, with the output) or rejects (`error`, with the error) the running actor
   * `child`.
   *
   * @returns false when `child` is not a running controlled actor (not one of ours, or settled)
   */
  settle(child: AnyActorRef, outcome: 'done' | 'error', payload: unknown): boolean;
}

/**
 * Creates controlled stand-ins for all actors named in the machine's `setup({ actors })`.
 *
 * @param machine the machine whose named actors are replaced
 */
export function createControlledActors(machine: AnyStateMachine): ControlledActors {
  const pending = new Map<
    AnyActorRef,
    { resolve: (value: unknown) => void; reject: (error: unknown) => void }
  >();
  const invocations: ControlledInvocation[] = [];
  const actors: Record<string, AnyActorLogic> = {};
  for (const src of Object.keys(machine.implementations.actors ?? {})) {
    actors[src] = fromPromise<unknown, unknown>(
      ({ input, self, signal }) =>
        new Promise((resolve, reject) => {
          invocations.push({ src, id: self.id, input });
          pending.set(self, { resolve, reject });
          // Leaving the invoking state stops the actor; it can no longer be settled.
          signal.addEventListener('abort', () => pending.delete(self));
        }),
    );
  }
  return {
    actors,
    invocations,
    settle(child, outcome, payload) {
      const parked = pending.get(child);
      if (!parked) return false;
      pending.delete(child);
      if (outcome === 'done') parked.resolve(payload);
      else parked.reject(payload);
      return true;
    },
  };
}
