// Synthetic loop histories for the benchmarks, built with `git fast-import` in the protocol's own
// commit format: a `loop: seed ledger` commit, then one child commit per iteration
// (`loop: row <n> failed`, body with the tuple line and `iteration: <i>`), each changing the ledger
// and one source file.
//
// Two ledger shapes:
//   - fixed:  the ledger keeps the same size (the row's evidence changes, the last 10 decision lines
//             are kept), so every ledger version is about as large as the first;
//   - append: one decision line is appended per commit (the protocol's own shape), so version k
//             holds k lines and the versions sum to O(n^2) bytes.
// Built repositories are kept in the OS temp folder under loopchart-bench-repos/ and reused by later
// runs (delete that folder to rebuild).
import { execFileSync, spawn } from 'node:child_process';
import { existsSync, mkdirSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export const LEDGER = 'docs/plans/bench-ledger.md';
export const SPEC = 'docs/specs/bench.md';
export const ROWS = 20;

export const gitEnv = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@loopchart.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@loopchart.invalid',
};

export function git(dir, ...args) {
  return execFileSync('git', args, { cwd: dir, env: gitEnv, maxBuffer: 1 << 30 }).toString('utf8');
}

function specText() {
  const rows = Array.from({ length: ROWS }, (_, i) => `- [ ] requirement ${i + 1}`).join('\n');
  return `# Bench\n\n## Acceptance criteria\n\nTicket B-1, checkbox list, rows verbatim:\n\n${rows}\n`;
}

const FAKE_HEAD = 'f'.repeat(40);

/**
 * Builds (or reuses) a repository with `commits` child commits after the seed, in the given shape.
 *
 * @param {{ commits: number, shape: 'fixed' | 'append', serializeLedger: (ledger: object) => string }} options
 * @returns {Promise<{ dir: string, base: string }>}
 */
