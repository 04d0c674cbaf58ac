/**
 * Crank — a thin wave executor over RPI — as an XState v5 statechart.
 *
 * Crank takes the caller's wave as given, runs RPI once per lane, never two lanes that share a
 * write scope or a regen surface at once (unknown overlap counts as overlap), runs the wave
 * acceptance once after every lane has returned, and ends with the evidence. It mints no verdict,
 * repairs no lane and retries nothing: a lane that failed is reported as failed.
 *
 * Lanes are spawned children of the `lanes` state with ids `lane.<lane id>`, all from the named
 * actor `runLane` (the host implements it by running the rpi machine for the lane); the wave
 * acceptance is the named actor `runAcceptance`. Both throw NotProvidedError until the host
 * supplies them with `crankMachine.provide({ actors })`. Which lanes may start is decided by the
 * pure `lanesReadyToStart` over `partitionLanes`' conflicts, so the graph stays the same for any
 * wave: one state that waits for lanes, one that runs the acceptance.
 */

import { assign, enqueueActions, fromPromise, setup } from 'xstate';
import { describeValue } from '../src/common/describe-value.js';
import { NotProvidedError } from '../src/common/errors.js';
import type { ReportStatus } from '../src/convergence/report-status.js';
import type { OpenFinding } from '../src/convergence/round.js';
import type { RpiReportV1 } from '../src/convergence/rpi-report.js';
import type { StopReason } from '../src/convergence/stop-reason.js';
import { type LaneConflict, partitionLanes } from '../src/crank/lane-partition.js';
import { lanesReadyToStart } from '../src/crank/lane-schedule.js';
import type { Lane, Wave } from '../src/crank/wave.js';
import type { ActorContract, ActorImplementations } from './actor-contract.js';
import type { RpiTerminal } from './rpi/index.js';

// ---------------------------------------------------------------------------------------------
// Input, actor contracts, context and output

/** What the host passes when it creates the crank actor: a wave checked by `parseWave`. */
export interface CrankInput {
  readonly wave: Wave;
}

/** What `runLane` is asked to do: one RPI traversal of one lane with the caller's bound. */
export interface LaneRequest {
  readonly lane: Lane;
  /** The wave's `repair_rounds`, forwarded unchanged. */
  readonly repairRounds: number;
}

/** What one lane's RPI returned, cited unchanged. */
export interface LaneReturn {
  /** How the lane's RPI ended. */
  readonly terminal: RpiTerminal;
  /** The lane's report status; null when its RPI produced no report (a refused round, a failed effect). */
  readonly status: ReportStatus | null;
  readonly stopReason: StopReason | null;
  /** The lane's open findings, keyed by id. */
  readonly openFindings: readonly OpenFinding[];
  /** The lane's subject-manifest digest, or null. */
  readonly subjectDigest: string | null;
  readonly report: RpiReportV1 | null;
  /** Why the lane produced no report, when it did not. */
  readonly error: { readonly code: string; readonly message: string } | null;
  /** Where the lane's own transcript is, when the host wrote one. */
  readonly transcript: string | null;
}

/** The evidence for one lane: its return, or the failure of the actor that ran it. */
export interface LaneEvidence extends LaneReturn {
  readonly id: string;
}

/** The wave acceptance's result: a fact about the integrated subject, not a verdict. */
export interface AcceptanceResult {
  readonly passed: boolean;
  /** The commands run, in order. */
  readonly commands: readonly string[];
  /** The first command that did not exit 0, when one did not. */
  readonly failure: {
    readonly command: string;
    readonly exitCode: number;
    readonly logPath: string | null;
    readonly tail: string;
  } | null;
}

/** The crank actor's context: plain JSON. */
export interface CrankContext {
  readonly lanes: readonly Lane[];
  readonly repairRounds: number;
  readonly acceptanceCommands: readonly string[];
  /** Conflicting lane pairs from `partitionLanes` (each `[earlier, later]`). */
  readonly conflicts: readonly LaneConflict[];
  /** Lane ids in the order they were started. */
  readonly started: readonly string[];
  /** Lane ids in the order they returned. */
  readonly returned: readonly string[];
  /** Evidence by lane id. */
  readonly evidence: { readonly [laneId: string]: LaneEvidence };
  readonly acceptance: AcceptanceResult | null;
  /** Why the wave acceptance could not be run, when it could not. */
  readonly failure: { readonly code: string; readonly message: string } | null;
}

