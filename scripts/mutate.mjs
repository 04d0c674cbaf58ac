#!/usr/bin/env node
// `npm run mutate [-- <folder>... [stryker flags]]`: mutation testing with StrykerJS, one folder
// at a time (mutation/folders.json), each with its own test files and its own incremental file
// (mutation/incremental/<folder>.json, committed, so a rerun only tests mutants whose code or
// tests changed). After each folder the score and the sha-256 of every mutated file are written
// to mutation/summary.json; test/mutation-summary.test.ts fails when that summary is stale.
// Of the test files a unit's globs match, only those whose relative imports reach the unit's
// files run (scripts/mutation-tests.mjs). Stryker runs under `nice -n 19` with concurrency 1 (stryker.config.mjs): the machine is shared.
// `npm run mutate -- --table` runs nothing: it rewrites docs/proof.md's unit table from the summary.
// `npm run mutate -- --unmeasured <folder>...` runs nothing: it records a folder not measured yet
// (score null, `measured: false`, no hashes), so the summary names every unit.
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { unitTestFiles } from './mutation-tests.mjs';

const config = JSON.parse(readFileSync('mutation/folders.json', 'utf8'));
const unmeasured = process.argv.includes('--unmeasured');
const tableOnly = process.argv.includes('--table');
const args = process.argv.slice(2).filter((arg) => arg !== '--unmeasured' && arg !== '--table');
const known = new Map(config.folders.map((folder) => [folder.name, folder]));
const names = args.filter((arg) => known.has(arg));
const passThrough = args.filter((arg) => !known.has(arg));
const unknown = passThrough.filter(
  (arg) => !arg.startsWith('-') && !passThrough[passThrough.indexOf(arg) - 1]?.startsWith('-'),
);
if (unknown.length > 0) {
  console.error(`mutate: unknown folder ${unknown.join(', ')} (known: ${[...known.keys()].join(', ')})`);
  process.exit(2);
}
const selected = names.length > 0 ? names.map((name) => known.get(name)) : config.folders;

/** Every .ts file of a folder's paths, sorted (the same expansion as test/mutation-summary.test.ts). */
export function expand(paths) {
  const files = [];
  const walk = (path) => {
    if (statSync(path).isDirectory()) {
      for (const entry of readdirSync(path)) walk(join(path, entry));
    } else if (path.endsWith('.ts')) files.push(path.split('\\').join('/'));
  };
  for (const path of paths) walk(path);
  return files.sort();
}

const sha256 = (text) => createHash('sha256').update(text).digest('hex');
const hashes = (files) => Object.fromEntries(files.map((file) => [file, sha256(readFileSync(file))]));
/** One hash over the folder's files: each `path\0sha\n`, in path order. */
const sourceHash = (fileHashes) =>
  sha256(
    Object.entries(fileHashes)
      .map(([file, hash]) => `${file}\0${hash}\n`)
      .join(''),
  );

mkdirSync('mutation/incremental', { recursive: true });
const summaryPath = 'mutation/summary.json';
const readSummary = () =>
  existsSync(summaryPath) ? JSON.parse(readFileSync(summaryPath, 'utf8')) : { folders: {} };
const writeSummary = (summary) => {
  summary.folders = Object.fromEntries(
    Object.entries(summary.folders).sort(([a], [b]) => a.localeCompare(b)),
  );
  writeFileSync(summaryPath, `${JSON.stringify(summary, null, 2)}\n`);
  writeProofTable(summary);
};

/** What a unit mutates, for the table: its directory, its one file, or `<folder>/ (<part>: N files)`. */
function mutatedCell(folder) {
  const note = folder.ignoreStatic ? ' (not static)' : '';
  if (folder.paths.length === 1)
    return `\`${folder.paths[0]}${folder.paths[0].endsWith('.ts') ? '' : '/'}\`${note}`;
  const part = folder.name.startsWith(`${folder.folder.split('/').at(-1)}-`)
    ? folder.name.slice(folder.folder.split('/').at(-1).length + 1)
    : folder.name;
  return `\`${folder.folder}/\` (${part}: ${expand(folder.paths).length} files)${note}`;
}

/**
 * Rewrites the unit table of docs/proof.md (between its mutation-table markers) from the summary,
 * in the order of mutation/folders.json, then lets Biome align it. test/mutation-summary.test.ts
 * checks each row against the summary.
 */
