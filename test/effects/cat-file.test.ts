import fc from 'fast-check';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { type BatchAnswer, CatFileBatchParser } from '../../src/effects/cat-file.js';
import { createGitPort, type GitPort } from '../../src/effects/git.js';
import { createTempRepo, ISOLATED_GIT_ENV, type TempRepo } from './temp-repo.js';

const SHA = 'a'.repeat(40);

/** `cat-file --batch` output written by hand from git's documented format. */
function batchOutput(answers: ReadonlyArray<string | null>): Buffer {
  return Buffer.concat(
    answers.map((content) =>
      content === null
        ? Buffer.from(`${SHA} missing\n`)
        : Buffer.concat([
            Buffer.from(`${SHA} blob ${Buffer.byteLength(content)}\n`),
            Buffer.from(content),
            Buffer.from('\n'),
          ]),
    ),
  );
}

describe('CatFileBatchParser', () => {
  it('hands out every answer once, whatever the chunk boundaries', () => {
    fc.assert(
      fc.property(
        fc.array(fc.option(fc.string({ unit: 'grapheme', maxLength: 40 })), { maxLength: 8 }),
        fc.array(fc.integer({ min: 1, max: 17 }), { minLength: 1, maxLength: 20 }),
        (answers, cuts) => {
          const output = batchOutput(answers);
          const seen: BatchAnswer[] = [];
          const parser = new CatFileBatchParser((answer) => seen.push(answer));
          let offset = 0;
          for (let i = 0; offset < output.length; i++) {
            const size = cuts[i % cuts.length] as number;
            parser.push(output.subarray(offset, offset + size));
            offset += size;
          }
          expect(seen.map((a) => (a === null ? null : a.content.toString('utf8')))).toEqual(answers);
          expect(parser.idle).toBe(true);
        },
      ),
    );
  });
});

describe('GitPort blob reader and logRange', () => {
  let repo: TempRepo;
  let git: GitPort;
  beforeEach(() => {
    repo = createTempRepo();
    git = createGitPort(repo.dir, { env: ISOLATED_GIT_ENV });
  });
  afterEach(() => repo.remove());

  it('answers blobs on demand from one process, a large one as one Buffer, a missing one as null', async () => {
    const big = `${'0123456789abcdef'.repeat(1 << 16)}\n`; // 1 MiB, several pipe chunks
    const first = repo.commit('big', { 'big.txt': big });
    const before = git.processCount;
    const reader = git.openBlobReader();
    expect((await reader.read(first, 'big.txt'))?.toString('utf8')).toBe(big);
    expect(await reader.read(first, 'absent.txt')).toBeNull();
    expect((await reader.read(first, 'README.md'))?.toString('utf8')).toBe('hello\n');
    await reader.close();
    expect(git.processCount - before).toBe(1);
    await expect(reader.read(first, 'README.md')).rejects.toThrow();
    expect(
      await git.readBlobs([
        { rev: first, path: 'big.txt' },
        { rev: first, path: 'nope' },
      ]),
    ).toEqual([big, null]);
  });

  it('logRange lists commits with parents, oldest first, excluding what the excluded revisions reach', async () => {
    const base = repo.git('rev-parse', 'HEAD').trim();
    const a = repo.commit('a', { 'a.txt': 'a' });
    const b = repo.commit('b', { 'b.txt': 'b' });
    const log = await git.logRange('HEAD', [base]);
    expect(log.map((c) => [c.sha, c.parents, c.subject, c.paths])).toEqual([
      [a, [base], 'a', ['a.txt']],
      [b, [a], 'b', ['b.txt']],
    ]);
    expect((await git.logRange(b, [base, a])).map((c) => c.sha)).toEqual([b]);
    expect(await git.logRange(b, [b])).toEqual([]);
  });
});
