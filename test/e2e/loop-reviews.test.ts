/**
 * End-to-end: verify steps 2-5 on real repositories with the scripted child playing the child,
 * the whole-diff reviewer, the conformance reviewer and the fixer (docs/review-contract.md).
 * Expected texts come from the protocol (§3.18, conformance-check step 6).
 */
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { Behaviour, ChildScript } from '../../src/host/child-script.js';
import {
  AUDIT_CLOSURE,
  cli,
  cliProcess,
  type LoopRepo,
  specWith,
  useLoopRepos,
} from '../support/loop-repo.js';

const repo = useLoopRepos(['LOOPCHART_IMPL_MODEL', 'LOOPCHART_MAIN_MODEL']);

/** The seed closes both rows on the baseline, so the run goes straight to verify. */
const seedClosesAll: Behaviour = {
  do: 'seed',
  evidence: { '1': 'check one; passes on the baseline', '2': 'check two; passes on the baseline' },
  closeOnBaseline: [1, 2],
};
const GAPS = { verdict: 'GAPS' as const, openGaps: [{ id: 'G1', text: 'row 2 has no test' }] };
const CONFORMS = { verdict: 'CONFORMS' as const, happyPath: 'exported one file' };

function script(reviews: ChildScript['reviews']): ChildScript {
  return { version: 1, targets: { seed: [seedClosesAll] }, reviews };
}

async function reviewArgs(r: LoopRepo, ...extra: string[]): Promise<string[]> {
  const child = await r.childCommand();
  return r.runArgs('--reviewer', child, '--conformance-reviewer', child, ...extra);
}

