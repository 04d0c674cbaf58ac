/**
 * Issue 10, "the statechart owns the protocol": `loopImplementationMachine` driven by a bare host
 * (./bare-host.ts: primitive actors only, no `createRunner`) on real temporary repositories with
 * the real scripted child, through a crash mid-dispatch, a dirty start, a discard at a
 * recovery-incomplete stop and a spend carried across a repair. Each case asserts the protocol's
 * facts by hand (subjects, spend records, files left alone) and that the bare host's ledger bytes
 * and `loop:` subjects equal `createRunner`'s on the same case.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { createActor, waitFor } from 'xstate';
import { type HumanEvent, loopImplementationMachine } from '../../machines/loop-implementation/index.js';
import type { ChildScript } from '../../src/host/child-script.js';
import { createRunner } from '../../src/host/runner.js';
import { killProcessesIn } from '../support/demo-run.js';
import {
  createLoopRepo,
  GIT_TEST_ENV,
  type LoopRepo,
  specWith,
  useGitTestEnvironment,
} from '../support/loop-repo.js';
import { bareHostActors } from './bare-host.js';

const FIXED_DATE = '2026-01-01T00:00:00Z';
const SETTINGS = { allowance: 3, escalateAfter: 9 };
const SPEND = 'ran fixture capture (1 of 3)';
const STOPPED = 'Stopped by the human: branch state preserved.\n';
/** The closure of a verify whose conformance audit was waived: the status says so, nothing audited. */
const WAIVED = expect.stringMatching(
  /^## Closure \/ conformance\nstatus: not audited \(waived\)\naudited-base: none\nverified-head: [0-9a-f]{40}\n/,
);

const cleanup: (() => void)[] = [];
beforeAll(() => {
  useGitTestEnvironment();
  Object.assign(process.env, { GIT_AUTHOR_DATE: FIXED_DATE, GIT_COMMITTER_DATE: FIXED_DATE });
});
afterAll(() => {
  for (const done of cleanup.splice(0)) done();
});

function repoFor(script: ChildScript): LoopRepo {
  const repo = createLoopRepo({ spec: specWith(['The only row']), script });
  cleanup.push(() => {
    killProcessesIn(repo.dir);
    repo.remove();
  });
  return repo;
}

interface BareRun {
  /** Where each run of the machine ended: a final state's output or the stop state. */
  readonly ends: unknown[];
  /** The task files the bare host handed to children, in order. */
  readonly tasks: { actionRecords: string[]; target: unknown }[];
}

/**
 * Runs the machine with the bare host's actors until it finishes. At a human stop the next reply
 * of `replies` is sent; `crashWhen` stops the actor at the first snapshot it accepts and a new
 * actor starts from disk and git alone.
 */
async function runBare(
  repo: LoopRepo,
  replies: HumanEvent[],
  crashWhen?: (snapshot: ReturnType<ReturnType<typeof startActor>['getSnapshot']>) => boolean,
): Promise<BareRun> {
  const stateDir = mkdtempSync(join(tmpdir(), 'loopchart-bare-'));
  cleanup.push(() => rmSync(stateDir, { recursive: true, force: true }));
  const host = bareHostActors({
    worktree: repo.dir,
    ledgerPath: repo.ledgerPath,
    specPath: repo.specPath,
    stateDir,
    child: await repo.childCommand(),
    settings: SETTINGS,
    env: { ...process.env, ...GIT_TEST_ENV },
  });
  const ends: unknown[] = [];
  let crash = crashWhen;
  for (let runs = 0; runs < 4; runs++) {
    const actor = startActor(repo, host.actors);
    let crashed = false;
    for (;;) {
      const snapshot = await waitFor(actor, (s) => {
        if (crash?.(s)) {
          crashed = true;
          return true;
        }
        return s.status !== 'active' || s.matches('humanStop');
      });
      if (crashed) {
        actor.stop();
        crash = undefined;
        ends.push('crashed');
        break;
      }
      if (snapshot.status === 'done') {
        ends.push(snapshot.output);
        actor.stop();
        return { ends, tasks: host.tasks.map((t) => JSON.parse(t)) };
      }
      if (snapshot.status !== 'active') throw new Error(`the machine ended ${snapshot.status}`);
      ends.push(snapshot.value);
      const reply = replies.shift();
      if (reply === undefined) {
        actor.stop();
        return { ends, tasks: host.tasks.map((t) => JSON.parse(t)) };
      }
      actor.send(reply);
    }
  }
  throw new Error('the bare host did not finish');
}

