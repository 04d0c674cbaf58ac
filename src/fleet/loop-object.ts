/**
 * The `loop` virtual object (one per run id) and the `fleet` object that lists the runs.
 *
 * Restate gives one writer per key: `run` is exclusive, so at most one step of a run executes at a
 * time across every worker, and a second `run` for the same id waits for the first. A human stop
 * suspends `run` on an awakeable whose id stays in the object's state (never printed); `answer`,
 * a shared handler, checks the operator's signature and the reply against the standing stop, then
 * resolves it, and the run continues on whichever worker Restate next invokes. `status` reads the
 * recorded facts.
 *
 * The SDK is passed in (`sdk`), never imported here: only `loopchart serve` loads it.
 *
 * Which mechanism protects each side effect (docs/scale-out.md):
 * - a step (fetch, child dispatches and commits, gates, push): `ctx.run('step <n>')`; a completed
 *   step's outcome is replayed from the journal, never re-executed; an interrupted one re-runs and
 *   the loop engine's resume (ledger, history, the clone's journal) skips what is already committed;
 * - the push: fast-forward only, so pushing the same head again is a no-op;
 * - the answer note: `git notes add -f`, the same note whatever the number of attempts;
 * - the admission checks (`admit`, `check answer <n>`): `ctx.run`, so a replay reuses the verdict
 *   given when the request arrived instead of re-checking an expired time window;
 * - registering the run with `fleet`: a journaled one-way call, sent once.
 */
import type * as Restate from '@restatedev/restate-sdk';
import { type HumanStop, parseHumanReply } from '../gauntlet/human-stop.js';
import type { Ledger } from '../gauntlet/types.js';
import {
  type Admission,
  fleetRunId,
  type OperatorCredential,
  type RequestSignature,
  verifyRequest,
} from './credentials.js';
import {
  type FleetRunRequest,
  type GivenAnswer,
  runFleetStep,
  type StepOutcome,
  type WorkerSettings,
} from './step.js';

/** The body of `loop/<id>/run`: the run and the submitting operator's signature over it. */
export interface SubmitBody {
  readonly run: FleetRunRequest;
  readonly auth?: RequestSignature;
}

/** The body of `loop/<id>/answer`: the reply, the stop it answers, and the operator's signature. */
export interface AnswerBody {
  readonly reply: string;
  /** The `stopId` that `status` shows for the standing stop. */
  readonly stopId: string;
  readonly auth?: RequestSignature;
}

/** One answer as the run records it. */
export interface RecordedAnswer {
  readonly stopId: string;
  readonly by: string;
  readonly reply: string;
  /** The commit the stop was shown at (its git note names the operator). */
  readonly at: string;
}

/** What `status` returns (and `loopchart runs` prints). */
export interface FleetRunStatus {
  readonly runId: string;
  readonly run: FleetRunRequest | null;
  /** `queued` before the first step, then `running`, `stopped`, `finished`, `failed` or `invalid`. */
  readonly phase: 'unknown' | 'queued' | 'running' | 'stopped' | 'finished' | 'failed' | 'invalid';
  readonly steps: number;
  readonly submittedBy: string | null;
  readonly stopId: string | null;
  readonly stopText: string | null;
  readonly answers: readonly RecordedAnswer[];
  readonly last: Omit<StepOutcome, 'stop' | 'stopLedger'> | null;
}

interface StandingStop {
  readonly stopId: string;
  readonly awakeableId: string;
  readonly stop: HumanStop;
  readonly ledger: Ledger | null;
  readonly stopText: string;
  readonly head: string;
}

/** What the worker's objects need. */
export interface LoopObjectSettings extends WorkerSettings {
  readonly operators: readonly OperatorCredential[];
}

/** The name of the run list object and its one key. */
export const FLEET_OBJECT = 'fleet';
export const FLEET_KEY = 'runs';

function terminal(sdk: typeof Restate, message: string, errorCode: number): Error {
  return new sdk.TerminalError(message, { errorCode });
}

