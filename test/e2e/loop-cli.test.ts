/**
 * End-to-end: the `status`, `check`, `run --json` and `demo` commands on real repositories, and the
 * built executable's demo (`node dist/cli.js demo`, which `npm test` builds first).
 */
import { spawnSync } from 'node:child_process';
import { existsSync, mkdtempSync, readFileSync, rmSync, statSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { parseTranscript } from '../../src/loop-protocol/transcript.js';
import { bundledScriptedChild } from '../support/cli-bundle.js';
import { parseCliResult } from '../support/cli-result.js';
import { killProcessesIn } from '../support/demo-run.js';
import {
  cli,
  createLoopRepo,
  GIT_TEST_ENV,
  type LoopRepo,
  useGitTestEnvironment,
} from '../support/loop-repo.js';

const repos: LoopRepo[] = [];
const scratch = mkdtempSync(join(tmpdir(), 'loopchart-cli-e2e-'));
beforeAll(() => useGitTestEnvironment());
afterEach(() => {
  for (const repo of repos.splice(0)) repo.remove();
});
afterAll(() => {
  killProcessesIn(scratch);
  rmSync(scratch, { recursive: true, force: true });
});

function stoppingRepo(): LoopRepo {
  const created = createLoopRepo({
    script: {
      version: 1,
      targets: {
        seed: [{ do: 'seed', evidence: { '1': 'one; failing', '2': 'two; passes' }, closeOnBaseline: [2] }],
        '1': [{ do: 'failed', evidence: 'one; still failing' }],
      },
    },
  });
  repos.push(created);
  return created;
}

describe('status and check', () => {
  it('reports a fresh worktree, then the stop the loop would take next, without changing anything', async () => {
    const r = stoppingRepo();
    const fresh = await cli('status', ['--worktree', r.dir, '--spec', r.specPath]);
    expect(fresh.code).toBe(0);
    expect(fresh.stdout).toContain('next: no ledger at docs/plans/feature.md');

    expect((await cli('run', await r.runArgs('--allowance', '1', '--impl-model', 'm'))).code).toBe(3);
    const head = r.git('rev-parse', 'HEAD');
    const status = await cli('status', ['--worktree', r.dir, '--spec', r.specPath]);
    expect(status.code).toBe(0);
    expect(status.stdout).toContain('row 1: failed, 1 of 1 - one; still failing');
    expect(status.stdout).toContain('pending: none');
    expect(status.stdout).toContain('gauntlet: question\nStopped on row 1\n');
    const json = parseCliResult(
      (await cli('status', ['--worktree', r.dir, '--ledger', r.ledgerPath, '--json'])).stdout,
    );
    expect(json).toMatchObject({ command: 'status', iterations: 2, allowance: 1, pending: null });
    expect(json.next.kind).toBe('stop');
    expect(json.next.stop).toEqual({ kind: 'row-allowance', row: 1 });
    expect(r.git('rev-parse', 'HEAD')).toBe(head);
    expect(r.status()).toBe('');
  });

  it('checks a ledger and its spec, naming each finding with its line', async () => {
    const r = stoppingRepo();
    expect((await cli('run', await r.runArgs('--allowance', '1', '--impl-model', 'm'))).code).toBe(3);
    const clean = await cli('check', ['--worktree', r.dir, '--spec', r.specPath]);
    expect(clean.code).toBe(0);
    r.write(r.ledgerPath, r.ledger().replace('allowance: 1\n', ''));
    const broken = await cli('check', ['--worktree', r.dir, '--ledger', r.ledgerPath]);
    expect(broken.code).toBe(2);
    expect(broken.stdout).toMatch(/^docs\/plans\/feature\.md: .*allowance/m);
    const json = parseCliResult(
      (await cli('check', ['--worktree', r.dir, '--ledger', r.ledgerPath, '--json'])).stdout,
    );
    expect(json.status).toBe('invalid');
    expect(json.findings.length).toBeGreaterThan(0);
  });
});

describe('run', () => {
  it('reports a stop as JSON with the stop text', async () => {
    const r = stoppingRepo();
    const out = await cli('run', await r.runArgs('--allowance', '1', '--impl-model', 'm', '--json'));
    expect(out.code).toBe(3);
    const result = parseCliResult(out.stdout);
    expect(result).toMatchObject({ command: 'run', status: 'stopped', exitCode: 3 });
    expect(result.stop.split('\n')[0]).toBe('gauntlet: question');
    expect(result.ledger.iterations).toBe(2);
  });

  it('refuses a run without a child command or with an unknown option (exit 2)', async () => {
    const r = stoppingRepo();
    const noChild = await cli('run', ['--worktree', r.dir, '--spec', r.specPath]);
    expect(noChild.code).toBe(2);
    expect(noChild.stderr).toContain('--child');
    const unknown = await cli('run', [...(await r.runArgs()), '--no-such-option']);
    expect(unknown.code).toBe(2);
    expect(r.status()).toBe('');
  });
});

describe('demo', () => {
  it('runs the whole demo in this process and ends with verification passed', async () => {
    const dir = join(scratch, 'demo-in-process');
    const child = `${process.execPath} ${await bundledScriptedChild()} ${join(dir, '.loopchart/demo-script.json')}`;
    const out = await cli('demo', ['--dir', dir, '--child', child]);
    expect(out.code).toBe(0);
    expect(out.stdout).toContain('gauntlet: question\nStopped on row 4\n');
    expect(out.stdout).toContain("--answer 'retry 4 | write the header row for an empty report'");
    expect(out.stdout).toContain('finished: verification passed after 6 iterations');
    expect(out.stdout).toContain('| 4 | done | 3 |');
    expect(out.stderr).toContain('terminated 1 child jobs');
    // Verify steps 2-4: one conformance fix round, then the closure block (§3.18).
    expect(out.stdout).toMatch(
      /## Closure \/ conformance\nstatus: CONFORMS \(0 open\)\naudited-base: [0-9a-f]{40}\nhappy-path: .+\n/,
    );
    expect(out.stdout).toMatch(
      /fix commits:\n- conformance round 1: [0-9a-f]{40} fix: conformance review, round 1\n/,
    );
    expect(out.stdout).toContain(
      'whole-diff minors:\n- escape.txt and empty-report.txt could share a helper\n',
    );

    // The transcript of both runs (stopped, then resumed with the answer) reads as one: cycles
    // never go back, and every record after the ledger is known carries the ledger view.
    const transcriptPath = /transcript: (\S+)/.exec(out.stdout)?.[1] ?? '';
    const { records, findings } = parseTranscript(readFileSync(transcriptPath, 'utf8'));
    expect(findings).toEqual([]);
    const inits = records.filter((r) => r.event === 'xstate.init');
    expect(inits).toHaveLength(2);
    expect(inits[1]?.cycle).toBeGreaterThan(0);
    const last = records.at(-1);
    expect(last?.terminalCheck).toMatchObject({ rule: 'verify complete', success: true });
    const ledgerView = last?.data?.ledger as { rows: { row: number; status: string; attempts: string }[] };
    expect(ledgerView.rows.find((r) => r.row === 4)).toMatchObject({ status: 'done', attempts: '3 of 3' });
  });

  const dist = join(import.meta.dirname, '..', '..', 'dist', 'cli.js');
  const source = join(import.meta.dirname, '..', '..', 'src', 'cli', 'demo.ts');
  const built = existsSync(dist) && statSync(dist).mtimeMs >= statSync(source).mtimeMs;
  it.skipIf(!built)(
    'runs `node dist/cli.js demo` as npx loopchart demo would (needs `npm run build` first)',
    () => {
      const dir = join(scratch, 'demo-dist');
      const result = spawnSync(process.execPath, [dist, 'demo', '--dir', dir], {
        encoding: 'utf8',
        env: { ...process.env, ...GIT_TEST_ENV },
        timeout: 240_000,
      });
      expect(result.status, result.stderr).toBe(0);
      expect(result.stdout).toContain('finished: verification passed');
    },
    300_000,
  );
  if (!built)
    it('explains why the built demo was skipped', () => {
      console.warn(
        'skipped `node dist/cli.js demo`: dist/cli.js is missing or older than the sources; run `npm run build`',
      );
    });
});
