/**
 * Agent presets: every command line a preset renders uses only flags (and flag values) that the
 * agent's own `--help` lists, recorded in test/fixtures/agent-help/ with the versions in
 * docs/agents.md; the shell line passes the prompt as one argument and the model only when the
 * loop sets LOOPCHART_MODEL; no preset passes a sandbox or permission bypass unless asked.
 */
import { execFileSync } from 'node:child_process';
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { AGENT_NAMES, AGENT_PRESETS, type AgentName, expandPreset } from '../../src/agents/presets.js';
import { PROMPT_ROLES, type PromptRole } from '../../src/agents/prompt.js';
import { runCommand, runOptionsFromArgs } from '../../src/cli/run.js';
import { stringSinks } from '../support/string-sinks.js';

const HELP: Record<AgentName, string> = {
  claude: 'claude.txt',
  codex: 'codex-exec.txt',
  gemini: 'gemini.txt',
  opencode: 'opencode-run.txt',
  pi: 'pi.txt',
  aider: 'aider-options.txt',
};

function helpText(agent: AgentName): string {
  return readFileSync(join(import.meta.dirname, '..', 'fixtures', 'agent-help', HELP[agent]), 'utf8');
}

/** Splits the agent part of a rendered line into shell words (quotes removed, `${…}` kept whole). */
function words(line: string): string[] {
  const out: string[] = [];
  let current = '';
  let quote: string | null = null;
  let brace = 0;
  for (const c of line) {
    if (quote !== null) {
      if (c === quote) quote = null;
      else current += c;
    } else if (c === "'" || (c === '"' && brace === 0)) quote = c;
    else if (c === '{' && current.endsWith('$')) {
      brace += 1;
      current += c;
    } else if (c === '}' && brace > 0) {
      brace -= 1;
      current += c;
    } else if (c === ' ' && brace === 0) {
      if (current !== '') out.push(current);
      current = '';
    } else current += c;
  }
  if (current !== '') out.push(current);
  return out;
}

/** The help block of one option: its line and the indented description lines under it. */
function optionBlock(help: string, flag: string): string | null {
  const lines = help.split('\n');
  const pattern = new RegExp(`(^|[\\s,])${flag.replace(/[-]/g, '\\-')}([\\s,=]|$)`);
  const start = lines.findIndex((line) => /^\s*-/.test(line) && pattern.test(line));
  if (start < 0) return null;
  const block = [lines[start] as string];
  for (const line of lines.slice(start + 1)) {
    if (/^\s*-/.test(line) || line.trim() === '') break;
    block.push(line);
  }
  return block.join('\n');
}

/** Checks every flag of `argv` against the help: listed, and a value among its listed choices. */
function undocumented(agent: AgentName, argv: readonly string[]): string[] {
  const help = helpText(agent);
  const problems: string[] = [];
  for (const [index, word] of argv.entries()) {
    if (!word.startsWith('-')) continue;
    const block = optionBlock(help, word);
    if (block === null) {
      problems.push(`${word} is not in ${HELP[agent]}`);
      continue;
    }
    const value = argv[index + 1];
    const choices = /(?:choices:|possible values:)\s*([^\])]*)/.exec(block.replace(/\n\s*/g, ' '));
    if (value !== undefined && !value.startsWith('-') && choices !== null) {
      const listed = (choices[1] as string).split(/[,\s]+/).map((c) => c.replace(/"/g, ''));
      if (!listed.includes(value)) problems.push(`${word} ${value}: not one of ${listed.join(', ')}`);
    }
  }
  return problems;
}

function rolesOf(agent: AgentName): readonly PromptRole[] {
  return (AGENT_PRESETS[agent].roles ?? PROMPT_ROLES).filter((r) => r !== 'reviewer');
}

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe('agent presets against each CLI help', () => {
  for (const agent of AGENT_NAMES) {
    it(`${agent}: every flag and value of the rendered line is in its recorded help`, () => {
      const preset = AGENT_PRESETS[agent];
      for (const role of rolesOf(agent)) {
        const line = expandPreset(preset, { role, tool: 'loopchart', taskExpression: '"$LOOPCHART_TASK"' });
        const [render, run] = line.split(' && ') as [string, string];
        expect(render).toBe(`prompt=$(loopchart prompt --role ${role} --task "$LOOPCHART_TASK")`);
        const argv = words(run).flatMap((word) =>
          word.startsWith('${LOOPCHART_MODEL:+') ? words(word.slice(19, -1)) : [word],
        );
        expect(argv[0]).toBe(preset.program);
        for (const sub of preset.fixed.filter((w) => !w.startsWith('-')))
          expect(helpText(agent)).toContain(sub);
        expect(argv).toContain(preset.modelFlag);
        expect(argv).toContain('$prompt');
        expect(undocumented(agent, argv)).toEqual([]);
        if (preset.unsafeFlags.length > 0)
          expect(` ${argv.join(' ')} `, `${agent} bypasses without --agent-unsafe`).not.toContain(
            ` ${preset.unsafeFlags.join(' ')} `,
          );
      }
      if (preset.unsafeFlags.length > 0) {
        const unsafe = expandPreset(preset, {
          role: rolesOf(agent)[0] as PromptRole,
          tool: 'loopchart',
          unsafe: true,
        });
        const argv = words(unsafe.split(' && ')[1] as string);
        expect(undocumented(agent, argv)).toEqual([]);
        expect(` ${argv.join(' ')} `).toContain(` ${preset.unsafeFlags.join(' ')} `);
      }
    });
  }

  it('refuses a role the agent cannot play and unsafe for an agent without a bypass', () => {
    expect(() => expandPreset(AGENT_PRESETS.aider, { role: 'child', tool: 'loopchart' })).toThrow(
      /aider cannot be the child/,
    );
    expect(() => expandPreset(AGENT_PRESETS.pi, { role: 'child', tool: 'loopchart', unsafe: true })).toThrow(
      /no sandbox or permission prompts/,
    );
  });
});

