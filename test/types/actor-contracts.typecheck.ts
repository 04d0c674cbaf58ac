/**
 * Type-level test of the typed actor contracts (issue 14), compiled by `npm run typecheck` (tsc
 * over test/): every `@ts-expect-error` below must meet an error, or tsc fails with "unused
 * directive". A host implementing an actor in a module of its own (host-dispatch-actor.ts) gets a
 * type error for an input it does not receive and for an output of the wrong shape, and the
 * machine accepts the right implementations in `provide`.
 */
import { fromPromise, type InputFrom, type OutputFrom } from 'xstate';
import {
  type ActorInput,
  type ActorOutput,
  type ChildReport,
  type CommitRequest,
  type DispatchChildInput,
  type LoopImplementationActorContracts,
  type LoopImplementationActors,
  type LoopOutput,
  loopImplementationMachine,
  type RpiActors,
  type SubjectMeasure,
} from '../../src/entry-machines.js';
import { dispatchChild, measureSubject } from './host-dispatch-actor.js';

/** `true` only when A and B are the same type. */
type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const same = <A, B>(value: Equal<A, B>): Equal<A, B> => value;

// The contracts are named: an actor's input and output are no longer `any`.
same<InputFrom<LoopImplementationActors['dispatchChild']>, DispatchChildInput>(true);
same<OutputFrom<LoopImplementationActors['dispatchChild']>, ChildReport>(true);
same<InputFrom<LoopImplementationActors['commitLedger']>, CommitRequest>(true);
same<ActorInput<LoopImplementationActorContracts, 'commitLedger'>, CommitRequest>(true);
same<ActorOutput<LoopImplementationActorContracts, 'commitLedger'>, { readonly head: string }>(true);
same<OutputFrom<RpiActors['measureSubject']>, SubjectMeasure>(true);
same<InputFrom<LoopImplementationActors['dispatchChild']>, { plan: string }>(
  // @ts-expect-error the input is the contract's, not any other shape
  true,
);

// The machine declares its output.
same<OutputFrom<typeof loopImplementationMachine>, LoopOutput>(true);

// The host's separate module is accepted by the machine.
loopImplementationMachine.provide({ actors: { dispatchChild } });

// Wrong shapes, written as a host would write them in its own module:
export const readsAnInputItDoesNotGet: LoopImplementationActors['dispatchChild'] = fromPromise(
  async ({ input }) => ({
    // @ts-expect-error `dispatchChild` is not given a `worktree`
    returned: input.worktree,
  }),
);

// @ts-expect-error `commitLedger` resolves to `{ head: string }`, not a number
export const returnsTheWrongOutput: LoopImplementationActors['commitLedger'] = fromPromise(async () => ({
  head: 42,
}));

// @ts-expect-error an actor typed for another input is not `commitLedger`
export const declaresAnotherInput: LoopImplementationActors['commitLedger'] = fromPromise<
  { head: string },
  { ledgerPath: string }
>(async () => ({ head: 'abc' }));

// @ts-expect-error rpi's measureSubject resolves to a SubjectMeasure (digest and changed paths)
export const wrongMeasure: RpiActors['measureSubject'] = fromPromise(async () => ({ digest: 'x' }));

loopImplementationMachine.provide({
  actors: {
    // @ts-expect-error provide() refuses an actor whose output breaks the contract
    commitLedger: fromPromise(async () => ({ head: 42 })),
  },
});

export { measureSubject };
