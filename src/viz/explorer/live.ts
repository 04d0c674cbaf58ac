/**
 * Live inspection: the XState inspection events of a running actor, turned into the explorer's
 * step views and streamed to pages as server-sent events. Every message is kept, so a page that
 * connects late replays the run from its start; the run transcript stays the durable record.
 */
import type { ServerResponse } from 'node:http';
import type {
  AnyEventObject,
  AnyMachineSnapshot,
  AnyStateMachine,
  AnyStateNode,
  AnyTransitionDefinition,
  InspectionEvent,
} from 'xstate';
import type { JsonValue } from '../../common/json-value.js';
import { shortEventLabel } from '../../graph/labels.js';
import type { MachineModel } from '../../graph/machine-model.js';
import { transitionKeyOf } from '../../graph/transitions.js';
import {
  type GuardOutcome,
  guardOutcomes,
  machineFacts,
  placeSnapshot,
  type StatePlacement,
  type TakenTransition,
  takenTransitions,
} from './step-view.js';

/** One processed event of the running actor, as the page shows it. */
export interface LiveStep {
  readonly kind: 'step';
  /** 1-based count of processed events. */
  readonly seq: number;
  readonly event: string;
  readonly label: string;
  readonly state: StatePlacement;
  readonly transitions: readonly TakenTransition[];
  readonly guards: readonly GuardOutcome[];
  /** The model's projection of the context (the whole context is not streamed). */
  readonly projection: JsonValue | null;
  /** Ids of the actors running under the root actor after the step. */
  readonly running: readonly string[];
}

/** The end of the run: how the host says it ended. */
export interface LiveEnd {
  readonly kind: 'end';
  readonly status: string;
  readonly state: string;
  readonly text?: string;
}

/** A message of the live stream. */
export type LiveMessage = LiveStep | LiveEnd;

/** Collects one run's inspection events and serves them to pages. */
export interface LiveHub {
  /** The machine name the page draws (e.g. `loop-implementation`). */
  readonly name: string;
  readonly machine: AnyStateMachine;
  /** Pass as `inspect` to `createActor` (or `LoopRunnerOptions.inspect`). */
  inspect(event: InspectionEvent): void;
  /** Marks the run ended; connected pages get the message, later ones replay it. */
  end(result: Omit<LiveEnd, 'kind'>): void;
  /** Every message so far. */
  messages(): readonly LiveMessage[];
  /** Streams to one page (an SSE response): the messages so far, then each new one. */
  attach(response: ServerResponse): void;
  /** Resolves once a page is attached (for `--inspect-wait`). */
  attached(): Promise<void>;
  /** Ends every open stream once what was written to it is sent. */
  close(): Promise<void>;
}

/**
 * Creates a hub for a run of `machine`.
 *
 * @param model its model, for the projection shown with each step (optional)
 */
export function createLiveHub(name: string, machine: AnyStateMachine, model?: MachineModel): LiveHub {
  const facts = machineFacts(machine);
  const messages: LiveMessage[] = [];
  const clients = new Set<ServerResponse>();
  let rootSessionId: string | null = null;
  let steps = 0;
  let pending: string[] = [];
  let lastNodes: AnyStateNode[] = [];
  let onAttach: (() => void) | null = null;
  const firstAttach = new Promise<void>((resolve) => {
    onAttach = resolve;
  });

  const write = (response: ServerResponse, message: LiveMessage) => {
    response.write(`data: ${JSON.stringify(message)}\n\n`);
  };
  const publish = (message: LiveMessage) => {
    messages.push(message);
    for (const client of clients) write(client, message);
  };

  const projectionOf = (snapshot: AnyMachineSnapshot): JsonValue | null => {
    if (model?.project === undefined) return null;
    try {
      return JSON.parse(JSON.stringify(model.project(snapshot) ?? null)) as JsonValue;
    } catch (error) {
      return { unavailable: error instanceof Error ? error.message : String(error) };
    }
  };

  return {
    name,
    machine,
    inspect(event) {
      if (rootSessionId === null && event.type === '@xstate.actor') rootSessionId = event.actorRef.sessionId;
      if (event.actorRef.sessionId !== rootSessionId) return;
      if (event.type === '@xstate.microstep') {
        const taken = (event as unknown as { _transitions: AnyTransitionDefinition[] })._transitions;
        pending.push(...taken.map(transitionKeyOf));
        return;
      }
      if (event.type !== '@xstate.snapshot') return;
      const snapshot = event.snapshot as AnyMachineSnapshot;
      const processed = event.event as AnyEventObject;
      if (processed.type === 'xstate.stop') return;
      const keys = pending;
      pending = [];
      const before = lastNodes;
      lastNodes = snapshot._nodes as AnyStateNode[];
      publish({
        kind: 'step',
        seq: ++steps,
        event: processed.type,
        label: shortEventLabel(processed.type),
        state: placeSnapshot(machine, snapshot),
        transitions: takenTransitions(facts, keys),
        guards: guardOutcomes(facts, keys, { eventType: processed.type, nodes: before }),
        projection: projectionOf(snapshot),
        running: Object.keys(snapshot.children ?? {}),
      });
    },
    end(result) {
      publish({ kind: 'end', ...result });
    },
    messages: () => messages,
    attach(response) {
      response.writeHead(200, {
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-store',
        connection: 'keep-alive',
      });
      for (const message of messages) write(response, message);
      clients.add(response);
      response.on('close', () => clients.delete(response));
      onAttach?.();
      onAttach = null;
    },
    attached: () => firstAttach,
    async close() {
      const open = [...clients];
      clients.clear();
      await Promise.all(
        open.map(
          (client) =>
            new Promise<void>((resolve) => {
              if (client.writableFinished || client.destroyed) resolve();
              else {
                client.once('close', () => resolve());
                client.end(() => resolve());
              }
            }),
        ),
      );
    },
  };
}
