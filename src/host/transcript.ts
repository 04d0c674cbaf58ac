/**
 * The run transcript: one evidence-ledger record (src/loop-protocol/transcript-record.ts) per
 * event the root machine processes, appended as JSON lines to a file. Every runner of the project
 * writes it, so `loopchart report` and `loopchart view` read any run the same way.
 *
 * The recorder is an XState inspector: pass its `inspect` to `createActor`. Transitions come from
 * `@xstate.microstep` (the only place eventless `always` transitions are reported), the state from
 * the `@xstate.snapshot` that closes each macrostep. Each line is appended synchronously so that
 * the transcript on disk never runs behind the side effects it describes.
 */
import { appendFileSync, mkdirSync } from 'node:fs';
import { dirname } from 'node:path';
import type { AnyMachineSnapshot, AnyTransitionDefinition, InspectionEvent } from 'xstate';
import { serializeTranscriptRecord } from '../loop-protocol/transcript.js';
import type { TranscriptRecord, TransitionRef } from '../loop-protocol/transcript-record.js';

/** The machine-specific evidence of one record; everything not given is null. */
export type TranscriptFields = Partial<
  Pick<
    TranscriptRecord,
    | 'cycle'
    | 'observation'
    | 'fingerprint'
    | 'action'
    | 'evidence'
    | 'progressDelta'
    | 'verifierResult'
    | 'decision'
    | 'terminalCheck'
    | 'budget'
    | 'closing'
    | 'data'
  >
>;

/** What the projector sees for one processed event. */
export interface TranscriptStep {
  /** The snapshot after the event. */
  readonly snapshot: AnyMachineSnapshot;
  /** The event the machine processed (actor outcomes are `xstate.done.actor.<id>` events). */
  readonly event: { readonly type: string; readonly [key: string]: unknown };
  /** The transitions the event caused, in microstep order. */
  readonly transitions: readonly TransitionRef[];
  /** How many records were written before this one. */
  readonly index: number;
}

/** Options of {@link createTranscriptRecorder}. */
export interface TranscriptOptions {
  /** The JSONL file to append to (created with its directory when missing). */
  readonly path: string;
  /** The machine's registry name, written in every record. */
  readonly machine: string;
  /** Machine-specific fields of a record; return `null` to skip the event (e.g. an internal no-op). */
  readonly project: (step: TranscriptStep) => TranscriptFields | null;
  /** The clock; defaults to `new Date()`. */
  readonly now?: () => Date;
  /**
   * Records already in the file from the run this one resumes: the replay produces them again in
   * the same order, so the first `alreadyWritten` records are counted but not appended twice.
   */
  readonly alreadyWritten?: number;
}

/** A transcript recorder: hand `inspect` to `createActor`. */
export interface TranscriptRecorder {
  readonly inspect: (event: InspectionEvent) => void;
  /** Records written so far by this recorder. */
  readonly written: () => number;
}

/**
 * The coverage key of a transition definition, `<source id>|<event type>|<index>` — the same key
 * src/graph uses, so a transcript can be laid over a coverage report or a diagram.
 */
export function transitionRef(transition: AnyTransitionDefinition): TransitionRef {
  const source = transition.source;
  const candidates =
    transition.eventType === ''
      ? (source.always ?? [])
      : (source.transitions.get(transition.eventType) ?? []);
  const index = candidates.indexOf(transition);
  const description = transition.description;
  return {
    key: `${source.id}|${transition.eventType}|${index}`,
    source: source.id,
    event: transition.eventType,
    index,
    targets: (transition.target ?? []).map((node) => node.id),
    ...(description === undefined ? {} : { description }),
  };
}

/**
 * Creates a recorder that appends one record per event the root actor processes.
 *
 * @param options file, machine name, projector and clock
 */
export function createTranscriptRecorder(options: TranscriptOptions): TranscriptRecorder {
  mkdirSync(dirname(options.path), { recursive: true });
  const now = options.now ?? (() => new Date());
  let pending: TransitionRef[] = [];
  let count = 0;
  let rootSessionId: string | null = null;

  const inspect = (event: InspectionEvent): void => {
    // The root actor is the first actor the inspector hears about; children (invoked actors) are ignored.
    if (rootSessionId === null && event.type === '@xstate.actor') rootSessionId = event.actorRef.sessionId;
    if (event.actorRef.sessionId !== rootSessionId) return;
    if (event.type === '@xstate.microstep') {
      const transitions = (event as unknown as { _transitions: AnyTransitionDefinition[] })._transitions;
      pending.push(...transitions.map(transitionRef));
      return;
    }
    if (event.type !== '@xstate.snapshot') return;
    const snapshot = event.snapshot as AnyMachineSnapshot;
    const processed = event.event as TranscriptStep['event'];
    const transitions = pending;
    pending = [];
    const fields = options.project({ snapshot, event: processed, transitions, index: count });
    if (fields === null) return;
    const record: TranscriptRecord = {
      version: 1,
      machine: options.machine,
      cycle: fields.cycle ?? 0,
      timestamp: now().toISOString(),
      state: snapshot.value as TranscriptRecord['state'],
      event: processed.type,
      transition: transitions,
      observation: fields.observation ?? null,
      fingerprint: fields.fingerprint ?? null,
      action: fields.action ?? null,
      evidence: fields.evidence ?? [],
      progressDelta: fields.progressDelta ?? null,
      verifierResult: fields.verifierResult ?? null,
      decision: fields.decision ?? null,
      terminalCheck: fields.terminalCheck ?? null,
      budget: fields.budget ?? null,
      ...(fields.closing === undefined ? {} : { closing: fields.closing }),
      ...(fields.data === undefined ? {} : { data: fields.data }),
    };
    if (count >= (options.alreadyWritten ?? 0))
      appendFileSync(options.path, serializeTranscriptRecord(record));
    count++;
  };
  return { inspect, written: () => count };
}
