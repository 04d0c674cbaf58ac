/**
 * Issue 10 item 5: control bytes a child writes (ESC sequences, BEL, NUL) never reach the person's
 * terminal. A real child returns a ledger whose evidence carries an OSC sequence: the loop names it
 * as a validation miss and repairs it; and `loopchart status` over a ledger holding such bytes
 * prints them as visible escapes, never raw.
 */
import { afterEach, beforeAll, describe, expect, it } from 'vitest';
import { runCli } from '../../src/cli/commands.js';
import { killProcessesIn } from '../support/demo-run.js';
import { cli, createLoopRepo, type LoopRepo, specWith, useGitTestEnvironment } from '../support/loop-repo.js';
import { stringSinks } from '../support/string-sinks.js';

const repos: LoopRepo[] = [];
beforeAll(() => useGitTestEnvironment());
afterEach(() => {
  for (const repo of repos.splice(0)) {
    killProcessesIn(repo.dir);
    repo.remove();
  }
});

const OSC = '\u001b]0;owned\u0007';
/** Every C0 byte but tab and newline, DEL and the C1 range: none may be printed raw. */
function rawControls(text: string): number[] {
  return [...text]
    .map((c) => c.charCodeAt(0))
    .filter((code) => (code < 0x20 && code !== 0x09 && code !== 0x0a) || (code >= 0x7f && code <= 0x9f));
}

describe('control bytes from a child', () => {
  it('a return whose evidence holds an escape sequence is a named miss, repaired by the parent', async () => {
    const repo = createLoopRepo({
      spec: specWith(['The only row']),
      script: {
        version: 1,
        targets: {
          seed: [
            { do: 'seed', evidence: { '1': `only; failing ${OSC}` } },
            { do: 'seed', evidence: { '1': 'only; failing' } },
          ],
          '1': [{ do: 'done', evidence: 'only; passes' }],
        },
      },
    });
    repos.push(repo);
    const out = await cli('run', await repo.runArgs('--allowance', '3'));
    expect(out.code).toBe(0);
    expect(repo.subjects()).toEqual([
      'loop: seed ledger',
      'loop: seed evidence',
      'loop: repair seed',
      'loop: seed evidence',
      'loop: row 1 done',
    ]);
    const repairBody = repo.git('log', '--format=%b', '-1', ':/^loop: repair seed');
    expect(repairBody).toContain("miss: row 1's evidence holds a control byte");
    // The miss names the bytes as visible escapes (the repair body writes `;` as `,`).
    expect(repairBody).toContain('\\x1b]0,owned\\x07');
    expect(rawControls(repairBody)).toEqual([]);
    expect(rawControls(repo.ledger())).toEqual([]);
    expect(rawControls(out.stdout + out.stderr)).toEqual([]);
  });

  it('status prints the control bytes of a ledger cell as visible escapes, and --json as JSON escapes', async () => {
    const repo = createLoopRepo({
      spec: specWith(['The only row']),
      script: {
        version: 1,
        targets: { seed: [{ do: 'seed', evidence: { '1': 'only; failing' } }], '1': [{ do: 'crash' }] },
      },
    });
    repos.push(repo);
    // Seed a ledger, then stop before any row dispatch: the first row dispatch crashes, so let the
    // run reach the row stop and then plant bytes in the ledger on disk as a hostile editor would.
    await cli('run', await repo.runArgs('--allowance', '1'));
    const ledger = repo.ledger().replace('only; failing', `only; failing ${OSC}\u0000`);
    repo.write(repo.ledgerPath, ledger);
    const { io, out } = stringSinks();
    const code = await runCli(['status', '--worktree', repo.dir, '--spec', repo.specPath], io);
    expect(code).toBe(0);
    expect(out.stdout).toContain('\\x1b]0;owned\\x07\\x00');
    expect(rawControls(out.stdout + out.stderr)).toEqual([]);
    const json = stringSinks();
    expect(await runCli(['status', '--worktree', repo.dir, '--spec', repo.specPath, '--json'], json.io)).toBe(
      0,
    );
    expect(rawControls(json.out.stdout)).toEqual([]);
    const parsed = JSON.parse(json.out.stdout) as { rows: { evidence: string }[] };
    expect(parsed.rows[0]?.evidence).toContain(OSC);
  });
});
