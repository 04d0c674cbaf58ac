/**
 * Every effect that starts a process honours XState's actor `signal` (issue 14): an effect starts a
 * real long-running process (a shell that leaves `sleep 300` running in its group), the test stops
 * the actor that runs it (or the runner, which stops its statechart's actor), and the sleeping
 * process must be gone. Nothing here is timed: the test waits for the pid file the process writes,
 * and for the process to disappear; an effect that ignored the signal leaves `sleep 300` running
 * and the test runs into its timeout.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type AnyActorLogic, createActor, toPromise } from 'xstate';
import { shellCheckCommand } from '../../src/cybernetic/shell-check.js';
import { isProcessAlive } from '../../src/effects/process-identity.js';
import { planDispatch } from '../../src/gauntlet/dispatch.js';
import { parseLedger, serializeLedger } from '../../src/gauntlet/ledger.js';
import { seedLedger } from '../../src/gauntlet/seed.js';
import { parseSpec } from '../../src/gauntlet/spec.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import { createCrankRunner } from '../../src/host/crank-runner.js';
import { type CyberneticRunnerOptions, createCyberneticActors } from '../../src/host/cybernetic-runner.js';
import type { HostOptions, HostSession } from '../../src/host/host-session.js';
import { createLoopActors, openHostSession } from '../../src/host/loop-actors.js';
import { runLoopCommand } from '../../src/host/loop-command-runner.js';
import { createRpiRunner } from '../../src/host/rpi-runner.js';
import { eventually, killStartedGroups, readLineWhenWritten, trackGroup } from '../effects/processes.js';
import { createTempRepo, ISOLATED_GIT_ENV, type TempRepo } from '../effects/temp-repo.js';

const SPEC = `# T\n\n## Acceptance criteria\n\nTicket T-1, checkbox list, rows verbatim:\n\n- [ ] one\n- [ ] two\n`;

let repo: TempRepo;
let scratch: string;
const sessions: HostSession[] = [];
const savedEnv = { ...process.env };

beforeEach(() => {
  repo = createTempRepo('loopchart-signals-');
  repo.commit('spec', { 'docs/specs/t.md': SPEC });
  scratch = mkdtempSync(join(tmpdir(), 'loopchart-signals-scratch-'));
  Object.assign(process.env, ISOLATED_GIT_ENV);
});
afterEach(async () => {
  killStartedGroups();
  for (const session of sessions.splice(0)) await session.lock.release();
  repo.remove();
  rmSync(scratch, { recursive: true, force: true });
  process.env = { ...savedEnv };
});

/**
 * A shell command that leaves `sleep 300` in its own process group, writes that sleep's pid to a
 * file, then waits for it: what a long gate, child, validator or check looks like.
 */
function sleeper(name: string): { command: string; pidFile: string } {
  const pidFile = join(scratch, `${name}.pid`);
  return { command: `sleep 300 & echo $! > '${pidFile}'; wait`, pidFile };
}

/** Waits for the sleeper to start and returns its pid (tracked, so a failing test still cleans up). */
async function started(pidFile: string): Promise<number> {
  const pid = Number(await readLineWhenWritten(pidFile));
  trackGroup(pid);
  expect(isProcessAlive(pid)).toBe('alive');
  return pid;
}

/** {@link started}, but fails at once when the run ends before the process started. */
async function startedBy(pidFile: string, run: Promise<unknown>): Promise<number> {
  const ended = run.then(
    (result) => {
      throw new Error(`the run ended before its process started: ${JSON.stringify(result).slice(0, 500)}`);
    },
    (error: unknown) => {
      throw error;
    },
  );
  ended.catch(() => undefined);
  return Promise.race([started(pidFile), ended]);
}

/** Waits until the process is gone (a zombie has exited too). */
async function gone(pid: number): Promise<void> {
  await eventually(() => isProcessAlive(pid) !== 'alive');
  expect(isProcessAlive(pid)).not.toBe('alive');
}

async function openSession(overrides: Partial<HostOptions> = {}): Promise<HostSession> {
  const options: HostOptions = {
    worktree: repo.dir,
    ledgerPath: 'docs/plans/t.md',
    specPath: 'docs/specs/t.md',
    child: null,
    gates: [],
    allowance: 4,
    escalateAfter: 2,
    implModel: null,
    silenceTimeoutMs: 600_000,
    timeoutMs: 600_000,
    killGraceMs: 2_000,
    ...overrides,
  };
  const session = await openHostSession(options, { env: ISOLATED_GIT_ENV });
  sessions.push(session);
  return session;
}

function seeded(verification = 'true'): Ledger {
  const head = repo.git('rev-parse', 'HEAD').trim();
  const ledger = seedLedger(parseSpec(SPEC).spec, { specPath: 'docs/specs/t.md', base: head, verification })
    .ledger as Ledger;
  repo.commit('loop: seed ledger', { 'docs/plans/t.md': serializeLedger(ledger) });
  return parseLedger(repo.git('show', 'HEAD:docs/plans/t.md')).ledger as Ledger;
}

/** Starts an actor of one logic alone, as a parent machine would invoke it; errors are kept, not thrown. */
function startAlone(logic: AnyActorLogic, input: unknown) {
  const actor = createActor(logic, { input });
  actor.subscribe({ error: () => {} });
  return actor.start();
}

