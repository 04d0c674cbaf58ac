/**
 * The client side of a fleet (`loopchart submit`, `answer`, `runs`): calls over the Restate ingress
 * with `@restatedev/restate-sdk-clients`, loaded here with a dynamic import only.
 */
import { InputError } from '../common/errors.js';
import { fleetRunId, type OperatorCredential, signRequest } from './credentials.js';
import type { FleetObject, FleetRunStatus, LoopObject } from './loop-object.js';
import { FLEET_KEY, FLEET_OBJECT } from './loop-object.js';
import {
  type CrankObject,
  type FleetLaneRunStatus,
  type FleetRpiStatus,
  type FleetWaveStatus,
  type RpiObject,
  type RpiRunKind,
  rpiRunId,
} from './rpi-objects.js';
import type { FleetRpiRequest, FleetWaveRequest } from './rpi-step.js';
import type { FleetRunRequest } from './step.js';

type Clients = typeof import('@restatedev/restate-sdk-clients');

async function loadClients(): Promise<Clients> {
  try {
    return await import('@restatedev/restate-sdk-clients');
  } catch {
    throw new InputError(
      'fleet.sdk-missing',
      'this command needs @restatedev/restate-sdk-clients: npm install @restatedev/restate-sdk-clients@^1.17.2',
    );
  }
}

/** A refusal or failure the ingress reported, as a named error (401 and 4xx: exit 2). */
function ingressError(clients: Clients, action: string, error: unknown): Error {
  if (error instanceof clients.HttpCallError) {
    let message = error.responseText;
    try {
      message = (JSON.parse(error.responseText) as { message?: string }).message ?? message;
    } catch {
      // not JSON: keep the text
    }
    const code =
      error.status === 401 ? 'fleet.refused' : error.status === 404 ? 'fleet.unknown' : 'fleet.rejected';
    return error.status < 500
      ? new InputError(code, `${action}: ${message}`)
      : new Error(`${action}: the ingress answered ${error.status}: ${message}`);
  }
  if (error instanceof TypeError)
    return new InputError(
      'fleet.unreachable',
      `${action}: cannot reach the Restate ingress (${error.message})`,
    );
  return error instanceof Error ? error : new Error(String(error));
}

async function ingressOf(url: string) {
  const clients = await loadClients();
  return { clients, ingress: clients.connect({ url }) };
}

/**
 * Submits a run: checks the credential with the worker (`check`), then sends `run` one-way with
 * the run id as idempotency key, so submitting the same run again starts nothing new.
 *
 * @returns the run id
 */
export async function submitRun(
  ingressUrl: string,
  credential: OperatorCredential,
  run: FleetRunRequest,
): Promise<{ runId: string; by: string }> {
  const runId = fleetRunId(run);
  const { clients, ingress } = await ingressOf(ingressUrl);
  const body = { run, auth: signRequest(credential, 'submit', runId, run) };
  const loop = ingress.objectClient<LoopObject>({ name: 'loop' } as LoopObject, runId);
  try {
    const admitted = await loop.check(body);
    await ingress
      .objectSendClient<LoopObject>({ name: 'loop' } as LoopObject, runId)
      .run(body, clients.rpc.sendOpts({ idempotencyKey: `submit-${runId}` }));
    return { runId, by: admitted.by };
  } catch (error) {
    throw ingressError(clients, 'submit', error);
  }
}

/** A run's recorded status. */
export async function runStatus(ingressUrl: string, runId: string): Promise<FleetRunStatus> {
  const { clients, ingress } = await ingressOf(ingressUrl);
  try {
    return await ingress.objectClient<LoopObject>({ name: 'loop' } as LoopObject, runId).status();
  } catch (error) {
    throw ingressError(clients, 'status', error);
  }
}

/**
 * Answers a run's standing stop: reads the stop id from `status`, signs reply and stop id, and calls
 * `answer`, which refuses a reply the stop does not offer.
 *
 * @throws InputError `fleet.not-stopped` when the run has no standing stop
 */
