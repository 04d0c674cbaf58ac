/**
 * `loopchart loop` end to end on real temporary repositories with real shell commands: a metric
 * that improves and then plateaus, a verify that fails and is rolled back inside the checkpoint,
 * a run killed with SIGKILL mid-cycle and resumed from its ledger, and the design-only mode.
 * Expected values are worked out by hand from the protocol's rules (docs/loop-protocol.md).
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/commands.js';
import type { FinalReport } from '../../src/loop-protocol/final-report.js';
import { parseTranscript } from '../../src/loop-protocol/transcript.js';
import { bundledLoopCommandCli } from '../support/cli-bundle.js';
import { parseCliResult } from '../support/cli-result.js';
import { stringSinks } from '../support/string-sinks.js';

const GIT_ENV = {
  ...process.env,
  GIT_AUTHOR_NAME: 'Test',
  GIT_AUTHOR_EMAIL: 'test@example.invalid',
  GIT_COMMITTER_NAME: 'Test',
  GIT_COMMITTER_EMAIL: 'test@example.invalid',
};

function git(cwd: string, ...args: string[]): string {
  return execFileSync('git', ['-c', 'commit.gpgsign=false', ...args], {
    cwd,
    env: GIT_ENV,
    encoding: 'utf8',
  });
}

/**
 * A repository whose `value.txt` holds 10, with pre-existing user work: an uncommitted edit of
 * README.md and an untracked notes.txt. Returns the repository and a scratch folder outside it.
 */
function makeRepo(): { repo: string; outside: string } {
  const outside = mkdtempSync(join(tmpdir(), 'loopchart-loop-cmd-'));
  const repo = join(outside, 'repo');
  mkdirSync(repo);
  git(repo, 'init', '-q', '-b', 'main');
  writeFileSync(join(repo, 'value.txt'), '10\n');
  writeFileSync(join(repo, 'README.md'), 'readme\n');
  git(repo, 'add', '-A');
  git(repo, 'commit', '-q', '-m', 'initial');
  writeFileSync(join(repo, 'README.md'), 'readme with an uncommitted edit\n');
  writeFileSync(join(repo, 'notes.txt'), 'untracked user notes\n');
  return { repo, outside };
}

function contract(stateLocation: string, extra = ''): string {
  return [
    'Outcome: value.txt reaches 0',
    'Observable source: cat value.txt',
    'Allowed actions: edit value.txt',
    'Actor and sole writer: the act command',
    'Evaluator or guard: the verify command',
    'Iteration or poll budget: 20',
    'Plateau or no-progress rule: stop after 2 non-improving cycles',
    `State location: ${stateLocation}`,
    extra,
  ].join('\n');
}

/** Lowers value.txt by one while it is above 7; at 7 it rewrites the same value (no effect). */
const IMPROVE_THEN_PLATEAU =
  'v=$(cat value.txt); if [ "$v" -gt 7 ]; then echo $((v-1)) > value.txt; else echo "$v" > value.txt; fi';

async function loop(args: string[]) {
  const { out, io } = stringSinks();
  const code = await runCli(['loop', ...args], io);
  return { code, ...out };
}

function jsonOf(stdout: string) {
  return parseCliResult(stdout) as {
    exitCode: number;
    stop: FinalReport['stop'];
    report: FinalReport;
    ledger: string;
    resumed: boolean;
    alreadyFinished: boolean;
    baseline: { revision: string; branch: string; dirty: { status: string; path: string }[] };
    missing: { label: string }[];
  };
}

const cyclesOf = (actions: readonly { cycle: number }[]) => actions.map((a) => a.cycle);