describe('verify reviews and closure', () => {
  it('SHIP then CONFORMS finishes with the closure block', async () => {
    const r = repo({
      script: script({
        'whole-diff': [{ verdict: 'SHIP', minors: ['rename tmp to out'] }],
        conformance: [CONFORMS],
      }),
    });
    const result = await cli('run', await reviewArgs(r));
    expect(result.code).toBe(0);
    const head = r.git('rev-parse', 'HEAD').trim();
    expect(result.stdout).toContain(
      [
        '## Closure / conformance',
        'status: CONFORMS (0 open)',
        `audited-base: ${head}`,
        'happy-path: exported one file',
        'fix commits: none',
        'whole-diff minors:',
        '- rename tmp to out',
        '',
      ].join('\n'),
    );
  });

  it('GAPS with rounds left runs a fix round, reruns the gates and re-reviews', async () => {
    const r = repo({
      script: script({ 'whole-diff': [{ verdict: 'SHIP' }], conformance: [GAPS, CONFORMS] }),
    });
    const result = await cli('run', await reviewArgs(r));
    expect(result.code).toBe(0);
    const subjects = r.subjects();
    expect(subjects.slice(-2)).toEqual(['fix: conformance review, round 1', 'loop: conformance fix round 1']);
    const fixSha = r.git('rev-parse', 'HEAD~1').trim();
    expect(result.stdout).toContain(
      `fix commits:\n- conformance round 1: ${fixSha} fix: conformance review, round 1\nwhole-diff minors: none\n`,
    );
    expect(r.git('show', '-s', '--format=%b', 'HEAD')).toContain('task: G1: row 2 has no test');
  });

  it('a whole-diff REVISE runs its fix round before the conformance review', async () => {
    const r = repo({
      script: script({
        'whole-diff': [{ verdict: 'REVISE', fixTasks: ['split the writer'] }, { verdict: 'SHIP' }],
        conformance: [CONFORMS],
      }),
    });
    const result = await cli('run', await reviewArgs(r));
    expect(result.code).toBe(0);
    expect(r.subjects()).toContain('loop: whole-diff fix round 1');
  });

  it('VF7: GAPS at the cap without amend permission gives the step-6 stop (exit 3), never exit 0', async () => {
    const r = repo({ script: script({ 'whole-diff': [{ verdict: 'SHIP' }], conformance: [GAPS] }) });
    const result = await cli('run', await reviewArgs(r, '--max-fix-rounds', '1'));
    expect(result.code).toBe(3);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('gauntlet: gate=verification-before-completion/step-6');
    expect(lines[1]).toBe('Stopped: conformance review answers GAPS at the fix-round cap');
    expect(lines[2]).toBe('1 fix round(s) used against a cap of 1');
    expect(lines).toContain('Problem: G1: row 2 has no test');
    expect(r.subjects().filter((s) => s.startsWith('loop: conformance fix round'))).toEqual([
      'loop: conformance fix round 1',
    ]);
    // Running again keeps stopping: the counts come from branch history.
    const again = await cli('run', await reviewArgs(r, '--max-fix-rounds', '1'));
    expect(again.code).toBe(3);
    expect(again.stdout.split('\n')[2]).toBe('1 fix round(s) used against a cap of 1');
  });

  it('a GAPS reviewer never lets loopchart run exit 0, whatever the cap', async () => {
    for (const cap of ['0', '2']) {
      const r = repo({ script: script({ conformance: [GAPS] }) });
      const child = await r.childCommand();
      const result = await cli(
        'run',
        await r.runArgs('--conformance-reviewer', child, '--max-fix-rounds', cap),
      );
      expect(result.code).not.toBe(0);
      expect(result.code).toBe(3);
    }
  });

  it('under amend permission funds allowance - used once, then stops at the allowance', async () => {
    const grant = 'The loop may fund conformance rounds from the allowance.';
    const r = repo({
      spec: specWith(['The first row', 'The second row'], grant),
      script: script({ 'whole-diff': [{ verdict: 'SHIP' }], conformance: [GAPS] }),
    });
    const result = await cli('run', await reviewArgs(r, '--allowance', '3', '--max-fix-rounds', '1'));
    expect(result.stderr).toContain('funded 2 conformance rounds under the grant');
    expect(result.code).toBe(3);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('gauntlet: gate=verification-before-completion/step-6');
    expect(lines[2]).toBe('3 fix round(s) used against a cap of 3');
    const subjects = r.subjects();
    expect(subjects.filter((s) => s === 'loop: fund conformance rounds')).toHaveLength(1);
    expect(subjects.filter((s) => s.startsWith('loop: conformance fix round'))).toHaveLength(3);
    const grantSha = r.git('log', '--format=%H', '--grep', '^loop: fund conformance rounds$').trim();
    expect(r.git('show', '-s', '--format=%b', grantSha).trim()).toBe(`rounds: 2\nreason: ${grant}`);
  });

  it('a malformed review return is a named miss', async () => {
    const r = repo({ script: script({ 'whole-diff': [{ raw: 'LGTM, ship it' }], conformance: [CONFORMS] }) });
    const result = await cli('run', await reviewArgs(r));
    expect(result.code).toBe(3);
    const lines = result.stdout.split('\n');
    expect(lines[0]).toBe('gauntlet: question');
    expect(lines[1]).toBe('Stopped: the whole-diff review return was rejected');
    expect(lines).toContain('Problem: review miss: the whole-diff return is not JSON');
  });

  it('a crash between a fix round and its re-review resumes with the same counts', async () => {
    const reviews = { 'whole-diff': [{ verdict: 'SHIP' as const }], conformance: [GAPS, GAPS, CONFORMS] };
    const reference = repo({ script: script(reviews) });
    const straight = await cli('run', await reviewArgs(reference, '--max-fix-rounds', '3'));
    expect(straight.code).toBe(0);

    // The conformance reviewer kills the loop process (SIGKILL) the first time it is asked to
    // re-review after fix round 1: the round's marker is committed, its re-review never returns.
    const r = repo({ script: script(reviews) });
    const child = await r.childCommand();
    const once = join(r.scriptPath, '..', 'crashed-once');
    const crashing = `if grep -q '"fixRoundsUsed": 1' "$LOOPCHART_REVIEW_TASK" && [ ! -e '${once}' ]; then touch '${once}'; kill -9 $PPID; sleep 5; fi; ${child}`;
    const args = await r.runArgs(
      '--reviewer',
      child,
      '--conformance-reviewer',
      crashing,
      '--max-fix-rounds',
      '3',
    );
    const crashed = await cliProcess(['run', ...args]);
    expect(crashed.code).not.toBe(0);
    expect(r.subjects().at(-1)).toBe('loop: conformance fix round 1');

    const resumed = await cli('run', args);
    expect(resumed.code).toBe(0);
    expect(r.subjects()).toEqual(reference.subjects());
    expect(r.subjects().filter((s) => s.startsWith('loop: conformance fix round'))).toEqual([
      'loop: conformance fix round 1',
      'loop: conformance fix round 2',
    ]);
    expect(resumed.stdout).toContain('status: CONFORMS (0 open)');
  }, 240_000);
});

