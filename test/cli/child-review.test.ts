/**
 * `loopchart child review`: a reviewer's tool writes the return of docs/review-contract.md to
 * LOOPCHART_REVIEW_RETURN for the role in LOOPCHART_ROLE, and refuses, with a named error and
 * nothing written, every return the contract refuses.
 */
import { existsSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { childCommand } from '../../src/cli/child.js';
import { reportCommandFailure } from '../../src/cli/command-failure.js';
import { parseReviewReturn } from '../../src/gauntlet/review.js';
import { stringSinks } from '../support/string-sinks.js';

const dirs: string[] = [];
afterEach(() => {
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
  delete process.env.LOOPCHART_ROLE;
  delete process.env.LOOPCHART_REVIEW_RETURN;
});

/** Sets up a reviewer's environment for `role`; returns the return file's path. */
function reviewer(role: string): string {
  const dir = mkdtempSync(join(tmpdir(), 'loopchart-review-'));
  dirs.push(dir);
  const file = join(dir, 'return.json');
  process.env.LOOPCHART_ROLE = role;
  process.env.LOOPCHART_REVIEW_RETURN = file;
  return file;
}

/** Runs `loopchart child review …` in this process; the error code on failure. */
async function review(...args: string[]): Promise<{ code: number; error: string | null; stdout: string }> {
  const { io, out } = stringSinks();
  let code: number;
  try {
    code = await childCommand.run(['review', ...args], io);
  } catch (error) {
    code = reportCommandFailure(io, 'child', true, error);
  }
  const error = code === 0 ? null : (JSON.parse(out.stdout) as { error: { code: string } }).error.code;
  return { code, error, stdout: out.stdout };
}

describe('child review', () => {
  it('writes a whole-diff SHIP with its minors, and a REVISE with its fix tasks', async () => {
    const file = reviewer('whole-diff');
    expect((await review('--verdict', 'SHIP', '--minor', 'rename x', '--minor', 'typo in README')).code).toBe(
      0,
    );
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      role: 'whole-diff',
      verdict: 'SHIP',
      minors: ['rename x', 'typo in README'],
    });
    // The loop's own reader admits it.
    expect(parseReviewReturn('whole-diff', readFileSync(file, 'utf8')).ok).toBe(true);
    expect((await review('--verdict', 'REVISE', '--fix-task', 'split the writer')).code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      role: 'whole-diff',
      verdict: 'REVISE',
      fixTasks: ['split the writer'],
    });
  });

  it('writes a conformance GAPS with gap ids and a CONFORMS with its happy path', async () => {
    const file = reviewer('conformance');
    const gaps = await review(
      '--verdict',
      'GAPS',
      '--gap',
      'G1: row 2 has no test',
      '--fix-task',
      'test row 2',
    );
    expect(gaps.code).toBe(0);
    expect(JSON.parse(readFileSync(file, 'utf8'))).toEqual({
      role: 'conformance',
      verdict: 'GAPS',
      openGaps: [{ id: 'G1', text: 'row 2 has no test' }],
      fixTasks: ['test row 2'],
    });
    expect((await review('--verdict', 'CONFORMS', '--happy-path', 'npm start; export ran')).code).toBe(0);
    const conforms = parseReviewReturn('conformance', readFileSync(file, 'utf8'));
    expect(conforms).toEqual({
      ok: true,
      review: {
        role: 'conformance',
        verdict: 'CONFORMS',
        openGaps: [],
        fixTasks: [],
        happyPath: 'npm start; export ran',
      },
    });
  });

  it("records a gap's verdict and recommendation (review contract: UNAUTHORIZED, accept, rescope)", async () => {
    const file = reviewer('conformance');
    const result = await review(
      '--verdict',
      'GAPS',
      '--gap',
      'G1: a flag nobody asked for',
      '--gap',
      'G2: row 3 renamed the option',
      '--gap',
      'G3: row 4 has no test',
      '--gap-verdict',
      'G1=UNAUTHORIZED',
      '--gap-recommended',
      'G1=accept',
      '--gap-verdict',
      'G2=DRIFTED',
      '--gap-recommended',
      'G2=rescope',
    );
    expect(result.code).toBe(0);
    // G3 carries neither field: the contract's default (`fix`) applies when the loop reads it.
    expect(JSON.parse(readFileSync(file, 'utf8')).openGaps).toEqual([
      { id: 'G1', text: 'a flag nobody asked for', verdict: 'UNAUTHORIZED', recommended: 'accept' },
      { id: 'G2', text: 'row 3 renamed the option', verdict: 'DRIFTED', recommended: 'rescope' },
      { id: 'G3', text: 'row 4 has no test' },
    ]);
    const parsed = parseReviewReturn('conformance', readFileSync(file, 'utf8'));
    expect(parsed.ok).toBe(true);
  });

  it.each([
    [['--gap-verdict', 'G1'], 'no = in the value'],
    [['--gap-verdict', 'G2=MISSING'], 'an id no --gap gives'],
    [['--gap-recommended', 'G1=fix', '--gap-recommended', 'G1=accept'], 'an id given twice'],
  ])('refuses --gap-verdict/--gap-recommended %j (%s) as a usage error, writing nothing', async (extra) => {
    const file = reviewer('conformance');
    const result = await review('--verdict', 'GAPS', '--gap', 'G1: x', ...extra, '--json');
    expect(result.code).toBe(2);
    expect(result.error).toBe('cli.usage');
    expect(existsSync(file)).toBe(false);
  });

  it.each([
    ['whole-diff', ['--verdict', 'REVISE'], 'REVISE names no fix task'],
    ['whole-diff', ['--verdict', 'CONFORMS'], 'a conformance verdict for the whole-diff role'],
    ['whole-diff', ['--verdict', 'SHIP', '--gap', 'G1: x'], 'a gap in a whole-diff return'],
    ['whole-diff', ['--verdict', 'SHIP', '--minor', 'two\nlines'], 'a minor of two lines'],
    ['conformance', ['--verdict', 'GAPS'], 'GAPS without a gap'],
    ['conformance', ['--verdict', 'CONFORMS', '--gap', 'G1: x'], 'CONFORMS with an open gap'],
    ['conformance', ['--verdict', 'GAPS', '--gap', 'G1: x', '--gap', 'G1: y'], 'a gap id twice'],
    ['conformance', ['--verdict', 'GAPS', '--gap', 'gap-1: x'], 'a gap id not G<n>'],
    ['conformance', ['--verdict', 'SHIP'], 'a whole-diff verdict for the conformance role'],
    ['conformance', ['--verdict', 'CONFORMS', '--minor', 'x'], 'a minor in a conformance return'],
    [
      'conformance',
      ['--verdict', 'GAPS', '--gap', 'G1: x', '--gap-verdict', 'G1=WRONG'],
      'an unknown gap verdict',
    ],
    [
      'conformance',
      ['--verdict', 'GAPS', '--gap', 'G1: x', '--gap-recommended', 'G1=later'],
      'an unknown recommendation',
    ],
    [
      'conformance',
      [
        '--verdict',
        'GAPS',
        '--gap',
        'G1: x',
        '--gap-verdict',
        'G1=UNAUTHORIZED',
        '--gap-recommended',
        'G1=rescope',
      ],
      'an UNAUTHORIZED gap recommended rescope (it has no origin requirement)',
    ],
  ])('refuses (%s) %j: %s, writing nothing', async (role, args) => {
    const file = reviewer(role);
    const result = await review(...args, '--json');
    expect(result.code).toBe(2);
    expect(result.error).toBe('child.review');
    expect(existsSync(file)).toBe(false);
  });

  it('refuses a gap without an id, and a call outside a review dispatch', async () => {
    const file = reviewer('conformance');
    expect((await review('--verdict', 'GAPS', '--gap', 'row 2 has no test', '--json')).code).toBe(2);
    expect(existsSync(file)).toBe(false);
    process.env.LOOPCHART_ROLE = 'fix';
    const outside = await review('--verdict', 'SHIP', '--json');
    expect(outside.error).toBe('child.environment');
    delete process.env.LOOPCHART_REVIEW_RETURN;
    process.env.LOOPCHART_ROLE = 'whole-diff';
    expect((await review('--verdict', 'SHIP', '--json')).error).toBe('child.environment');
  });
});
