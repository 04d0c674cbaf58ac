import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { defaultLedgerPath, discoverVerification, repoRelative } from '../../src/host/run-paths.js';

describe('run paths', () => {
  it('derives the ledger from the spec path by the plan path convention', () => {
    expect(defaultLedgerPath('doc/specs/2026-11-02-csv-export.md')).toBe(
      'doc/plans/2026-11-02-csv-export.md',
    );
    expect(defaultLedgerPath('a/b/specs/x.md')).toBe('a/b/plans/x.md');
    expect(defaultLedgerPath('specs/x.md')).toBe('plans/x.md');
    expect(defaultLedgerPath('x.md')).toBe('plans/x.md');
  });

  it('refuses a path outside the worktree', () => {
    expect(repoRelative('/w', '/w/doc/specs/x.md', 'spec')).toBe('doc/specs/x.md');
    expect(() => repoRelative('/w', '/elsewhere/x.md', 'spec')).toThrow(/not inside the worktree/);
    expect(() => repoRelative('/w', '../x.md', 'ledger')).toThrow(/not inside the worktree/);
  });

  it('E7: discovers exactly one test entrypoint; none or two is unresolved', () => {
    const dir = mkdtempSync(join(tmpdir(), 'loopchart-paths-'));
    try {
      expect(discoverVerification(dir)).toBeNull();
      writeFileSync(join(dir, 'package.json'), JSON.stringify({ scripts: { test: 'vitest run' } }));
      expect(discoverVerification(dir)).toBe('npm test');
      writeFileSync(join(dir, 'Makefile'), 'test:\n\ttrue\n');
      expect(discoverVerification(dir)).toBeNull();
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
