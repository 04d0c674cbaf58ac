/**
 * The command registry and the built-ins around it (docs/cli.md): every registered command loads
 * lazily as the module the entry names, prints usage with an example, suggests the nearest command
 * or option for a typo, takes the conventional short flags, and the CLI prints its version, a
 * completion script per shell, and colour only on a TTY without NO_COLOR.
 */
import { spawnSync } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runCli, VERSION } from '../../src/cli/commands.js';
import { COMMANDS } from '../../src/cli/registry.js';
import { parseCliResult } from '../support/cli-result.js';
import { stringSinks } from '../support/string-sinks.js';

const scratch = mkdtempSync(join(tmpdir(), 'loopchart-registry-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

function ttySinks(env: Record<string, string | undefined>) {
  const { io, out } = stringSinks();
  return {
    out,
    io: {
      stdout: { ...io.stdout, isTTY: true },
      stderr: { ...io.stderr, isTTY: true },
      env,
    },
  };
}

describe('every registered command', () => {
  it('has a unique name', () => {
    expect(new Set(COMMANDS.map((c) => c.name)).size).toBe(COMMANDS.length);
  });

  for (const entry of COMMANDS) {
    describe(entry.name, () => {
      it('loads the command the entry names, with the same summary', async () => {
        const command = await entry.load();
        expect(command.name).toBe(entry.name);
        expect(command.summary).toBe(entry.summary);
      });

      it('--help: usage, and at least one example that runs this command', async () => {
        const { io, out } = stringSinks();
        expect(await runCli([entry.name, '--help'], io)).toBe(0);
        expect(out.stdout).toMatch(new RegExp(`^usage: loopchart ${entry.name}\\b`));
        const examples = out.stdout.split(/\nexamples?:\n/)[1];
        expect(examples, 'an "examples:" section').toBeDefined();
        expect(examples).toContain(`loopchart ${entry.name}`);
      });

      it('help <command> prints the same text as <command> --help', async () => {
        const direct = stringSinks();
        await runCli([entry.name, '--help'], direct.io);
        const viaHelp = stringSinks();
        expect(await runCli(['help', entry.name], viaHelp.io)).toBe(0);
        expect(viaHelp.out.stdout).toBe(direct.out.stdout);
      });
    });
  }
});

describe('did you mean', () => {
  it.each([
    ['rnu', 'run'],
    ['stauts', 'status'],
    ['gnerate', 'generate'],
    ['viz2', 'viz'],
  ])('%s suggests %s (exit 2)', async (typed, meant) => {
    const { io, out } = stringSinks();
    expect(await runCli([typed], io)).toBe(2);
    expect(out.stderr).toContain(`unknown command "${typed}"; did you mean "${meant}"?`);
  });

  it('suggests nothing for a word far from every command', async () => {
    const { io, out } = stringSinks();
    expect(await runCli(['xylophone'], io)).toBe(2);
    expect(out.stderr).toMatch(/^loopchart: unknown command "xylophone" Run `loopchart help`/);
  });

  it('help of an unknown command suggests too', async () => {
    const { io, out } = stringSinks();
    expect(await runCli(['help', 'rnu'], io)).toBe(2);
    expect(out.stderr).toContain('did you mean "run"?');
  });

  it.each([
    [['viz', '--fromat', 'dot'], '--format'],
    [['status', '--ledgr', 'x'], '--ledger'],
    [['run', '--chlid', 'x'], '--child'],
    [['paths', '--strategie', 'shortest'], '--strategy'],
  ])('%j suggests %s for a mistyped option', async (args, meant) => {
    const { io, out } = stringSinks();
    expect(await runCli(args, io)).toBe(2);
    expect(out.stderr).toContain(`did you mean ${meant}?`);
  });
});

describe('short flags', () => {
  it('-f and -o mean --format and --out (viz writes the DOT file)', async () => {
    const { io } = stringSinks();
    expect(await runCli(['viz', 'rpi', '-f', 'dot', '-o', join(scratch, 'viz')], io)).toBe(0);
    expect(readFileSync(join(scratch, 'viz', 'rpi.dot'), 'utf8')).toMatch(/^digraph /);
  });

  it('-s means --spec: status names the spec it could not read', async () => {
    const { io, out } = stringSinks();
    const code = await runCli(['status', '-w', scratch, '-s', 'docs/missing-spec.md'], io);
    expect(code).toBe(2);
    expect(out.stderr).not.toContain('Unknown option');
  });
});

describe('version', () => {
  it.each([['-V'], ['--version'], ['version'], ['-v']])('%s prints the version', async (flag) => {
    const { io, out } = stringSinks();
    expect(await runCli([flag], io)).toBe(0);
    expect(out.stdout).toBe(`${VERSION}\n`);
  });

  it('version --json prints the envelope with the version', async () => {
    const { io, out } = stringSinks();
    expect(await runCli(['version', '--json'], io)).toBe(0);
    expect(parseCliResult(out.stdout)).toMatchObject({ command: 'version', exitCode: 0, version: VERSION });
  });
});

describe('help', () => {
  it('lists every registered command and the built-ins, exit 0', async () => {
    const { io, out } = stringSinks();
    expect(await runCli(['help'], io)).toBe(0);
    for (const entry of COMMANDS) expect(out.stdout).toContain(`  ${entry.name} `);
    for (const word of ['help [command]', 'version', 'completion <shell>'])
      expect(out.stdout).toContain(word);
  });

  it('no command at all prints the list and exits 2', async () => {
    const { io, out } = stringSinks();
    expect(await runCli([], io)).toBe(2);
    expect(out.stdout).toContain('usage: loopchart <command>');
  });
});

describe('completion', () => {
  it.each([['bash'], ['zsh'], ['fish']])('%s: a script that names every command', async (shell) => {
    const { io, out } = stringSinks();
    expect(await runCli(['completion', shell], io)).toBe(0);
    for (const entry of COMMANDS) expect(out.stdout).toContain(entry.name);
  });

  it('an unknown shell is a usage error naming the shells', async () => {
    const { io, out } = stringSinks();
    expect(await runCli(['completion', 'tcsh'], io)).toBe(2);
    expect(out.stderr).toContain('bash, zsh, fish');
  });

  it('bash: completes command names, and options from the command --help', async () => {
    const { io, out } = stringSinks();
    await runCli(['completion', 'bash'], io);
    const script = join(scratch, 'completion.bash');
    writeFileSync(script, out.stdout);
    // A stand-in `loopchart` on PATH answers `<command> --help` the way the real one does.
    const bin = join(scratch, 'bin');
    spawnSync('mkdir', ['-p', bin]);
    writeFileSync(join(bin, 'loopchart'), '#!/bin/sh\necho "usage: loopchart $1 [--spec <path>] [--json]"\n');
    chmodSync(join(bin, 'loopchart'), 0o755);
    const complete = (words: string) =>
      spawnSync(
        'bash',
        [
          '-c',
          `source ${script}; COMP_WORDS=(${words}); COMP_CWORD=$((\${#COMP_WORDS[@]} - 1)); _loopchart; echo "\${COMPREPLY[*]}"`,
        ],
        { encoding: 'utf8', env: { ...process.env, PATH: `${bin}:${process.env.PATH}` } },
      ).stdout.trim();
    expect(complete('loopchart sta')).toBe('status');
    expect(complete('loopchart ru')).toBe('run runs');
    expect(complete('loopchart sub')).toBe('submit');
    expect(complete('loopchart status --sp')).toBe('--spec');
    expect(complete('loopchart completion z')).toBe('zsh');
    expect(complete('loopchart help cr')).toBe('crank');
  });
});

describe('colour', () => {
  it('a usage error on a TTY starts with a red loopchart:', async () => {
    const { io, out } = ttySinks({});
    expect(await runCli(['rnu'], io)).toBe(2);
    expect(out.stderr.startsWith('\u001b[31mloopchart:\u001b[39m unknown command')).toBe(true);
  });

  it('never with NO_COLOR, even on a TTY', async () => {
    const { io, out } = ttySinks({ NO_COLOR: '1' });
    expect(await runCli(['rnu'], io)).toBe(2);
    await runCli(['help'], io);
    expect(out.stderr + out.stdout).not.toContain('\u001b[');
  });

  it('never when the stream is not a TTY (pipes, files, tests)', async () => {
    const { io, out } = stringSinks();
    await runCli(['rnu'], io);
    await runCli(['help'], io);
    expect(out.stderr + out.stdout).not.toContain('\u001b[');
  });

  it('help headings are bold on a TTY', async () => {
    const { io, out } = ttySinks({});
    await runCli(['help'], io);
    expect(out.stdout).toContain('\u001b[1mcommands:\u001b[22m');
  });
});

describe('the built executable loads only what the command needs', () => {
  const root = join(import.meta.dirname, '..', '..');
  const dist = join(root, 'dist', 'cli.js');
  const built =
    existsSync(dist) && statSync(dist).mtimeMs >= statSync(join(root, 'src', 'cli', 'registry.ts')).mtimeMs;

  /** The bare package specifiers the file and its static (not dynamic) imports reach. */
  function staticPackages(file: string, seen = new Set<string>()): Set<string> {
    const packages = new Set<string>();
    if (seen.has(file)) return packages;
    seen.add(file);
    const text = readFileSync(file, 'utf8');
    for (const match of text.matchAll(
      /(?:^|[;\n])\s*(?:import|export)\s*(?:[^'"();]*?\sfrom\s*)?["']([^"']+)["']/g,
    )) {
      const spec = match[1] as string;
      if (spec.startsWith('.')) for (const p of staticPackages(join(file, '..', spec), seen)) packages.add(p);
      else packages.add(spec);
    }
    return packages;
  }

  it.skipIf(!built)(
    'dist/cli.js statically loads no xstate, zod, viz or graph package (npm run build first)',
    () => {
      const packages = [...staticPackages(dist)];
      expect(packages.filter((p) => /^(xstate|zod|@viz-js\/|@xstate\/|execa)/.test(p))).toEqual([]);
      // The command modules are there, behind dynamic imports.
      expect(readFileSync(dist, 'utf8')).toMatch(/import\(["']\.\/[^"']+["']\)/);
    },
  );
  if (!built)
    it('explains why the static-import check was skipped', () => {
      console.warn(
        'skipped the dist/cli.js static-import check: dist is missing or stale; run `npm run build`',
      );
    });
});