/** The wave evidence crank ends with; no next action. */
export interface WaveEvidence {
  /** One entry per caller lane, in caller order. */
  readonly lanes: readonly LaneEvidence[];
  /** The wave acceptance result; null only when it could not be run (see `failure`). */
  readonly acceptance: AcceptanceResult | null;
  readonly failure: { readonly code: string; readonly message: string } | null;
  /** The conflicting pairs that serialized lanes, with their reasons. */
  readonly conflicts: readonly LaneConflict[];
  /** The order lanes were started in. */
  readonly startOrder: readonly string[];
}

/** The spawn id of a lane's RPI actor; its done event is `xstate.done.actor.lane.<id>`. */
export function laneActorId(laneId: string): string {
  return `lane.${laneId}`;
}

const LANE_DONE_PREFIX = 'xstate.done.actor.lane.';
const LANE_ERROR_PREFIX = 'xstate.error.actor.lane.';

/** The lane id a lane actor's done or error event is about, or null for any other event. */
export function laneIdOfEvent(eventType: string): string | null {
  if (eventType.startsWith(LANE_DONE_PREFIX)) return eventType.slice(LANE_DONE_PREFIX.length);
  if (eventType.startsWith(LANE_ERROR_PREFIX)) return eventType.slice(LANE_ERROR_PREFIX.length);
  return null;
}

/**
 * The evidence crank ends with, from its context.
 *
 * @param context the context of a crank actor that reached a final state
 */
export function waveEvidence(context: CrankContext): WaveEvidence {
  return {
    lanes: context.lanes.map((lane) => context.evidence[lane.id] ?? missingEvidence(lane.id)),
    acceptance: context.acceptance,
    failure: context.failure,
    conflicts: context.conflicts,
    startOrder: context.started,
  };
}

function missingEvidence(id: string): LaneEvidence {
  return {
    id,
    terminal: 'failed',
    status: null,
    stopReason: null,
    openFindings: [],
    subjectDigest: null,
    report: null,
    error: { code: 'crank.lane-missing', message: `lane ${id} never returned` },
    transcript: null,
  };
}

function notProvided(name: string) {
  return async (): Promise<never> => {
    throw new NotProvidedError(name);
  };
}

/**
 * The code and message of a rejected lane or acceptance (docs/decisions/rpi.md 39): its own string
 * `code`, else `internal`; its own string `message`, else the rejected value as text (a string as
 * itself, plain data as JSON, never "[object Object]"; `describeValue` never throws).
 */
function errorText(error: unknown): { code: string; message: string } {
  const code =
    typeof error === 'object' && error !== null && typeof (error as { code?: unknown }).code === 'string'
      ? (error as { code: string }).code
      : 'internal';
  const message =
    typeof error === 'object' &&
    error !== null &&
    typeof (error as { message?: unknown }).message === 'string'
      ? (error as { message: string }).message
      : describeValue(error);
  return { code, message };
}

function laneRunning(context: CrankContext, eventType: string): boolean {
  const id = laneIdOfEvent(eventType);
  return id !== null && context.started.includes(id) && !context.returned.includes(id);
}

// ---------------------------------------------------------------------------------------------
// The machine

/** Input of `runAcceptance`: the wave's acceptance commands. */
export interface AcceptanceRequest {
  readonly commands: readonly string[];
}

/** What every actor of the crank machine is invoked with and resolves to, by actor name. */
export interface CrankActorContracts {
  readonly runLane: ActorContract<LaneRequest, LaneReturn>;
  readonly runAcceptance: ActorContract<AcceptanceRequest, AcceptanceResult>;
}

/** The actor logic a host provides to the crank machine, by actor name (`.provide({ actors })`). */
export type CrankActors = ActorImplementations<CrankActorContracts>;

