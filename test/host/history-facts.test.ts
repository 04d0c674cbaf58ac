import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { createGitPort, type GitPort } from '../../src/effects/git.js';
import { parseLedger, serializeLedger } from '../../src/gauntlet/ledger.js';
import type { Ledger } from '../../src/gauntlet/types.js';
import { historyCacheFile } from '../../src/host/history-cache.js';
import { historyCacheRoot, readLoopHistory } from '../../src/host/history-facts.js';
import { createTempRepo, ISOLATED_GIT_ENV, type TempRepo } from '../effects/temp-repo.js';
import { ledgerOf, withRow } from '../gauntlet/rules-fixtures.js';

const LEDGER = 'plans/ledger.md';

let repo: TempRepo;
let git: GitPort;
let base: string;
let ledger: Ledger;

/** Commits the ledger as it is now (and any other files) with a subject and body. */
function commitLedger(subject: string, body = '', files: Record<string, string> = {}): string {
  repo.write(LEDGER, serializeLedger(ledger));
  for (const [path, content] of Object.entries(files)) repo.write(path, content);
  repo.git('add', '-A');
  repo.git('commit', '-q', '-m', subject, ...(body === '' ? [] : ['-m', body]));
  return repo.git('rev-parse', 'HEAD').trim();
}

/** A child return for `row`: status, one decision line, ledger-only unless `source` is given. */
function child(row: number, status: 'done' | 'failed', source?: string): string {
  ledger = withRow(ledger, row, { status, evidence: `npm test; ${status}` });
  ledger = { ...ledger, decisions: [...ledger.decisions, `row ${row} ${status} | attempt | next`] };
  return commitLedger(`loop: row ${row} ${status}`, '', source === undefined ? {} : { 'src/a.ts': source });
}

/** The ledger as commit `rev` left it. */
function historicLedgerAt(rev: string): Ledger {
  const { ledger: parsed } = parseLedger(repo.git('show', `${rev}:${LEDGER}`));
  if (parsed === null) throw new Error(`the ledger at ${rev} does not parse`);
  return parsed;
}

function read(cacheRoot: string | null) {
  return readLoopHistory(git, { base, ledgerPath: LEDGER, ledger, cacheRoot });
}

beforeEach(() => {
  repo = createTempRepo('loopchart-history-');
  git = createGitPort(repo.dir, { env: ISOLATED_GIT_ENV });
  base = repo.git('rev-parse', 'HEAD').trim();
  ledger = {
    ...ledgerOf({
      rows: [
        ['open', 0],
        ['open', 0],
      ],
    }),
    base,
  };
  commitLedger('loop: seed ledger');
  child(1, 'failed', 'one');
  child(1, 'failed'); // changes only the ledger and no status: an empty return
});
afterEach(() => repo.remove());

