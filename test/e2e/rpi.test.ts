/**
 * `loopchart rpi` end to end, in process through `runCli`, on real temporary repositories with
 * scripted implementer and validator commands (small node scripts run through /bin/sh -c). Each
 * scenario scripts the validators' verdicts per round and the implementer's edits, and checks the
 * stop reason, the exit code, the report and the transcript.
 */
import { createHash } from 'node:crypto';
import { existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/commands.js';
import { rpiReportSchema } from '../../src/convergence/schemas.js';
import { finalReport } from '../../src/loop-protocol/final-report.js';
import { parseTranscript } from '../../src/loop-protocol/transcript.js';
import { createTempRepo, ISOLATED_GIT_ENV, type TempRepo } from '../effects/temp-repo.js';
import { parseCliResult } from '../support/cli-result.js';

// The implementer: at round N it applies `rounds[N]` of the scenario: `fail` exits 1, `nothing`
// changes nothing, an object writes files. It records what it was handed (round, findings).
const IMPLEMENTER = `
import { appendFileSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
const scenario = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const round = Number(process.env.LOOPCHART_ROUND);
const findings = JSON.parse(readFileSync(process.env.LOOPCHART_FINDINGS, 'utf8'));
appendFileSync(process.argv[3], JSON.stringify({ round, findings: findings.map((f) => f.id), intent: process.env.LOOPCHART_INTENT ?? null }) + '\\n');
const step = scenario.implement[round] ?? 'nothing';
if (step === 'fail') process.exit(1);
if (step !== 'nothing') for (const [path, text] of Object.entries(step)) {
  mkdirSync(dirname(path), { recursive: true });
  writeFileSync(path, text);
}
`;

// A validator leg: prints the scripted verdict of this round for its leg over the digest it was
// asked to judge. `raw` prints the text as is.
const VALIDATOR = `
import { readFileSync } from 'node:fs';
const scenario = JSON.parse(readFileSync(process.argv[2], 'utf8'));
const leg = process.argv[3];
const round = Number(process.env.LOOPCHART_ROUND);
const spec = (scenario[leg] ?? [])[round] ?? scenario[leg]?.at(-1);
if (spec.raw !== undefined) { process.stdout.write(spec.raw); process.exit(spec.exit ?? 0); }
console.log('checking the subject...');
process.stdout.write(JSON.stringify({
  status: spec.status,
  findings: (spec.findings ?? []).map((id) => ({ id, summary: 'defect ' + id })),
  subject_digest: process.env.LOOPCHART_SUBJECT_DIGEST,
  evidence_refs: [],
  ...(spec.family ? { validator_family: spec.family } : {}),
  checked: [leg + ' leg, round ' + round],
}) + '\\n');
process.exit(spec.status === 'FAIL' ? 1 : 0);
`;

interface Scenario {
  readonly implement: readonly (Record<string, string> | 'nothing' | 'fail')[];
  readonly fresh: readonly object[];
  readonly cross?: readonly object[];
}

let scripts: string;
const repos: TempRepo[] = [];

beforeAll(() => {
  scripts = mkdtempSync(join(tmpdir(), 'loopchart-rpi-e2e-'));
  writeFileSync(join(scripts, 'implementer.mjs'), IMPLEMENTER);
  writeFileSync(join(scripts, 'validator.mjs'), VALIDATOR);
  // Commands run git only through loopchart; the isolated identity keeps a developer's config out.
  Object.assign(process.env, ISOLATED_GIT_ENV);
});

afterAll(() => {
  for (const repo of repos) repo.remove();
  rmSync(scripts, { recursive: true, force: true });
});

interface RpiRun {
  readonly code: number;
  readonly json: Record<string, unknown>;
  readonly stderr: string;
  readonly repo: TempRepo;
  readonly handed: { round: number; findings: string[]; intent: string | null }[];
}

async function rpi(
  name: string,
  scenario: Scenario,
  extra: readonly string[] | ((repo: TempRepo) => readonly string[]) = [],
): Promise<RpiRun> {
  const repo = createTempRepo('loopchart-rpi-repo-');
  repos.push(repo);
  repo.commit('a subject', { 'src/app.txt': 'v0\n', 'docs/intent.md': '# make app.txt right\n' });
  const scenarioPath = join(scripts, `${name}.json`);
  const handedPath = join(scripts, `${name}.handed.jsonl`);
  writeFileSync(scenarioPath, JSON.stringify(scenario));
  const node = JSON.stringify(process.execPath);
  const script = (file: string) => JSON.stringify(join(scripts, file));
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    [
      'rpi',
      '--implementer',
      `${node} ${script('implementer.mjs')} ${JSON.stringify(scenarioPath)} ${JSON.stringify(handedPath)}`,
      '--validator',
      `${node} ${script('validator.mjs')} ${JSON.stringify(scenarioPath)} fresh`,
      '--repo',
      repo.dir,
      '--json',
      ...(typeof extra === 'function' ? extra(repo) : extra),
    ],
    { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } },
  );
  const handed = existsSync(handedPath)
    ? readFileSync(handedPath, 'utf8')
        .trim()
        .split('\n')
        .map((line) => JSON.parse(line))
    : [];
  return { code, json: parseCliResult(stdout) as Record<string, unknown>, stderr, repo, handed };
}

