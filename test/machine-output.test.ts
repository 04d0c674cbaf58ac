/**
 * Every registered machine declares its `output` (issue 14), and the loop engine's output says
 * which final state it reached: here an effect that fails at the first step ends the run in
 * `failed`, with the effect's message.
 */
import { describe, expect, it } from 'vitest';
import { createActor, fromPromise, toPromise } from 'xstate';
import { machines } from '../machines/index.js';
import {
  type InspectWorkspaceInput,
  loopImplementationMachine,
  type WorkspaceFacts,
} from '../machines/loop-implementation/index.js';

describe('machine output', () => {
  it.each(Object.keys(machines))('%s declares an output', (name) => {
    const machine = machines[name as keyof typeof machines];
    expect(machine.config.output).toBeDefined();
  });

  it('the loop engine resolves with its final state and the failed effect', async () => {
    const machine = loopImplementationMachine.provide({
      actors: {
        inspectWorkspace: fromPromise<WorkspaceFacts, InspectWorkspaceInput>(async () => {
          throw new Error('the workspace cannot be read');
        }),
      },
    });
    const actor = createActor(machine, {
      input: { ledgerPath: 'docs/plans/x.md', specPath: 'docs/specs/x.md', verification: 'true' },
    }).start();
    const output = await toPromise(actor);
    expect(actor.getSnapshot().value).toBe('failed');
    expect(output).toEqual({
      status: 'failed',
      message: expect.stringContaining('the workspace cannot be read'),
    });
  });
});
