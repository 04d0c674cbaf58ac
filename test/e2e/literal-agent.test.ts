/**
 * End-to-end: a "literal agent" (test/support/literal-agent.mjs) that knows nothing of the child
 * contract runs the tool commands it finds in the rendered prompt, as a real child of
 * `loopchart run` on a real repository, launched through an agent preset's command line. The
 * loop must admit every return: no validation miss, no repair.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AgentPreset, expandPreset, shellQuote } from '../../src/agents/presets.js';
import type { PromptRole } from '../../src/agents/prompt.js';
import { runCli } from '../../src/cli/commands.js';
import { createTempRepo } from '../effects/temp-repo.js';
import { bundledLoopCli } from '../support/cli-bundle.js';
import { companionCheckout, legSpecText } from '../support/legs-fixtures.js';
import {
  cli,
  cliProcess,
  createLoopRepo,
  type LoopRepo,
  useGitTestEnvironment,
} from '../support/loop-repo.js';
import { stringSinks } from '../support/string-sinks.js';

const repos: LoopRepo[] = [];
const dirs: string[] = [];
beforeAll(() => useGitTestEnvironment());
afterEach(() => {
  for (const repo of repos.splice(0)) repo.remove();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  delete process.env.LOOPCHART_CLI;
});

const LITERAL_AGENT = join(import.meta.dirname, '..', 'support', 'literal-agent.mjs');

/** A preset for the literal agent, shaped like the real ones: the prompt is its last argument. */
const literalPreset: AgentPreset = {
  name: 'pi',
  program: `${shellQuote(process.execPath)} ${shellQuote(LITERAL_AGENT)}`,
  fixed: [],
  modelFlag: '--model',
  promptFlag: null,
  permissionFlags: [],
  unsafeFlags: [],
  checkedAgainst: 'test',
};

async function tool(): Promise<string> {
  return `${shellQuote(process.execPath)} ${shellQuote(await bundledLoopCli())}`;
}

/** The literal agent's command line for `role`, as a preset renders it. */
async function literalChild(role: PromptRole): Promise<string> {
  return expandPreset(literalPreset, {
    role,
    tool: await tool(),
    ...(role === 'child' ? { taskExpression: '"$LOOPCHART_TASK"' } : {}),
    ...(role === 'reviewer' ? { taskExpression: '"$LOOPCHART_REVIEW_TASK"' } : {}),
  });
}

// Each loop run starts a bundled CLI, the agent and the tools as real processes on shared cores.
describe('a literal agent driven only by the prompt', { timeout: 240_000 }, () => {
  it('seeds and closes every row through loopchart run with zero validation misses', async () => {
    const repo = createLoopRepo({ script: { version: 1, targets: {} } });
    repos.push(repo);
    const loopchart = await tool();
    const child = expandPreset(literalPreset, {
      role: 'child',
      tool: loopchart,
      taskExpression: '"$LOOPCHART_TASK"',
    });
    const args = await repo.runArgs();
    const childAt = args.indexOf('--child') + 1;
    args[childAt] = child;
    const result = await cliProcess(['run', ...args], { LOOPCHART_CLI: loopchart });
    expect(result.stderr).not.toContain('internal error');
    expect(result.code).toBe(0);
    // Every return admitted: no `loop: repair …` commit between the child commits.
    expect(repo.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: row 1 done',
      'loop: row 2 done',
    ]);
    const ledger = repo.ledger();
    expect(ledger).toContain('| 1 | done | 1 | check; result |');
    expect(ledger).toContain('| 2 | done | 1 | check; result |');
    expect(ledger).toContain('row 0 done | seeded 2 rows, closed 0 on baseline | row 1');
    expect(ledger).toContain('row 1 done | what happened | next step');
    expect(repo.status()).toBe('');
  });

  it('makes a verification repair the loop admits', async () => {
    const repo = createLoopRepo({ script: { version: 1, targets: {} } });
    repos.push(repo);
    const outside = mkdtempSync(join(tmpdir(), 'loopchart-gate-'));
    dirs.push(outside);
    // A gate that fails once, then passes: the first final verification asks for a repair.
    const marker = join(outside, 'failed-once');
    const args = await repo.runArgs(
      '--impl-model',
      'test/model',
      '--gate',
      `test -f ${marker} || { touch ${marker}; exit 1; }`,
    );
    args[args.indexOf('--child') + 1] = await literalChild('child');
    const result = await cliProcess(['run', ...args], { LOOPCHART_CLI: await tool() });
    expect(result.code).toBe(0);
    expect(repo.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: row 1 done',
      'loop: row 2 done',
      'loop: verification fix',
      'loop: repair verification',
    ]);
  });

  it('reviews the whole diff (SHIP) and the conformance (CONFORMS), and the run finishes with the closure block', async () => {
    const repo = createLoopRepo({ script: { version: 1, targets: {} } });
    repos.push(repo);
    const reviewer = await literalChild('reviewer');
    const args = await repo.runArgs('--reviewer', reviewer, '--conformance-reviewer', reviewer);
    args[args.indexOf('--child') + 1] = await literalChild('child');
    const result = await cliProcess(['run', ...args], { LOOPCHART_CLI: await tool() });
    expect(result.stderr).not.toContain('review miss');
    expect(result.code).toBe(0);
    const head = repo.git('rev-parse', 'HEAD').trim();
    expect(result.stdout).toContain(
      ['## Closure / conformance', 'status: CONFORMS (0 open)', `audited-base: ${head}`].join('\n'),
    );
    // Neither review asked for a fix round, and neither reviewer changed the checkout.
    expect(repo.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: row 1 done',
      'loop: row 2 done',
    ]);
    expect(repo.status()).toBe('');
  });

  it('plays the RPI implementer and validator through one round that converges', async () => {
    const repo = createTempRepo('loopchart-literal-rpi-');
    dirs.push(repo.dir);
    process.env.LOOPCHART_CLI = await tool();
    const { io, out } = stringSinks();
    const code = await runCli(
      [
        'rpi',
        '--implementer',
        await literalChild('implementer'),
        '--validator',
        await literalChild('validator'),
        '--repo',
        repo.dir,
        '--json',
      ],
      io,
    );
    expect(out.stderr).toBe('');
    expect(out.stdout).toContain('"converged"');
    expect(code).toBe(0);
    const json = JSON.parse(out.stdout) as { terminal: string; report: { status: string } };
    expect(json.terminal).toBe('converged');
    expect(json.report.status).toBe('PASS');
  });

  it('proposes a cybernetic candidate patch the loop runs and keeps', async () => {
    const repo = createTempRepo('loopchart-literal-cyber-');
    dirs.push(repo.dir);
    repo.commit('a scope', { 'src/store.txt': 'v0\n' });
    const outside = mkdtempSync(join(tmpdir(), 'loopchart-invariant-'));
    dirs.push(outside);
    const counter = join(outside, 'invariant-runs');
    process.env.LOOPCHART_CLI = await tool();
    const { io, out } = stringSinks();
    const code = await runCli(
      [
        'cyber',
        '--cwd',
        repo.dir,
        // Fails on its first two runs (the read-only scope derivation before the run, then the
        // baseline) and passes after the candidate: the patch itself changes nothing.
        '--invariant',
        `n=$(cat ${counter} 2>/dev/null || echo 0); echo $((n + 1)) > ${counter}; test "$n" -ge 2`,
        '--off-happy-path',
        'a store read before its first write',
        '--scope',
        'src',
        '--budget',
        '1',
        '--patcher',
        expandPreset(literalPreset, {
          role: 'patcher',
          tool: await tool(),
          taskExpression: '"$LOOPCHART_TASK"',
        }),
        '--json',
      ],
      io,
    );
    // The patcher's return summary is the literal agent's words for the prompt's placeholder.
    expect(out.stderr).toContain(
      'candidate 1 [candidate-1] aiming at invariant: one line: what the patch changes',
    );
    const json = JSON.parse(out.stdout) as { record: { status: string } };
    expect(json.record.status).toBe('restored');
    expect(code).toBe(0);
  });
});