function crossFamily(name: string): string[] {
  const scenarioPath = join(scripts, `${name}.json`);
  return [
    '--cross-family',
    `${JSON.stringify(process.execPath)} ${JSON.stringify(join(scripts, 'validator.mjs'))} ${JSON.stringify(scenarioPath)} cross`,
  ];
}

function report(run: RpiRun) {
  return rpiReportSchema.parse(run.json.report);
}

function transcriptOf(run: RpiRun) {
  const parsed = parseTranscript(readFileSync(run.json.transcript as string, 'utf8'));
  expect(parsed.findings).toEqual([]);
  return parsed.records;
}

const v = (text: string) => ({ 'src/app.txt': `${text}\n` });

describe('loopchart rpi', () => {
  it('converges when a repair closes the findings over a changed subject (exit 0)', async () => {
    const run = await rpi('converged', {
      implement: [v('v1'), v('v2')],
      fresh: [
        { status: 'FAIL', findings: ['f1'], family: 'alpha' },
        { status: 'PASS', family: 'alpha' },
      ],
    });
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({
      command: 'rpi',
      status: 'finished',
      exitCode: 0,
      terminal: 'converged',
    });
    expect(run.json.stopReason).toBe('converged');
    const r = report(run);
    expect(r.status).toBe('PASS');
    expect(r.intent_ref).toBe('caller');
    expect(r.checked.slice(0, 2)).toEqual([
      'repair round 0: 1 open findings',
      'repair round 1: 0 open findings',
    ]);
    expect(r.checked).toContain('fresh leg, round 1');
    // The repair was handed the open finding; the implementation was handed none.
    expect(run.handed).toEqual([
      { round: 0, findings: [], intent: null },
      { round: 1, findings: ['f1'], intent: null },
    ]);
    // The transcript ends with the stop reason as the terminal rule, and the subject moved.
    const records = transcriptOf(run);
    const last = records.at(-1);
    expect(last?.terminalCheck?.rule).toBe('converged');
    expect(last?.terminalCheck?.success).toBe(true);
    // The protocol's final report reads the transcript as a complete, successful run.
    expect(finalReport(records)).toMatchObject({ status: 'complete', succeeded: true });
    const fingerprints = new Set(records.map((rec) => rec.fingerprint).filter((f) => f !== null));
    expect(fingerprints.size).toBe(2);
    expect(fingerprints.has(r.subject_manifest_digest as string)).toBe(true);
    // The run's own files live under the git directory, never in the subject; HEAD is untouched.
    expect(run.json.transcript as string).toContain(join('.git', 'loopchart', 'rpi'));
    expect(run.repo.git('status', '--porcelain')).toBe(' M src/app.txt\n');
  });

  it('stops with finding_set_grew when a repair opens more findings (exit 4)', async () => {
    const run = await rpi('grew', {
      implement: [v('v1'), v('v2')],
      fresh: [
        { status: 'FAIL', findings: ['f1'] },
        { status: 'FAIL', findings: ['f1', 'f2'] },
      ],
    });
    expect(run.code).toBe(4);
    expect(run.json).toMatchObject({
      status: 'finished',
      exitCode: 4,
      terminal: 'finding_set_grew',
      converged: false,
    });
    expect(report(run).status).toBe('FAIL');
    expect((run.json.openFindings as { id: string }[]).map((f) => f.id)).toEqual(['f1', 'f2']);
    const records = transcriptOf(run);
    expect(records.at(-1)?.terminalCheck?.rule).toBe('finding_set_grew');
    expect(finalReport(records)).toMatchObject({ status: 'complete', succeeded: false });
  });

  it('stops with reopened_finding when a closed finding opens again', async () => {
    const run = await rpi('reopened', {
      implement: [v('v1'), v('v2'), v('v3')],
      fresh: [
        { status: 'FAIL', findings: ['f1', 'f2'] },
        { status: 'FAIL', findings: ['f1'] },
        { status: 'FAIL', findings: ['f2'] },
      ],
    });
    expect(run.code).toBe(4);
    expect(run.json).toMatchObject({ terminal: 'reopened_finding', roundsUsed: 2 });
    expect(run.handed.map((h) => h.findings)).toEqual([[], ['f1', 'f2'], ['f1']]);
    expect(transcriptOf(run).at(-1)?.terminalCheck?.rule).toBe('reopened_finding');
  });

  it('stops with no_subject_or_evidence_change when a repair leaves the subject as it was', async () => {
    const run = await rpi('unchanged', {
      implement: [v('v1'), 'nothing'],
      fresh: [{ status: 'FAIL', findings: ['f1'] }, { status: 'PASS' }],
    });
    expect(run.code).toBe(4);
    expect(run.json).toMatchObject({ terminal: 'no_subject_or_evidence_change', roundsUsed: 1 });
    // A PASS over unchanged bytes after a FAIL is a flip, not a proof.
    expect(report(run).status).toBe('NOT_PROVEN');
    expect(transcriptOf(run).at(-1)?.terminalCheck?.rule).toBe('no_subject_or_evidence_change');
  });

  it('stops with repair_budget_exhausted when the declared rounds are spent', async () => {
    const run = await rpi(
      'budget',
      {
        implement: [v('v1'), v('v2'), v('v3')],
        fresh: [
          { status: 'FAIL', findings: ['f1'] },
          { status: 'FAIL', findings: ['f1'] },
        ],
      },
      ['--repair-rounds', '1'],
    );
    expect(run.code).toBe(4);
    expect(run.json).toMatchObject({ terminal: 'repair_budget_exhausted', roundsUsed: 1 });
    // No repair is dispatched beyond the bound.
    expect(run.handed.map((h) => h.round)).toEqual([0, 1]);
    expect(report(run).checked.slice(0, 2)).toEqual([
      'repair round 0: 1 open findings',
      'repair round 1: 1 open findings',
    ]);
    expect(transcriptOf(run).at(-1)?.terminalCheck?.rule).toBe('repair_budget_exhausted');
  });

  it('stops with diversity_unsatisfied when a risky PASS is judged by one family', async () => {
    const scenario = {
      implement: [{ 'tests/app.test.txt': 'covered\n' }],
      fresh: [{ status: 'PASS', family: 'claude' }],
      cross: [{ status: 'PASS', family: 'Claude' }],
    };
    const run = await rpi('diversity', scenario, crossFamily('diversity'));
    expect(run.code).toBe(4);
    expect(run.json).toMatchObject({ terminal: 'diversity_unsatisfied', roundsUsed: 0 });
    const r = report(run);
    expect(r.status).toBe('NOT_PROVEN');
    // Both legs judged: the cross-family leg ran because tests/** is a risky surface.
    expect(r.checked).toEqual([
      'repair round 0: 0 open findings',
      'fresh leg, round 0',
      'cross leg, round 0',
    ]);
    expect(transcriptOf(run).at(-1)?.terminalCheck?.rule).toBe('diversity_unsatisfied');
  });

  it('converges on a risky surface when two families pass', async () => {
    const scenario = {
      implement: [{ 'tests/app.test.txt': 'covered\n' }],
      fresh: [{ status: 'PASS', family: 'claude' }],
      cross: [{ status: 'PASS', family: 'codex' }],
    };
    const run = await rpi('two-families', scenario, crossFamily('two-families'));
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ terminal: 'converged' });
  });

  it('does not run the cross-family leg when the change is not risky', async () => {
    const scenario = {
      implement: [v('v1')],
      fresh: [{ status: 'PASS' }],
      cross: [{ raw: 'not json', exit: 1 }],
    };
    const run = await rpi('not-risky', scenario, crossFamily('not-risky'));
    expect(run.code).toBe(0);
    expect(report(run).checked).toEqual(['repair round 0: 0 open findings', 'fresh leg, round 0']);
  });

  it('reports NOT_BUILT when the implementer returns nothing, with the intent identities', async () => {
    const run = await rpi('not-built', { implement: ['fail'], fresh: [{ status: 'PASS' }] }, (repo) => [
      '--intent',
      join(repo.dir, 'docs/intent.md'),
      '--intent-ref',
      'issue-5',
    ]);
    expect(run.code).toBe(4);
    expect(run.json).toMatchObject({ terminal: 'not_built' });
    const r = report(run);
    expect(r.status).toBe('NOT_BUILT');
    expect(r.intent_ref).toBe('issue-5');
    // sha256 of the exact intent bytes.
    expect(r.acceptance_digest).toBe(createHash('sha256').update('# make app.txt right\n').digest('hex'));
    expect(r.checked).toEqual(['plan']);
  });

  it('reports NOT_PLANNED when the plan command returns nothing', async () => {
    const run = await rpi('not-planned', { implement: [v('v1')], fresh: [{ status: 'PASS' }] }, [
      '--plan',
      'exit 3',
    ]);
    expect(run.code).toBe(4);
    expect(run.json).toMatchObject({ terminal: 'not_planned' });
    expect(report(run).status).toBe('NOT_PLANNED');
    expect(run.handed).toEqual([]);
  });

  it('refuses a validator record that is not a verdict record (exit 2)', async () => {
    const run = await rpi('malformed', {
      implement: [v('v1')],
      fresh: [{ raw: '{"status":"FAIL","findings":[],"subject_digest":"x","evidence_refs":[]}', exit: 1 }],
    });
    expect(run.code).toBe(2);
    expect(run.json).toMatchObject({ command: 'rpi', status: 'invalid', exitCode: 2, terminal: 'failed' });
    const error = run.json.error as { code: string; findings: { code: string }[] };
    expect(error.code).toBe('rpi.validator-record-invalid');
    expect(error.findings.map((f) => f.code)).toContain('round.fail-without-findings');
  });

  it('refuses a validator that judged another subject (exit 2)', async () => {
    const digest = 'f'.repeat(64);
    const run = await rpi('foreign', {
      implement: [v('v1')],
      fresh: [
        { raw: JSON.stringify({ status: 'PASS', findings: [], subject_digest: digest, evidence_refs: [] }) },
      ],
    });
    expect(run.code).toBe(2);
    expect(run.json).toMatchObject({ status: 'invalid', terminal: 'round_rejected' });
    expect((run.json.error as { findings: { code: string }[] }).findings[0]?.code).toBe(
      'rpi.round-subject-mismatch',
    );
  });

  it('kills a validator that runs past --command-timeout: the run fails naming the timeout (exit 1)', async () => {
    const run = await rpi('validator-timeout', { implement: [v('v1')], fresh: [{ status: 'PASS' }] }, [
      '--validator',
      'sleep 30',
      '--command-timeout',
      '1',
    ]);
    expect(run.code).toBe(1);
    expect(run.json).toMatchObject({ command: 'rpi', exitCode: 1, terminal: 'failed' });
    expect(JSON.stringify(run.json)).toContain('timed out after 1 s');
  });

  it('reports NOT_BUILT when the implementer runs past --command-timeout (exit 4)', async () => {
    const run = await rpi('implementer-timeout', { implement: [v('v1')], fresh: [{ status: 'PASS' }] }, [
      '--implementer',
      'sleep 30',
      '--command-timeout',
      '1',
    ]);
    expect(run.code).toBe(4);
    expect(run.json).toMatchObject({ terminal: 'not_built' });
    expect(report(run).status).toBe('NOT_BUILT');
    expect(JSON.stringify(run.json)).toContain('timed out after 1 s');
  });

  it('rejects bad options with a usage error (exit 2)', async () => {
    let stdout = '';
    const io = { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: () => true } };
    expect(await runCli(['rpi', '--validator', 'true', '--json'], io)).toBe(2);
    expect(parseCliResult(stdout)).toMatchObject({ status: 'invalid', error: { code: 'cli.usage' } });
    stdout = '';
    expect(
      await runCli(['rpi', '--implementer', 'true', '--validator', 'true', '--risky', 'maybe', '--json'], io),
    ).toBe(2);
    expect(parseCliResult(stdout)).toMatchObject({ status: 'invalid' });
  });
});

