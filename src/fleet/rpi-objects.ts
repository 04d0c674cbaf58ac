/**
 * The `rpi` and `crank` virtual objects of a fleet worker (docs/scale-out.md, decisions F10-F13).
 *
 * - `rpi/<id>/run` runs one RPI run to its end on a worker (one `ctx.run`) and records the facts
 *   `loopchart rpi --json` prints; `rpi/<lane key>/lane` (private: callable by `crank` only, never
 *   through the ingress) runs one lane of a wave.
 * - `crank/<id>/run` checks the wave (runnable, lanes pairwise disjoint), reads the wave branch's
 *   head once (journaled), calls `lane` for every lane at once, so Restate runs them on any
 *   workers in parallel, each in its own clone on its own branch; once all returned, one
 *   `ctx.run('acceptance')` merges the lane branches and runs the local crank runner with the
 *   lanes' returns, so the evidence and the acceptance are a local wave's.
 * - `status` (shared) on both reads the recorded facts; `check` (shared) admits a submission
 *   before it is sent one-way.
 *
 * The SDK is passed in, never imported here (F1).
 */
import { createHash } from 'node:crypto';
import type * as Restate from '@restatedev/restate-sdk';
import type { LaneReturn } from '../../machines/crank.js';
import { InputError } from '../common/errors.js';
import {
  type Admission,
  type OperatorCredential,
  type RequestSignature,
  verifyRequest,
} from './credentials.js';
import { FLEET_KEY, FLEET_OBJECT, type FleetObject } from './loop-object.js';
import {
  agentsOf,
  checkFleetWave,
  type FleetLaneRequest,
  type FleetLaneResult,
  type FleetRpiRequest,
  type FleetRpiResult,
  type FleetWaveRequest,
  type FleetWaveResult,
  laneBranch,
  type RpiWorkerSettings,
  remoteHead,
  runFleetLane,
  runFleetRpi,
  runFleetWaveAcceptance,
} from './rpi-step.js';

/** The two kinds of run these objects hold. */
export type RpiRunKind = 'rpi' | 'crank';

/**
 * The id of an rpi run or a crank wave: the first 20 hex digits of SHA-256 over kind, remote and
 * branch (a run works on its branch, so one branch names one run of each kind).
 */
export function rpiRunId(
  kind: RpiRunKind,
  run: { readonly remote: string; readonly branch: string },
): string {
  return createHash('sha256').update(`${kind}\n${run.remote}\n${run.branch}`).digest('hex').slice(0, 20);
}

/** The entry of the run list (`fleet` object) for an rpi run or a wave. */
export function listedId(kind: RpiRunKind, id: string): string {
  return `${kind}:${id}`;
}

/** The body of `rpi/<id>/run` and `crank/<id>/run`. */
export interface RpiSubmitBody<R> {
  readonly run: R;
  readonly auth?: RequestSignature;
}

/** One lane of a wave as the wave's status shows it. */
export interface FleetLaneStatus {
  readonly id: string;
  /** The `rpi` object key the lane ran under. */
  readonly key: string;
  readonly branch: string;
  /** Null until the lane returned. */
  readonly status: LaneReturn['status'] | null;
  readonly head: string | null;
}

/** What `rpi/<id>/status` returns. */
export interface FleetRpiStatus {
  readonly kind: 'rpi';
  readonly runId: string;
  /** The request without the intent's text. */
  readonly run: Omit<FleetRpiRequest, 'intent'> | null;
  /** `failed`: a named input error ended it (see `error`); nothing is retried. */
  readonly phase: 'unknown' | 'queued' | 'running' | 'finished' | 'failed';
  readonly submittedBy: string | null;
  /** Why the run failed (a terminal error: a missing branch, a refused resume, …). */
  readonly error?: string;
  /** The facts `loopchart rpi --json` prints, once the run ended. */
  readonly result: FleetRpiResult | null;
}

/** What `crank/<id>/status` returns. */
export interface FleetWaveStatus {
  readonly kind: 'crank';
  readonly runId: string;
  readonly run: { readonly remote: string; readonly branch: string; readonly lanes: number } | null;
  /** `failed`: a lane or the acceptance ended with a named input error (see `error`). */
  readonly phase: 'unknown' | 'queued' | 'lanes' | 'acceptance' | 'finished' | 'failed';
  readonly submittedBy: string | null;
  /** Why the wave failed. */
  readonly error?: string;
  /** The wave branch's head the lanes started from. */
  readonly base: string | null;
  readonly lanes: readonly FleetLaneStatus[];
  /** The facts `loopchart crank --json` prints, once the wave ended. */
  readonly result: FleetWaveResult | null;
}

/** What a lane key's `status` returns. */
export interface FleetLaneRunStatus {
  readonly kind: 'lane';
  readonly key: string;
  readonly phase: 'running' | 'finished';
  readonly result: FleetLaneResult | null;
}

/** What the worker's rpi and crank objects need. */
export interface RpiObjectSettings extends RpiWorkerSettings {
  readonly operators: readonly OperatorCredential[];
}