function startActor(repo: LoopRepo, actors: ReturnType<typeof bareHostActors>['actors']) {
  const machine = loopImplementationMachine.provide({ actors: actors as never });
  const actor = createActor(machine, {
    input: { ledgerPath: repo.ledgerPath, specPath: repo.specPath, verification: 'true' },
  });
  actor.start();
  return actor;
}

/** The same case through `createRunner` on a fresh repository, answering with `answers` in turn. */
async function runWithRunner(script: ChildScript, answers: string[], prepare?: (repo: LoopRepo) => void) {
  const repo = repoFor(script);
  prepare?.(repo);
  const results = [];
  for (const answer of [undefined, ...answers]) {
    const result = await createRunner({
      worktree: repo.dir,
      spec: repo.specPath,
      child: await repo.childCommand(),
      verification: 'true',
      settings: SETTINGS,
      transcript: false,
      waiveConformanceReview: true,
      ...(answer === undefined ? {} : { answer }),
    }).run();
    results.push(result);
    if (result.status !== 'stopped' || result.stopText === STOPPED) break;
  }
  return { repo, results };
}

const loopSubjects = (repo: LoopRepo) => repo.subjects().filter((s) => s.startsWith('loop: '));
const bodyOf = (repo: LoopRepo, subject: string) =>
  repo.git('log', '--format=%B', `--grep=^${subject}$`, '-1');

