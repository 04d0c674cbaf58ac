/**
 * `loopchart report` renders the final report from the transcript of any machine: a real
 * transcript written by `loopchart cyber`, and a hand-built transcript of another machine.
 * Malformed lines are named errors with their line numbers (exit 2).
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/commands.js';
import { InputError } from '../../src/common/errors.js';
import { serializeTranscriptRecord } from '../../src/loop-protocol/transcript.js';
import type { TranscriptRecord } from '../../src/loop-protocol/transcript-record.js';
import { parseCliResult } from '../support/cli-result.js';

async function cli(args: string[]) {
  let stdout = '';
  let stderr = '';
  const io = {
    stdout: { write: (s: string) => (stdout += s) },
    stderr: { write: (s: string) => (stderr += s) },
  };
  try {
    return { code: await runCli(args, io), stdout, stderr };
  } catch (error) {
    return {
      code: error instanceof InputError ? 2 : 1,
      stdout,
      stderr: `${stderr}${(error as Error).message}`,
    };
  }
}

function tempFile(name: string, text: string): string {
  const path = join(mkdtempSync(join(tmpdir(), 'loopchart-report-')), name);
  writeFileSync(path, text);
  return path;
}

const NULLS = {
  observation: null,
  fingerprint: null,
  action: null,
  evidence: [] as string[],
  progressDelta: null,
  verifierResult: null,
  decision: null,
  terminalCheck: null,
  budget: null,
};

function record(
  fields: Partial<Omit<TranscriptRecord, 'cycle' | 'event' | 'state'>> &
    Pick<TranscriptRecord, 'cycle' | 'event' | 'state'>,
): TranscriptRecord {
  return {
    version: 1,
    machine: 'crank',
    timestamp: `2026-03-01T10:0${fields.cycle}:00Z`,
    transition: [],
    ...NULLS,
    ...fields,
  };
}

/** A crank-like run: baseline, one kept and one discarded action, then success with evidence. */
const HAND_BUILT: TranscriptRecord[] = [
  record({
    cycle: 0,
    event: 'xstate.init',
    state: 'planning',
    observation: { summary: '4 lanes open', metric: 4 },
    fingerprint: 'lanes-4',
  }),
  record({
    cycle: 1,
    event: 'xstate.done.actor.runWave',
    state: { wave: 'verifying' },
    action: { kind: 'action', summary: 'merge lane A', disposition: 'kept' },
    observation: { summary: '3 lanes open', metric: 3 },
    decision: 'continue',
  }),
  record({
    cycle: 2,
    event: 'xstate.done.actor.runWave',
    state: { wave: 'verifying' },
    action: { kind: 'action', summary: 'merge lane B', disposition: 'discarded' },
    decision: 'continue',
  }),
  record({
    cycle: 3,
    event: 'xstate.done.actor.verify',
    state: 'done',
    observation: { summary: '0 lanes open', metric: 0 },
    verifierResult: { evaluator: 'npm test', verdict: 'pass', detail: null },
    decision: 'stop',
    terminalCheck: {
      rule: 'success',
      success: true,
      reason: 'every lane merged',
      evidence: ['npm test exit 0'],
    },
    budget: { iterationsUsed: 3, iterationLimit: 5, elapsedMs: null, tokensUsed: null, costUsed: null },
    closing: { unresolvedRisk: null, nextHypothesis: null, retainedState: ['lane A merged'], cleanup: [] },
  }),
];

function transcriptText(records: readonly TranscriptRecord[]): string {
  return records.map(serializeTranscriptRecord).join('');
}

