/**
 * The prompt of a dispatch: self-sufficient for each kind of task (the goal, the evidence rule,
 * the tool commands in order, the blocking-call contract, what never to do), the user template's
 * variables, and the named refusals.
 */
import { describe, expect, it } from 'vitest';
import { PROMPT_VARIABLES, PromptError, renderPrompt } from '../../src/agents/prompt.js';
import { childTask, planDispatch } from '../../src/gauntlet/dispatch.js';
import type { Ledger, SpecRow } from '../../src/gauntlet/types.js';

const HEAD = 'a'.repeat(40);
const base: Ledger = {
  discriminant: '# Loop ledger',
  spec: 'docs/specs/csv.md',
  base: 'b'.repeat(40),
  verification: 'make test',
  checks: 'commands',
  iterations: 0,
  allowance: 4,
  pending: null,
  rows: [
    { row: 1, status: 'open', attempts: 0, evidence: '' },
    { row: 2, status: 'open', attempts: 0, evidence: '' },
    { row: 3, status: 'cut', attempts: 0, evidence: 'deferred: ACME-412' },
  ],
  decisions: [],
};
const specRows: SpecRow[] = [
  { row: 1, text: 'Export writes a header row', line: 5, disposition: { kind: 'in-scope' } },
  { row: 2, text: 'Commas and quotes are escaped\u001b[2J', line: 6, disposition: { kind: 'in-scope' } },
] as SpecRow[];
const paths = {
  worktree: '/w',
  ledger: 'docs/plans/csv.md',
  spec: 'docs/specs/csv.md',
  returnFile: '/r',
  jobsFile: '/j',
};

function taskFor(ledger: Ledger, target: number | 'seed' | 'verify', hint: string | null = null) {
  const plan = planDispatch({ ledger, target, head: HEAD, hint });
  return { task: childTask(plan, paths), ledger: plan.reserved };
}

/** The `$ ` command lines of a prompt, in order. */
function commands(text: string): string[] {
  return text
    .split('\n')
    .filter((line) => line.startsWith('$ '))
    .map((line) => line.slice(2));
}