describe('loopchart loop', () => {
  it('stops on the plateau rule with the final report when the metric improves and then stops improving', async () => {
    const { repo, outside } = makeRepo();
    const state = join(outside, 'state');
    writeFileSync(join(outside, 'contract.md'), contract(`approved_path ${state}`));
    const head = git(repo, 'rev-parse', 'HEAD').trim();
    const run = await loop([
      '--contract',
      join(outside, 'contract.md'),
      '--cwd',
      repo,
      '--observe',
      'cat value.txt',
      '--act',
      IMPROVE_THEN_PLATEAU,
      '--verify',
      'test -f value.txt',
      '--metric',
      'lower',
      '--target',
      '0',
      '--json',
    ]);
    expect(run.stderr).toContain('cycle 1: act -> exit 0');
    const result = jsonOf(run.stdout);
    // By hand: cycles 1-3 lower 10 -> 7 (metric beats the best: kept); cycle 4 observes the new
    // state 7 for the first time (a state transition observed: kept); cycles 5 and 6 change
    // nothing (discarded, rolled back): two non-improving cycles reach the plateau threshold 2.
    expect(run.code).toBe(4);
    expect(result.stop).toMatchObject({ rule: 'plateau', success: false });
    expect(result.report.status).toBe('complete');
    expect(result.report.cyclesCompleted).toBe(6);
    expect(cyclesOf(result.report.actions.kept)).toEqual([1, 2, 3, 4]);
    expect(cyclesOf(result.report.actions.discarded)).toEqual([5, 6]);
    expect(result.report.baseline).toMatchObject({ cycle: 0, metric: 10 });
    expect(result.report.final).toMatchObject({ cycle: 6, metric: 7 });
    expect(result.report.finalEvidence.join('\n')).toContain('[metric 7]');
    expect(readFileSync(join(repo, 'value.txt'), 'utf8')).toBe('7\n');
    // The baseline recorded the checkout: revision, branch and the user's pre-existing work.
    expect(result.baseline.revision).toBe(head);
    expect(result.baseline.branch).toBe('main');
    expect(result.baseline.dirty.map((d) => d.path).sort()).toEqual(['README.md', 'notes.txt']);
    // The ledger is at the approved path, and nothing of the loop's state is in the repository.
    expect(result.ledger).toBe(join(state, 'ledger.jsonl'));
    expect(git(repo, 'status', '--porcelain').split('\n').filter(Boolean).sort()).toEqual([
      ' M README.md',
      ' M value.txt',
      '?? notes.txt',
    ]);
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('readme with an uncommitted edit\n');

    // The human form renders the same report.
    const again = await loop([
      '--contract',
      join(outside, 'contract.md'),
      '--cwd',
      repo,
      '--observe',
      'cat value.txt',
      '--act',
      IMPROVE_THEN_PLATEAU,
      '--verify',
      'test -f value.txt',
      '--metric',
      'lower',
      '--target',
      '0',
    ]);
    expect(again.stderr).toBe('');
    expect(again.code).toBe(4);
    expect(again.stdout).toContain('the ledger holds a finished run');
    expect(again.stdout).toContain('Why it stopped: plateau (not a success)');

    // --audit holds the run's ledger against the contract: it kept it.
    const audit = await loop(['--contract', join(outside, 'contract.md'), '--audit', result.ledger]);
    expect(audit.stdout).toContain('Audit: the run kept its contract');
    expect(audit.code).toBe(0);
  });

  it('rolls a cycle whose verify fails back inside its checkpoint, keeping the user work', async () => {
    const { repo, outside } = makeRepo();
    const state = join(outside, 'state');
    writeFileSync(join(outside, 'contract.md'), contract(`approved_path ${state}`));
    const run = await loop([
      '--contract',
      join(outside, 'contract.md'),
      '--cwd',
      repo,
      '--observe',
      'cat value.txt',
      '--act',
      'echo broken > value.txt; echo made by the act > extra.txt; echo appended >> notes.txt',
      '--verify',
      "grep -qx '[0-9]*' value.txt",
      '--json',
    ]);
    const result = jsonOf(run.stdout);
    // By hand: each cycle's verify fails, the cycle observed only the baseline state again, so
    // no progress: discarded and rolled back; the second such cycle reaches the plateau (2).
    expect(run.code).toBe(4);
    expect(result.stop?.rule).toBe('plateau');
    expect(cyclesOf(result.report.actions.discarded)).toEqual([1, 2]);
    expect(result.report.actions.kept).toEqual([]);
    expect(result.report.evaluator).toMatchObject({ verdict: 'fail' });
    const records = parseTranscript(readFileSync(result.ledger, 'utf8')).records;
    const rollbacks = records.filter((r) => r.event === 'xstate.done.actor.rollback');
    expect(rollbacks.map((r) => (r.data as { output: { restored: boolean } }).output.restored)).toEqual([
      true,
      true,
    ]);
    // Back at the checkpoint byte for byte, user work included (even the edit the act made to it).
    expect(readFileSync(join(repo, 'value.txt'), 'utf8')).toBe('10\n');
    expect(existsSync(join(repo, 'extra.txt'))).toBe(false);
    expect(readFileSync(join(repo, 'notes.txt'), 'utf8')).toBe('untracked user notes\n');
    expect(readFileSync(join(repo, 'README.md'), 'utf8')).toBe('readme with an uncommitted edit\n');
  });

  it('resumes a run killed with SIGKILL mid-cycle from its ledger and ends with the same report', async () => {
    const cli = await bundledLoopCommandCli();
    const scripts = mkdtempSync(join(tmpdir(), 'loopchart-loop-scripts-'));
    // The same act command for both runs; it kills its loopchart (its parent) in cycle 3 when the
    // run's state location is armed, after writing part of a change the loop must not keep.
    const act = join(scripts, 'act.sh');
    writeFileSync(
      act,
      [
        'if [ "$LOOPCHART_CYCLE" = 3 ] && [ -e "$LOOPCHART_STATE_DIR.arm" ]; then',
        '  rm "$LOOPCHART_STATE_DIR.arm"',
        '  echo 999 > value.txt',
        '  kill -9 $PPID',
        '  exit 1',
        'fi',
        IMPROVE_THEN_PLATEAU,
        '',
      ].join('\n'),
    );
    const runIn = (armed: boolean) => {
      const { repo, outside } = makeRepo();
      const state = join(outside, 'state');
      if (armed) writeFileSync(`${state}.arm`, '');
      writeFileSync(join(outside, 'contract.md'), contract(`approved_path ${state}`));
      const args = [
        cli,
        'loop',
        '--contract',
        join(outside, 'contract.md'),
        '--cwd',
        repo,
        '--observe',
        'cat value.txt',
        '--act',
        `. ${act}`,
        '--verify',
        'test -f value.txt',
        '--metric',
        'lower',
        '--json',
      ];
      const run = () => spawnSync(process.execPath, args, { encoding: 'utf8' });
      return { repo, state, run };
    };

    const straight = runIn(false);
    const whole = straight.run();
    expect(whole.status).toBe(4);

    const killed = runIn(true);
    const first = killed.run();
    expect(first.signal).toBe('SIGKILL');
    const ledger = join(killed.state, 'ledger.jsonl');
    const before = parseTranscript(readFileSync(ledger, 'utf8')).records;
    expect(before.at(-1)?.state).toEqual({ cycle: 'acting' });
    expect(before.at(-1)?.cycle).toBe(3);
    expect(readFileSync(join(killed.repo, 'value.txt'), 'utf8')).toBe('999\n');

    const second = killed.run();
    expect(second.status).toBe(4);
    const resumed = jsonOf(second.stdout);
    expect(resumed.resumed).toBe(true);
    const reference = jsonOf(whole.stdout);
    // The same report, except for the wall-clock time each run took.
    const comparable = (report: FinalReport) => ({
      ...report,
      budget: report.budget ? { ...report.budget, elapsedMs: null } : null,
    });
    expect(comparable(resumed.report)).toEqual(comparable(reference.report));
    expect(resumed.report.stop?.rule).toBe('plateau');
    expect(readFileSync(join(killed.repo, 'value.txt'), 'utf8')).toBe('7\n');
    // The ledger holds each record once: the replay wrote nothing twice.
    const after = parseTranscript(readFileSync(ledger, 'utf8'));
    expect(after.findings).toEqual([]);
    const wholeRecords = parseTranscript(readFileSync(reference.ledger, 'utf8')).records;
    expect(after.records.map((r) => r.event)).toEqual(wholeRecords.map((r) => r.event));
  });

  it('--design names exactly the missing material fields of an incomplete contract and exits 2', async () => {
    const { repo, outside } = makeRepo();
    writeFileSync(
      join(outside, 'contract.md'),
      [
        'Observable source: cat value.txt',
        'Allowed actions: edit value.txt',
        'Evaluator or guard: the verify command',
        'Success: value.txt holds 0',
        'Time or cost budget: 30m',
      ].join('\n'),
    );
    const design = await loop(['--contract', join(outside, 'contract.md'), '--design', '--json']);
    expect(design.code).toBe(2);
    // The policy table: Outcome, Actor and sole writer and Iteration or poll budget are never guessed.
    expect(jsonOf(design.stdout).missing.map((m) => m.label)).toEqual([
      'Outcome',
      'Actor and sole writer',
      'Iteration or poll budget',
    ]);
    const text = await loop(['--contract', join(outside, 'contract.md'), '--design']);
    expect(text.code).toBe(2);
    expect(text.stdout).toContain('- Outcome (changes success-metric, scope)');
    expect(text.stderr).toContain(
      'missing material fields: Outcome, Actor and sole writer, Iteration or poll budget',
    );

    // Running it refuses the same way and runs nothing.
    const marker = join(outside, 'acted');
    const run = await loop([
      '--contract',
      join(outside, 'contract.md'),
      '--cwd',
      repo,
      '--observe',
      'cat value.txt',
      '--act',
      `touch ${marker}`,
      '--verify',
      'true',
    ]);
    expect(run.code).toBe(2);
    expect(existsSync(marker)).toBe(false);

    // A complete contract: printed with its inferred fields and where each came from.
    writeFileSync(join(outside, 'complete.md'), contract('task_only'));
    const complete = await loop(['--contract', join(outside, 'complete.md'), '--design']);
    expect(complete.code).toBe(0);
    expect(complete.stdout).toContain('Wakeup mechanism: continuation inside the current task');
    expect(complete.stdout).toContain('- Success: from Outcome');
  });

  it('keeps a task_only ledger outside the repository', async () => {
    const { repo, outside } = makeRepo();
    writeFileSync(join(outside, 'contract.md'), contract('task_only'));
    const run = await loop([
      '--contract',
      join(outside, 'contract.md'),
      '--cwd',
      repo,
      '--observe',
      'cat value.txt',
      '--act',
      IMPROVE_THEN_PLATEAU,
      '--verify',
      'true',
      '--metric',
      'lower',
      '--target',
      '9',
      '--json',
    ]);
    const result = jsonOf(run.stdout);
    // By hand: cycle 1 lowers 10 to 9, the evaluator passes and the target 9 is reached.
    expect(run.code).toBe(0);
    expect(result.stop).toMatchObject({ rule: 'success', success: true });
    expect(result.ledger.startsWith(repo)).toBe(false);
    expect(existsSync(result.ledger)).toBe(true);
  });
});