function writeProofTable(summary) {
  const path = 'docs/proof.md';
  const start = '<!-- mutation-table:start -->';
  const end = '<!-- mutation-table:end -->';
  const text = readFileSync(path, 'utf8');
  const from = text.indexOf(start);
  const to = text.indexOf(end);
  if (from < 0 || to < from) throw new Error(`${path} has no ${start} ... ${end} block`);
  const rows = config.folders.map((folder) => {
    const entry = summary.folders[folder.name];
    const tests = folder.tests.map((glob) => `\`${glob}\``).join(', ');
    if (!entry?.measured)
      return `| ${folder.name} | ${mutatedCell(folder)} | ${tests} | not measured | | | | | |`;
    const count = (status) => entry.mutants[status] ?? 0;
    return `| ${folder.name} | ${mutatedCell(folder)} | ${tests} | ${entry.score} % | ${count('Killed')} | ${count('Timeout')} | ${count('Survived')} | ${count('NoCoverage')} | ${count('CompileError')} |`;
  });
  const table = [
    '| unit | mutated | tests run against its mutants | score | killed | timeout | survived | no coverage | compile errors |',
    '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ...rows,
  ].join('\n');
  writeFileSync(path, `${text.slice(0, from + start.length)}\n\n${table}\n\n${text.slice(to)}`);
  spawnSync(process.execPath, ['node_modules/@biomejs/biome/bin/biome', 'format', '--write', path], {
    stdio: 'ignore',
  });
}
if (tableOnly) {
  writeProofTable(readSummary());
  process.exit(0);
}
for (const folder of selected) {
  const files = expand(folder.paths);
  if (unmeasured) {
    const summary = readSummary();
    if (summary.folders[folder.name]?.measured) {
      console.log(`mutate: ${folder.name} is measured; --unmeasured leaves it alone`);
      continue;
    }
    summary.folders[folder.name] = {
      paths: folder.paths,
      tests: folder.tests,
      measured: false,
      sourceHash: null,
      files: {},
      mutants: {},
      score: null,
    };
    writeSummary(summary);
    console.log(`mutate: ${folder.name} recorded as not measured`);
    continue;
  }
  const before = hashes(files);
  const stryker = [
    '-n',
    '19',
    process.execPath,
    'node_modules/@stryker-mutator/core/bin/stryker.js',
    'run',
    'stryker.config.mjs',
    '--mutate',
    files.join(','),
    '--incrementalFile',
    `mutation/incremental/${folder.name}.json`,
    ...(folder.ignoreStatic ? ['--ignoreStatic'] : []),
    ...passThrough,
  ];
  // Of the files the unit's globs match, only those whose imports reach the unit's files.
  const tests = unitTestFiles(process.cwd(), folder);
  if (tests.length === 0) {
    console.error(`mutate: no test file matched by ${folder.tests.join(' ')} reaches ${folder.name}`);
    process.exit(2);
  }
  console.log(
    `mutate: ${folder.name} (${files.length} files, ${tests.length} test files: ${tests.join(' ')})`,
  );
  const run = spawnSync('nice', stryker, {
    stdio: 'inherit',
    env: {
      ...process.env,
      LOOPCHART_MUTATE_TESTS: tests.join(','),
      LOOPCHART_MUTATE_TSCONFIG: `mutation/tsconfig.${folder.name}.json`,
    },
  });
  if (run.status !== 0) {
    console.error(`mutate: stryker failed on ${folder.name} (exit ${run.status})`);
    process.exit(run.status ?? 1);
  }
  // Stryker records the absolute directory it ran in; the committed file names no machine path.
  const incrementalPath = `mutation/incremental/${folder.name}.json`;
  const incremental = JSON.parse(readFileSync(incrementalPath, 'utf8'));
  delete incremental.projectRoot;
  writeFileSync(incrementalPath, `${JSON.stringify(incremental, null, 2)}\n`);
  const after = hashes(files);
  if (JSON.stringify(before) !== JSON.stringify(after)) {
    console.error(`mutate: ${folder.name} changed during the run; run it again`);
    process.exit(1);
  }
  const report = JSON.parse(readFileSync('reports/mutation/mutation.json', 'utf8'));
  const counts = {};
  for (const file of Object.values(report.files)) {
    for (const mutant of file.mutants) counts[mutant.status] = (counts[mutant.status] ?? 0) + 1;
  }
  const detected = (counts.Killed ?? 0) + (counts.Timeout ?? 0);
  const undetected = (counts.Survived ?? 0) + (counts.NoCoverage ?? 0);
  const summary = readSummary();
  summary.folders[folder.name] = {
    paths: folder.paths,
    tests: folder.tests,
    measured: true,
    sourceHash: sourceHash(after),
    files: after,
    mutants: counts,
    score:
      detected + undetected === 0 ? null : Math.round((10000 * detected) / (detected + undetected)) / 100,
  };
  writeSummary(summary);
  console.log(
    `mutate: ${folder.name} score ${summary.folders[folder.name].score} % ${JSON.stringify(counts)}`,
  );
}
