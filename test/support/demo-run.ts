/**
 * Test support for runs of the demo repository: its `run` arguments with the bundled scripted
 * child, a driver that resumes until the loop finishes (answering the demo's stop the way a person
 * would), and cleanup of background jobs that a killed run leaves behind.
 */
import { readdirSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';
import { DEMO_ANSWER, DEMO_SETTINGS, DEMO_VERIFICATION, type DemoRepository } from '../../src/host/demo.js';
import { bundledScriptedChild } from './cli-bundle.js';
import { type CliOutcome, cli } from './loop-repo.js';

/**
 * The `run` arguments of the demo's loop, with the bundled scripted child. Unlike the demo
 * command it runs no reviewers and waives the conformance audit (`--no-conformance-review`): the
 * crash tests that use it are about the dispatch half; test/e2e/loop-reviews.test.ts crashes a run
 * inside verify's reviews.
 */
export async function demoRunArgs(demo: DemoRepository): Promise<string[]> {
  return [
    '--worktree',
    demo.dir,
    '--spec',
    demo.specPath,
    '--ledger',
    demo.ledgerPath,
    '--child',
    `${process.execPath} ${await bundledScriptedChild()} ${demo.scriptPath}`,
    '--verification',
    DEMO_VERIFICATION,
    '--allowance',
    String(DEMO_SETTINGS.allowance),
    '--impl-model',
    DEMO_SETTINGS.implModel,
    '--no-conformance-review',
  ];
}

/**
 * Runs (in this process) until the loop finishes, answering every stop with the demo's answer.
 *
 * @returns every run's outcome, in order
 * @throws Error when the loop neither finishes nor stops within a few runs
 */
export async function resumeUntilFinished(args: readonly string[]): Promise<CliOutcome[]> {
  const outcomes: CliOutcome[] = [];
  let answer = false;
  for (let i = 0; i < 4; i += 1) {
    const outcome = await cli('run', answer ? [...args, '--answer', DEMO_ANSWER] : args);
    outcomes.push(outcome);
    if (outcome.code === 0) return outcomes;
    if (outcome.code !== 3)
      throw new Error(`run ended with ${outcome.code}: ${outcome.stderr}${outcome.stdout}`);
    answer = true;
  }
  throw new Error(`the loop did not finish: ${outcomes.map((o) => o.stdout).join('\n---\n')}`);
}

/** SIGKILLs every process group whose working directory is inside `dir` (jobs a killed run left). */
export function killProcessesIn(dir: string): void {
  for (const name of readdirSync('/proc')) {
    if (!/^\d+$/.test(name)) continue;
    try {
      const cwd = readlinkSync(join('/proc', name, 'cwd'));
      if (cwd === dir || cwd.startsWith(`${dir}/`)) process.kill(-Number(name), 'SIGKILL');
    } catch {
      // gone, not ours, or not a group leader
    }
  }
}