export async function answerRun(
  ingressUrl: string,
  credential: OperatorCredential,
  runId: string,
  reply: string,
): Promise<{ by: string; stopId: string }> {
  const status = await runStatus(ingressUrl, runId);
  if (status.stopId === null)
    throw new InputError(
      'fleet.not-stopped',
      `answer: run ${runId} is not stopped for a human (${status.phase})`,
    );
  const payload = { reply, stopId: status.stopId };
  const { clients, ingress } = await ingressOf(ingressUrl);
  try {
    return await ingress
      .objectClient<LoopObject>({ name: 'loop' } as LoopObject, runId)
      .answer({ ...payload, auth: signRequest(credential, 'answer', runId, payload) });
  } catch (error) {
    throw ingressError(clients, 'answer', error);
  }
}

/**
 * Submits an rpi run (`kind` `rpi`) or a crank wave (`crank`), as {@link submitRun} does a loop
 * run: `check` first (a refused credential, an unrunnable or overlapping wave, a worker without
 * agents are errors the caller sees), then `run` one-way, keyed by the run id.
 *
 * @returns the run id
 */
export async function submitRpiRun(
  ingressUrl: string,
  credential: OperatorCredential,
  kind: RpiRunKind,
  run: FleetRpiRequest | FleetWaveRequest,
): Promise<{ runId: string; by: string }> {
  const runId = rpiRunId(kind, run);
  const { clients, ingress } = await ingressOf(ingressUrl);
  const body = { run, auth: signRequest(credential, 'submit', runId, run) };
  const definition = { name: kind } as RpiObject;
  try {
    const admitted = await ingress.objectClient<RpiObject>(definition, runId).check(body);
    await ingress
      .objectSendClient<RpiObject>(definition, runId)
      .run(body as never, clients.rpc.sendOpts({ idempotencyKey: `submit-${kind}-${runId}` }));
    return { runId, by: admitted.by };
  } catch (error) {
    throw ingressError(clients, 'submit', error);
  }
}

/** An rpi run's or a wave's recorded status. */
export async function rpiRunStatus(
  ingressUrl: string,
  kind: 'rpi',
  runId: string,
): Promise<FleetRpiStatus | FleetLaneRunStatus>;
export async function rpiRunStatus(
  ingressUrl: string,
  kind: 'crank',
  runId: string,
): Promise<FleetWaveStatus>;
export async function rpiRunStatus(
  ingressUrl: string,
  kind: RpiRunKind,
  runId: string,
): Promise<FleetRpiStatus | FleetLaneRunStatus | FleetWaveStatus> {
  const { clients, ingress } = await ingressOf(ingressUrl);
  try {
    return kind === 'rpi'
      ? await ingress.objectClient<RpiObject>({ name: 'rpi' } as RpiObject, runId).status()
      : await ingress.objectClient<CrankObject>({ name: 'crank' } as CrankObject, runId).status();
  } catch (error) {
    throw ingressError(clients, 'status', error);
  }
}

/** One entry of `loopchart runs`: a loop run (`kind: 'loop'`), an rpi run or a crank wave. */
export type ListedRun = (FleetRunStatus & { readonly kind: 'loop' }) | FleetRpiStatus | FleetWaveStatus;

/** Every submitted run's status (loop runs, rpi runs, crank waves), in submission order. */
export async function listRuns(ingressUrl: string): Promise<ListedRun[]> {
  const { clients, ingress } = await ingressOf(ingressUrl);
  let ids: string[];
  try {
    ids = await ingress.objectClient<FleetObject>({ name: FLEET_OBJECT } as FleetObject, FLEET_KEY).list();
  } catch (error) {
    throw ingressError(clients, 'runs', error);
  }
  return Promise.all(
    ids.map(async (id): Promise<ListedRun> => {
      // Only submitted runs are listed under `rpi:`, never a wave's lanes.
      if (id.startsWith('rpi:'))
        return (await rpiRunStatus(ingressUrl, 'rpi', id.slice('rpi:'.length))) as FleetRpiStatus;
      if (id.startsWith('crank:')) return rpiRunStatus(ingressUrl, 'crank', id.slice('crank:'.length));
      return { kind: 'loop', ...(await runStatus(ingressUrl, id)) };
    }),
  );
}
