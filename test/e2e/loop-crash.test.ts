/**
 * Crash test: the runner is killed (SIGKILL, through the LOOPCHART_CRASH_AFTER test hook) right
 * after a side effect, then resumed from disk and branch history alone, and the resumed run must
 * end with the same ledger and the same commits as an uninterrupted demo run: no repeated
 * iteration, no double-counted attempt or repair.
 *
 * The default test chains the crashes: every runner process is killed right after its first new
 * side effect and the next one resumes, so one demo run is interrupted after each of its side
 * effects in turn. LOOPCHART_CRASH_EXHAUSTIVE=1 adds the slow sweep that starts from a fresh repository for
 * every crash point of both runner sessions.
 *
 * Commit dates are fixed, so equal histories have equal SHAs and the ledgers (which name the base
 * and the tuples' HEADs) compare byte for byte.
 */
import { execFileSync } from 'node:child_process';
import { existsSync, mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { DEMO_ANSWER, prepareDemoRepository } from '../../src/host/demo.js';
import { demoRunArgs, killProcessesIn, resumeUntilFinished } from '../support/demo-run.js';
import { cli, cliProcess, useGitTestEnvironment } from '../support/loop-repo.js';

const root = mkdtempSync(join(tmpdir(), 'loopchart-crash-'));
const FIXED_DATE = '2026-01-01T00:00:00Z';

beforeAll(() => {
  useGitTestEnvironment();
  Object.assign(process.env, { GIT_AUTHOR_DATE: FIXED_DATE, GIT_COMMITTER_DATE: FIXED_DATE });
});
afterAll(() => {
  killProcessesIn(root);
  rmSync(root, { recursive: true, force: true });
});

interface Final {
  readonly ledger: string;
  readonly log: string;
}

function finalState(dir: string): Final {
  return {
    ledger: readFileSync(join(dir, 'docs/plans/csv-export.md'), 'utf8'),
    log: execFileSync('git', ['log', '--format=%H %s'], { cwd: dir, encoding: 'utf8' }),
  };
}

/** Everything a runner leaves on disk: HEAD, the tree's changes, the ledger, the host's own files. */
function durableState(dir: string): string {
  const git = (...a: string[]) => execFileSync('git', a, { cwd: dir, encoding: 'utf8' });
  const state = join(dir, '.git', 'loopchart');
  const dispatches = join(state, 'dispatches');
  const found = existsSync(dispatches)
    ? readdirSync(dispatches, { withFileTypes: true, recursive: true })
    : [];
  const records = found
    .filter((entry) => entry.isFile() && entry.name === 'record.json')
    .map((entry) => readFileSync(join(entry.parentPath, entry.name), 'utf8'));
  let ledger = '';
  try {
    ledger = readFileSync(join(dir, 'docs/plans/csv-export.md'), 'utf8');
  } catch {
    // not seeded yet
  }
  return [git('rev-parse', 'HEAD'), git('status', '--porcelain'), ledger, ...records].join('\n--\n');
}

let counter = 0;
function freshDemo() {
  counter += 1;
  return prepareDemoRepository(join(root, `demo-${counter}`));
}

let expected: Final;

async function uninterrupted(): Promise<Final> {
  const reference = freshDemo();
  const args = await demoRunArgs(reference);
  expect((await cli('run', args)).code).toBe(3);
  expect((await cli('run', [...args, '--answer', DEMO_ANSWER])).code).toBe(0);
  return finalState(reference.dir);
}

describe('a runner killed after a side effect resumes to the same end', () => {
  beforeAll(async () => {
    expected = await uninterrupted();
    expect(expected.log).toContain('loop: retry row 4');
  }, 120_000);

  it('ends like the uninterrupted demo when the run is killed right after each of its side effects in turn', async () => {
    const demo = freshDemo();
    const args = await demoRunArgs(demo);
    let kills = 0;
    let answer = false;
    // Each runner is killed after its `depth`-th side effect. A resumed runner first redoes the
    // idempotent steps of the dispatch it recovers (provenance, cleanup, reset), so when a kill
    // left the durable state unchanged the next runner goes one side effect further.
    let depth = 1;
    let before = durableState(demo.dir);
    try {
      for (let run = 0; run < 300; run += 1) {
        const outcome = await cliProcess(['run', ...args, ...(answer ? ['--answer', DEMO_ANSWER] : [])], {
          LOOPCHART_CRASH_AFTER: String(depth),
        });
        const after = durableState(demo.dir);
        if (outcome.signal === 'SIGKILL') {
          kills += 1;
          answer = false;
          depth = after === before ? depth + 1 : 1;
          before = after;
          continue;
        }
        if (outcome.code === 3 && !answer) {
          answer = true;
          continue;
        }
        expect(outcome.code).toBe(0);
        break;
      }
      expect(finalState(demo.dir)).toEqual(expected);
      expect(kills).toBeGreaterThan(30);
    } finally {
      killProcessesIn(demo.dir);
    }
  }, 300_000);

  it.runIf(process.env.LOOPCHART_CRASH_EXHAUSTIVE === '1')(
    'ends like the uninterrupted demo after a crash at every side effect, each from a fresh repository',
    async () => {
      const failures: string[] = [];
      for (const session of [{ answer: false }, { answer: true }]) {
        let total = Number.POSITIVE_INFINITY;
        for (let n = 1; n <= total && n < 80; n += 1) {
          const demo = freshDemo();
          const args = await demoRunArgs(demo);
          try {
            if (session.answer) expect((await cli('run', args)).code).toBe(3);
            const crashed = await cliProcess(
              ['run', ...args, ...(session.answer ? ['--answer', DEMO_ANSWER] : [])],
              {
                LOOPCHART_CRASH_AFTER: String(n),
              },
            );
            if (crashed.signal !== 'SIGKILL') {
              total = n - 1;
              continue;
            }
            await resumeUntilFinished(args);
            const got = finalState(demo.dir);
            if (got.ledger !== expected.ledger || got.log !== expected.log)
              failures.push(`${session.answer ? 'answer' : 'first'} session, crash after side effect ${n}`);
          } catch (error) {
            failures.push(
              `${session.answer ? 'answer' : 'first'} session, crash after side effect ${n}: ${String(error)}`,
            );
          } finally {
            killProcessesIn(demo.dir);
          }
        }
      }
      expect(failures).toEqual([]);
    },
    1_800_000,
  );
});
