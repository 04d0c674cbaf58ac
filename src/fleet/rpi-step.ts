/**
 * What a fleet worker does for an RPI run, for one lane of a crank wave, and for a wave's
 * acceptance: each in the worker's own clone under `--work-dir`, with the same runners a local
 * `loopchart rpi` / `loopchart crank` uses (`createRpiRunner`, `runWaveLane`, `createCrankRunner`).
 * The `rpi` and `crank` objects (rpi-objects.ts) journal each of these with one `ctx.run`.
 *
 * How a retried call avoids doing anything twice (docs/decisions/scale-out.md F10-F13):
 * - the runner's own step journal, in the clone's git directory: on the same worker (the same
 *   `--work-dir`) a killed run resumes, waiting for a command still running and never re-running
 *   one that ended;
 * - the result is written to `<git dir>/loopchart/fleet/<key>.json` after the push: a call retried
 *   after that returns it and runs nothing;
 * - the runners hold their report (`holdReport`) until that file is written, so a call retried
 *   between the end and the file gets the same outcome back, never a new run;
 * - the branch snapshot is a commit with fixed author, committer and dates over the worktree's
 *   tree, so pushing it again is a no-op, and pushes never force.
 */
import { existsSync, mkdirSync } from 'node:fs';
import { readFile, rename, rm, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { execa } from 'execa';
import type { LaneReturn, WaveEvidence } from '../../machines/crank.js';
import type { RiskDeclaration } from '../../machines/rpi/index.js';
import { InputError } from '../common/errors.js';
import { partitionLanes } from '../crank/lane-partition.js';
import type { Wave } from '../crank/wave.js';
import { parseWave } from '../crank/wave-input.js';
import { resolveGitDir } from '../effects/git-dir.js';
import {
  type CrankRunResult,
  crankExitCode,
  createCrankRunner,
  laneDirName,
  runWaveLane,
} from '../host/crank-runner.js';
import { createRpiRunner, rpiExitCode, rpiRunFailure } from '../host/rpi-runner.js';
import { configureReservations, spendReservationPrefix } from '../host/spend-reservations.js';
import { headOf, prepareClone, pushClone } from './worker-clone.js';

/** The agent commands of an rpi/crank worker (`serve --implementer …`): the worker's, never a submitter's. */
export interface RpiAgents {
  readonly implementer: string;
  readonly validator: string;
  readonly crossFamily?: string | null;
  readonly plan?: string | null;
}

/** What the rpi and crank objects need from the worker. */
export interface RpiWorkerSettings {
  /** Where the worker keeps one clone per run, lane and wave. */
  readonly workDir: string;
  /** Absent: the worker refuses rpi runs and waves (`fleet.not-configured`). */
  readonly agents?: RpiAgents;
}

/** An RPI run as `submit --rpi` describes it (the options of `loopchart rpi` that are the run's). */
export interface FleetRpiRequest {
  readonly remote: string;
  /** The branch the run works on; its result is pushed there. */
  readonly branch: string;
  /** The intent file's exact text (its bytes give the acceptance digest), or null. */
  readonly intent: string | null;
  /** The intent reference (`--intent-ref`, else the intent path as given, else `caller`). */
  readonly intentRef: string | null;
  readonly repairRounds?: number;
  readonly risky?: RiskDeclaration;
  readonly roots?: readonly string[];
  readonly finalCi?: readonly string[];
}

/** A crank wave as `submit --crank` describes it. */
export interface FleetWaveRequest {
  readonly remote: string;
  /** The wave's branch: lanes start from its head; the merged lanes are pushed there. */
  readonly branch: string;
  /** The wave as in `loopchart crank --wave` (untrusted JSON). */
  readonly wave: unknown;
  readonly risky?: RiskDeclaration;
}

/** What an RPI run ends with: the facts `loopchart rpi --json` prints, and the pushed head. */
export interface FleetRpiResult {
  readonly exitCode: number;
  readonly terminal: string;
  readonly stopReason: string | null;
  readonly converged: boolean;
  readonly roundsUsed: number;
  readonly openFindings: readonly unknown[];
  readonly stageNote: string | null;
  readonly finalCi: unknown;
  readonly report: unknown;
  readonly error: { readonly code: string; readonly message: string } | null;
  /** The run's transcript, in the worker's clone. */
  readonly transcript: string;
  /** The branch head after the run (a snapshot commit of the worktree when it changed). */
  readonly head: string;
}

/** A lane's return and the head of its branch. */
export interface FleetLaneResult {
  readonly laneReturn: LaneReturn;
  readonly branch: string;
  readonly head: string;
}

/** What a wave ends with: the facts `loopchart crank --json` prints, and the pushed head. */
export interface FleetWaveResult {
  readonly exitCode: number;
  readonly terminal: CrankRunResult['terminal'];
  readonly evidence: WaveEvidence;
  readonly transcript: string;
  readonly head: string;
}

/** The agents, or a named refusal. */
export function agentsOf(settings: RpiWorkerSettings): RpiAgents {
  if (settings.agents === undefined)
    throw new InputError(
      'fleet.not-configured',
      'this worker runs no rpi or crank: start it with --implementer and --validator',
    );
  return settings.agents;
}

/**
 * Checks a fleet wave: a runnable wave whose lanes are pairwise disjoint (write scopes and declared
 * regen surfaces), since its lanes run at once on separate branches.
 *
 * @throws WaveUnrunnableError for an unrunnable wave; InputError `fleet.lanes-conflict` naming the
 *   conflicting pairs
 */
export function checkFleetWave(input: unknown): Wave {
  const wave = parseWave(input);
  const { conflicts } = partitionLanes(wave.lanes);
  if (conflicts.length > 0)
    throw new InputError(
      'fleet.lanes-conflict',
      `a fleet wave runs its lanes at once on separate branches, so they must be disjoint: ${conflicts
        .map((c) => `${c.lanes[0]} and ${c.lanes[1]} (${c.reason})`)
        .join('; ')} (declare regen_surfaces, [] when none, and split overlapping scopes)`,
    );
  return wave;
}

/** The branch lane `index` of the wave on `branch` runs on. */
export function laneBranch(branch: string, wave: Wave, index: number): string {
  return `${branch}.lane-${laneDirName(wave, wave.lanes[index] as Wave['lanes'][number])}`;
}

async function git(
  cwd: string,
  args: readonly string[],
  env?: Readonly<Record<string, string>>,
): Promise<string> {
  const result = await execa('git', args, { cwd, reject: false, stdin: 'ignore', ...(env ? { env } : {}) });
  if (result.exitCode !== 0)
    throw new Error(
      `git ${args.join(' ')} failed (${result.exitCode}): ${String(result.stderr).slice(-400)}`,
    );
  return String(result.stdout).trim();
}

/** The commit `branch` points at on `remote`. */
export async function remoteHead(remote: string, branch: string): Promise<string> {
  const listed = await execa('git', ['ls-remote', '--exit-code', '--heads', remote, branch], {
    reject: false,
    stdin: 'ignore',
  });
  const sha = String(listed.stdout).split(/\s/)[0] ?? '';
  if (listed.exitCode !== 0 || !/^[0-9a-f]{40}$/.test(sha))
    throw new InputError(
      'fleet.branch-missing',
      `the remote has no branch ${branch}: create it, then submit`,
    );
  return sha;
}

/**
 * The worker's clone for `key`, checked out on `branch` at `start` when it is new. An existing
 * clone is used as it is (its work in progress is what a resumed run continues).
 */
async function ownClone(remote: string, key: string, workDir: string, branch: string, start: string) {
  const clone = join(workDir, key);
  if (!existsSync(clone)) {
    mkdirSync(workDir, { recursive: true });
    await git(workDir, ['clone', '-q', '--no-checkout', remote, key]);
    await git(clone, ['checkout', '-q', '-B', branch, start]);
  }
  // An agent's `loopchart reserve <action>` in this clone creates the reservation on the remote
  // (F16): a lane or run retried on another worker is refused a paid action it already reserved.
  await configureReservations(clone, spendReservationPrefix(key));
  return clone;
}

/** A fixed identity and date, so the same tree over the same parent is the same commit. */
async function snapshotEnv(clone: string): Promise<Record<string, string>> {
  const date = await git(clone, ['log', '-1', '--format=%cI', 'HEAD']);
  return {
    ...process.env,
    GIT_AUTHOR_NAME: 'loopchart fleet',
    GIT_AUTHOR_EMAIL: 'fleet@loopchart.invalid',
    GIT_COMMITTER_NAME: 'loopchart fleet',
    GIT_COMMITTER_EMAIL: 'fleet@loopchart.invalid',
    GIT_AUTHOR_DATE: date,
    GIT_COMMITTER_DATE: date,
  } as Record<string, string>;
}

/**
 * Records the worktree (tracked and untracked, not ignored) as a commit over HEAD, without moving
 * HEAD, the index or any file, and pushes it to `branch` (fast-forward only). A worktree equal to
 * HEAD pushes HEAD.
 *
 * @returns the pushed commit
 */
export async function pushSnapshot(clone: string, branch: string, message: string): Promise<string> {
  const gitDir = await resolveGitDir(clone);
  const index = join(gitDir, 'loopchart', 'fleet', `snapshot-index-${process.pid}`);
  mkdirSync(join(gitDir, 'loopchart', 'fleet'), { recursive: true });
  const env = { ...(await snapshotEnv(clone)), GIT_INDEX_FILE: index };
  let commit: string;
  try {
    await git(clone, ['read-tree', 'HEAD'], env);
    await git(clone, ['add', '-A'], env);
    const tree = await git(clone, ['write-tree'], env);
    commit =
      tree === (await git(clone, ['rev-parse', 'HEAD^{tree}']))
        ? await headOf(clone)
        : await git(clone, ['commit-tree', tree, '-p', 'HEAD', '-m', message], env);
  } finally {
    await rm(index, { force: true });
  }
  await git(clone, ['push', '-q', 'origin', `${commit}:refs/heads/${branch}`]);
  return commit;
}

/** Runs `work` once per clone and key: a result recorded by an earlier call is returned instead. */
async function once<T>(
  clone: string,
  key: string,
  work: (record: (value: T) => Promise<void>) => Promise<T>,
) {
  const dir = join(await resolveGitDir(clone), 'loopchart', 'fleet');
  const path = join(dir, `${key}.json`);
  if (existsSync(path)) return JSON.parse(await readFile(path, 'utf8')) as T;
  return work(async (value) => {
    mkdirSync(dir, { recursive: true });
    await writeFile(`${path}.tmp`, JSON.stringify(value));
    await rename(`${path}.tmp`, path);
  });
}

/** Runs an RPI run to its end in the worker's clone of its branch, and pushes the result. */
export async function runFleetRpi(
  settings: RpiWorkerSettings,
  runId: string,
  request: FleetRpiRequest,
): Promise<FleetRpiResult> {
  const agents = agentsOf(settings);
  // The run's own clone: new, it starts at the branch's head; existing, it holds the run's work in
  // progress, which the runner's journal resumes from (never fast-forwarded over).
  const clone = await ownClone(
    request.remote,
    runId,
    settings.workDir,
    request.branch,
    await remoteHead(request.remote, request.branch),
  );
  return once<FleetRpiResult>(clone, 'rpi', async (record) => {
    let intentFile: string | null = null;
    if (request.intent !== null) {
      // Outside the worktree (git lists nothing of its own directory), so never part of the subject.
      intentFile = join(await resolveGitDir(clone), 'loopchart', 'fleet', 'intent');
      mkdirSync(join(intentFile, '..'), { recursive: true });
      await writeFile(intentFile, request.intent);
    }
    const result = await createRpiRunner({
      repo: clone,
      implementer: agents.implementer,
      validator: agents.validator,
      crossFamily: agents.crossFamily ?? null,
      plan: agents.plan ?? null,
      finalCi: request.finalCi ?? [],
      intentFile,
      intentRef: request.intentRef,
      ...(request.repairRounds === undefined ? {} : { repairRounds: request.repairRounds }),
      risky: request.risky ?? 'auto',
      ...(request.roots === undefined ? {} : { roots: request.roots }),
      holdReport: true,
    }).run();
    const { outcome } = result;
    const head = await pushSnapshot(clone, request.branch, `rpi: ${outcome.terminal}`);
    const failure = rpiRunFailure(outcome);
    const done: FleetRpiResult = {
      exitCode: rpiExitCode(outcome),
      terminal: outcome.terminal,
      stopReason: outcome.stopReason,
      converged: outcome.converged,
      roundsUsed: outcome.roundsUsed,
      openFindings: outcome.openFindings,
      stageNote: outcome.stageNote,
      finalCi: outcome.finalCi,
      report: outcome.report,
      error: failure === null ? null : { code: failure.code, message: failure.message },
      transcript: result.transcriptPath,
      head,
    };
    await record(done);
    await result.markReported();
    return done;
  });
}

/** What the `crank` object asks a worker to run for one lane. */
export interface FleetLaneRequest {
  readonly wave: FleetWaveRequest;
  readonly waveId: string;
  /** The lane's position in the wave (0-based). */
  readonly index: number;
  /** The wave branch's head when the wave started: every lane starts from it and measures against it. */
  readonly base: string;
}

/**
 * Runs one lane's RPI (`runWaveLane`, as a local wave does) in the worker's clone of the lane's
 * branch, started at the wave's base, and pushes the lane's work to that branch.
 */
export async function runFleetLane(
  settings: RpiWorkerSettings,
  laneKey: string,
  request: FleetLaneRequest,
): Promise<FleetLaneResult> {
  const agents = agentsOf(settings);
  const wave = checkFleetWave(request.wave.wave);
  const lane = wave.lanes[request.index];
  if (lane === undefined)
    throw new InputError('fleet.no-such-lane', `the wave has no lane ${request.index + 1}`);
  const branch = laneBranch(request.wave.branch, wave, request.index);
  const clone = await ownClone(request.wave.remote, laneKey, settings.workDir, branch, request.base);
  return once<FleetLaneResult>(clone, 'lane', async (record) => {
    const laneDir = join(
      await resolveGitDir(clone),
      'loopchart',
      'crank',
      request.waveId,
      'lanes',
      laneDirName(wave, lane),
    );
    let done: FleetLaneResult | undefined;
    await runWaveLane({
      ...agents,
      risky: request.wave.risky ?? 'auto',
      worktree: clone,
      laneDir,
      lane,
      repairRounds: wave.repairRounds,
      base: request.base,
      writerLockHeld: false,
      beforeReported: async (laneReturn) => {
        const head = await pushSnapshot(clone, branch, `crank: lane ${lane.id}`);
        done = { laneReturn, branch, head };
        await record(done);
      },
    });
    return done as FleetLaneResult;
  });
}

/**
 * The wave's acceptance, after every lane returned: the worker's clone of the wave branch merges
 * each lane's branch (in caller order; disjoint lanes merge cleanly), then the local crank runner
 * runs with the lanes' returns in place of running them (`runLane`), so the evidence, the
 * acceptance gate set and the transcript are a local wave's; the merged branch is pushed.
 */
export async function runFleetWaveAcceptance(
  settings: RpiWorkerSettings,
  waveId: string,
  request: FleetWaveRequest,
  lanes: readonly FleetLaneResult[],
): Promise<FleetWaveResult> {
  const agents = agentsOf(settings);
  const wave = checkFleetWave(request.wave);
  const clone = join(settings.workDir, waveId);
  await prepareClone(request.remote, request.branch, clone);
  return once<FleetWaveResult>(clone, 'wave', async (record) => {
    const env = await snapshotEnv(clone);
    for (const lane of lanes) {
      await git(clone, [
        'fetch',
        '-q',
        'origin',
        `+refs/heads/${lane.branch}:refs/remotes/origin/${lane.branch}`,
      ]);
      await git(clone, ['merge', '-q', '--no-edit', '-m', `crank: merge ${lane.branch}`, lane.head], env);
    }
    const returns = new Map(wave.lanes.map((lane, i) => [lane.id, lanes[i]?.laneReturn]));
    const result = await createCrankRunner({
      repo: clone,
      wave: request.wave,
      implementer: agents.implementer,
      validator: agents.validator,
      crossFamily: agents.crossFamily ?? null,
      plan: agents.plan ?? null,
      risky: request.risky ?? 'auto',
      holdReport: true,
      runLane: async ({ lane }) => {
        const laneReturn = returns.get(lane.id);
        if (laneReturn === undefined) throw new Error(`lane ${lane.id} did not return`);
        return laneReturn;
      },
    }).run();
    await pushClone(clone, request.branch);
    const done: FleetWaveResult = {
      exitCode: crankExitCode(result.evidence, result.terminal),
      terminal: result.terminal,
      evidence: result.evidence,
      transcript: result.transcriptPath,
      head: await headOf(clone),
    };
    await record(done);
    await result.markReported();
    return done;
  });
}