describe('a carried-open deferred inventory (§3.18 step 4)', () => {
  it('fixes the fix gap, then completes verify with the accepted gap open: GAPS closure, exit 3', async () => {
    const accepted = { id: 'G2', text: 'XLSX export dropped', recommended: 'accept' as const };
    const r = repo({
      spec: specWith(['The first row', 'The second row', 'The third row\n  deferred: ABC-9']),
      script: script({
        'whole-diff': [{ verdict: 'SHIP' }],
        conformance: [
          { verdict: 'GAPS', openGaps: [{ id: 'G1', text: 'row 2 has no test' }, accepted] },
          { verdict: 'GAPS', openGaps: [accepted] },
        ],
      }),
    });
    const result = await cli('run', await reviewArgs(r));
    expect(result.code).toBe(3);
    // One fix round, on the fix gap only; then verify completes on the inventory.
    expect(r.subjects().filter((s) => s.startsWith('loop: conformance fix round'))).toEqual([
      'loop: conformance fix round 1',
    ]);
    const marker = r.git('show', '-s', '--format=%b', 'HEAD');
    expect(marker).toContain('task: G1: row 2 has no test');
    expect(marker).not.toContain('G2');
    const lines = result.stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual([
      'gauntlet: question',
      'Stopped: verification complete with 1 open gap(s) carried to the finishing gate',
    ]);
    const head = r.git('rev-parse', 'HEAD').trim();
    const fixSha = r.git('rev-parse', 'HEAD~1').trim();
    expect(result.stdout).toContain(
      [
        '## Closure / conformance',
        'status: GAPS (1 open)',
        `audited-base: ${head}`,
        'Deferred/deviates per spec:',
        '- row 3: deferred: ABC-9',
        'open G2: XLSX export dropped',
        '  recommended: accept',
        '  carried open: recommended accept: deferred to the finishing gate',
        'fix commits:',
        `- conformance round 1: ${fixSha} fix: conformance review, round 1`,
        'whole-diff minors: none',
      ].join('\n'),
    );
    expect(lines.at(-2)).toBe('1 - Stop and keep the branch as it is: stop');
    expect(r.status()).toBe('');
  });

  it('maxFixRounds 0 carries a fix gap open without a fix round, and still never exits 0', async () => {
    const r = repo({ script: script({ conformance: [GAPS] }) });
    const child = await r.childCommand();
    const result = await cli(
      'run',
      await r.runArgs('--conformance-reviewer', child, '--max-fix-rounds', '0', '--json'),
    );
    expect(result.code).toBe(3);
    expect(r.subjects().some((s) => s.startsWith('loop: conformance fix round'))).toBe(false);
    const json = JSON.parse(result.stdout) as { state: string; stop: string; closure?: string };
    expect(json.state).toBe('humanStop.closureCarriedOpen');
    const block =
      'status: GAPS (1 open)\naudited-base: ' +
      r.git('rev-parse', 'HEAD').trim() +
      '\nopen G1: row 2 has no test\n  carried open: fix loop not started: maxFixRounds 0\n';
    expect(json.stop).toContain(block);
    // The --json result carries the closure block itself, not only the stop text quoting it.
    expect(json.closure).toContain(block);
    expect(json.closure?.startsWith('## Closure / conformance\n')).toBe(true);
  });
});