// A CI command of the final run: records the subject it saw (and the digest it was handed) in a
// file outside the repository, then passes, fails, or writes into the subject, as its mode says.
const CI = `
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
const [mode, record] = process.argv.slice(2);
appendFileSync(record, JSON.stringify({ mode, app: readFileSync('src/app.txt', 'utf8'), digest: process.env.LOOPCHART_SUBJECT_DIGEST }) + '\\n');
if (mode === 'modify') writeFileSync('src/app.txt', 'rewritten by CI\\n');
process.exit(mode === 'fail' ? 3 : 0);
`;

describe('loopchart rpi --final-ci', () => {
  const ci = (name: string, mode: string) => {
    writeFileSync(join(scripts, 'ci.mjs'), CI);
    const record = join(scripts, `${name}.ci.jsonl`);
    return [
      '--final-ci',
      `${JSON.stringify(process.execPath)} ${JSON.stringify(join(scripts, 'ci.mjs'))} ${mode} ${JSON.stringify(record)}`,
    ];
  };
  const seen = (name: string) =>
    readFileSync(join(scripts, `${name}.ci.jsonl`), 'utf8')
      .trim()
      .split('\n')
      .map((line) => JSON.parse(line) as { mode: string; app: string; digest: string });
  const passOnce = { implement: [v('v1')], fresh: [{ status: 'PASS', family: 'alpha' }] };

  it('runs the CI command set once on the converged subject; a pass keeps converged (exit 0) with the receipt', async () => {
    const run = await rpi('ci-pass', passOnce, [...ci('ci-pass', 'pass'), ...ci('ci-pass', 'pass')]);
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    expect(run.json).toMatchObject({ terminal: 'converged', converged: true });
    const r = report(run);
    expect(r.status).toBe('PASS');
    const digest = r.subject_manifest_digest as string;
    // Both commands ran once, in order, on the integrated subject (the implementer's v1).
    expect(seen('ci-pass')).toEqual([
      { mode: 'pass', app: 'v1\n', digest },
      { mode: 'pass', app: 'v1\n', digest },
    ]);
    expect(run.json.finalCi).toMatchObject({
      status: 'passed',
      convergedDigest: digest,
      digestBefore: digest,
      digestAfter: digest,
      staleReason: null,
    });
    expect((run.json.finalCi as { commands: unknown[] }).commands).toHaveLength(2);
    expect(r.checked.at(-1)).toMatch(new RegExp(`^final CI: passed on ${digest}: `));
    expect(transcriptOf(run).at(-1)?.terminalCheck?.rule).toBe('converged');
  });

  it('stops with final_ci_failed when a CI command fails (exit 4), running nothing after it', async () => {
    const run = await rpi('ci-fail', passOnce, [...ci('ci-fail', 'fail'), ...ci('ci-fail', 'pass')]);
    expect(run.code).toBe(4);
    expect(run.json).toMatchObject({ terminal: 'final_ci_failed', converged: false, exitCode: 4 });
    expect(report(run).status).toBe('NOT_PROVEN');
    expect(seen('ci-fail').map((s) => s.mode)).toEqual(['fail']);
    expect(run.json.finalCi).toMatchObject({ status: 'failed', staleReason: null });
    expect((run.json.finalCi as { commands: { exitCode: number }[] }).commands).toEqual([
      expect.objectContaining({ exitCode: 3, detail: 'exit 3' }),
    ]);
    const last = transcriptOf(run).at(-1);
    expect(last?.terminalCheck).toMatchObject({ rule: 'final_ci_failed', success: false });
  });

  it('stops with final_ci_stale_receipt when a CI command changes the subject (exit 4), keeping its change', async () => {
    const run = await rpi('ci-stale', passOnce, ci('ci-stale', 'modify'));
    expect(run.code).toBe(4);
    expect(run.json).toMatchObject({ terminal: 'final_ci_stale_receipt', converged: false });
    const r = report(run);
    expect(r.status).toBe('NOT_PROVEN');
    const receipt = run.json.finalCi as { digestBefore: string; digestAfter: string; staleReason: string };
    expect(receipt).toMatchObject({
      status: 'stale',
      staleReason: 'subject_changed_during_ci',
      convergedDigest: r.subject_manifest_digest,
      digestBefore: r.subject_manifest_digest,
    });
    expect(receipt.digestAfter).not.toBe(receipt.digestBefore);
    // Nothing is reset: the CI's write is still in the worktree for a person to judge.
    expect(readFileSync(join(run.repo.dir, 'src/app.txt'), 'utf8')).toBe('rewritten by CI\n');
  });

  it('without --final-ci the step is skipped and the report says final CI: not configured', async () => {
    const run = await rpi('ci-none', passOnce);
    expect(run.code).toBe(0);
    expect(run.json.finalCi).toEqual({ status: 'not_configured' });
    expect(report(run).not_checked).toContain('final CI: not configured');
  });

  it('refuses a blank --final-ci (exit 2)', async () => {
    const run = await rpi('ci-blank', passOnce, ['--final-ci', ' ']);
    expect(run.code).toBe(2);
    expect(JSON.stringify(run.json)).toContain('--final-ci must not be blank');
    expect(run.handed).toEqual([]);
  });
});
