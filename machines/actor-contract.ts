/**
 * Typed actor contracts: every machine names what each of its actors is invoked with and what it
 * resolves to (`<Machine>ActorContracts`), and the actor logic a host provides for them
 * (`<Machine>Actors`). A host that implements an actor in a module of its own annotates it with
 * the actor-map type, and TypeScript checks the input it reads and the output it returns:
 *
 * ```ts
 * import { fromPromise } from 'xstate';
 * import type { LoopImplementationActors } from 'loopchart/machines';
 *
 * export const dispatchChild: LoopImplementationActors['dispatchChild'] = fromPromise(
 *   async ({ input, signal }) => runMyAgent(input.plan, signal),
 * );
 * ```
 */
import {
  type ActorRefFromLogic,
  type AnyActorLogic,
  type EventObject,
  fromPromise,
  type MachineContext,
  type MetaObject,
  type ParameterizedObject,
  type PromiseActorLogic,
  type StateMachine,
  type StateSchema,
  type StateValue,
} from 'xstate';
import { NotProvidedError } from '../src/common/errors.js';

/** One actor's contract: what it is invoked with and what it resolves to. */
export interface ActorContract<TInput, TOutput> {
  readonly input: TInput;
  readonly output: TOutput;
}

/** The actor logic a host provides for every contract of a machine, by actor name. */
export type ActorImplementations<
  TContracts extends { [K in keyof TContracts]: ActorContract<unknown, unknown> },
> = {
  [K in keyof TContracts]: PromiseActorLogic<TContracts[K]['output'], TContracts[K]['input']>;
};

/** The input an actor of a contract map is invoked with. */
export type ActorInput<
  TContracts extends { [K in keyof TContracts]: ActorContract<unknown, unknown> },
  TName extends keyof TContracts,
> = TContracts[TName]['input'];

/** The output an actor of a contract map resolves to. */
export type ActorOutput<
  TContracts extends { [K in keyof TContracts]: ActorContract<unknown, unknown> },
  TName extends keyof TContracts,
> = TContracts[TName]['output'];

/**
 * The placeholder a machine declares for an actor the host must provide: it rejects with
 * `NotProvidedError`. Its input and output types come from the contract it is assigned to.
 *
 * @param name the actor's source name
 */
export function notProvidedActor<TInput, TOutput>(name: string): PromiseActorLogic<TOutput, TInput> {
  return fromPromise<TOutput, TInput>(async () => {
    throw new NotProvidedError(name);
  });
}

/** The `ProvidedActor` union XState derives from an actor map (`src`, logic, optional id). */
export type ProvidedActorsOf<TActors extends { [K in keyof TActors]: AnyActorLogic }> = {
  [K in keyof TActors & string]: { src: K; logic: TActors[K]; id: string | undefined };
}[keyof TActors & string];

/** The children a machine with this actor map can hold, by invoke id. */
export type ChildrenOf<TActors extends { [K in keyof TActors]: AnyActorLogic }> = {
  [id: string]: ActorRefFromLogic<TActors[keyof TActors]> | undefined;
};

/**
 * A machine's exported type, written out so that the published declarations name it instead of
 * printing the inferred one (whose unions come out in a different order from build to build).
 * Its state value is any `StateValue` and its action and guard names any string; the context,
 * events, actors, input, output and emitted events are the machine's own. 14 type arguments: the
 * arity `StateMachine` has over the whole peer range (5.21 has no 15th).
 */
export type MachineOf<
  TContext extends MachineContext,
  TEvent extends EventObject,
  TActors extends { [K in keyof TActors]: AnyActorLogic },
  TInput,
  TOutput,
  TEmitted extends EventObject,
> = StateMachine<
  TContext,
  TEvent,
  ChildrenOf<TActors>,
  ProvidedActorsOf<TActors>,
  ParameterizedObject,
  ParameterizedObject,
  string,
  StateValue,
  string,
  TInput,
  TOutput,
  TEmitted,
  MetaObject,
  StateSchema
>;
