import { lstatSync, readdirSync, readFileSync, readlinkSync } from 'node:fs';
import { join } from 'node:path';

/** Independent record of a directory tree, for comparing before and after (no code under test). */
export type TreeSnapshot = Record<string, string>;

/**
 * Describes every path under `root` (symlinks not followed) as `dir <mode>`, `file <mode> <base64>`
 * or `link <target>`, keyed by relative path. `skip` says which relative paths to leave out.
 */
export function snapshotTree(root: string, skip: (path: string) => boolean = () => false): TreeSnapshot {
  const out: TreeSnapshot = {};
  const visit = (relative: string) => {
    const absolute = relative === '' ? root : join(root, relative);
    const stats = lstatSync(absolute);
    const mode = (stats.mode & 0o7777).toString(8);
    if (stats.isSymbolicLink()) out[relative] = `link ${readlinkSync(absolute)}`;
    else if (stats.isFile()) out[relative] = `file ${mode} ${readFileSync(absolute).toString('base64')}`;
    else {
      out[relative] = `dir ${mode}`;
      for (const name of readdirSync(absolute)) {
        const child = relative === '' ? name : `${relative}/${name}`;
        if (!skip(child)) visit(child);
      }
    }
  };
  visit('');
  return out;
}

/** Keeps only the keys for which `keep` holds. */
export function pick(snapshot: TreeSnapshot, keep: (path: string) => boolean): TreeSnapshot {
  return Object.fromEntries(Object.entries(snapshot).filter(([path]) => keep(path)));
}