const crankSetup = setup({
  types: {
    context: {} as CrankContext,
    input: {} as CrankInput,
    output: {} as WaveEvidence,
  },
  actors: {
    /** One RPI traversal of one lane (the host runs the rpi machine); returns the lane's evidence. */
    runLane: fromPromise<LaneReturn, LaneRequest>(notProvided('runLane')),
    /** The wave acceptance, run once over the integrated subject. */
    runAcceptance: fromPromise<AcceptanceResult, { commands: readonly string[] }>(
      notProvided('runAcceptance'),
    ),
  } satisfies CrankActors,
  guards: {
    laneRunning: ({ context, event }) => laneRunning(context, event.type),
    lastLaneReturned: ({ context, event }) =>
      laneRunning(context, event.type) && context.returned.length + 1 === context.lanes.length,
  },
  actions: {
    startReadyLanes: enqueueActions(({ context, enqueue }) => {
      const ready = lanesReadyToStart(context.lanes, context.conflicts, context.started, context.returned);
      for (const id of ready) {
        const lane = context.lanes.find((l) => l.id === id) as Lane;
        enqueue.spawnChild('runLane', {
          id: laneActorId(id),
          input: { lane, repairRounds: context.repairRounds },
        });
      }
      if (ready.length > 0) enqueue.assign({ started: [...context.started, ...ready] });
    }),
    recordLaneReturn: assign(({ context, event }) => {
      const id = laneIdOfEvent(event.type) as string;
      const output = (event as unknown as { output: LaneReturn }).output;
      return {
        returned: [...context.returned, id],
        evidence: { ...context.evidence, [id]: { ...output, id } },
      };
    }),
    recordLaneFailure: assign(({ context, event }) => {
      const id = laneIdOfEvent(event.type) as string;
      const evidence: LaneEvidence = {
        ...missingEvidence(id),
        error: errorText((event as unknown as { error: unknown }).error),
      };
      return { returned: [...context.returned, id], evidence: { ...context.evidence, [id]: evidence } };
    }),
    recordAcceptance: assign({
      acceptance: ({ event }) => (event as unknown as { output: AcceptanceResult }).output,
    }),
    recordAcceptanceFailure: assign({
      failure: ({ event }) => errorText((event as unknown as { error: unknown }).error),
    }),
  },
});

/** The crank statechart (registry name `crank`). */
export const crankMachine = crankSetup.createMachine({
  id: 'crank',
  context: ({ input }) => ({
    lanes: input.wave.lanes,
    repairRounds: input.wave.repairRounds,
    acceptanceCommands: input.wave.acceptance,
    conflicts: partitionLanes(input.wave.lanes).conflicts,
    started: [],
    returned: [],
    evidence: {},
    acceptance: null,
    failure: null,
  }),
  initial: 'lanes',
  output: ({ context }) => waveEvidence(context),
  states: {
    lanes: {
      description: 'RPI once per lane; a lane waits for every earlier lane it shares a surface with',
      entry: 'startReadyLanes',
      on: {
        'xstate.done.actor.lane.*': [
          {
            description: 'the last lane returned',
            guard: 'lastLaneReturned',
            target: 'acceptance',
            actions: 'recordLaneReturn',
          },
          {
            description: 'a lane returned: start the lanes it held back',
            guard: 'laneRunning',
            actions: ['recordLaneReturn', 'startReadyLanes'],
          },
        ],
        'xstate.error.actor.lane.*': [
          {
            description: 'the last lane failed',
            guard: 'lastLaneReturned',
            target: 'acceptance',
            actions: 'recordLaneFailure',
          },
          {
            description: 'a lane failed (no retry): start the lanes it held back',
            guard: 'laneRunning',
            actions: ['recordLaneFailure', 'startReadyLanes'],
          },
        ],
      },
    },
    acceptance: {
      description: 'the wave acceptance, once, after every lane returned',
      invoke: {
        id: 'runAcceptance',
        src: 'runAcceptance',
        input: ({ context }) => ({ commands: context.acceptanceCommands }),
        onDone: { target: 'evidenced', actions: 'recordAcceptance' },
        onError: { target: 'acceptance_failed', actions: 'recordAcceptanceFailure' },
      },
    },
    evidenced: { type: 'final', description: 'the wave evidence; no next action' },
    acceptance_failed: {
      type: 'final',
      description: 'the wave acceptance could not be run; the lane evidence stands',
    },
  },
});
