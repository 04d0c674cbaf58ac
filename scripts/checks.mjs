#!/usr/bin/env node
// The checks `npm test` runs before vitest: the build and the type check side by side, then the
// lint. The build (tsup, with its declaration pass) and `tsc --noEmit` each keep about one and a
// half of CI's two cores busy, so running them together saves about 15 s of a CI run
// (docs/decisions.md, Project). Each one's output is printed whole when both have ended, in a
// fixed order, and the script fails when either fails; the lint runs only after both passed.
import { spawn } from 'node:child_process';

/** Runs `npm run <script>`, collecting its output. */
function run(script) {
  return new Promise((resolve) => {
    const child = spawn('npm', ['run', script], { stdio: ['ignore', 'pipe', 'pipe'] });
    const chunks = [];
    child.stdout.on('data', (chunk) => chunks.push(chunk));
    child.stderr.on('data', (chunk) => chunks.push(chunk));
    child.on('error', (error) => resolve({ script, code: 1, output: `${error.message}\n` }));
    child.on('close', (code, signal) =>
      resolve({ script, code: code ?? 1, signal, output: Buffer.concat(chunks).toString('utf8') }),
    );
  });
}

const results = await Promise.all([run('build'), run('typecheck')]);
let failed = false;
for (const { script, code, signal, output } of results) {
  process.stdout.write(output);
  if (code !== 0) {
    failed = true;
    console.error(`checks: npm run ${script} failed (${signal ?? `exit ${code}`})`);
  }
}
if (failed) process.exit(1);
const lint = await run('lint');
process.stdout.write(lint.output);
if (lint.code !== 0) {
  console.error(`checks: npm run lint failed (exit ${lint.code})`);
  process.exit(1);
}