/** Restate's limits for a call that runs agents for as long as their own timeouts allow (F9). */
const LONG_RUNNING = {
  inactivityTimeout: { hours: 2 },
  abortTimeout: { hours: 2 },
  retryPolicy: {
    initialInterval: { milliseconds: 200 },
    maxInterval: { seconds: 5 },
    exponentiationFactor: 2,
  },
} as const;

function terminal(sdk: typeof Restate, message: string, errorCode: number): Error {
  return new sdk.TerminalError(message, { errorCode });
}

/**
 * A thrown error as a terminal Restate error when it is a named input error (retrying cannot help:
 * a missing branch, an unrunnable wave, a refused resume); any other error is retried.
 */
function asTerminal(sdk: typeof Restate, error: unknown): Error {
  if (error instanceof InputError) return terminal(sdk, `${error.message} (${error.code})`, 400);
  return error instanceof Error ? error : new Error(String(error));
}

/** `ctx.run`, with a named input error made terminal inside it (so it is journaled, not retried). */
function journaled<T>(
  sdk: typeof Restate,
  ctx: Restate.ObjectContext,
  name: string,
  work: () => Promise<T>,
): Promise<T> {
  return ctx.run<T>(name, () =>
    work().catch((error: unknown) => {
      throw asTerminal(sdk, error);
    }),
  );
}

function isRpiRequest(run: unknown): run is FleetRpiRequest {
  const r = run as FleetRpiRequest | undefined;
  return (
    typeof r?.remote === 'string' &&
    typeof r.branch === 'string' &&
    (r.intent === null || typeof r.intent === 'string') &&
    (r.intentRef === null || typeof r.intentRef === 'string')
  );
}

function isWaveRequest(run: unknown): run is FleetWaveRequest {
  const r = run as FleetWaveRequest | undefined;
  return typeof r?.remote === 'string' && typeof r.branch === 'string' && r.wave !== undefined;
}

/**
 * Checks a submission (the signature now, the request's shape and the worker's configuration).
 * Returns the operator's name, or throws the terminal refusal.
 */
function admit(
  sdk: typeof Restate,
  settings: RpiObjectSettings,
  kind: RpiRunKind,
  key: string,
  body: RpiSubmitBody<unknown> | undefined,
  admitted: Admission,
): string {
  if (!admitted.ok) throw terminal(sdk, admitted.reason, 401);
  const run = body?.run;
  const shaped = kind === 'rpi' ? isRpiRequest(run) : isWaveRequest(run);
  if (!shaped || rpiRunId(kind, run as { remote: string; branch: string }) !== key)
    throw terminal(sdk, `${kind} ${key}: the request does not name this run`, 400);
  try {
    agentsOf(settings);
    if (kind === 'crank') checkFleetWave((run as FleetWaveRequest).wave);
  } catch (error) {
    throw asTerminal(sdk, error);
  }
  return admitted.by;
}

/**
 * Creates the `rpi` and `crank` objects for an endpoint.
 *
 * @param sdk the loaded `@restatedev/restate-sdk` module
 * @param settings the worker's clone folder, agent commands and operators
 */
