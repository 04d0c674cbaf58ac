/**
 * The example child of docs/child-contract.md, taken from the doc's text and run exactly as
 * written (with `loopchart` on the PATH) by `loopchart run` on the README's sample spec: it seeds
 * and works rows, and the loop admits every return (no `loop: repair …` commit).
 */
import { chmodSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { bundledLoopCli } from '../support/cli-bundle.js';
import { cliProcess, createLoopRepo, type LoopRepo, useGitTestEnvironment } from '../support/loop-repo.js';

const root = join(import.meta.dirname, '..', '..');

/** The first fenced block of `language` after `heading` in a markdown file. */
function blockAfter(file: string, heading: string, language: string): string {
  const text = readFileSync(join(root, file), 'utf8');
  const at = text.indexOf(`\n${heading}\n`);
  if (at < 0) throw new Error(`${file} has no "${heading}"`);
  const open = text.indexOf(`\n\`\`\`${language}\n`, at);
  const close = text.indexOf('\n```\n', open + 1);
  return text.slice(open + language.length + 5, close + 1);
}

const repos: LoopRepo[] = [];
const dirs: string[] = [];
beforeAll(() => useGitTestEnvironment());
afterEach(() => {
  for (const repo of repos.splice(0)) repo.remove();
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

describe("docs/child-contract.md's example child", () => {
  it('seeds and works the rows of the README sample spec with zero validation misses', {
    timeout: 240_000,
  }, async () => {
    const spec = blockAfter('README.md', '## Run the loop engine on your repository', 'markdown');
    const child = blockAfter('docs/child-contract.md', '## An example child', 'sh');
    expect(child.startsWith('#!/bin/sh\n')).toBe(true);
    expect(spec).toContain('## Acceptance criteria');

    const repo = createLoopRepo({ spec, script: { version: 1, targets: {} } });
    repos.push(repo);
    repo.write('doc/specs/csv-export.md', spec);
    repo.git('add', '-A');
    repo.git('commit', '-q', '-m', 'the README sample spec');
    const bin = mkdtempSync(join(tmpdir(), 'loopchart-example-child-'));
    dirs.push(bin);
    writeFileSync(join(bin, 'example-child.sh'), child);
    writeFileSync(
      join(bin, 'loopchart'),
      `#!/bin/sh\nexec ${JSON.stringify(process.execPath)} ${JSON.stringify(await bundledLoopCli())} "$@"\n`,
    );
    chmodSync(join(bin, 'example-child.sh'), 0o755);
    chmodSync(join(bin, 'loopchart'), 0o755);

    const result = await cliProcess(
      [
        'run',
        '--worktree',
        repo.dir,
        '--spec',
        'doc/specs/csv-export.md',
        '--child',
        join(bin, 'example-child.sh'),
        '--verification',
        'make test',
        '--allowance',
        '2',
      ],
      { PATH: `${bin}:${process.env.PATH ?? ''}` },
    );
    // No Makefile: `make test` fails, so row 1 is failed until the loop asks a person.
    expect(result.stderr).toBe('');
    expect(result.code).toBe(3);
    expect(result.stdout).toContain('gauntlet: question');
    const subjects = repo.subjects().slice(1);
    expect(subjects.slice(0, 3)).toEqual(['loop: seed ledger', 'loop: seed evidence', 'loop: row 1 failed']);
    expect(subjects.filter((s) => s.startsWith('loop: repair'))).toEqual([]);
    const ledger = repo.read('doc/plans/csv-export.md');
    expect(ledger).toContain('row 0 done | seeded 2 rows, closed 0 on baseline | row 1');
    expect(ledger).toMatch(/\| 1 \| failed \| [12] \| make test; fails \|/);
    expect(ledger).toContain('| 3 | cut | 0 |');
    expect(repo.status()).toBe('');
  });
});
