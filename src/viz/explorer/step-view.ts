/**
 * What the explorer shows of one step, computed on the server from the machine definition: the
 * active states and their diagram elements, the transitions taken and the guard outcomes they
 * prove, the actors the active states invoke. Shared by simulation (session.ts) and live
 * inspection (live.ts), so a simulated step and a real one read the same.
 */
import type { AnyMachineSnapshot, AnyStateMachine, AnyStateNode } from 'xstate';
import type { JsonValue } from '../../common/json-value.js';
import { shortEventLabel } from '../../graph/labels.js';
import { matchesDescriptor } from '../../graph/machine-model.js';
import { stateValueLabel } from '../../graph/state-value-label.js';
import { enumerateTransitions, type TransitionInfo } from '../../graph/transitions.js';
import { stateElementId, transitionElementId } from '../element-ids.js';
import { transitionLabel } from '../viewer/run-view.js';

/** A transition taken, as the page lists and highlights it. */
export interface TakenTransition {
  readonly key: string;
  /** `source --event [guard] rule--> target`, state keys relative to the machine. */
  readonly label: string;
  /** SVG element ids of its drawn edges. */
  readonly elements: readonly string[];
}

/** One guard evaluated by a step, with the outcome the step proves. */
export interface GuardOutcome {
  /** The guarded transition's key `<source id>|<event type>|<index>`. */
  readonly key: string;
  /** The guard as written (`choiceApplies`, `and(a, not(b))`). */
  readonly guard: string;
  /** The rule the transition implements (`R3 row stop`), if labelled. */
  readonly rule?: string;
  /** Position in its ordered fan, 1-based (the order XState tries the candidates in). */
  readonly order: number;
  readonly outcome: boolean;
  /** Why the outcome is known: the candidate taken, or the candidate taken after it. */
  readonly reason: string;
}

/** An actor an active state invokes. */
export interface InvokedActor {
  /** The invoke id (the suffix of its done / error event types). */
  readonly id: string;
  /** The actor's name in `setup({ actors })`. */
  readonly src: string;
  /** The state that invokes it, relative to the machine. */
  readonly state: string;
}

/** Where a snapshot is on the diagram. */
export interface StatePlacement {
  readonly value: JsonValue;
  readonly status: string;
  /** `implement.running`, regions joined with `+`. */
  readonly stateLabel: string;
  /** Ids of the active leaf states (atomic or final). */
  readonly activeStates: readonly string[];
  readonly activeElements: readonly string[];
  /** SVG ids of the active compound and parallel states. */
  readonly parentElements: readonly string[];
  /** SVG id of the top-level state holding the first active leaf (the page zooms to it). */
  readonly regionElement: string | null;
  readonly actors: readonly InvokedActor[];
}

/** Facts about a machine's transitions computed once per machine. */
export interface MachineFacts {
  readonly machine: AnyStateMachine;
  readonly byKey: ReadonlyMap<string, TransitionInfo>;
  /** Candidates per `<source id>|<event type>`, in evaluation order. */
  readonly fans: ReadonlyMap<string, readonly TransitionInfo[]>;
}

/** Indexes the transitions of `machine`. */
export function machineFacts(machine: AnyStateMachine): MachineFacts {
  const all = enumerateTransitions(machine);
  const fans = new Map<string, TransitionInfo[]>();
  for (const info of all) {
    const fan = `${info.source}|${info.eventType}`;
    fans.set(fan, [...(fans.get(fan) ?? []), info]);
  }
  for (const fan of fans.values()) fan.sort((a, b) => a.index - b.index);
  return { machine, byKey: new Map(all.map((t) => [t.key, t])), fans };
}

function relative(machine: AnyStateMachine, id: string): string {
  const prefix = `${machine.id}.`;
  return id.startsWith(prefix) ? id.slice(prefix.length) : id;
}

