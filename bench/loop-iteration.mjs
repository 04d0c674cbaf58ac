// Benchmark: the cost of one no-op loop iteration on a real repository.
//
// A "no-op iteration" is one dispatch whose child does nothing (`true`: no commit, no return), so
// the loop runs its whole iteration around it: reserve, dispatch, boundary, provenance, job
// cleanup, reset, the repair commit and the refresh. Two runs with different allowances let the
// per-iteration cost be read as a difference, free of the run's fixed costs (seeding, locking).
//
// Reported, as ratios against a baseline measured in the same run (one bare `git status`):
//   - git processes spawned per iteration
//   - iteration wall time in units of one `git status`
//   - the share of the iteration spent in git (estimated: processes x one git status) and the
//     share left for the engine itself (JavaScript, files, process supervision)
// No assertions: this prints numbers. Run `npm run build` first (it imports ../dist/index.js).
import { execFileSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';

const library = await import('../dist/index.js').catch((error) => {
  console.error(`cannot import ../dist/index.js (${error.message}); run \`npm run build\` first`);
  process.exit(1);
});
if (typeof library.createRunner !== 'function') {
  console.error('dist/index.js does not export createRunner: export it from src/index.ts and rebuild');
  process.exit(1);
}

const env = {
  ...process.env,
  GIT_CONFIG_NOSYSTEM: '1',
  GIT_CONFIG_GLOBAL: '/dev/null',
  GIT_AUTHOR_NAME: 'bench',
  GIT_AUTHOR_EMAIL: 'bench@loopchart.invalid',
  GIT_COMMITTER_NAME: 'bench',
  GIT_COMMITTER_EMAIL: 'bench@loopchart.invalid',
};
Object.assign(process.env, env);

const SPEC = `# Bench\n\n## Acceptance criteria\n\nTicket B-1, checkbox list, rows verbatim:\n\n- [ ] one\n- [ ] two\n`;

function repository() {
  const dir = mkdtempSync(join(tmpdir(), 'loopchart-bench-'));
  const git = (...args) => execFileSync('git', args, { cwd: dir, env, stdio: ['ignore', 'pipe', 'pipe'] });
  git('init', '-q', '-b', 'main');
  git('config', 'commit.gpgsign', 'false');
  mkdirSync(join(dir, 'docs/specs'), { recursive: true });
  writeFileSync(join(dir, 'docs/specs/bench.md'), SPEC);
  // A few hundred files, so git has a real tree to look at.
  mkdirSync(join(dir, 'src'), { recursive: true });
  for (let i = 0; i < 300; i += 1) writeFileSync(join(dir, 'src', `file-${i}.txt`), `content ${i}\n`);
  git('add', '-A');
  git('commit', '-q', '-m', 'bench repository');
  return dir;
}

async function measure(allowance) {
  const dir = repository();
  try {
    const runner = library.createRunner({
      worktree: dir,
      spec: 'docs/specs/bench.md',
      child: 'true',
      verification: 'true',
      transcript: false,
      settings: { allowance, escalateAfter: 2, killGraceMs: 1000 },
    });
    const started = performance.now();
    const result = await runner.run();
    const wall = performance.now() - started;
    if (result.status !== 'stopped')
      throw new Error(`expected the seed stop, got ${result.status}: ${result.message ?? ''}`);
    return { wall, git: result.gitProcesses, iterations: result.ledger.iterations };
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

function gitStatusBaseline(samples) {
  const dir = repository();
  try {
    execFileSync('git', ['status', '--porcelain'], { cwd: dir, env }); // warm the index
    const started = performance.now();
    for (let i = 0; i < samples; i += 1) execFileSync('git', ['status', '--porcelain'], { cwd: dir, env });
    return (performance.now() - started) / samples;
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

const baseline = gitStatusBaseline(20);
const small = await measure(1);
const large = await measure(6);
const iterations = large.iterations - small.iterations;
const perIteration = (large.wall - small.wall) / iterations;
const gitPerIteration = (large.git - small.git) / iterations;
const gitShare = Math.min(1, (gitPerIteration * baseline) / perIteration);

const rows = [
  ['baseline: one `git status`', `${baseline.toFixed(1)} ms`],
  ['no-op iterations measured', String(iterations)],
  ['git processes per iteration', gitPerIteration.toFixed(1)],
  [
    'iteration wall time / git status',
    `${(perIteration / baseline).toFixed(1)}x (${perIteration.toFixed(0)} ms)`,
  ],
  ['share of the iteration in git (estimated)', `${(gitShare * 100).toFixed(0)}%`],
  ["share of the iteration in the engine's own time", `${((1 - gitShare) * 100).toFixed(0)}%`],
];
const width = Math.max(...rows.map(([label]) => label.length));
for (const [label, value] of rows) console.log(`${label.padEnd(width)}  ${value}`);