export function createRpiObjects(sdk: typeof Restate, settings: RpiObjectSettings) {
  const list = (ctx: Restate.ObjectContext, kind: RpiRunKind) =>
    ctx
      .objectSendClient<FleetObject>({ name: FLEET_OBJECT } as FleetObject, FLEET_KEY)
      .add(listedId(kind, ctx.key));

  const check = (kind: RpiRunKind) =>
    sdk.handlers.object.shared(
      async (
        ctx: Restate.ObjectSharedContext,
        body: RpiSubmitBody<unknown>,
      ): Promise<{ by: string; runId: string }> => {
        // What `submit` calls first: a refusal is an error the submitter sees, and nothing is queued.
        const admitted = verifyRequest(
          settings.operators,
          'submit',
          ctx.key,
          body?.run,
          body?.auth,
          Date.now(),
        );
        return { by: admit(sdk, settings, kind, ctx.key, body, admitted), runId: ctx.key };
      },
    );

  const rpi = sdk.object({
    name: 'rpi',
    handlers: {
      run: async (
        ctx: Restate.ObjectContext,
        body: RpiSubmitBody<FleetRpiRequest>,
      ): Promise<FleetRpiStatus> => {
        const admitted = await ctx.run<Admission>('admit', () =>
          verifyRequest(settings.operators, 'submit', ctx.key, body?.run, body?.auth, Date.now()),
        );
        const by = admit(sdk, settings, 'rpi', ctx.key, body, admitted);
        const existing = await ctx.get<FleetRpiStatus>('status');
        if (existing?.phase === 'finished' || existing?.phase === 'failed') return existing;
        const { intent: _intent, ...shown } = body.run;
        let status: FleetRpiStatus = {
          kind: 'rpi',
          runId: ctx.key,
          run: shown,
          phase: 'queued',
          submittedBy: by,
          result: null,
        };
        ctx.set('status', status);
        list(ctx, 'rpi');
        status = { ...status, phase: 'running' };
        ctx.set('status', status);
        try {
          const result = await journaled(sdk, ctx, 'rpi', () => runFleetRpi(settings, ctx.key, body.run));
          status = { ...status, phase: 'finished', result };
        } catch (error) {
          if (!(error instanceof sdk.TerminalError)) throw error;
          status = { ...status, phase: 'failed', error: error.message };
        }
        ctx.set('status', status);
        return status;
      },

      lane: sdk.handlers.object.exclusive(
        { ingressPrivate: true },
        async (ctx: Restate.ObjectContext, request: FleetLaneRequest): Promise<FleetLaneResult> => {
          const existing = await ctx.get<FleetLaneRunStatus>('status');
          if (existing?.result) return existing.result;
          ctx.set<FleetLaneRunStatus>('status', {
            kind: 'lane',
            key: ctx.key,
            phase: 'running',
            result: null,
          });
          const result = await journaled(sdk, ctx, 'lane', () => runFleetLane(settings, ctx.key, request));
          ctx.set<FleetLaneRunStatus>('status', { kind: 'lane', key: ctx.key, phase: 'finished', result });
          return result;
        },
      ),

      check: check('rpi'),

      status: sdk.handlers.object.shared(
        async (ctx: Restate.ObjectSharedContext): Promise<FleetRpiStatus | FleetLaneRunStatus> =>
          (await ctx.get<FleetRpiStatus | FleetLaneRunStatus>('status')) ?? {
            kind: 'rpi',
            runId: ctx.key,
            run: null,
            phase: 'unknown',
            submittedBy: null,
            result: null,
          },
      ),
    },
    options: LONG_RUNNING,
  });

  const crank = sdk.object({
    name: 'crank',
    handlers: {
      run: async (
        ctx: Restate.ObjectContext,
        body: RpiSubmitBody<FleetWaveRequest>,
      ): Promise<FleetWaveStatus> => {
        const admitted = await ctx.run<Admission>('admit', () =>
          verifyRequest(settings.operators, 'submit', ctx.key, body?.run, body?.auth, Date.now()),
        );
        const by = admit(sdk, settings, 'crank', ctx.key, body, admitted);
        const existing = await ctx.get<FleetWaveStatus>('status');
        if (existing?.phase === 'finished' || existing?.phase === 'failed') return existing;
        const request = body.run;
        const wave = checkFleetWave(request.wave);
        const keys = wave.lanes.map((_, i) => `${ctx.key}.${i + 1}`);
        let status: FleetWaveStatus = {
          kind: 'crank',
          runId: ctx.key,
          run: { remote: request.remote, branch: request.branch, lanes: wave.lanes.length },
          phase: 'queued',
          submittedBy: by,
          base: null,
          lanes: wave.lanes.map((lane, i) => ({
            id: lane.id,
            key: keys[i] as string,
            branch: laneBranch(request.branch, wave, i),
            status: null,
            head: null,
          })),
          result: null,
        };
        const save = (next: FleetWaveStatus) => {
          status = next;
          ctx.set('status', next);
        };
        save(status);
        list(ctx, 'crank');
        try {
          const base = await journaled(sdk, ctx, 'base', () => remoteHead(request.remote, request.branch));
          save({ ...status, phase: 'lanes', base });
          // Every lane at once (they are disjoint): Restate runs each on whichever worker it picks.
          const calls = wave.lanes.map((_, index) =>
            ctx
              .objectClient<RpiObject>({ name: 'rpi' } as RpiObject, keys[index] as string)
              .lane({ wave: request, waveId: ctx.key, index, base }),
          );
          const lanes = await sdk.RestatePromise.all(calls);
          save({
            ...status,
            phase: 'acceptance',
            lanes: status.lanes.map((lane, i) => ({
              ...lane,
              status: lanes[i]?.laneReturn.status ?? null,
              head: lanes[i]?.head ?? null,
            })),
          });
          const result = await journaled(sdk, ctx, 'acceptance', () =>
            runFleetWaveAcceptance(settings, ctx.key, request, lanes),
          );
          save({ ...status, phase: 'finished', result });
        } catch (error) {
          // A named input error (a missing branch, a refused resume) ends the wave; others are retried.
          if (!(error instanceof sdk.TerminalError)) throw error;
          save({ ...status, phase: 'failed', error: error.message });
        }
        return status;
      },

      check: check('crank'),

      status: sdk.handlers.object.shared(
        async (ctx: Restate.ObjectSharedContext): Promise<FleetWaveStatus> =>
          (await ctx.get<FleetWaveStatus>('status')) ?? {
            kind: 'crank',
            runId: ctx.key,
            run: null,
            phase: 'unknown',
            submittedBy: null,
            base: null,
            lanes: [],
            result: null,
          },
      ),
    },
    options: LONG_RUNNING,
  });
  return { rpi, crank };
}

/** The handlers of the `rpi` object as a client sees them. */
export type RpiObject = ReturnType<typeof createRpiObjects>['rpi'];
/** The handlers of the `crank` object as a client sees them. */
export type CrankObject = ReturnType<typeof createRpiObjects>['crank'];