/** Object names (full, and the 12 characters a record writes after `@ <member>`) as placeholders. */
function withoutShas(text: string): string {
  return text.replace(/\b[0-9a-f]{40}\b/g, '<sha>').replace(/(@ [a-z]+) [0-9a-f]{12}\b/g, '$1 <sha>');
}

// docs/decisions/legs.md L21: the child tools serve a companion dispatch. web (home) and api share
// the one criterion: ledger row 1 is web's entry, row 2 api's.
describe('a literal agent on a coordinated run', { timeout: 240_000 }, () => {
  it('seeds and completes the companion rows through the child tools: the same ledger and subjects as the scripted child', async () => {
    const spec = legSpecText({
      criteria: ['The page lists items'],
      legs: ['- web (home): 1', '- api: 1'],
    });
    const runOnce = async (literal: boolean) => {
      // The scripted child writes the body lines itself, with the words the literal agent takes.
      const row = [
        { do: 'done' as const, evidence: 'check; result', summary: 'what happened', next: 'next step' },
      ];
      const repo = createLoopRepo({
        spec,
        script: {
          version: 1,
          targets: {
            'seed web': [{ do: 'seed', evidence: { '1': 'check; result' } }],
            'seed api': [{ do: 'seed', evidence: { '2': 'check; result' } }],
            '1': row,
            '2': row,
          },
        },
        files: { '.gitignore': '*.log\n' },
      });
      repos.push(repo);
      const api = companionCheckout('api');
      dirs.push(api.dir);
      const args = await repo.runArgs('--leg', `api=${api.dir}`);
      // The literal agent takes the companion (api) dispatches; the scripted child takes home's in
      // both runs, so the two runs differ only in how the companion returns are made.
      const childAt = args.indexOf('--child') + 1;
      if (literal)
        args[childAt] =
          `if grep -q '"companion": true' "$LOOPCHART_TASK"; then ${await literalChild('child')}; else ${args[childAt]}; fi`;
      const out = await cli('run', args);
      expect(out.stderr).not.toContain('internal error');
      expect(out.code).toBe(0);
      expect(repo.status()).toBe('');
      expect(api.git('status', '--porcelain')).toBe('');
      return { ledger: repo.ledger(), home: repo.subjects(), api: api.subjects() };
    };
    process.env.LOOPCHART_CLI = await tool();
    const literal = await runOnce(true);
    // Every return admitted: no repair commit; the companion's rows recorded in home.
    expect(literal.home).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: record api row 0',
      'loop: row 1 done',
      'loop: record api row 2',
    ]);
    expect(literal.api).toEqual(['loop: seed evidence', 'loop: row 2 done']);
    const ledger = withoutShas(literal.ledger);
    expect(ledger).toContain('| 1 | done | 1 | check; result |');
    expect(ledger).toContain('| 2 | done | 1 | check @ api <sha>; result |');
    expect(ledger).toContain(['seeded web: yes', 'base api: <sha>', 'seeded api: yes'].join('\n'));
    expect(ledger).toContain('row 2 done | what happened | next step');

    const scripted = await runOnce(false);
    expect(scripted.home).toEqual(literal.home);
    expect(scripted.api).toEqual(literal.api);
    expect(withoutShas(scripted.ledger)).toBe(ledger);
  });
});
