import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, relative } from 'node:path';
import { describe, expect, it } from 'vitest';
import { matchGlobs, unitTestFiles } from '../scripts/mutation-tests.mjs';

// mutation/summary.json records each folder's mutation score with the sha-256 of every file it
// was computed against (scripts/mutate.mjs). No Stryker run happens here: the test hashes the
// files as they are now and fails when a mutated file changed, appeared or disappeared since the
// summary was written. Refresh with `npm run mutate -- <folder>` (incremental: only the mutants
// whose code or tests changed are tested again).
const root = join(import.meta.dirname, '..');

interface FolderConfig {
  readonly name: string;
  /** The directory the unit belongs to; a folder's units together cover every .ts file in it. */
  readonly folder: string;
  readonly paths: readonly string[];
  readonly tests: readonly string[];
}

interface FolderSummary {
  readonly paths: readonly string[];
  /** False for a folder recorded with `npm run mutate -- --unmeasured`: hashes only, no score. */
  readonly measured: boolean;
  readonly sourceHash: string | null;
  readonly files: Record<string, string>;
  readonly mutants: Record<string, number>;
  readonly score: number | null;
}

const folders = (
  JSON.parse(readFileSync(join(root, 'mutation/folders.json'), 'utf8')) as { folders: FolderConfig[] }
).folders;
const summary = JSON.parse(readFileSync(join(root, 'mutation/summary.json'), 'utf8')) as {
  folders: Record<string, FolderSummary>;
};

