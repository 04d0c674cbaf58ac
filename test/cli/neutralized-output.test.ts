/**
 * Untrusted bytes never reach a person's terminal raw: what a transcript, an observe command, a
 * validator, a patcher or a wave file says is printed by `report`, `loop`, `rpi`, `cyber` and
 * `crank` through the one shared helper (src/common/terminal-text.ts), so an ESC arrives as the
 * visible text `\x1b`. `--json` stays valid JSON and keeps the original text.
 */
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/commands.js';
import { serializeTranscriptRecord } from '../../src/loop-protocol/transcript.js';
import type { TranscriptRecord } from '../../src/loop-protocol/transcript-record.js';
import { stringSinks } from '../support/string-sinks.js';

const ESC = '\u001b';
const BEL = '\u0007';
/** An OSC sequence that would retitle the terminal, then a screen clear. */
const HOSTILE = `${ESC}]0;pwned${BEL}${ESC}[2J`;

function makeRepo() {
  const outside = mkdtempSync(join(tmpdir(), 'loopchart-neutral-'));
  const repo = join(outside, 'repo');
  mkdirSync(join(repo, 'src', 'a'), { recursive: true });
  execFileSync('git', ['init', '-q', '-b', 'main'], { cwd: repo });
  writeFileSync(join(repo, 'src', 'a', 'a.txt'), 'a\n');
  writeFileSync(join(repo, 'value.txt'), '3\n');
  execFileSync('git', ['add', '-A'], { cwd: repo });
  execFileSync(
    'git',
    [
      '-c',
      'commit.gpgsign=false',
      '-c',
      'user.name=T',
      '-c',
      'user.email=t@example.invalid',
      'commit',
      '-q',
      '-m',
      'i',
    ],
    { cwd: repo },
  );
  return { outside, repo };
}

async function cli(args: string[]) {
  const { out, io } = stringSinks();
  const code = await runCli(args, io);
  return { code, ...out };
}

function expectNeutralized(text: string): void {
  expect(text).toContain('\\x1b]0;pwned\\x07\\x1b[2J');
  expect(text).not.toContain(ESC);
  expect(text).not.toContain(BEL);
}

describe('output that reaches a terminal is neutralized', () => {
  it('report: an observation summary from the transcript', async () => {
    const { outside } = makeRepo();
    const record: TranscriptRecord = {
      version: 1,
      machine: 'loop-protocol',
      cycle: 0,
      timestamp: '2026-03-01T10:00:00Z',
      state: 'stopped',
      event: 'xstate.done.actor.observe',
      transition: [],
      observation: { summary: `source says ${HOSTILE}`, metric: null },
      fingerprint: null,
      action: null,
      evidence: [],
      progressDelta: null,
      verifierResult: null,
      decision: 'stop',
      terminalCheck: { rule: 'plateau', success: false, reason: `stuck ${HOSTILE}`, evidence: ['e'] },
      budget: null,
    };
    const path = join(outside, 't.jsonl');
    writeFileSync(path, serializeTranscriptRecord(record));
    const text = await cli(['report', path]);
    expect(text.code).toBe(0);
    expectNeutralized(text.stdout);
    const json = await cli(['report', path, '--json']);
    expect(JSON.parse(json.stdout).report.baseline.summary).toBe(`source says ${HOSTILE}`);
  });

  it('loop: what the observe command prints, in progress and in the report', async () => {
    const { outside, repo } = makeRepo();
    writeFileSync(
      join(outside, 'c.md'),
      [
        'Outcome: o',
        'Observable source: s',
        'Allowed actions: a',
        'Actor and sole writer: act',
        'Evaluator or guard: true',
        'Iteration or poll budget: 1',
        `State location: approved_path ${join(outside, 'state')}`,
      ].join('\n'),
    );
    const run = await cli([
      'loop',
      '--contract',
      join(outside, 'c.md'),
      '--cwd',
      repo,
      '--observe',
      `printf 'state \\033]0;pwned\\007\\033[2J\\n'`,
      '--act',
      'true',
      '--verify',
      'true',
    ]);
    expect(run.code).toBe(4);
    expectNeutralized(run.stdout);
    expect(run.stdout).toContain('cycle 1: observe -> state');
  });

  it('rpi: a validator command that prints no verdict, named in the failure message', async () => {
    const { repo } = makeRepo();
    const run = await cli([
      'rpi',
      '--repo',
      repo,
      '--implementer',
      'true',
      '--validator',
      `exit 1 # ${HOSTILE}`,
    ]);
    expect(run.code).toBe(2);
    expectNeutralized(run.stderr);
  });

  it('cyber: the patcher summary a candidate is printed with', async () => {
    const { outside, repo } = makeRepo();
    const patcher = join(outside, 'patcher.sh');
    writeFileSync(
      patcher,
      `printf '{"status":"DONE","summary":"fix \\\\u001b]0;pwned\\\\u0007\\\\u001b[2J"}' > "$LOOPCHART_RETURN"\necho 0 > src/a/a.txt\n`,
    );
    const run = await cli([
      'cyber',
      '--cwd',
      repo,
      '--invariant',
      'test "$(cat src/a/a.txt)" = 0',
      '--off-happy-path',
      'a is not zero',
      '--scope',
      'src/a',
      '--budget',
      '1',
      '--patcher',
      `sh ${patcher}`,
    ]);
    expect(run.code).toBe(0);
    expectNeutralized(run.stdout);
  });

  it('crank: a wave acceptance command from the wave file, in the evidence', async () => {
    const { outside, repo } = makeRepo();
    const wave = join(outside, 'wave.json');
    writeFileSync(
      wave,
      JSON.stringify({
        lanes: [{ id: 'a', scope: 'src/a/**', brief: 'lane a', acceptance: 'true', regen_surfaces: [] }],
        repair_rounds: 1,
        acceptance: `exit 1 # ${HOSTILE}`,
      }),
    );
    const validator = join(outside, 'validator.mjs');
    writeFileSync(
      validator,
      `console.log(JSON.stringify({ status: 'PASS', findings: [], subject_digest: process.env.LOOPCHART_SUBJECT_DIGEST, evidence_refs: [] }));\n`,
    );
    const run = await cli([
      'crank',
      '--repo',
      repo,
      '--wave',
      wave,
      '--implementer',
      'echo changed > src/a/a.txt',
      '--validator',
      `node ${validator}`,
    ]);
    expect(run.code).toBe(4);
    expectNeutralized(run.stdout);
  });
});