export async function historyRepository({ commits, shape, serializeLedger }) {
  const root = join(tmpdir(), 'loopchart-bench-repos');
  const dir = join(root, `${shape}-${commits}`);
  if (existsSync(join(dir, '.bench-ready')))
    return { dir, base: git(dir, 'rev-list', '--max-parents=0', 'HEAD').trim() };
  rmSync(dir, { recursive: true, force: true });
  mkdirSync(dir, { recursive: true });
  git(dir, 'init', '-q', '-b', 'main');
  git(dir, 'config', 'commit.gpgsign', 'false');
  git(dir, 'config', 'gc.auto', '0');
  mkdirSync(join(dir, 'docs/specs'), { recursive: true });
  writeFileSync(join(dir, SPEC), specText());
  writeFileSync(join(dir, '.gitignore'), '.bench-ready\n');
  git(dir, 'add', '-A');
  git(dir, 'commit', '-q', '-m', 'bench repository');
  const base = git(dir, 'rev-parse', 'HEAD').trim();

  const ledger = {
    discriminant: '# Loop ledger',
    spec: SPEC,
    base,
    verification: 'true',
    checks: 'commands',
    iterations: 0,
    allowance: 1_000_000,
    pending: null,
    rows: Array.from({ length: ROWS }, (_, i) => ({ row: i + 1, status: 'open', attempts: 0, evidence: '' })),
    decisions: [],
  };

  // glibc's malloc returns the heap to the kernel after every large blob and takes it back for the
  // next one; fast-import then spends most of its time in brk and page faults (measured on 3,000
  // append-only commits: 33 s wall, 7.6 s system time; with the heap kept: 3.4 s, 0.07 s). The
  // tunables keep the heap; other C libraries ignore the variable.
  const importer = spawn('git', ['fast-import', '--quiet', '--done'], {
    cwd: dir,
    env: {
      ...gitEnv,
      GLIBC_TUNABLES:
        'glibc.malloc.trim_threshold=4000000000:glibc.malloc.mmap_threshold=4000000000:glibc.malloc.top_pad=268435456',
    },
    stdio: ['pipe', 'inherit', 'inherit'],
  });
  const finished = new Promise((resolve, reject) => {
    importer.on('error', reject);
    importer.on('exit', (code) =>
      code === 0 ? resolve() : reject(new Error(`git fast-import exited ${code}`)),
    );
  });
  const write = (chunk) =>
    importer.stdin.write(chunk) ? Promise.resolve() : new Promise((r) => importer.stdin.once('drain', r));
  const data = (text) => `data ${Buffer.byteLength(text)}\n${text}\n`;
  let time = 1_700_000_000;
  const commit = async (subject, body, files) => {
    time += 1;
    const message = body === '' ? subject : `${subject}\n\n${body}`;
    let text = `commit refs/heads/main\ncommitter bench <bench@loopchart.invalid> ${time} +0000\n${data(message)}`;
    text += commit.first ? `from ${base}\n` : '';
    commit.first = false;
    for (const [path, content] of Object.entries(files)) {
      if (typeof content === 'string') text += `M 100644 inline ${path}\n${data(content)}`;
      else {
        // A ledger given as Buffers (head, decision lines): written as they are, never as one string.
        const size = content.reduce((sum, part) => sum + part.length, 0);
        await write(`${text}M 100644 inline ${path}\ndata ${size}\n`);
        for (const part of content) await write(part);
        text = '\n';
      }
    }
    await write(text);
  };
  commit.first = true;
  await commit('loop: seed ledger', '', { [LEDGER]: serializeLedger(ledger) });
  // The append shape's versions sum to O(n^2) bytes: the decision lines are kept as one growing
  // Buffer (written from it, never copied into a string) and the ledger is the rest serialized
  // without them plus those bytes (the canonical layout puts the decisions last), checked against
  // serializeLedger on the first commits.
  let decisionBytes = Buffer.alloc(1 << 16);
  let decisionLength = 0;
  const appendDecision = (line) => {
    const bytes = Buffer.from(`${line}\n`);
    if (decisionLength + bytes.length > decisionBytes.length) {
      const grown = Buffer.alloc(Math.max(decisionBytes.length * 2, decisionLength + bytes.length));
      decisionBytes.copy(grown, 0, 0, decisionLength);
      decisionBytes = grown;
    }
    bytes.copy(decisionBytes, decisionLength);
    decisionLength += bytes.length;
  };
  const ledgerText = () => {
    if (shape === 'fixed') return serializeLedger(ledger);
    // Bytes below decisionLength are never written again, so the slice stays valid while queued.
    const parts = [
      Buffer.from(`${serializeLedger({ ...ledger, decisions: [] })}\n`),
      decisionBytes.subarray(0, decisionLength),
    ];
    if (ledger.decisions.length <= 3 && Buffer.concat(parts).toString('utf8') !== serializeLedger(ledger))
      throw new Error('the append-only ledger text differs from serializeLedger');
    return parts;
  };
  const started = Date.now();
  for (let i = 1; i <= commits; i++) {
    if (i % 5000 === 0)
      process.stderr.write(
        `  built ${i} of ${commits} commits (${((Date.now() - started) / 1000).toFixed(0)} s)\n`,
      );
    const row = ((i - 1) % ROWS) + 1;
    const cells = ledger.rows[row - 1];
    cells.status = 'failed';
    cells.attempts += 1;
    cells.evidence = `npm test; attempt ${cells.attempts} failed at iteration ${i}`;
    ledger.iterations = i;
    const decision = `row ${row} failed | attempt ${cells.attempts} | iteration ${i + 1}`;
    if (shape === 'fixed') {
      ledger.decisions.push(decision);
      if (ledger.decisions.length > 10) ledger.decisions.shift();
    } else {
      appendDecision(decision);
      // Only the first few are kept as an array, to check the text against serializeLedger.
      if (ledger.decisions.length < 4) ledger.decisions.push(decision);
    }
    const body = `pending: ${row} | home | ${FAKE_HEAD}\niteration: ${i}`;
    await commit(`loop: row ${row} failed`, body, {
      [LEDGER]: ledgerText(),
      [`src/row-${row}.txt`]: `attempt ${cells.attempts}\n`,
    });
  }
  await write('done\n');
  importer.stdin.end();
  await finished;
  git(dir, 'reset', '-q', '--hard', 'main');
  writeFileSync(join(dir, '.bench-ready'), '');
  return { dir, base };
}