describe('renderPrompt', () => {
  it('gives a seed the seed tool with every open row, then check, commit and return', () => {
    const { task, ledger } = taskFor(base, 'seed');
    const text = renderPrompt({ role: 'child', tool: 'loopchart', task, ledger, specRows });
    expect(commands(text)).toEqual([
      'loopchart child show',
      'loopchart child seed --evidence 1="<check>; <result>" --evidence 2="<check>; <result>"',
      'loopchart child check',
      'loopchart child commit',
      'loopchart child return DONE',
    ]);
    for (const heading of ['## Goal', '## Task', '## Evidence', '## Steps', '## Blocking calls', '## Never'])
      expect(text).toContain(heading);
    expect(text).toContain('Do not change any code');
    expect(text).toContain('at most three short result lines');
    expect(text).toContain('timeout -k 30 600');
    expect(text).toContain('Never run destructive git');
  });

  it('gives a row the record tool and names the row, escaping control bytes of the spec text', () => {
    const seeded: Ledger = {
      ...base,
      iterations: 1,
      rows: base.rows.map((r) => (r.row === 3 ? r : { ...r, evidence: 'make test; fails' })),
      decisions: ['row 0 done | seeded 2 rows, closed 0 on baseline | row 1'],
    };
    const { task, ledger } = taskFor(seeded, 2, 'use the fixture');
    const text = renderPrompt({ role: 'child', tool: 'npx loopchart', task, ledger, specRows });
    expect(commands(text)).toEqual([
      'npx loopchart child show',
      'npx loopchart child record --status <done|failed> --evidence "<check>; <result>" --summary "<what happened>" --next "<next step>"',
      'npx loopchart child check',
      'npx loopchart child commit',
      'npx loopchart child return DONE',
    ]);
    expect(text).toContain('Make row 2 of the spec hold ("Commas and quotes are escaped\\x1b[2J")');
    expect(text).not.toContain('\u001b');
    expect(text).toContain('Hint: use the fixture');
    expect(text).toContain('unreachable: <what> - <where>');
    expect(text).toContain('amend: <the corrected fact> - <what you observed>');
    expect(text).toContain('redraw: <why>');
  });

  it('gives a verification repair no ledger edit, and refuses the verify-repair role for a row', () => {
    const closed: Ledger = {
      ...base,
      rows: base.rows.map((r) => (r.row === 3 ? r : { ...r, status: 'done' as const, evidence: 'c; ok' })),
    };
    const { task, ledger } = taskFor(closed, 'verify');
    const text = renderPrompt({ role: 'verify-repair', tool: 'loopchart', task, ledger, specRows });
    expect(commands(text)).toEqual([
      'loopchart child show',
      'loopchart child check',
      'loopchart child commit',
      'loopchart child return DONE',
    ]);
    expect(text).toContain('Do not change the ledger');
    const row = taskFor(base, 1);
    expect(() => renderPrompt({ role: 'verify-repair', tool: 'loopchart', ...row, specRows })).toThrow(
      PromptError,
    );
  });

  it('renders the RPI roles from their environment and the patcher from its task', () => {
    const rpi = {
      round: 1,
      findingsFile: '/run/round-1/findings.json',
      intentFile: 'issue.md',
      subjectDigest: 'sha256:abc',
      leg: 'fresh',
    };
    const implementer = renderPrompt({ role: 'implementer', tool: 'loopchart', rpi });
    expect(implementer).toContain('repair round 1');
    expect(implementer).toContain('/run/round-1/findings.json');
    expect(commands(implementer)).toEqual(['git status --short']);
    const validator = renderPrompt({ role: 'validator', tool: 'loopchart', rpi });
    expect(commands(validator)).toEqual([
      'loopchart child verdict --status <PASS|FAIL> --checked "<what you ran>" --family "<your model family>"',
    ]);
    expect(validator).toContain('sha256:abc');
    const patcher = renderPrompt({
      role: 'patcher',
      tool: 'loopchart',
      patcher: {
        attempt: 2,
        invariant: { statement: 'the index answers every key' },
        target: null,
        failingChecks: [{ name: 'invariant', outputTail: 'missing key k7' }],
        checks: [{ name: 'invariant', commandText: './check.sh' }],
        scope: ['src/index'],
        returnFile: '/r',
      },
    });
    expect(patcher).toContain('Scope (change only these paths): src/index');
    expect(patcher).toContain('missing key k7');
    expect(commands(patcher)).toEqual([
      'loopchart child return DONE --summary "<one line: what the patch changes>"',
    ]);
  });

  // What docs/review-contract.md says a reviewer receives and writes, written here by hand.
  const review = (role: 'whole-diff' | 'conformance') => ({
    version: 1 as const,
    role,
    worktree: '/w',
    base: 'b'.repeat(40),
    head: 'c'.repeat(40),
    spec: 'docs/specs/csv.md',
    ledger: 'docs/plans/csv.md',
    diffCommand: `git diff ${'b'.repeat(40)}..${'c'.repeat(40)}`,
    fixRoundsUsed: 1,
    fixRoundCap: 5,
    returnFile: '/r/return.json',
  });
  const range = `${'b'.repeat(40)}..${'c'.repeat(40)}`;

  it('tells a whole-diff reviewer to read base..head, change nothing and write SHIP or REVISE with the tool', () => {
    const text = renderPrompt({ role: 'reviewer', tool: 'loopchart', review: review('whole-diff') });
    expect(commands(text)).toEqual([
      `git --no-pager diff --stat ${range}`,
      'loopchart child review --verdict <SHIP|REVISE>',
    ]);
    expect(text).toContain(`git diff ${range}`);
    // REVISE names at least one fix task; minors and fix tasks are one line each.
    expect(text).toMatch(/REVISE when .* at least one `--fix-task "<one line>"`/);
    expect(text).toContain('`--minor "<one line>"`');
    // A reviewer never commits or leaves changes.
    expect(text).toMatch(/never commit/i);
    expect(text).toMatch(/dirty/);
    expect(text).toContain('Fix rounds of this review used: 1 of 5');
    expect(text).not.toContain('CONFORMS');
  });

  it('gives a conformance reviewer the acceptance rows and CONFORMS or GAPS with G<n> gap ids', () => {
    const text = renderPrompt({
      role: 'reviewer',
      tool: 'loopchart',
      review: review('conformance'),
      specRows,
    });
    expect(commands(text)).toEqual([
      `git --no-pager diff --stat ${range}`,
      'loopchart child review --verdict <CONFORMS|GAPS>',
    ]);
    expect(text).toContain('  row 1: Export writes a header row');
    // The spec's text is untrusted: the terminal escape does not reach the agent.
    expect(text).toContain('  row 2: Commas and quotes are escaped');
    expect(text).not.toContain('\u001b');
    expect(text).toContain('`--gap "G<n>: <what is missing>"`');
    // The review contract's gap fields: UNAUTHORIZED behaviour, and gaps left to the finishing gate.
    expect(text).toContain('`--gap-verdict G<n>=UNAUTHORIZED`');
    expect(text).toContain('`--gap-recommended G<n>=accept`');
    expect(text).toContain('--happy-path');
    expect(text).toContain('Spec: docs/specs/csv.md');
    expect(text).toContain('Ledger: docs/plans/csv.md');
    expect(text).not.toContain('SHIP');
  });

  it('refuses a reviewer prompt without a review task or with commits that are not SHAs', () => {
    expect(() => renderPrompt({ role: 'reviewer', tool: 'loopchart' })).toThrow(/needs the review task/);
    expect(() =>
      renderPrompt({
        role: 'reviewer',
        tool: 'loopchart',
        review: { ...review('whole-diff'), head: 'HEAD; rm -rf ~' },
      }),
    ).toThrow(PromptError);
  });

  it('fills a template with every documented variable and refuses an unknown one', () => {
    const { task, ledger } = taskFor(base, 'seed');
    const input = { role: 'child' as const, tool: 'lc', task, ledger, specRows };
    const whole = renderPrompt(input);
    const template = Object.keys(PROMPT_VARIABLES)
      .map((name) => `[${name}]{{${name}}}`)
      .join('\n');
    const text = renderPrompt({ ...input, template });
    expect(text).toContain('[role]child\n');
    expect(text).toContain('[tool]lc\n');
    expect(text).toContain('[kind]seed\n');
    expect(text).toContain('[target]seed\n');
    expect(text).toContain('[ledger]docs/plans/csv.md\n');
    expect(text).toContain(`[default]${whole}`);
    expect(text).toContain('[steps]1. Read the task:\n$ lc child show');
    expect(renderPrompt({ ...input, template: 'House rules.\n\n{{ default }}' })).toBe(
      `House rules.\n\n${whole}`,
    );
    expect(() => renderPrompt({ ...input, template: '{{goal}} {{persona}} {{mood}}' })).toThrow(
      /unknown variables \{\{persona\}\}, \{\{mood\}\}/,
    );
  });
});