/** The transitions a step took, labelled and mapped to the diagram. */
export function takenTransitions(facts: MachineFacts, keys: readonly string[]): TakenTransition[] {
  return keys.map((key) => {
    const info = facts.byKey.get(key);
    if (info === undefined) return { key, label: key, elements: [] };
    return {
      key,
      label: transitionLabel(facts.machine, info),
      elements: info.targets.map((_, index) => transitionElementId(key, index)),
    };
  });
}

/**
 * The guard outcomes a step proves. XState tries the candidates of one source for one event in
 * order and takes the first whose guard holds, so a step that took candidate `k` showed its guard
 * true and every guarded candidate before it false. A sent event that took no transition showed
 * every guarded candidate the active states have for it false (an unguarded one would have fired).
 *
 * @param taken keys of the transitions the step took, in microstep order
 * @param refused when the step took nothing: the event type and the state nodes active before it
 */
export function guardOutcomes(
  facts: MachineFacts,
  taken: readonly string[],
  refused?: { readonly eventType: string; readonly nodes: readonly AnyStateNode[] },
): GuardOutcome[] {
  const outcomes: GuardOutcome[] = [];
  const seen = new Set<string>();
  const push = (info: TransitionInfo, outcome: boolean, reason: string) => {
    if (info.guard === undefined) return;
    const id = `${info.key}:${outcome}`;
    if (seen.has(id)) return;
    seen.add(id);
    outcomes.push({
      key: info.key,
      guard: info.guard,
      ...(info.rule === undefined ? {} : { rule: info.rule }),
      order: info.index + 1,
      outcome,
      reason,
    });
  };
  for (const key of taken) {
    const info = facts.byKey.get(key);
    if (info === undefined) continue;
    const fan = facts.fans.get(`${info.source}|${info.eventType}`) ?? [];
    const name = `candidate ${info.index + 1}${info.rule === undefined ? '' : ` (${info.rule})`}`;
    for (const earlier of fan) {
      if (earlier.index >= info.index) break;
      push(earlier, false, `tried before ${name}, which was taken`);
    }
    push(info, true, 'its transition was taken');
  }
  if (refused !== undefined && taken.length === 0) {
    for (const node of refused.nodes) {
      for (const descriptor of node.transitions.keys()) {
        if (!matchesDescriptor(refused.eventType, descriptor)) continue;
        for (const info of facts.fans.get(`${node.id}|${descriptor}`) ?? [])
          push(info, false, `${shortEventLabel(refused.eventType)} took no transition`);
      }
    }
  }
  return outcomes;
}

/** Places a snapshot on the diagram and lists the actors its active states invoke. */
export function placeSnapshot(machine: AnyStateMachine, snapshot: AnyMachineSnapshot): StatePlacement {
  const nodes = (snapshot._nodes as AnyStateNode[]).filter((node) => node !== machine.root);
  const leaves = nodes.filter((node) => node.type === 'atomic' || node.type === 'final');
  const parents = nodes.filter((node) => node.type === 'compound' || node.type === 'parallel');
  const first = leaves[0];
  let region: AnyStateNode | undefined = first;
  while (region?.parent !== undefined && region.parent !== machine.root) region = region.parent;
  const actors: InvokedActor[] = [];
  for (const node of nodes) {
    for (const invoke of node.invoke as { id: string; src: unknown }[]) {
      actors.push({
        id: invoke.id,
        src: typeof invoke.src === 'string' ? invoke.src : invoke.id,
        state: relative(machine, node.id),
      });
    }
  }
  return {
    value: JSON.parse(JSON.stringify(snapshot.value)) as JsonValue,
    status: snapshot.status,
    stateLabel: stateValueLabel(snapshot.value as never),
    activeStates: leaves.map((node) => node.id),
    activeElements: leaves.map((node) => stateElementId(node.id)),
    parentElements: parents.map((node) => stateElementId(node.id)),
    regionElement: region === undefined ? null : stateElementId(region.id),
    actors,
  };
}
