#!/usr/bin/env bash
# The consumer test (issue 14): packs loopchart, installs the tarball into a fresh project with the
# oldest and the newest xstate 5 the peer range claims, type-checks and runs the README's examples
# there (ESM), loads the entries from CommonJS, and imports loopchart/host with @viz-js removed.
# Installs through npm (its local cache first, else the registry); run after `npm run build`.
# .ci/run runs it after `npm test` (time: docs/decisions/package.md P10).
# Usage: .ci/consumer-test.sh [xstate versions...]   (default: the peer range's floor and the newest 5.x)
set -euo pipefail
cd "$(dirname "$0")/.."
root=$PWD
versions=("$@")
floor=$(node -p "require('./package.json').peerDependencies.xstate.replace(/^\\^/, '')")
[ ${#versions[@]} -eq 0 ] && versions=("$floor" "$(npm view 'xstate@^5' version | tail -1 | awk '{print $NF}' | tr -d "'")")
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
npm pack --ignore-scripts --pack-destination "$work" >/dev/null 2>&1
tarball=$(ls "$work"/loopchart-*.tgz)

for version in "${versions[@]}"; do
  echo "== xstate $version"
  project="$work/consumer-$version"
  mkdir -p "$project/src"
  cd "$project"
  cat > package.json <<JSON
{ "name": "consumer", "private": true, "type": "module" }
JSON
  npm install --prefer-offline --no-audit --no-fund --silent "$tarball" "xstate@$version" "@xstate/graph@^3.0.4" "@types/node@20"
  cat > tsconfig.json <<'JSON'
{ "compilerOptions": { "module": "nodenext", "moduleResolution": "nodenext", "target": "es2022",
  "strict": true, "skipLibCheck": false, "rootDir": "src", "outDir": "out", "types": ["node"] }, "include": ["src"] }
JSON
  # README "Embed the library": createRunner (here outside a git worktree, so it resolves invalid).
  cat > src/runner.ts <<'TS'
import { createRunner } from 'loopchart';

const result = await createRunner({
  worktree: process.cwd(),
  spec: 'doc/specs/csv-export.md',
  child: 'my-agent --task "$LOOPCHART_TASK"',
  settings: { allowance: 4, escalateAfter: 2 },
}).run();

if (result.status === 'stopped') console.log(result.stopText); // answer later with { answer: '…' }
if (result.status !== 'invalid' || result.code !== 'git.not-a-worktree') throw new Error(`unexpected ${result.status}`);
console.log(`runner: ${result.status} (${result.code})`);
TS
  # README: drive a statechart with your own effects, actors typed by their contracts.
  cat > src/machine.ts <<'TS'
import { createActor, fromPromise } from 'xstate';
import {
  type ChildReport,
  type DispatchPlan,
  type LoopImplementationActors,
  loopImplementationMachine,
  renderHumanStop,
  type WorkspaceFacts,
} from 'loopchart';

async function myWorkspaceFacts(_ledger: string, _spec: string): Promise<WorkspaceFacts> {
  throw new Error('not used in this check');
}
async function runMyAgent(_plan: DispatchPlan, _signal: AbortSignal): Promise<ChildReport> {
  throw new Error('not used in this check');
}

const inspectWorkspace: LoopImplementationActors['inspectWorkspace'] = fromPromise(async ({ input }) =>
  myWorkspaceFacts(input.ledgerPath, input.specPath),
);
const dispatchChild: LoopImplementationActors['dispatchChild'] = fromPromise(async ({ input, signal }) =>
  runMyAgent(input.plan, signal),
);

const machine = loopImplementationMachine.provide({
  actors: { inspectWorkspace, dispatchChild },
});
const actor = createActor(machine, {
  input: { ledgerPath: 'doc/plans/x.md', specPath: 'doc/specs/x.md', verification: 'npm test' },
});
if (typeof actor.start !== 'function' || typeof renderHumanStop !== 'function') throw new Error('missing export');
console.log('machine: provided and created');
TS
  cat > src/core.ts <<'TS'
import { parseLedger } from 'loopchart/core';
import { generatePathSuite } from 'loopchart/testing';
import { toDot } from 'loopchart/viz';
import { machines } from 'loopchart/machines';

const { findings } = parseLedger('not a ledger\n');
if (findings.length === 0) throw new Error('parseLedger accepted garbage');
if (typeof generatePathSuite !== 'function' || typeof toDot !== 'function' || !machines.rpi) throw new Error('missing export');
console.log(`core: ${findings.length} findings for a bad ledger`);
TS
  "$root/node_modules/.bin/tsc" -p tsconfig.json
  node out/runner.js
  node out/machine.js
  node out/core.js
  node -e "const c=require('loopchart/core'); const h=require('loopchart/host'); if(typeof c.parseLedger!=='function'||typeof h.createRunner!=='function') process.exit(1); console.log('cjs: core and host load')"
  test -f node_modules/loopchart/schemas/ledger.json
  node -e "import('loopchart/schemas/ledger.json', { with: { type: 'json' } }).then(m => { if (!m.default.\$id) process.exit(1); console.log('schemas: resolvable, with \$id') })"
  rm -rf node_modules/@viz-js
  node -e "import('loopchart/host').then(m => { if (typeof m.createRunner !== 'function') process.exit(1); console.log('host: loads without @viz-js') })"
  cd "$root"
done
echo "consumer test passed for xstate ${versions[*]}"
