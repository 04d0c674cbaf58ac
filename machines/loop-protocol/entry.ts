/**
 * The entry contract: wait for START, complete the contract (infer low-risk fields), and stop for
 * user direction on material ones. Top-level states of the overview diagram.
 */
import { assign } from 'xstate';
import { loopProtocolSetup } from './setup.js';
import { completion } from './views.js';

/** Waiting for the entry contract (START). */
export const idleState = loopProtocolSetup.createStateConfig({
  description: 'Waiting for the entry contract.',
  on: {
    START: {
      target: 'entry',
      actions: assign({
        start: ({ event }) => {
          const { type: _type, contract: _contract, ...settings } = event;
          return settings;
        },
        given: ({ event }) => event.contract,
      }),
    },
  },
});

/** The entry contract: E1 invalid, E2 stop for direction, E3 complete. */
export const entryState = loopProtocolSetup.createStateConfig({
  description: 'Entry contract: infer low-risk fields, stop for direction on material ones.',
  always: [
    {
      description: 'E1 a present field is invalid',
      guard: 'entryInvalid',
      target: 'invalidContract',
      actions: assign({
        findings: ({ context }) => {
          const done = completion(context);
          return done.kind === 'invalid' ? done.findings : [];
        },
      }),
    },
    {
      description: 'E2 stop for user direction',
      guard: 'entryNeedsDirection',
      target: 'awaitingDirection',
      actions: assign({
        missing: ({ context }) => {
          const done = completion(context);
          return done.kind === 'stop' ? done.missing : [];
        },
        inferred: ({ context }) => {
          const done = completion(context);
          return done.kind === 'invalid' ? [] : done.inferred;
        },
      }),
    },
    {
      description: 'E3 contract complete',
      target: 'baseline',
      actions: assign(({ context }) => {
        const done = completion(context);
        return done.kind === 'complete'
          ? { contract: done.contract, inferred: done.inferred, missing: [] }
          : {};
      }),
    },
  ],
});

/** Stopped for user direction until DIRECTION or CANCEL. */
export const awaitingDirectionState = loopProtocolSetup.createStateConfig({
  description: 'Stopped for user direction: the missing material fields are named.',
  on: {
    DIRECTION: {
      target: 'entry',
      actions: assign({ given: ({ context, event }) => ({ ...context.given, ...event.fields }) }),
    },
    CANCEL: { target: 'cancelledBeforeStart' },
  },
});