describe('readLoopHistory', () => {
  it('reads the protocol counters from a real branch and caches them under the git directory', async () => {
    const root = await historyCacheRoot(git);
    const gitDir = repo.git('rev-parse', '--absolute-git-dir').trim();
    expect(root.startsWith(`${gitDir}/`)).toBe(true);

    const first = await read(root);
    expect(first.cacheHit).toBe(false);
    expect(first.commitsRead).toBe(3);
    expect(first.history.rows[0]?.emptyChildStreak).toBe(1);
    expect(first.history.previousDecision).toBe('row 1 failed | attempt | next');
    expect(first.history.latestAdmission?.row).toBe(1);
    expect(existsSync(historyCacheFile(root, base, LEDGER))).toBe(true);
    // The cache never shows up as a change of the worktree.
    expect(repo.git('status', '--porcelain')).toBe('');
  });

  it('a resume reads only the commits since the cached head and answers what a full read answers', async () => {
    const root = await historyCacheRoot(git);
    await read(root);
    child(1, 'failed');
    child(2, 'done', 'two');

    const before = git.processCount;
    const resumed = await read(root);
    expect(resumed.cacheHit).toBe(true);
    expect(resumed.commitsRead).toBe(2);
    // HEAD, the log since the cached head and one blob reader: the cache spares re-reading the rest.
    expect(git.processCount - before).toBeLessThanOrEqual(3);
    expect(resumed.history).toEqual((await read(null)).history);
    // Row 1's two empty returns still end its window; row 2's commit never pairs with them (§3.8).
    expect(resumed.history.rows[0]?.emptyChildStreak).toBe(2);
    expect(resumed.history.rows[1]?.emptyChildStreak).toBe(0);
    expect(resumed.history.previousDecision).toBe('row 2 done | attempt | next');

    const again = await read(root);
    expect(again.cacheHit).toBe(true);
    expect(again.commitsRead).toBe(0);
  });

  it('ignores a cache whose head was rewritten away and rebuilds it from git', async () => {
    const root = await historyCacheRoot(git);
    child(2, 'failed', 'x');
    await read(root);
    // Rewrite the last commit: the cached head is no longer on the branch.
    repo.git('reset', '-q', '--hard', 'HEAD~1');
    ledger = withRow(ledger, 2, { status: 'open', evidence: '' });
    ledger = { ...ledger, decisions: ledger.decisions.slice(0, -1) };
    child(2, 'done', 'y');

    const rebuilt = await read(root);
    expect(rebuilt.cacheHit).toBe(false);
    expect(rebuilt.commitsRead).toBe(4);
    expect(rebuilt.history).toEqual((await read(null)).history);
    expect(rebuilt.history.previousDecision).toBe('row 2 done | attempt | next');
    // The rebuilt cache serves the next read.
    expect((await read(root)).cacheHit).toBe(true);
  });

  it('ignores a cache written for another ledger path or another base', async () => {
    const root = await historyCacheRoot(git);
    await read(root);
    const file = historyCacheFile(root, base, LEDGER);
    const cached = JSON.parse(readFileSync(file, 'utf8'));

    // A file claiming another ledger path (or base) under this key is not used.
    writeFileSync(file, JSON.stringify({ ...cached, ledgerPath: 'other/ledger.md' }));
    expect((await read(root)).cacheHit).toBe(false);
    writeFileSync(file, JSON.stringify({ ...cached, base: repo.commit('unrelated') }));
    repo.git('reset', '-q', '--hard', 'HEAD~1');
    expect((await read(root)).cacheHit).toBe(false);

    // Another base has a cache of its own: the first read for it is a full read.
    const seeded = repo.git('rev-list', '--max-parents=0', 'HEAD').trim();
    expect(seeded).toBe(base);
    const fromSeed = repo.git('rev-parse', 'HEAD~2').trim();
    const other = await readLoopHistory(git, { base: fromSeed, ledgerPath: LEDGER, ledger, cacheRoot: root });
    expect(other.cacheHit).toBe(false);
    expect(other.commitsRead).toBe(2);
  });

  it('ignores a cache file that does not parse or has another format version', async () => {
    const root = await historyCacheRoot(git);
    await read(root);
    const file = historyCacheFile(root, base, LEDGER);
    const cached = JSON.parse(readFileSync(file, 'utf8'));
    writeFileSync(file, '{"version": 1, "base"');
    expect((await read(root)).cacheHit).toBe(false);
    writeFileSync(file, JSON.stringify({ ...cached, version: 0 }));
    expect((await read(root)).cacheHit).toBe(false);
    writeFileSync(file, JSON.stringify({ ...cached, commits: [['not a sha', '', '', []]] }));
    expect((await read(root)).cacheHit).toBe(false);
  });

  it('reads a merge but never caches a history that is not one line of commits', async () => {
    const root = await historyCacheRoot(git);
    repo.git('checkout', '-q', '-b', 'side', 'HEAD~1');
    repo.commit('side work', { 'side.txt': 'x' });
    repo.git('checkout', '-q', 'main');
    repo.git('merge', '-q', '--no-edit', 'side');
    const merged = await read(root);
    expect(merged.cacheHit).toBe(false);
    expect(existsSync(historyCacheFile(root, base, LEDGER))).toBe(false);
    expect(merged.history).toEqual((await read(null)).history);
  });

  it('reads only the ledger versions the replay needs, newest first', async () => {
    for (let i = 0; i < 12; i++) child(1, i % 2 === 0 ? 'done' : 'failed', `v${i}`);
    const ledgers = new Map<string, Ledger | null>();
    const { history } = await readLoopHistory(git, {
      base,
      ledgerPath: LEDGER,
      ledger,
      cacheRoot: null,
      ledgers,
    });
    expect(history.previousDecision).toBe('row 1 failed | attempt | next');
    expect(history.rows[0]?.emptyChildStreak).toBe(0);
    // 15 ledger versions on the branch; the latest admission and its predecessor decide everything.
    expect(ledgers.size).toBeLessThanOrEqual(3);
  });

  describe('the ledger facts kept in the cache', () => {
    /** Six child returns on an append-only ledger: each adds its decision line to all before it. */
    function appendOnlyBranch(): void {
      for (let i = 0; i < 6; i++) child(2, i % 2 === 0 ? 'failed' : 'done', `w${i}`);
    }

    it('a resume at the cached head reads no ledger version and answers what a read without cache answers', async () => {
      appendOnlyBranch();
      const root = await historyCacheRoot(git);
      await read(root);
      const head = repo.git('rev-parse', 'HEAD').trim();
      // The latest admission's decision line (§1.5) is kept with its commit.
      const file = historyCacheFile(root, base, LEDGER);
      const facts = new Map<string, { target?: string | null }>(JSON.parse(readFileSync(file, 'utf8')).facts);
      expect(facts.get(head)?.target).toBe('row 2 done | attempt | next');

      const ledgers = new Map<string, Ledger | null>();
      const cached = await readLoopHistory(git, {
        base,
        ledgerPath: LEDGER,
        ledger,
        cacheRoot: root,
        ledgers,
      });
      expect(cached.cacheHit).toBe(true);
      expect(ledgers.size).toBe(0);
      const uncached = await readLoopHistory(git, { base, ledgerPath: LEDGER, ledger, cacheRoot: null });
      expect(cached.history).toEqual(uncached.history);
      expect(cached.history.previousDecision).toBe('row 2 done | attempt | next');
      expect(cached.history.latestAdmission).toMatchObject({
        row: 2,
        sha: head,
        status: 'done',
        evidence: 'npm test; done',
        decision: 'row 2 done | attempt | next',
      });

      // One more return: the new commit's ledger and the one before it are read, nothing older.
      child(1, 'done', 'z');
      const more = new Map<string, Ledger | null>();
      const next = await readLoopHistory(git, {
        base,
        ledgerPath: LEDGER,
        ledger,
        cacheRoot: root,
        ledgers: more,
      });
      expect(next.cacheHit).toBe(true);
      expect([...more.keys()].sort()).toEqual([head, repo.git('rev-parse', 'HEAD').trim()].sort());
      expect(next.history).toEqual((await read(null)).history);
      expect(next.history.previousDecision).toBe('row 1 done | attempt | next');
    });

    it('ignores the facts of a cache written on another branch or before a rewrite', async () => {
      appendOnlyBranch();
      const root = await historyCacheRoot(git);
      await read(root);
      const onMain = (await read(null)).history;

      // Another branch from two commits back, whose latest return differs.
      repo.git('checkout', '-q', '-b', 'other', 'HEAD~2');
      ledger = historicLedgerAt('HEAD');
      child(1, 'done', 'other');
      const ledgers = new Map<string, Ledger | null>();
      const other = await readLoopHistory(git, {
        base,
        ledgerPath: LEDGER,
        ledger,
        cacheRoot: root,
        ledgers,
      });
      expect(other.cacheHit).toBe(false);
      expect(ledgers.size).toBeGreaterThan(0);
      expect(other.history).toEqual((await read(null)).history);
      expect(other.history.previousDecision).toBe('row 1 done | attempt | next');

      // Back on main, the cache now holds the other branch: ignored again, main's answer unchanged.
      repo.git('checkout', '-q', 'main');
      ledger = historicLedgerAt('HEAD');
      const back = await read(root);
      expect(back.cacheHit).toBe(false);
      expect(back.history).toEqual(onMain);

      // The same commit rewritten (amended): its facts are never taken for the new commit.
      const amendedFrom = repo.git('rev-parse', 'HEAD').trim();
      ledger = {
        ...ledger,
        decisions: [...ledger.decisions.slice(0, -1), 'row 2 failed | attempt | amended'],
      };
      repo.write(LEDGER, serializeLedger(ledger));
      repo.git('commit', '-q', '-a', '--amend', '-m', 'loop: row 2 failed');
      expect(repo.git('rev-parse', 'HEAD').trim()).not.toBe(amendedFrom);
      const amended = await read(root);
      expect(amended.cacheHit).toBe(false);
      expect(amended.history.previousDecision).toBe('row 2 failed | attempt | amended');
      expect(amended.history).toEqual((await read(null)).history);
    });

    it('ignores a cache whose facts are malformed or name a commit it does not hold', async () => {
      appendOnlyBranch();
      const root = await historyCacheRoot(git);
      await read(root);
      const file = historyCacheFile(root, base, LEDGER);
      const cached = JSON.parse(readFileSync(file, 'utf8'));
      const [sha] = cached.facts[0];
      for (const facts of [
        [[sha, { target: 7 }]],
        [[sha, { unknown: true }]],
        [[sha, { repair: { kind: 'miss' } }]],
        [['0'.repeat(40), { target: 'row 1 done | attempt | next' }]],
        [
          [sha, {}],
          [sha, {}],
        ],
        null,
      ]) {
        writeFileSync(file, JSON.stringify({ ...cached, facts }));
        const ledgers = new Map<string, Ledger | null>();
        const again = await readLoopHistory(git, {
          base,
          ledgerPath: LEDGER,
          ledger,
          cacheRoot: root,
          ledgers,
        });
        expect(again.cacheHit).toBe(false);
        expect(ledgers.size).toBeGreaterThan(0);
      }
    });
  });
});