describe('no conformance reviewer', () => {
  it('stops (exit 3) with the closure not audited, and a run with a reviewer then audits it', async () => {
    const r = repo({ script: script({ 'whole-diff': [{ verdict: 'SHIP' }], conformance: [CONFORMS] }) });
    const child = await r.childCommand();
    const result = await cli('run', await r.runArgs('--reviewer', child, AUDIT_CLOSURE));
    expect(result.code).toBe(3);
    const lines = result.stdout.split('\n');
    expect(lines.slice(0, 2)).toEqual([
      'gauntlet: question',
      'Stopped: verification passed; closure not audited',
    ]);
    // The menu says how to go on: audit with a conformance reviewer, or waive the audit.
    expect(lines).toContain('1 - Stop and keep the branch as it is: stop');
    expect(result.stdout).toContain('--conformance-reviewer "<command>"');
    expect(result.stdout).toContain('--no-conformance-review');
    expect(result.stdout).not.toContain('## Closure / conformance');
    expect(r.status()).toBe('');

    // Nothing was recorded for the stop: the next run with a reviewer audits and finishes.
    const audited = await cli('run', await r.runArgs('--reviewer', child, '--conformance-reviewer', child));
    expect(audited.code).toBe(0);
    const head = r.git('rev-parse', 'HEAD').trim();
    expect(audited.stdout).toContain(`status: CONFORMS (0 open)\naudited-base: ${head}\n`);
  });

  it('--no-conformance-review finishes (exit 0) and the closure block records the waiver', async () => {
    const r = repo({
      spec: specWith(['The first row', 'The second row', 'The third row\n  deferred: ABC-9']),
      script: script({ 'whole-diff': [{ verdict: 'SHIP', minors: ['rename tmp to out'] }] }),
    });
    const child = await r.childCommand();
    const result = await cli('run', await r.runArgs('--reviewer', child, '--no-conformance-review'));
    expect(result.code, result.stderr).toBe(0);
    expect(result.stdout).toContain('verification passed; closure not audited (waived)\n');
    const head = r.git('rev-parse', 'HEAD').trim();
    expect(result.stdout).toContain(
      [
        '## Closure / conformance',
        'status: not audited (waived)',
        'audited-base: none',
        `verified-head: ${head}`,
        'Deferred/deviates per spec:',
        '- row 3: deferred: ABC-9',
        'fix commits: none',
        'whole-diff minors:',
        '- rename tmp to out',
        '',
      ].join('\n'),
    );
    expect(result.stdout).not.toContain('CONFORMS');
  });

  it('--no-conformance-review with a conformance reviewer is a usage error that writes nothing', async () => {
    const r = repo({ script: script({ conformance: [CONFORMS] }) });
    const child = await r.childCommand();
    const result = await cli(
      'run',
      await r.runArgs('--conformance-reviewer', child, '--no-conformance-review'),
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toContain('--no-conformance-review');
    expect(r.subjects()).toEqual([]);
  });
});

describe('the escalated model', () => {
  it('falls back to the main-loop model when no impl model is set', async () => {
    const r = repo({
      script: {
        version: 1,
        targets: {
          seed: [
            {
              do: 'seed',
              evidence: { '1': 'check one; 1 failing', '2': 'check two; passes on the baseline' },
              closeOnBaseline: [2],
            },
          ],
          '1': [{ do: 'failed', evidence: 'check one; still failing' }],
        },
      },
    });
    const result = await cli('run', await r.runArgs('--allowance', '2', '--main-model', 'main/model'));
    expect(r.subjects()).toContain('loop: escalate row 1');
    expect(result.stdout).not.toContain('Problem: escalationLoop.implModel unavailable');
    const without = repo({ script: { version: 1, targets: { seed: [seedClosesAll] } } });
    expect((await cli('run', await without.runArgs())).code).toBe(0);
  });
});
