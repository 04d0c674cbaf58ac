/**
 * End-to-end: a "literal agent" (test/support/literal-agent.mjs) that knows nothing of the child
 * contract runs the tool commands it finds in the rendered prompt, as a real child of
 * `loopchart run` on a real repository, launched through an agent preset's command line. The
 * loop must admit every return: no validation miss, no repair.
 */
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { type AgentPreset, expandPreset, shellQuote } from '../../src/agents/presets.js';
import { bundledLoopCli } from '../support/cli-bundle.js';
import { cliProcess, createLoopRepo, type LoopRepo, useGitTestEnvironment } from '../support/loop-repo.js';

const repos: LoopRepo[] = [];
beforeAll(() => useGitTestEnvironment());
afterEach(() => {
  for (const repo of repos.splice(0)) repo.remove();
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

describe('a literal agent driven only by the prompt', () => {
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
});