describe('a bare host drives the loop machine with primitive actors', () => {
  it('carries a spend across a repair: the repair body keeps it and the next task carries it', async () => {
    const script: ChildScript = {
      version: 1,
      targets: {
        seed: [{ do: 'seed', evidence: { '1': 'only; failing' } }],
        '1': [
          { do: 'miss', violation: 'dropped-spend', evidence: 'only; tried', spend: [SPEND] },
          { do: 'done', evidence: 'only; passes' },
        ],
      },
    };
    const repo = repoFor(script);
    const bare = await runBare(repo, []);
    expect(bare.ends).toEqual([{ status: 'finished', closure: WAIVED }]);
    // §3.12 and §3.19: the child's commit stays and the parent repairs the miss on top of it, its
    // body keeping the jobs file's record; the next dispatch of the row carries it (rule 4) and the
    // child repeats it.
    expect(loopSubjects(repo)).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: row 1 failed',
      'loop: repair row 1',
      'loop: row 1 done',
    ]);
    expect(bodyOf(repo, 'loop: repair row 1')).toContain(SPEND);
    expect(bare.tasks.map((t) => [t.target, t.actionRecords])).toEqual([
      ['seed', []],
      [1, []],
      [1, [SPEND]],
    ]);
    expect(repo.ledger()).toContain(SPEND);

    const runner = await runWithRunner(script, []);
    expect(runner.results.map((r) => r.status)).toEqual(['finished']);
    expect(repo.ledger()).toBe(runner.repo.ledger());
    expect(loopSubjects(repo)).toEqual(loopSubjects(runner.repo));
  });

  it('resumes a dispatch whose child committed before the host stopped, and validates that commit', async () => {
    const script: ChildScript = {
      version: 1,
      targets: {
        seed: [{ do: 'seed', evidence: { '1': 'only; failing' } }],
        '1': [
          { do: 'miss', violation: 'header-change', evidence: 'only; tried' },
          { do: 'done', evidence: 'only; passes' },
        ],
      },
    };
    const repo = repoFor(script);
    // Stop the actor right after the row's child returned (its commit removed the tuple), before
    // the parent read the boundary: the next actor starts from disk and git alone. The commit
    // breaks the header rule, so only a machine that recognizes the dispatch as still in flight
    // validates it (a miss, repaired by the parent); read as history it would count as admitted.
    const bare = await runBare(
      repo,
      [],
      (s) => s.matches({ implement: 'readingBoundary' }) && s.context.plan?.target === 1,
    );
    expect(bare.ends).toEqual(['crashed', { status: 'finished', closure: WAIVED }]);
    expect(bare.tasks.map((t) => t.target)).toEqual(['seed', 1, 1]);
    const subjects = loopSubjects(repo);
    expect(subjects.slice(0, 2)).toEqual(['loop: seed ledger', 'loop: seed evidence']);
    expect(subjects[2]).toMatch(/^loop: row 1 (done|failed)$/);
    expect(subjects.slice(3)).toEqual(['loop: repair row 1', 'loop: row 1 done']);
    // Two dispatches of the row, each consumed once: seed, miss, done.
    expect(repo.ledger()).toMatch(/^iterations: 3$/m);
    expect(repo.ledger()).not.toMatch(/^pending:/m);

    const runner = await runWithRunner(script, []);
    expect(runner.results.map((r) => r.status)).toEqual(['finished']);
    expect(repo.ledger()).toBe(runner.repo.ledger());
    expect(loopSubjects(repo)).toEqual(loopSubjects(runner.repo));
  });

  it('stops on a dirty start before any dispatch and Stop says so, touching no user file', async () => {
    const script: ChildScript = {
      version: 1,
      targets: { seed: [{ do: 'seed', evidence: { '1': 'only; failing' } }] },
    };
    const dirty = (repo: LoopRepo) => {
      repo.write('notes.txt', 'my notes\n');
      repo.write('README.md', 'my edit\n');
    };
    const repo = repoFor(script);
    dirty(repo);
    const bare = await runBare(repo, [{ type: 'human.stop' }]);
    expect(bare.ends).toEqual([{ humanStop: 'dirtyTree' }, { status: 'stopped', text: STOPPED }]);
    expect(bare.tasks).toEqual([]);
    expect(repo.subjects()).toEqual([]);
    expect(existsSync(join(repo.dir, repo.ledgerPath))).toBe(false);
    expect(readFileSync(join(repo.dir, 'notes.txt'), 'utf8')).toBe('my notes\n');
    expect(repo.status()).toBe(' M README.md\n?? notes.txt\n');

    const runner = await runWithRunner(script, ['stop'], dirty);
    expect(runner.results.map((r) => r.status)).toEqual(['stopped', 'stopped']);
    expect(runner.results[0]?.stopText).toMatch(/^gauntlet: question\nStopped: dirty tree - /);
    // The runner prints the machine's own Stop text.
    expect(runner.results[1]?.stopText).toBe(STOPPED);
    expect(runner.repo.subjects()).toEqual([]);
    expect(runner.repo.status()).toBe(repo.status());
  });

  it('discards an unattributed return at the recovery-incomplete stop and keeps its spend in the repair', async () => {
    const script: ChildScript = {
      version: 1,
      targets: {
        seed: [{ do: 'seed', evidence: { '1': 'only; failing' } }],
        '1': [
          { do: 'done', evidence: 'only; tried', attribution: 'missing', spend: [SPEND] },
          { do: 'done', evidence: 'only; passes' },
        ],
      },
    };
    const repo = repoFor(script);
    const bare = await runBare(repo, [{ type: 'human.discard' }]);
    expect(bare.ends).toEqual([{ humanStop: 'recoveryIncomplete' }, { status: 'finished', closure: WAIVED }]);
    // §3.14-3.15: the discard resets to HEAD_BEFORE and the parent repairs the row; the spend the
    // discarded dispatch recorded survives in the repair body (§3.19 rule 1) and is carried on.
    expect(loopSubjects(repo)).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: repair row 1',
      'loop: row 1 done',
    ]);
    expect(bodyOf(repo, 'loop: repair row 1')).toContain(SPEND);
    expect(bare.tasks.map((t) => [t.target, t.actionRecords])).toEqual([
      ['seed', []],
      [1, []],
      [1, [SPEND]],
    ]);

    const runner = await runWithRunner(script, ['discard']);
    expect(runner.results.map((r) => r.status)).toEqual(['stopped', 'finished']);
    expect(repo.ledger()).toBe(runner.repo.ledger());
    expect(loopSubjects(repo)).toEqual(loopSubjects(runner.repo));
  });
});
