// Benchmark: git processes the loop itself spawns per iteration (a count, not a time), on the demo
// repository with its scripted child: the first run seeds, dispatches, repairs a miss and an
// interrupted return and stops for a human. The child's own git processes are not counted (they
// run in the child's process). The per-no-op-iteration count is in loop-iteration.mjs.
// Baseline: one git process per iteration (the least any iteration that reads git can spend).
// Targets (issue 11): <= 6 per no-op iteration, <= 3 per admitted iteration.
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { gitEnv } from './lib/history-repo.mjs';
import { library, report } from './lib/measure.mjs';

export async function benchGitProcesses() {
  const lib = await library();
  Object.assign(process.env, gitEnv);
  const dir = mkdtempSync(join(tmpdir(), 'loopchart-bench-demo-'));
  try {
    const demo = lib.prepareDemoRepository(dir);
    const cli = fileURLToPath(new URL('../dist/cli.js', import.meta.url));
    const runner = lib.createRunner({
      worktree: dir,
      spec: demo.specPath,
      ledger: demo.ledgerPath,
      child: `'${process.execPath}' '${cli}' scripted-child '${demo.scriptPath}'`,
      verification: 'test -f src/escape.txt && test -f src/empty-report.txt',
      transcript: false,
      settings: { allowance: 2, escalateAfter: 2, implModel: 'demo/scripted-model', killGraceMs: 1000 },
    });
    const result = await runner.run();
    const iterations = result.ledger?.iterations ?? 0;
    console.log(
      `demo first run: ${result.status}, ${iterations} iterations, ${result.gitProcesses} git processes`,
    );
    report(
      'git processes per iteration (demo average, all kinds)',
      result.gitProcesses / iterations,
      'one per iteration',
      1,
      'processes',
    );
  } finally {
    rmSync(dir, { recursive: true, force: true });
  }
}

if (import.meta.url === `file://${process.argv[1]}`) await benchGitProcesses();