describe('stopping an actor kills the process its effect started', () => {
  it('runGates: the running gate', async () => {
    const gate = sleeper('gate');
    const session = await openSession();
    const actor = startAlone(createLoopActors(session).runGates, { ledger: seeded(gate.command) });
    const pid = await started(gate.pidFile);
    actor.stop();
    await gone(pid);
  });

  it('dispatchChild: the child and its group', async () => {
    const child = sleeper('child');
    const session = await openSession({ child: child.command });
    const ledger = seeded();
    const plan = planDispatch({ ledger, target: 'seed', head: repo.git('rev-parse', 'HEAD').trim() });
    const actors = createLoopActors(session);
    await toPromise(startAlone(actors.reserveDispatch, { plan, ledgerPath: 'docs/plans/t.md' }));
    const actor = startAlone(actors.dispatchChild, {
      plan,
      ledgerPath: 'docs/plans/t.md',
      specPath: 'docs/specs/t.md',
      actionRecords: [],
      gate: null,
    });
    const pid = await started(child.pidFile);
    actor.stop();
    await gone(pid);
  });

  it('runReview: the reviewer', async () => {
    const reviewer = sleeper('reviewer');
    const session = await openSession({ reviewer: reviewer.command });
    const base = repo.git('rev-parse', 'HEAD').trim();
    const actor = startAlone(createLoopActors(session).runReview, {
      role: 'whole-diff',
      base,
      specPath: 'docs/specs/t.md',
      ledgerPath: 'docs/plans/t.md',
    });
    const pid = await started(reviewer.pidFile);
    actor.stop();
    await gone(pid);
  });

  it('runChecks (cybernetic loop): the running check', async () => {
    const check = sleeper('check');
    const options: CyberneticRunnerOptions = { worktree: repo.dir, request: {}, patcher: 'true' };
    const actors = createCyberneticActors(options, join(scratch, 'cyber-run'), new Map());
    const actor = startAlone(actors.runChecks, {
      run: 0,
      checks: [
        {
          name: 'slow',
          role: 'existing',
          command: shellCheckCommand(check.command),
          pass: { kind: 'exit-code', exitCode: 0 },
        },
      ],
    });
    const pid = await started(check.pidFile);
    actor.stop();
    await gone(pid);
  });
});

describe('stopping a runner stops its statechart, whose actor kills the command in flight', () => {
  it('rpi: the implementer (a stage command)', async () => {
    const implementer = sleeper('implementer');
    const abort = new AbortController();
    const run = createRpiRunner({
      repo: repo.dir,
      implementer: implementer.command,
      validator: 'false',
      runDir: join(scratch, 'rpi-implement'),
      signal: abort.signal,
    }).run();
    const pid = await startedBy(implementer.pidFile, run);
    abort.abort();
    await expect(run).rejects.toMatchObject({ code: 'run.stopped' });
    await gone(pid);
  });

  it('rpi: the validator', async () => {
    const validator = sleeper('validator');
    const abort = new AbortController();
    const run = createRpiRunner({
      repo: repo.dir,
      implementer: 'true',
      validator: validator.command,
      runDir: join(scratch, 'rpi-validate'),
      signal: abort.signal,
    }).run();
    const pid = await startedBy(validator.pidFile, run);
    abort.abort();
    await expect(run).rejects.toMatchObject({ code: 'run.stopped' });
    await gone(pid);
  });

  it("crank: a lane's implementer", async () => {
    const implementer = sleeper('lane');
    const abort = new AbortController();
    const runner = createCrankRunner({
      repo: repo.dir,
      wave: {
        lanes: [{ id: 'a', scope: ['src/a/**'], brief: 'lane a', acceptance: ['a works'] }],
        repair_rounds: 0,
        acceptance: 'true',
      },
      implementer: implementer.command,
      validator: 'false',
      runDir: join(scratch, 'crank'),
      signal: abort.signal,
    });
    const run = runner.run();
    const pid = await startedBy(implementer.pidFile, run);
    abort.abort();
    await expect(run).rejects.toMatchObject({ code: 'run.stopped' });
    await gone(pid);
  });

  it('loop: the act command', async () => {
    const act = sleeper('act');
    repo.commit('value', { 'value.txt': '10\n' });
    const abort = new AbortController();
    const contractText = [
      'Outcome: value.txt reaches 0',
      'Observable source: cat value.txt',
      'Allowed actions: edit value.txt',
      'Actor and sole writer: the act command',
      'Evaluator or guard: the verify command',
      'Iteration or poll budget: 20',
      'Plateau or no-progress rule: stop after 2 non-improving cycles',
      `State location: approved_path ${join(scratch, 'loop-state')}`,
    ].join('\n');
    const run = runLoopCommand({
      contractPath: join(scratch, 'contract.md'),
      contractText,
      cwd: repo.dir,
      observe: 'cat value.txt',
      act: act.command,
      verify: 'true',
      scope: ['value.txt'],
      signal: abort.signal,
    });
    const pid = await startedBy(act.pidFile, run);
    abort.abort();
    await run.catch(() => undefined);
    await gone(pid);
  });
});