function publicOutcome(outcome: StepOutcome): FleetRunStatus['last'] {
  const { stop: _stop, stopLedger: _ledger, ...rest } = outcome;
  return rest;
}

/**
 * Creates the `loop` and `fleet` objects for an endpoint.
 *
 * @param sdk the loaded `@restatedev/restate-sdk` module
 * @param settings the worker's clone folder, child command and operators
 */
export function createFleetObjects(sdk: typeof Restate, settings: LoopObjectSettings) {
  const fleet = sdk.object({
    name: FLEET_OBJECT,
    handlers: {
      add: async (ctx: Restate.ObjectContext, runId: string) => {
        const ids = (await ctx.get<string[]>('ids')) ?? [];
        if (!ids.includes(runId)) ctx.set('ids', [...ids, runId]);
      },
      list: sdk.handlers.object.shared(
        async (ctx: Restate.ObjectSharedContext): Promise<string[]> => (await ctx.get<string[]>('ids')) ?? [],
      ),
    },
  });

  const loop = sdk.object({
    name: 'loop',
    handlers: {
      run: async (ctx: Restate.ObjectContext, body: SubmitBody): Promise<FleetRunStatus> => {
        const runId = ctx.key;
        const request = body?.run;
        const admitted = await ctx.run<Admission>('admit', () =>
          verifyRequest(settings.operators, 'submit', runId, request, body?.auth, Date.now()),
        );
        if (!admitted.ok) throw terminal(sdk, admitted.reason, 401);
        if (settings.child === undefined)
          throw terminal(
            sdk,
            'this worker runs no loop runs: start it with --child (fleet.not-configured)',
            400,
          );
        if (
          typeof request?.remote !== 'string' ||
          typeof request.spec !== 'string' ||
          typeof request.branch !== 'string' ||
          fleetRunId(request) !== runId
        )
          throw terminal(sdk, `run ${runId}: the request does not name this run`, 400);
        const existing = await ctx.get<FleetRunStatus>('status');
        if (existing !== null && ['finished', 'failed', 'invalid'].includes(existing.phase)) return existing;
        let status: FleetRunStatus = existing ?? {
          runId,
          run: request,
          phase: 'queued',
          steps: 0,
          submittedBy: admitted.by,
          stopId: null,
          stopText: null,
          answers: [],
          last: null,
        };
        const save = (next: FleetRunStatus) => {
          status = next;
          ctx.set('status', next);
        };
        save(status);
        ctx.objectSendClient<typeof fleet>({ name: FLEET_OBJECT }, FLEET_KEY).add(runId);
        let answer: GivenAnswer | undefined;
        for (;;) {
          save({ ...status, phase: 'running' });
          const step = status.steps;
          const given = answer;
          const outcome = await ctx.run<StepOutcome>(`step ${step}`, () =>
            runFleetStep(settings, runId, request, given),
          );
          answer = undefined;
          save({ ...status, steps: step + 1, last: publicOutcome(outcome), stopId: null, stopText: null });
          if (outcome.status !== 'stopped' || outcome.stop === undefined) {
            save({ ...status, phase: outcome.status });
            return status;
          }
          // A human stop: suspend until `answer` resolves it with an admitted reply.
          const stopId = `${runId}.${step}`;
          for (;;) {
            const awakeable = ctx.awakeable<AnswerBody & { readonly by: string }>();
            ctx.set<StandingStop>('stop', {
              stopId,
              awakeableId: awakeable.id,
              stop: outcome.stop,
              ledger: outcome.stopLedger ?? null,
              stopText: outcome.stopText ?? '',
              head: outcome.head,
            });
            save({ ...status, phase: 'stopped', stopId, stopText: outcome.stopText ?? '' });
            const reply = await awakeable.promise;
            // Whoever resolved the awakeable, only a signed reply to this very stop is applied.
            const checked = await ctx.run<Admission>(`check answer ${step}`, () =>
              reply?.stopId === stopId
                ? verifyRequest(
                    settings.operators,
                    'answer',
                    runId,
                    { reply: reply.reply, stopId },
                    reply.auth,
                    null,
                  )
                : { ok: false, reason: 'the reply names another stop' },
            );
            if (!checked.ok) continue;
            ctx.clear('stop');
            answer = { reply: reply.reply, by: checked.by };
            save({
              ...status,
              answers: [...status.answers, { stopId, by: checked.by, reply: reply.reply, at: outcome.head }],
            });
            break;
          }
        }
      },

      check: sdk.handlers.object.shared(
        async (
          ctx: Restate.ObjectSharedContext,
          body: SubmitBody,
        ): Promise<{ by: string; runId: string }> => {
          // What `submit` calls first, so a refused credential is an error the submitter sees (the
          // run itself is sent one-way) and nothing is queued.
          const admitted = verifyRequest(
            settings.operators,
            'submit',
            ctx.key,
            body?.run,
            body?.auth,
            Date.now(),
          );
          if (!admitted.ok) throw terminal(sdk, admitted.reason, 401);
          if (settings.child === undefined)
            throw terminal(
              sdk,
              'this worker runs no loop runs: start it with --child (fleet.not-configured)',
              400,
            );
          if (typeof body.run?.remote !== 'string' || fleetRunId(body.run) !== ctx.key)
            throw terminal(sdk, `run ${ctx.key}: the request does not name this run`, 400);
          return { by: admitted.by, runId: ctx.key };
        },
      ),

      answer: sdk.handlers.object.shared(
        async (
          ctx: Restate.ObjectSharedContext,
          body: AnswerBody,
        ): Promise<{ by: string; stopId: string }> => {
          const runId = ctx.key;
          const payload = { reply: body?.reply, stopId: body?.stopId };
          const admitted = await ctx.run<Admission>('admit', () =>
            verifyRequest(settings.operators, 'answer', runId, payload, body?.auth, Date.now()),
          );
          if (!admitted.ok) throw terminal(sdk, admitted.reason, 401);
          const standing = await ctx.get<StandingStop>('stop');
          if (standing === null) throw terminal(sdk, `run ${runId} is not stopped for a human`, 409);
          if (standing.stopId !== body.stopId)
            throw terminal(
              sdk,
              `run ${runId}: stop ${body.stopId} is not the standing stop (${standing.stopId})`,
              409,
            );
          const parsed = parseHumanReply(body.reply, standing.stop, standing.ledger ?? undefined);
          if (!parsed.ok)
            throw terminal(sdk, `the stop does not take this reply: ${parsed.rejection.reason}`, 400);
          ctx.resolveAwakeable(standing.awakeableId, { ...body, by: admitted.by });
          return { by: admitted.by, stopId: standing.stopId };
        },
      ),

      status: sdk.handlers.object.shared(
        async (ctx: Restate.ObjectSharedContext): Promise<FleetRunStatus> => {
          const status = await ctx.get<FleetRunStatus>('status');
          return (
            status ?? {
              runId: ctx.key,
              run: null,
              phase: 'unknown',
              steps: 0,
              submittedBy: null,
              stopId: null,
              stopText: null,
              answers: [],
              last: null,
            }
          );
        },
      ),
    },
    options: {
      // A step runs children and gates for as long as the loop's own timeouts allow; Restate must
      // not abort it for printing nothing (the SDK sends nothing while ctx.run executes).
      inactivityTimeout: { hours: 2 },
      abortTimeout: { hours: 2 },
      retryPolicy: {
        initialInterval: { milliseconds: 200 },
        maxInterval: { seconds: 5 },
        exponentiationFactor: 2,
      },
    },
  });
  return { loop, fleet };
}

/** The handlers of the `loop` object as a client sees them. */
export type LoopObject = ReturnType<typeof createFleetObjects>['loop'];
/** The handlers of the `fleet` object as a client sees them. */
export type FleetObject = ReturnType<typeof createFleetObjects>['fleet'];
