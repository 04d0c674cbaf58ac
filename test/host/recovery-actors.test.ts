/**
 * The recovery actors on a real repository with real processes: a reservation refuses a checkout
 * that moved, provenance is unproven once the worktree lock chain is broken, and job cleanup ends
 * the recorded job while reporting (never signalling) an unrecorded one.
 */
import { spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AnyActorLogic, createActor, toPromise } from 'xstate';
import { findProcessesWithEnvironment } from '../../src/effects/environment-marker.js';
import { recordJob } from '../../src/effects/jobs.js';
import { isProcessAlive } from '../../src/effects/process-identity.js';
import { planDispatch } from '../../src/gauntlet/dispatch.js';
import { parseLedger, serializeLedger } from '../../src/gauntlet/ledger.js';
import { seedLedger } from '../../src/gauntlet/seed.js';
import { parseSpec } from '../../src/gauntlet/spec.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import { readDispatchRecord } from '../../src/host/dispatch-record.js';
import type { HostOptions, HostSession } from '../../src/host/host-session.js';
import { createLoopActors, openHostSession } from '../../src/host/loop-actors.js';
import { eventually, killStartedGroups, trackGroup } from '../effects/processes.js';
import { createTempRepo, ISOLATED_GIT_ENV, type TempRepo } from '../effects/temp-repo.js';

let repo: TempRepo;
const sessions: HostSession[] = [];

const SPEC = `# T\n\n## Acceptance criteria\n\nTicket T-1, checkbox list, rows verbatim:\n\n- [ ] one\n- [ ] two\n`;

beforeEach(() => {
  repo = createTempRepo('loopchart-recovery-');
  repo.commit('spec', { 'docs/specs/t.md': SPEC });
});
afterEach(async () => {
  killStartedGroups();
  for (const session of sessions.splice(0)) await session.lock.release();
  repo.remove();
});

async function open(): Promise<HostSession> {
  const options: HostOptions = {
    worktree: repo.dir,
    ledgerPath: 'docs/plans/t.md',
    specPath: 'docs/specs/t.md',
    child: null,
    gates: [],
    allowance: 4,
    escalateAfter: 2,
    implModel: null,
    silenceTimeoutMs: 60_000,
    timeoutMs: 60_000,
    killGraceMs: 2_000,
  };
  const session = await openHostSession(options, { env: ISOLATED_GIT_ENV });
  sessions.push(session);
  return session;
}

function seeded(): Ledger {
  const head = repo.git('rev-parse', 'HEAD').trim();
  const ledger = seedLedger(parseSpec(SPEC).spec, {
    specPath: 'docs/specs/t.md',
    base: head,
    verification: 'true',
  }).ledger as Ledger;
  repo.commit('loop: seed ledger', { 'docs/plans/t.md': serializeLedger(ledger) });
  return parseLedger(repo.git('show', 'HEAD:docs/plans/t.md')).ledger as Ledger;
}

function run<T>(logic: AnyActorLogic, input: unknown): Promise<T> {
  return toPromise(createActor(logic, { input }).start()) as Promise<T>;
}

/** A background process carrying the dispatch's LOOPCHART_TASK, leading its own group. */
function dispatchProcess(taskFile: string): number {
  const child = spawn('sleep', ['300'], {
    detached: true,
    stdio: 'ignore',
    env: { ...process.env, LOOPCHART_TASK: taskFile },
  });
  child.unref();
  trackGroup(child.pid as number);
  return child.pid as number;
}

describe('recovery actors', () => {
  it('refuses to reserve a dispatch when HEAD moved after it was planned', async () => {
    const session = await open();
    const ledger = seeded();
    const plan = planDispatch({ ledger, target: 'seed', head: repo.git('rev-parse', 'HEAD').trim() });
    repo.commit('someone else', { 'other.txt': 'x\n' });
    await expect(
      run(createLoopActors(session).reserveDispatch, { plan, ledgerPath: 'docs/plans/t.md' }),
    ).rejects.toThrow(/HEAD is [0-9a-f]{40}, but the dispatch was planned at/);
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('finds checkout ownership unproven once a run released the lock between reservation and recovery', async () => {
    const first = await open();
    const ledger = seeded();
    const plan = planDispatch({ ledger, target: 'seed', head: repo.git('rev-parse', 'HEAD').trim() });
    await run(createLoopActors(first).reserveDispatch, { plan, ledgerPath: 'docs/plans/t.md' });
    await first.lock.release();
    const second = await open();
    const verdict = await run<{ owned: boolean; what?: string }>(createLoopActors(second).checkProvenance, {
      plan,
    });
    expect(verdict).toEqual({ owned: false, what: 'checkout ownership unproven' });
  });

  it('ends the recorded background job and reports an unrecorded one without signalling it', async () => {
    const session = await open();
    const ledger = seeded();
    const plan = planDispatch({ ledger, target: 'seed', head: repo.git('rev-parse', 'HEAD').trim() });
    await run(createLoopActors(session).reserveDispatch, { plan, ledgerPath: 'docs/plans/t.md' });
    const stored = await readDispatchRecord(session.files, plan.iteration);
    if (!stored?.ok) throw new Error('no record');
    const record = stored.record;
    expect(readFileSync(join(repo.dir, 'docs/plans/t.md'), 'utf8')).toBe(record.reservedLedger);

    const recorded = dispatchProcess(record.taskFile);
    const unrecorded = dispatchProcess(record.taskFile);
    await eventually(
      () => (findProcessesWithEnvironment('LOOPCHART_TASK', record.taskFile)?.pids.length ?? 0) === 2,
    );
    await recordJob(record.jobsFile, recorded);
    const outcome = await run<{ terminated: number; problem: string | null }>(
      createLoopActors(session).cleanupJobs,
      {
        plan,
      },
    );
    expect(outcome.terminated).toBe(1);
    expect(outcome.problem).toBe(`unrecorded job ${unrecorded} still running`);
    expect(isProcessAlive(recorded)).not.toBe('alive');
    expect(isProcessAlive(unrecorded)).toBe('alive');
  });
});
