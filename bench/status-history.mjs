// Benchmark: resuming over a long branch (the history `loopchart status` and every refresh read).
//
// For each repository (built once with `git fast-import`, see lib/history-repo.mjs):
//   - baseline: `git log --format=%s%n%b base..HEAD` on the same repository, as a process;
//   - resume, no cache: readLoopHistory with the history cache removed first (a first run, a fresh clone);
//   - resume, cached: readLoopHistory with the cache of an earlier read (a resume, the next iteration);
//   - status: readLoopStatus in process (cached), everything `loopchart status` computes.
// The target (issue 11): resume over 10,000 commits <= 1.5x the baseline, both ledger shapes.
// BENCH_SIZES=fixed:1000,append:1000 picks other repositories (default: the table's sizes).
import { rmSync } from 'node:fs';
import { git, gitEnv, historyRepository, LEDGER, SPEC } from './lib/history-repo.mjs';
import { library, loadNote, medianMs, processMs, report } from './lib/measure.mjs';

const DEFAULT_SIZES = 'fixed:10000,append:10000';

export async function benchStatusHistory(sizes = process.env.BENCH_SIZES ?? DEFAULT_SIZES) {
  const lib = await library();
  Object.assign(process.env, gitEnv);
  for (const item of sizes.split(',')) {
    const [shape, count] = item.split(':');
    const commits = Number(count);
    const built = Date.now();
    const { dir, base } = await historyRepository({ commits, shape, serializeLedger: lib.serializeLedger });
    const buildNote =
      Date.now() - built > 1000 ? ` (built in ${((Date.now() - built) / 1000).toFixed(1)} s)` : '';
    console.log(
      `-- ${commits} commits, ${shape === 'fixed' ? 'ledger of fixed size' : 'append-only ledger'}${buildNote} (${loadNote()})`,
    );
    const baseline = await processMs('git', ['log', '--format=%s%n%b', `${base}..HEAD`], {
      cwd: dir,
      env: gitEnv,
    });
    const port = lib.createGitPort(dir);
    const ledgerText = git(dir, 'show', `HEAD:${LEDGER}`);
    const ledger = lib.parseLedger(ledgerText).ledger;
    const root = await lib.historyCacheRoot(port);
    const read = (cacheRoot) =>
      lib.readLoopHistory(lib.createGitPort(dir), { base, ledgerPath: LEDGER, ledger, cacheRoot });
    const cold = await medianMs(async () => {
      rmSync(root, { recursive: true, force: true });
      await read(root);
    }, 3);
    const warm = await medianMs(() => read(root));
    report('resume, no cache', cold, 'git log --format=%s%n%b', baseline);
    report('resume, cached', warm, 'git log --format=%s%n%b', baseline, 'ms', '<= 1.5x');
    const files = {
      root: `${dir}/.git/loopchart`,
      lock: '',
      journal: '',
      transcript: '',
      dispatches: `${dir}/.git/loopchart/dispatches`,
    };
    const status = await medianMs(() =>
      lib.readLoopStatus({
        git: lib.createGitPort(dir),
        files,
        ledgerPath: LEDGER,
        specPath: SPEC,
        escalateAfter: 2,
        implModel: null,
      }),
    );
    report('status (in process, cached)', status, 'git log --format=%s%n%b', baseline);
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchStatusHistory();
