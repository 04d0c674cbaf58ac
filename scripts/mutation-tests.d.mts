/** Every .ts file below the given paths (directories or files), relative to `root`, sorted. */
export function tsFilesUnder(root: string, paths: readonly string[]): string[];
/** The files matched by the globs (`**`, `*`, `?`), relative to `root`, sorted. */
export function matchGlobs(root: string, globs: readonly string[]): string[];
/** The repository files a file reaches through relative imports, itself included. */
export function importClosure(root: string, start: string): Set<string>;
/** The test files of a unit of mutation/folders.json: matched by its globs, reaching its files. */
export function unitTestFiles(
  root: string,
  unit: { readonly paths: readonly string[]; readonly tests: readonly string[] },
): string[];
