/**
 * A host's actor implementations in a module of their own, typed only by the exported contract
 * types (test/types/actor-contracts.typecheck.ts checks the wrong shapes; `npm run typecheck`
 * compiles both).
 */
import { fromPromise } from 'xstate';
import type {
  ChildReport,
  DispatchChildInput,
  LoopImplementationActors,
  RpiActors,
} from '../../src/entry-machines.js';

/** Runs "the agent" for a plan: what a host's own child runner would be. */
async function runMyAgent(input: DispatchChildInput, signal: AbortSignal): Promise<ChildReport> {
  if (signal.aborted) return { returned: null, dispatchError: 'aborted' };
  return { returned: null, dispatchError: `no agent for iteration ${input.plan.iteration}` };
}

/** `dispatchChild`: input and output come from the contract, nothing is spelled out here. */
export const dispatchChild: LoopImplementationActors['dispatchChild'] = fromPromise(
  async ({ input, signal }) => runMyAgent(input, signal),
);

/** `measureSubject` of the rpi machine. */
export const measureSubject: RpiActors['measureSubject'] = fromPromise(async ({ input }) => ({
  digest: `digest-of-round-${input.round}`,
  changedPaths: [],
}));
