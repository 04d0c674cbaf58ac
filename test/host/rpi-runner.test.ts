/**
 * The RPI and crank runners as a host uses them: options are checked before anything runs, and the
 * run's own files never count as a change of the subject, even when the caller puts the transcript
 * inside the worktree.
 */
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError, UsageError } from '../../src/common/errors.js';
import { RepairPhaseError } from '../../src/convergence/repair-phase-error.js';
import { WaveUnrunnableError } from '../../src/crank/wave-unrunnable-error.js';
import { createCrankRunner } from '../../src/host/crank-runner.js';
import { createRpiRunner } from '../../src/host/rpi-runner.js';
import { parseTranscript } from '../../src/loop-protocol/transcript.js';
import { createTempRepo, type TempRepo } from '../effects/temp-repo.js';

const repos: TempRepo[] = [];
afterAll(() => {
  for (const repo of repos) repo.remove();
});

const FAIL_F1 = `printf '{"status":"FAIL","findings":[{"id":"f1"}],"subject_digest":"%s","evidence_refs":[]}' "$LOOPCHART_SUBJECT_DIGEST"`;

describe('createRpiRunner', () => {
  const base = { repo: '.', implementer: 'true', validator: 'true' };

  it('refuses blank commands, an invalid bound and an unknown risk declaration before running', () => {
    expect(() => createRpiRunner({ ...base, implementer: ' ' })).toThrow(UsageError);
    expect(() => createRpiRunner({ ...base, crossFamily: '' })).toThrow(UsageError);
    expect(() => createRpiRunner({ ...base, repairRounds: -1 })).toThrow(RepairPhaseError);
    expect(() => createRpiRunner({ ...base, repairRounds: 1.5 })).toThrow(RepairPhaseError);
    expect(() => createRpiRunner({ ...base, risky: 'maybe' as never })).toThrow(InputError);
  });

  it('names an intent file it cannot read', async () => {
    const repo = createTempRepo('loopchart-rpi-runner-');
    repos.push(repo);
    const error = await createRpiRunner({ ...base, repo: repo.dir, intentFile: join(repo.dir, 'missing.md') })
      .run()
      .catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InputError);
    expect((error as InputError).code).toBe('rpi.intent-unreadable');
  });

  it('keeps a transcript written inside the worktree out of the subject', async () => {
    const repo = createTempRepo('loopchart-rpi-runner-');
    repos.push(repo);
    repo.commit('app', { 'src/app.txt': 'v0\n' });
    const transcriptPath = join(repo.dir, 'runs', 'rpi.jsonl');
    const { outcome } = await createRpiRunner({
      repo: repo.dir,
      // Round 0 edits the subject; the repair changes nothing.
      implementer: `if [ "$LOOPCHART_ROUND" = 0 ]; then echo v1 > src/app.txt; fi`,
      validator: FAIL_F1,
      transcriptPath,
    }).run();
    // The transcript grew between the rounds; the subject did not, so the law stops on C4.
    expect(outcome.terminal).toBe('no_subject_or_evidence_change');
    const { records } = parseTranscript(readFileSync(transcriptPath, 'utf8'));
    expect(records.at(-1)?.terminalCheck?.rule).toBe('no_subject_or_evidence_change');
    expect(records.map((r) => r.machine)).toEqual(records.map(() => 'rpi'));
  });
});

describe('createCrankRunner', () => {
  it('refuses an unrunnable wave and blank commands before running', () => {
    expect(() =>
      createCrankRunner({
        repo: '.',
        wave: { lanes: [], acceptance: 'true' },
        implementer: 'true',
        validator: 'true',
      }),
    ).toThrow(WaveUnrunnableError);
    const wave = {
      lanes: [{ scope: 'src/**', brief: 'b', acceptance: 'true' }],
      repair_rounds: 0,
      acceptance: 'true',
    };
    expect(() => createCrankRunner({ repo: '.', wave, implementer: 'true', validator: '' })).toThrow(
      UsageError,
    );
    expect(
      createCrankRunner({ repo: '.', wave, implementer: 'true', validator: 'true' }).wave.lanes[0]?.id,
    ).toBe('lane-1');
  });
});