describe('loopchart report', () => {
  it('renders the report of a hand-built transcript of another machine', async () => {
    const path = tempFile('crank.jsonl', transcriptText(HAND_BUILT));
    const run = await cli(['report', path]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Loop report (crank): complete');
    expect(run.stdout).toContain('Why it stopped: success (success): every lane merged');
    expect(run.stdout).toContain('Baseline: cycle 0: 4 lanes open [metric 4] (fingerprint lanes-4)');
    expect(run.stdout).toContain('Final state: cycle 3: 0 lanes open [metric 0]');
    expect(run.stdout).toContain('3 of 5 iterations');
    expect(run.stdout).toMatch(/Actions kept \(1\):\n {2}- cycle 1 action: merge lane A/);
    expect(run.stdout).toMatch(/Actions discarded \(1\):\n {2}- cycle 2 action: merge lane B/);
    expect(run.stdout).toContain('npm test exit 0');

    const json = await cli(['report', path, '--json']);
    expect(json.code).toBe(0);
    const parsed = parseCliResult(json.stdout);
    expect(parsed).toMatchObject({ command: 'report', status: 'finished', exitCode: 0 });
    expect(parsed.report).toMatchObject({
      status: 'complete',
      machines: ['crank'],
      cyclesCompleted: 3,
      succeeded: true,
      stop: { rule: 'success', success: true },
    });
  });

  it('says INCOMPLETE when the transcript ends without terminal evidence', async () => {
    const path = tempFile('cut.jsonl', transcriptText(HAND_BUILT.slice(0, 3)));
    const run = await cli(['report', path]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('INCOMPLETE: the transcript ends without a terminal check');
  });

  it('names a malformed line with its line number and exits 2', async () => {
    const lines = transcriptText(HAND_BUILT).split('\n').filter(Boolean);
    lines.splice(2, 0, '{"version":1,"machine":"crank"'); // line 3: not JSON
    lines.splice(4, 0, JSON.stringify({ version: 1, machine: 'crank', cycle: -1 })); // line 5: not a record
    const path = tempFile('bad.jsonl', `${lines.join('\n')}\n`);
    const run = await cli(['report', path]);
    expect(run.code).toBe(2);
    expect(run.stderr).toContain('is not a valid transcript');
    expect(run.stderr).toContain('line 3: the line is not a JSON object (loop-protocol.transcript.not-json)');
    expect(run.stderr).toMatch(
      /line 5: not a transcript record .*\(loop-protocol\.transcript\.record-invalid\)/,
    );

    const json = await cli(['report', path, '--json']);
    expect(json.code).toBe(2);
    const parsed = parseCliResult(json.stdout);
    expect(parsed).toMatchObject({ command: 'report', status: 'invalid', exitCode: 2 });
    expect(parsed.error.code).toBe('report.transcript-malformed');
    expect(parsed.error.findings.map((f: { line: number }) => f.line)).toEqual([3, 5]);
  });

  it('refuses a missing file and a missing argument with exit 2', async () => {
    expect((await cli(['report', join(tmpdir(), 'loopchart-no-such-transcript.jsonl')])).code).toBe(2);
    expect((await cli(['report'])).code).toBe(2);
  });

  it('renders the report of a transcript written by loopchart cyber', async () => {
    const root = mkdtempSync(join(tmpdir(), 'loopchart-report-repo-'));
    const git = (...args: string[]) =>
      execFileSync(
        'git',
        ['-c', 'commit.gpgsign=false', '-c', 'user.name=T', '-c', 'user.email=t@example.invalid', ...args],
        {
          cwd: root,
        },
      );
    git('init', '-q', '-b', 'main');
    mkdirSync(join(root, 'lib'));
    writeFileSync(join(root, 'lib/value.txt'), 'broken\n');
    git('add', '-A');
    git('commit', '-q', '-m', 'initial');
    const patcherFile = join(mkdtempSync(join(tmpdir(), 'loopchart-report-patcher-')), 'patch.sh');
    writeFileSync(
      patcherFile,
      '#!/bin/sh\nprintf "fixed\\n" > lib/value.txt\nprintf \'{"status":"DONE","summary":"write fixed"}\' > "$LOOPCHART_RETURN"\n',
    );
    chmodSync(patcherFile, 0o755);
    const transcript = join(mkdtempSync(join(tmpdir(), 'loopchart-report-run-')), 'cyber.jsonl');
    const cyber = await cli([
      'cyber',
      '--cwd',
      root,
      '--invariant',
      'grep -qx fixed lib/value.txt',
      '--off-happy-path',
      'a value written after a crash',
      '--scope',
      'lib',
      '--budget',
      '2',
      '--patcher',
      patcherFile,
      '--transcript',
      transcript,
    ]);
    expect(cyber.code).toBe(0);

    const run = await cli(['report', transcript]);
    expect(run.code).toBe(0);
    expect(run.stdout).toContain('Loop report (cybernetic-loop): complete');
    expect(run.stdout).toContain('Why it stopped: restored (success)');
    expect(run.stdout).toMatch(
      /Actions kept \(1\):\n {2}- cycle 1 action: candidate-1 aiming at invariant: write fixed/,
    );
    expect(run.stdout).toContain("Evaluator: /bin/sh -c 'grep -qx fixed lib/value.txt' -> pass");
    const json = parseCliResult((await cli(['report', transcript, '--json'])).stdout);
    expect(json.report).toMatchObject({
      status: 'complete',
      succeeded: true,
      machines: ['cybernetic-loop'],
      cyclesCompleted: 1,
    });
  });
});