/** Every .ts file below the given paths, relative to the repository, sorted by code unit. */
function tsFiles(paths: readonly string[]): string[] {
  const files: string[] = [];
  const walk = (path: string): void => {
    if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
    else if (path.endsWith('.ts')) files.push(relative(root, path).split('\\').join('/'));
  };
  for (const path of paths) walk(join(root, path));
  return files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

const sha256 = (data: string | Buffer): string => createHash('sha256').update(data).digest('hex');

describe('mutation summary (mutation/summary.json)', () => {
  it("covers every .ts file of each folder with exactly one unit (a new file can't slip past)", () => {
    for (const root of new Set(folders.map((unit) => unit.folder))) {
      const units = folders.filter((unit) => unit.folder === root);
      const covered = units.flatMap((unit) => tsFiles(unit.paths)).sort();
      expect(covered, root).toEqual(tsFiles([root]));
    }
  });

  it('has an entry for every unit npm run mutate covers, over the same paths', () => {
    expect(Object.keys(summary.folders).sort()).toEqual(folders.map((folder) => folder.name).sort());
    for (const folder of folders) expect(summary.folders[folder.name]?.paths).toEqual(folder.paths);
  });

  it('runs against each unit every test file of its globs that imports one of its files', () => {
    // scripts/mutate.mjs narrows a unit's globs to the test files whose imports reach its files;
    // one that names a unit file in an import must always be among them.
    for (const folder of folders) {
      const unitFiles = tsFiles(folder.paths).map((file) => file.replace(/\.ts$/, '.js'));
      const selected = unitTestFiles(root, folder);
      const importing = matchGlobs(root, folder.tests).filter((test) =>
        // The `/` before the name: `verify-legs.js'` does not name `legs.js`.
        unitFiles.some((file) =>
          readFileSync(join(root, test), 'utf8').includes(`/${file.split('/').at(-1)}'`),
        ),
      );
      for (const test of importing) expect(selected, `${folder.name}: ${test}`).toContain(test);
    }
    // A small tree written here: a test reaches the unit directly, through a barrel, through a
    // helper, or not at all; only the first three are selected.
    const tree = mkdtempSync(join(tmpdir(), 'mutation-tests-'));
    const files: Record<string, string> = {
      'src/unit.ts': 'export const one = 1;\n',
      'src/other.ts': 'export const two = 2;\n',
      'src/index.ts': "export * from './unit.js';\nexport * from './other.js';\n",
      'test/direct.test.ts': "import { one } from '../src/unit.js';\n",
      'test/barrel.test.ts': "import { one } from '../src/index.js';\n",
      'test/deep/helper.test.ts': "import { reach } from '../support.js';\n",
      'test/support.ts': "export const reach = () => import('../src/unit.js');\n",
      'test/unrelated.test.ts': "import { two } from '../src/other.js';\n",
      'bench/outside.test.ts': "import { one } from '../src/unit.js';\n",
    };
    try {
      for (const [file, text] of Object.entries(files)) {
        mkdirSync(dirname(join(tree, file)), { recursive: true });
        writeFileSync(join(tree, file), text);
      }
      expect(unitTestFiles(tree, { paths: ['src/unit.ts'], tests: ['test/**/*.test.ts'] })).toEqual([
        'test/barrel.test.ts',
        'test/deep/helper.test.ts',
        'test/direct.test.ts',
      ]);
    } finally {
      rmSync(tree, { recursive: true, force: true });
    }
  });

  for (const folder of folders) {
    it(`is fresh for ${folder.name} (run \`npm run mutate -- ${folder.name}\` when this fails)`, () => {
      const entry = summary.folders[folder.name];
      expect(entry, `no summary for ${folder.name}`).toBeDefined();
      // A unit not measured yet has no score that could be stale (and records no hashes).
      if (!entry!.measured) {
        expect(entry!.score).toBeNull();
        expect(entry!.sourceHash).toBeNull();
        return;
      }
      const now = Object.fromEntries(
        tsFiles(folder.paths).map((file) => [file, sha256(readFileSync(join(root, file)))]),
      );
      const changed = [...new Set([...Object.keys(now), ...Object.keys(entry!.files)])]
        .filter((file) => now[file] !== entry!.files[file])
        .sort();
      expect(changed, `files changed since ${folder.name}'s mutation score was measured`).toEqual([]);
      // The folder hash is the hash of `path\0sha\n` lines in path order.
      const lines = Object.keys(now)
        .sort((a, b) => (a < b ? -1 : a > b ? 1 : 0))
        .map((file) => `${file}\0${now[file]}\n`)
        .join('');
      expect(entry!.sourceHash).toBe(sha256(lines));
    });
  }

  it('states each score as detected over detected plus undetected mutants', () => {
    for (const [name, entry] of Object.entries(summary.folders)) {
      if (!entry.measured) {
        expect(entry.score, name).toBeNull();
        expect(entry.mutants, name).toEqual({});
        continue;
      }
      const count = (status: string): number => entry.mutants[status] ?? 0;
      const detected = count('Killed') + count('Timeout');
      const valid = detected + count('Survived') + count('NoCoverage');
      if (valid === 0) expect(entry.score, name).toBeNull();
      else expect(entry.score, name).toBeCloseTo((100 * detected) / valid, 1);
    }
  });

  it("docs/proof.md's unit table states each unit's figures as the summary records them", () => {
    const proof = readFileSync(join(root, 'docs/proof.md'), 'utf8');
    const block = proof.slice(
      proof.indexOf('<!-- mutation-table:start -->'),
      proof.indexOf('<!-- mutation-table:end -->'),
    );
    const rows = new Map(
      block
        .split('\n')
        .filter((line) => line.startsWith('| ') && !line.startsWith('| unit ') && !line.startsWith('| ---'))
        .map((line) => line.split('|').map((cell) => cell.trim()))
        .map((cells) => [cells[1]!, cells.slice(4, 10)] as const),
    );
    expect([...rows.keys()]).toEqual(folders.map((folder) => folder.name));
    for (const folder of folders) {
      const entry = summary.folders[folder.name]!;
      const count = (status: string): string => String(entry.mutants[status] ?? 0);
      expect(rows.get(folder.name), folder.name).toEqual(
        entry.measured
          ? [
              `${entry.score} %`,
              count('Killed'),
              count('Timeout'),
              count('Survived'),
              count('NoCoverage'),
              count('CompileError'),
            ]
          : ['not measured', '', '', '', '', ''],
      );
    }
  });

  it('keeps no absolute path of the machine that ran Stryker in a committed incremental file', () => {
    const dir = join(root, 'mutation/incremental');
    for (const file of readdirSync(dir).filter((name) => name.endsWith('.json'))) {
      const report = JSON.parse(readFileSync(join(dir, file), 'utf8')) as {
        projectRoot?: string;
        files: Record<string, unknown>;
      };
      expect(report.projectRoot, file).toBeUndefined();
      // Source files are named relative to the repository.
      for (const name of Object.keys(report.files))
        expect(name.startsWith('/'), `${file}: ${name}`).toBe(false);
    }
  });
});
