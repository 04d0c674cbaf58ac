/**
 * A host's effect may reject with something that is not an `Error`. The loop records what the
 * host said, never "[object Object]" (finding of the oracles, docs/proof.md).
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, toPromise } from 'xstate';
import { loopImplementationMachine } from '../../machines/loop-implementation/index.js';

async function failWith(rejection: unknown) {
  const machine = loopImplementationMachine.provide({
    actors: {
      inspectWorkspace: fromPromise(async () => {
        throw rejection;
      }),
    } as never,
  });
  const actor = createActor(machine, {
    input: { ledgerPath: 'ledger.md', specPath: 'spec.md', verification: 'npm test' },
  });
  actor.start();
  await toPromise(actor).catch(() => undefined);
  const snapshot = actor.getSnapshot();
  actor.stop();
  return snapshot;
}

describe('an effect rejecting with a plain value', () => {
  it('records the message of an error-shaped object', async () => {
    const snapshot = await failWith({ message: 'disk went away', code: 'EIO' });
    expect(snapshot.value).toBe('failed');
    expect(snapshot.context.error).toBe('disk went away');
  });

  it('records the JSON of an object without a message, and a string as itself', async () => {
    expect((await failWith({ code: 'EIO', errno: -5 })).context.error).toBe('{"code":"EIO","errno":-5}');
    expect((await failWith('plain text')).context.error).toBe('plain text');
  });

  it('still records an Error by its message', async () => {
    expect((await failWith(new Error('real error'))).context.error).toBe('real error');
  });
});
