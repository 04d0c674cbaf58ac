/**
 * `loopchart crank` end to end, in process through `runCli`, on a real temporary repository. The
 * lane commands append start and end markers to a shared file outside the repository; parallelism
 * is read from the order of the markers, never from time. Two parallel lanes each wait (bounded)
 * until the other has started, so their markers interleave only if crank really ran them at once.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/commands.js';
import { rpiReportSchema } from '../../src/convergence/schemas.js';
import { parseTranscript } from '../../src/loop-protocol/transcript.js';
import { createTempRepo, ISOLATED_GIT_ENV, type TempRepo } from '../effects/temp-repo.js';
import { parseCliResult } from '../support/cli-result.js';

// The implementer: marks its start, waits (at most 20 s) for the lane named in `waitFor` to start,
// writes the lane's file (a new version each round), marks its end.
const IMPLEMENTER = `
import { appendFileSync, existsSync, mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { dirname } from 'node:path';
const [scenarioPath, markers] = process.argv.slice(2);
const scenario = JSON.parse(readFileSync(scenarioPath, 'utf8'));
const lane = process.env.LOOPCHART_LANE;
const round = process.env.LOOPCHART_ROUND;
const intent = JSON.parse(readFileSync(process.env.LOOPCHART_INTENT, 'utf8'));
appendFileSync(markers, 'start ' + lane + '\\n');
const other = scenario.waitFor?.[lane];
if (other) {
  const until = Date.now() + 20000;
  while (Date.now() < until && !readFileSync(markers, 'utf8').split('\\n').includes('start ' + other)) {
    await new Promise((r) => setTimeout(r, 20));
  }
}
const file = scenario.files[lane];
mkdirSync(dirname(file), { recursive: true });
writeFileSync(file, intent.brief + ' round ' + round + '\\n');
appendFileSync(markers, 'end ' + lane + '\\n');
`;

// The validator: FAIL with the lane's scripted findings at the rounds listed, PASS otherwise.
const VALIDATOR = `
import { appendFileSync, readFileSync } from 'node:fs';
const [scenarioPath, markers] = process.argv.slice(2);
const scenario = JSON.parse(readFileSync(scenarioPath, 'utf8'));
const lane = process.env.LOOPCHART_LANE;
const round = Number(process.env.LOOPCHART_ROUND);
const failing = (scenario.fail?.[lane] ?? [])[round];
appendFileSync(markers, 'validated ' + lane + '\\n');
console.log(JSON.stringify({
  status: failing ? 'FAIL' : 'PASS',
  findings: (failing ?? []).map((id) => ({ id })),
  subject_digest: process.env.LOOPCHART_SUBJECT_DIGEST,
  evidence_refs: [],
}));
`;

let scripts: string;
const repos: TempRepo[] = [];

beforeAll(() => {
  scripts = mkdtempSync(join(tmpdir(), 'loopchart-crank-e2e-'));
  writeFileSync(join(scripts, 'implementer.mjs'), IMPLEMENTER);
  writeFileSync(join(scripts, 'validator.mjs'), VALIDATOR);
  Object.assign(process.env, ISOLATED_GIT_ENV);
});

afterAll(() => {
  for (const repo of repos) repo.remove();
  rmSync(scripts, { recursive: true, force: true });
});

interface CrankScenario {
  readonly files: Record<string, string>;
  readonly waitFor?: Record<string, string>;
  readonly fail?: Record<string, (string[] | null)[]>;
}

async function crank(name: string, wave: object, scenario: CrankScenario) {
  const repo = createTempRepo('loopchart-crank-repo-');
  repos.push(repo);
  repo.commit('lanes', { 'src/a/a.txt': 'a\n', 'src/b/b.txt': 'b\n', 'src/shared/s.txt': 's\n' });
  const scenarioPath = join(scripts, `${name}.json`);
  const markers = join(scripts, `${name}.markers`);
  const wavePath = join(scripts, `${name}.wave.json`);
  writeFileSync(scenarioPath, JSON.stringify(scenario));
  writeFileSync(markers, '');
  writeFileSync(
    wavePath,
    JSON.stringify({ ...wave, acceptance: `echo acceptance >> ${JSON.stringify(markers)}` }),
  );
  const quote = JSON.stringify;
  const command = (script: string) =>
    `${quote(process.execPath)} ${quote(join(scripts, script))} ${quote(scenarioPath)} ${quote(markers)}`;
  let stdout = '';
  let stderr = '';
  const code = await runCli(
    [
      'crank',
      '--wave',
      wavePath,
      '--implementer',
      command('implementer.mjs'),
      '--validator',
      command('validator.mjs'),
      '--repo',
      repo.dir,
      '--json',
    ],
    { stdout: { write: (s: string) => (stdout += s) }, stderr: { write: (s: string) => (stderr += s) } },
  );
  const lines = readFileSync(markers, 'utf8').trim().split('\n');
  return { code, json: parseCliResult(stdout) as Record<string, unknown>, stderr, lines, repo };
}

const lane = (id: string, scope: string) => ({
  id,
  scope,
  brief: `lane ${id}`,
  acceptance: 'true',
  regen_surfaces: [],
});

interface LaneJson {
  id: string;
  status: string | null;
  stopReason: string | null;
  subjectDigest: string | null;
  report: unknown;
  openFindings: { id: string }[];
}

describe('loopchart crank', () => {
  it('runs disjoint lanes in parallel, overlapping lanes one after the other, the acceptance once at the end', async () => {
    const run = await crank(
      'wave',
      {
        lanes: [
          lane('a', 'src/a/**'),
          lane('b', 'src/b/**'),
          lane('c', 'src/shared/**'),
          lane('d', 'src/shared/**'),
        ],
        repair_rounds: 1,
      },
      {
        files: { a: 'src/a/a.txt', b: 'src/b/b.txt', c: 'src/shared/c.txt', d: 'src/shared/d.txt' },
        waitFor: { a: 'b', b: 'a' },
        fail: { d: [['d:missing-case']] },
      },
    );
    expect(run.stderr).toBe('');
    expect(run.code).toBe(0);
    const at = (marker: string) => {
      expect(run.lines.filter((l) => l === marker)).toHaveLength(marker.startsWith('end d') ? 2 : 1);
      return run.lines.indexOf(marker);
    };
    // a and b overlap: each started before the other ended.
    expect(at('start a')).toBeLessThan(at('end b'));
    expect(at('start b')).toBeLessThan(at('end a'));
    // c and d share src/shared/**: d starts only after c's RPI returned, in caller order.
    expect(at('end c')).toBeLessThan(run.lines.indexOf('start d'));
    expect(run.lines.indexOf('validated c')).toBeLessThan(run.lines.indexOf('start d'));
    // The wave acceptance ran exactly once, after every lane's last validation.
    expect(run.lines.filter((l) => l === 'acceptance')).toHaveLength(1);
    expect(run.lines.at(-1)).toBe('acceptance');

    expect(run.json).toMatchObject({
      command: 'crank',
      status: 'finished',
      exitCode: 0,
      terminal: 'evidenced',
    });
    const lanes = run.json.lanes as LaneJson[];
    expect(lanes.map((l) => l.id)).toEqual(['a', 'b', 'c', 'd']);
    for (const l of lanes) {
      expect(l.status).toBe('PASS');
      expect(l.subjectDigest).toMatch(/^[0-9a-f]{64}$/);
      const report = rpiReportSchema.parse(l.report);
      expect(report.intent_ref).toBe(`lane:${l.id}`);
      expect(report.acceptance_digest).toMatch(/^[0-9a-f]{64}$/);
    }
    // d repaired once inside its own RPI; crank retried nothing.
    expect(lanes[3]?.stopReason).toBe('converged');
    expect(rpiReportSchema.parse(lanes[3]?.report).checked.slice(0, 2)).toEqual([
      'repair round 0: 1 open findings',
      'repair round 1: 0 open findings',
    ]);
    expect(run.json.acceptance).toMatchObject({ passed: true });
    expect(run.json.startOrder as string[]).toEqual(['a', 'b', 'c', 'd']);
    expect(run.json.conflicts).toEqual([
      { lanes: ['c', 'd'], reason: 'write-scope', surfaces: ['src/shared/**', 'src/shared/**'] },
    ]);

    const { records, findings } = parseTranscript(readFileSync(run.json.transcript as string, 'utf8'));
    expect(findings).toEqual([]);
    expect(records.at(-1)?.terminalCheck).toMatchObject({ rule: 'evidenced', success: true });
  });

  it('reports a lane that did not converge side by side with the acceptance, which still runs once (exit 4)', async () => {
    const run = await crank(
      'stuck',
      { lanes: [lane('a', 'src/a/**'), lane('b', 'src/b/**')], repair_rounds: 1 },
      {
        files: { a: 'src/a/a.txt', b: 'src/b/b.txt' },
        fail: { b: [['b:one'], ['b:one', 'b:two']] },
      },
    );
    expect(run.code).toBe(4);
    expect(run.json).toMatchObject({ status: 'finished', exitCode: 4, acceptance: { passed: true } });
    const lanes = run.json.lanes as LaneJson[];
    expect(lanes.map((l) => [l.id, l.status, l.stopReason])).toEqual([
      ['a', 'PASS', 'converged'],
      ['b', 'FAIL', 'finding_set_grew'],
    ]);
    expect(lanes[1]?.openFindings.map((f) => f.id)).toEqual(['b:one', 'b:two']);
    expect(run.lines.filter((l) => l === 'acceptance')).toHaveLength(1);
    expect(run.lines.at(-1)).toBe('acceptance');
  });

  it('refuses an unrunnable wave before running anything (exit 2)', async () => {
    const run = await crank(
      'unrunnable',
      { lanes: [{ id: 'a', scope: 'src/a/**', acceptance: 'true' }] },
      { files: { a: 'src/a/a.txt' } },
    );
    expect(run.code).toBe(2);
    expect(run.json).toMatchObject({
      command: 'crank',
      status: 'invalid',
      error: { code: 'wave.unrunnable' },
    });
    const codes = (run.json.error as { findings: { code: string }[] }).findings.map((f) => f.code);
    expect(codes).toEqual(expect.arrayContaining(['wave.repair-rounds-missing', 'wave.lane-brief-missing']));
    expect(run.lines).toEqual(['']);
  });
});
