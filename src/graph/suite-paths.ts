/**
 * Turning event sequences into suite paths (internal to src/graph; not part of loopchart/testing):
 * a walk through the explorer's own steps, and the JSON form of its nodes and events.
 */
import { createHash } from 'node:crypto';
import type { AnyEventObject } from 'xstate';
import { shortEventLabel } from './labels.js';
import type { ModelExplorer, ModelState, StepDelivery } from './model-exploration.js';
import type { ModelStateJson, PathStep, SuitePath } from './path-suite-schema.js';
import { stateValueLabel } from './state-value-label.js';

/** A planned path walked through the explorer: the node before the first event, then one per event. */
export interface WalkedPath {
  readonly events: readonly AnyEventObject[];
  readonly deliveries: readonly StepDelivery[];
  /** `states[0]` is the initial node; `states[i + 1]` is reached by `events[i]`. */
  readonly states: readonly ModelState[];
}

// Walks the path through the explorer's own steps from the initial state; each node carries the
// transitions its pure macrostep took. The live runner later checks them against a real actor.
export function walk(explorer: ModelExplorer, events: readonly AnyEventObject[]): WalkedPath {
  const states: ModelState[] = [explorer.initial];
  const deliveries: StepDelivery[] = [];
  for (const event of events) {
    const delivery = explorer.deliveryOf(event);
    deliveries.push(delivery);
    states.push(explorer.advance(states[states.length - 1] as ModelState, event, delivery));
  }
  return { events, deliveries, states };
}

/**
 * Builds the JSON forms once per node and event. Steps share them (a step's `stateAfter` is the
 * next step's `stateBefore`), so treat a suite as immutable or serialize it before editing.
 */
export function createJsonCache() {
  const states = new WeakMap<ModelState, ModelStateJson>();
  const events = new WeakMap<AnyEventObject, PathStep['event']>();
  return {
    state(node: ModelState): ModelStateJson {
      let json = states.get(node);
      if (!json) {
        json = JSON.parse(
          JSON.stringify({
            value: node.snapshot.value,
            status: node.snapshot.status,
            projection: node.projection,
          }),
        ) as ModelStateJson;
        states.set(node, json);
      }
      return json;
    },
    // Events come from the model's JSON payload cases or from the machine's own timers.
    event(event: AnyEventObject): PathStep['event'] {
      let json = events.get(event);
      if (!json) {
        json = JSON.parse(JSON.stringify(event)) as PathStep['event'];
        events.set(event, json);
      }
      return json;
    },
  };
}

export function toSuitePath(path: WalkedPath, json: ReturnType<typeof createJsonCache>): SuitePath {
  const steps: PathStep[] = path.events.map((event, index) => {
    const after = path.states[index + 1] as ModelState;
    return {
      stateBefore: json.state(path.states[index] as ModelState),
      event: json.event(event),
      delivery: path.deliveries[index] as StepDelivery,
      stateAfter: json.state(after),
      transitions: [...after.transitions],
    };
  });
  return { id: pathId(steps), description: describePath(path.events, steps), steps };
}

function pathId(steps: readonly PathStep[]): string {
  const events = JSON.stringify(steps.map((step) => step.event));
  return `p-${createHash('sha256').update(events).digest('hex').slice(0, 12)}`;
}
/** Longest payload text a path description shows per event; the step itself has the full payload. */
const PAYLOAD_SHOWN = 60;

function describePath(events: readonly AnyEventObject[], steps: readonly PathStep[]): string {
  const last = steps[steps.length - 1];
  const reached = last ? stateValueLabel(last.stateAfter.value as never) : '?';
  const labels = events.map((event) => {
    const { type, ...payload } = event;
    // An actor outcome shows its output or error; other events show their fields.
    const shown = 'output' in payload ? payload.output : 'error' in payload ? payload.error : payload;
    const text = shown === undefined ? '' : JSON.stringify(shown);
    const clipped = text.length > PAYLOAD_SHOWN ? `${text.slice(0, PAYLOAD_SHOWN - 1)}…` : text;
    return clipped === '' || clipped === '{}' ? shortEventLabel(type) : `${shortEventLabel(type)} ${clipped}`;
  });
  return `reaches ${reached} by ${labels.join(' → ')}`;
}