describe('the rendered shell line', () => {
  it('passes the whole prompt as one argument, the model only when LOOPCHART_MODEL is set, and the user arguments', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopchart-preset-'));
    dirs.push(dir);
    // A stand-in loopchart that prints a prompt with quotes, a newline and a dollar sign, and a
    // stand-in agent that prints its arguments as JSON.
    writeFileSync(
      join(dir, 'fake-loopchart'),
      `#!/bin/sh\nprintf '%s\\n%s' "it's \\"quoted\\" \\$HOME" "role $3 task $5"\n`,
    );
    writeFileSync(
      join(dir, 'codex'),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} -e 'console.log(JSON.stringify(process.argv.slice(1)))' -- "$@"\n`,
    );
    chmodSync(join(dir, 'fake-loopchart'), 0o755);
    chmodSync(join(dir, 'codex'), 0o755);
    const line = expandPreset(AGENT_PRESETS.codex, {
      role: 'child',
      tool: join(dir, 'fake-loopchart'),
      taskExpression: '"$LOOPCHART_TASK"',
      extraArgs: '--ephemeral',
    });
    const run = (model: string | null) =>
      JSON.parse(
        execFileSync('/bin/sh', ['-c', line], {
          encoding: 'utf8',
          env: {
            PATH: `${dir}:${process.env.PATH ?? ''}`,
            LOOPCHART_TASK: '/t/task file.json',
            ...(model === null ? {} : { LOOPCHART_MODEL: model }),
          },
        }),
      ) as string[];
    const prompt = 'it\'s "quoted" $HOME\nrole child task /t/task file.json';
    expect(run(null)).toEqual(['exec', '--sandbox', 'workspace-write', '--ephemeral', prompt]);
    expect(run('gpt x')).toEqual([
      'exec',
      '--sandbox',
      'workspace-write',
      '--model',
      'gpt x',
      '--ephemeral',
      prompt,
    ]);
  });

  it('is listed by `loopchart run --child-agent <agent> --help`', async () => {
    const { io, out } = stringSinks();
    expect(await runCommand.run(['--child-agent', 'claude', '--help'], io)).toBe(0);
    for (const agent of AGENT_NAMES) expect(out.stdout).toMatch(new RegExp(`^  ${agent} `, 'm'));
    expect(out.stdout).toContain('--child-agent claude runs, per dispatch:');
    expect(out.stdout).toContain('claude -p "$prompt" --permission-mode acceptEdits --allowedTools');
  });
});

describe('the reviewer presets of `loopchart run`', () => {
  const env = { LOOPCHART_CLI: 'loopchart' };
  const spec = ['--spec', 'docs/specs/a.md', '--child', './agent.sh'];

  it('expand --reviewer-agent and --conformance-reviewer-agent with the reviewer prompt of the review task', () => {
    const options = runOptionsFromArgs(
      [...spec, '--reviewer-agent', 'codex', '--conformance-reviewer-agent', 'claude'],
      env,
    );
    // Written by hand from the preset table in docs/agents.md and the review contract's
    // LOOPCHART_REVIEW_TASK: render the reviewer prompt, then run the agent once with it.
    expect(options.reviewer).toBe(
      `prompt=$(loopchart prompt --role reviewer --task "$LOOPCHART_REVIEW_TASK") && codex exec --sandbox workspace-write \${LOOPCHART_MODEL:+--model "$LOOPCHART_MODEL"} "$prompt"`,
    );
    expect(options.conformanceReviewer).toBe(
      `prompt=$(loopchart prompt --role reviewer --task "$LOOPCHART_REVIEW_TASK") && claude -p "$prompt" --permission-mode acceptEdits --allowedTools 'Bash(loopchart child *)' \${LOOPCHART_MODEL:+--model "$LOOPCHART_MODEL"}`,
    );
    expect(options.child).toBe('./agent.sh');
    // The reviewers find loopchart the way a preset child does.
    expect(options.childEnv).toEqual({ LOOPCHART_CLI: 'loopchart' });
    for (const command of [options.reviewer, options.conformanceReviewer])
      expect(command).not.toMatch(/dangerously|yolo|--auto\b|--yes-always/);
  });

  it('adds the bypass only with --agent-unsafe, and refuses a command and a preset together or an agent that cannot run the tool', () => {
    const unsafe = runOptionsFromArgs([...spec, '--reviewer-agent', 'codex', '--agent-unsafe'], env);
    expect(unsafe.reviewer).toContain('codex exec --dangerously-bypass-approvals-and-sandbox ');
    expect(unsafe.reviewer).not.toContain('--sandbox workspace-write');
    expect(() =>
      runOptionsFromArgs([...spec, '--reviewer', './review.sh', '--reviewer-agent', 'codex'], env),
    ).toThrow(/either a command or --reviewer-agent/);
    expect(() =>
      runOptionsFromArgs(
        [...spec, '--conformance-reviewer', './r.sh', '--conformance-reviewer-agent', 'pi'],
        env,
      ),
    ).toThrow(/either a command or --conformance-reviewer-agent/);
    expect(() => runOptionsFromArgs([...spec, '--reviewer-agent', 'aider'], env)).toThrow(
      /aider cannot be the reviewer/,
    );
    expect(() => runOptionsFromArgs([...spec, '--reviewer-agent', 'gpt'], env)).toThrow(
      /no agent preset "gpt"/,
    );
  });
});
