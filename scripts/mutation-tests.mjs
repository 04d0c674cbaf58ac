// The test files one `npm run mutate` unit runs (scripts/mutate.mjs): of the files its `tests`
// globs match, those whose relative imports reach one of the unit's files. A test file that
// cannot load a unit file cannot kill its mutants; running it only costs the dry run, and the
// unit's static mutants run against every selected file.
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative } from 'node:path';

/** Every .ts file below the given paths (directories or files), relative to `root`, sorted. */
export function tsFilesUnder(root, paths) {
  const files = [];
  const walk = (path) => {
    if (statSync(path).isDirectory()) for (const entry of readdirSync(path)) walk(join(path, entry));
    else if (path.endsWith('.ts')) files.push(relative(root, path).split('\\').join('/'));
  };
  for (const path of paths) walk(join(root, path));
  return files.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/** A glob of `**`, `*` and `?` as a regular expression over repository-relative paths. */
function globRegExp(glob) {
  let source = '';
  for (let i = 0; i < glob.length; i += 1) {
    const char = glob[i];
    if (glob.startsWith('**/', i)) {
      source += '(?:.*/)?';
      i += 2;
    } else if (char === '*') source += '[^/]*';
    else if (char === '?') source += '[^/]';
    else source += char.replace(/[.+^${}()|[\]\\]/g, '\\$&');
  }
  return new RegExp(`^${source}$`);
}

/** The files matched by the globs: each glob is walked from its part before the first wildcard. */
export function matchGlobs(root, globs) {
  const files = new Set();
  for (const glob of globs) {
    const base = glob.split('/').filter((_, i, parts) => !/[*?]/.test(parts.slice(0, i + 1).join('/')));
    const start = base.join('/') || '.';
    if (!existsSync(join(root, start))) continue;
    const pattern = globRegExp(glob);
    for (const file of tsFilesUnder(root, [start])) if (pattern.test(file)) files.add(file);
  }
  return [...files].sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
}

/**
 * The repository files a file reaches through relative imports (`import`/`export ... from` and
 * `import()` with a literal path), itself included: more than the code a test can run (a barrel
 * reaches all it re-exports), never less.
 */
export function importClosure(root, start) {
  const seen = new Set([start]);
  const stack = [start];
  while (stack.length > 0) {
    for (const found of importsOf(root, stack.pop())) {
      if (!seen.has(found)) {
        seen.add(found);
        stack.push(found);
      }
    }
  }
  return seen;
}

const importsCache = new Map();
/** The repository files one file imports with a relative path (read once per process). */
function importsOf(root, file) {
  const key = `${root}\0${file}`;
  const cached = importsCache.get(key);
  if (cached !== undefined) return cached;
  const imports = [];
  const text = readFileSync(join(root, file), 'utf8');
  for (const match of text.matchAll(/(?:from|import)\s*\(?\s*['"](\.{1,2}\/[^'"]+)['"]/g)) {
    const target = relative(root, join(root, dirname(file), match[1].replace(/\.js$/, '.ts')))
      .split('\\')
      .join('/');
    const found = [target, `${target}.ts`, `${target}/index.ts`].find(
      (candidate) => candidate.endsWith('.ts') && existsSync(join(root, candidate)),
    );
    if (found !== undefined) imports.push(found);
  }
  importsCache.set(key, imports);
  return imports;
}

/** The test files of a unit of mutation/folders.json: matched by its globs, reaching its files. */
export function unitTestFiles(root, unit) {
  const unitFiles = new Set(tsFilesUnder(root, unit.paths));
  return matchGlobs(root, unit.tests).filter((file) =>
    [...importClosure(root, file)].some((reached) => unitFiles.has(reached)),
  );
}
