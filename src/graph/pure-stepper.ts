import {
  type ActorScope,
  type AnyActorRef,
  type AnyEventObject,
  type AnyMachineSnapshot,
  type AnyStateMachine,
  type AnyStateNode,
  createEmptyActor,
  type InspectionEvent,
} from 'xstate';
import { transitionKeyOf } from './transitions.js';

/** A change to the machine's pending delayed events made during one step, in the order made. */
export type TimerOperation =
  | { readonly kind: 'schedule'; readonly id: string; readonly event: AnyEventObject; readonly delay: number }
  | { readonly kind: 'cancel'; readonly id: string };

/** What one pure step did. */
export interface PureStep {
  /** The snapshot after the step (the macrostep, plus events the machine sent to itself). */
  readonly snapshot: AnyMachineSnapshot;
  /** Keys of the transitions taken, in microstep order, `always` microsteps included. */
  readonly transitions: readonly string[];
  /** Ids of every state node active at some microstep of the step, transient ones included. */
  readonly states: readonly string[];
  /** Delayed events scheduled or cancelled (after timers, delayed raise/sendTo to self). */
  readonly timers: readonly TimerOperation[];
}

/**
 * Steps a machine without running any side effect: no invoked actor starts, no custom action runs,
 * no timer is armed. One inert actor scope is reused for every step (building one per call is what
 * makes XState's exported `transition()` slow), and its system reports microsteps, so each step
 * knows the transitions it took, `always` ones included.
 */
export interface PureStepper {
  /** The initial snapshot for `input`, with the `always` transitions taken on the way. */
  initial(input: unknown): PureStep;
  /** The result of sending `event` to a machine in `snapshot`. Throws what the machine throws. */
  step(snapshot: AnyMachineSnapshot, event: AnyEventObject): PureStep;
}

/** How many events a machine may send itself within one step before we call it a loop. */
const SELF_SEND_LIMIT = 100;

/**
 * Creates a {@link PureStepper} for `machine`.
 *
 * @param machine an XState v5 machine (any `provide()` variant)
 */
export function createPureStepper(machine: AnyStateMachine): PureStepper {
  const self = createEmptyActor();
  const system = self.system as AnyActorRef['system'] & { _set: (id: string, ref: AnyActorRef) => void };
  // Pure stepping never stops children, so an invoke with a `systemId` would collide with its own
  // earlier, never-unregistered instance when its state is entered again. Nothing is looked up
  // by system id while stepping purely, so registration is dropped.
  system._set = () => {};

  let transitions: string[] = [];
  let states = new Set<string>();
  let timers: TimerOperation[] = [];
  let selfSends: AnyEventObject[] = [];
  let anonymousTimers = 0;

  system.inspect((event: InspectionEvent) => {
    if (event.type !== '@xstate.microstep' || event.actorRef !== self) return;
    for (const taken of event._transitions) {
      transitions.push(transitionKeyOf(taken));
      states.add((taken.source as AnyStateNode).id);
    }
    for (const node of (event.snapshot as AnyMachineSnapshot)._nodes as AnyStateNode[]) states.add(node.id);
  });

  const recordAction = (action: { type: string; params?: unknown }): void => {
    const params = (action.params ?? {}) as {
      event?: AnyEventObject;
      delay?: unknown;
      id?: unknown;
      to?: unknown;
      sendId?: unknown;
    };
    const toSelf = action.type === 'xstate.raise' || (action.type === 'xstate.sendTo' && params.to === self);
    if (toSelf && params.event) {
      if (typeof params.delay === 'number') {
        const id = typeof params.id === 'string' ? params.id : `anonymous-timer-${anonymousTimers++}`;
        timers.push({ kind: 'schedule', id, event: params.event, delay: params.delay });
      } else if (action.type === 'xstate.sendTo') {
        // A live actor receives an event sent to itself after the current macrostep.
        selfSends.push(params.event);
      }
    } else if (action.type === 'xstate.cancel' && typeof params.sendId === 'string') {
      timers.push({ kind: 'cancel', id: params.sendId });
    }
  };

  const scope = {
    self,
    id: '',
    sessionId: self.sessionId,
    logger: () => {},
    defer: () => {},
    system,
    stopChild: () => {},
    emit: () => {},
    actionExecutor: recordAction,
  } as unknown as ActorScope<AnyMachineSnapshot, AnyEventObject>;

  const begin = (): void => {
    transitions = [];
    states = new Set();
    timers = [];
    selfSends = [];
  };
  const finish = (snapshot: AnyMachineSnapshot): PureStep => {
    let current = snapshot;
    for (let sent = 0; selfSends.length > 0 && current.status === 'active'; sent++) {
      if (sent >= SELF_SEND_LIMIT) {
        throw new Error(`the machine sent itself more than ${SELF_SEND_LIMIT} events within one step`);
      }
      const next = selfSends.shift() as AnyEventObject;
      current = machine.transition(current, next, scope);
    }
    for (const node of current._nodes as AnyStateNode[]) states.add(node.id);
    return { snapshot: current, transitions, states: [...states], timers };
  };

  return {
    initial(input) {
      begin();
      return finish(machine.getInitialSnapshot(scope, input));
    },
    step(snapshot, event) {
      begin();
      return finish(machine.transition(snapshot, event, scope));
    },
  };
}
