import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { transitionCoverage } from '../../src/graph/coverage.js';
import {
  assertFullCoverage,
  CoverageGapError,
  formatCoverageLines,
} from '../../src/graph/coverage-format.js';
import {
  COVERAGE_REPORT_FORMAT,
  coverageReportJson,
  writeCoverageReport,
} from '../../src/graph/coverage-report.js';
import { enumerateStates } from '../../src/graph/states.js';
import { enumerateTransitions } from '../../src/graph/transitions.js';
import { parallelFixtureMachine } from '../fixtures/parallel-fixture-machine.js';
import { repairFixtureMachine } from '../fixtures/repair-fixture-machine.js';

// Full coverage of the parallel fixture; the repair fixture misses its R2 rule and `escalated`.
const full = transitionCoverage(parallelFixtureMachine, {
  transitions: enumerateTransitions(parallelFixtureMachine).map((t) => t.key),
  states: enumerateStates(parallelFixtureMachine).map((s) => s.id),
});
const partial = transitionCoverage(repairFixtureMachine, {
  transitions: enumerateTransitions(repairFixtureMachine)
    .filter((t) => !t.rule?.startsWith('R2'))
    .map((t) => t.key),
  states: enumerateStates(repairFixtureMachine)
    .filter((s) => s.key !== 'escalated')
    .map((s) => s.id),
});

describe('coverage report', () => {
  it('lists machines sorted by id whatever the input order, with counts and missing items', () => {
    const text = coverageReportJson([partial, full]);
    expect(coverageReportJson([full, partial])).toBe(text);
    expect(text.endsWith('}\n')).toBe(true);
    const report = JSON.parse(text);
    expect(report.format).toBe(COVERAGE_REPORT_FORMAT);
    expect(Object.keys(report.machines)).toEqual(['fixture', 'par']);
    expect(report.machines.par.transitions).toEqual({
      covered: full.transitions.total,
      total: full.transitions.total,
      missing: [],
    });
    expect(report.machines.fixture.transitions.missing).toEqual([
      expect.objectContaining({
        source: 'fixture.working.deciding',
        event: 'always',
        index: 1,
        rule: 'R2 exhausted',
      }),
    ]);
    expect(report.machines.fixture.states.missing).toEqual(['fixture.escalated']);
  });

  it('puts one value per line so a regenerated report diffs line by line', () => {
    const lines = coverageReportJson([partial]).split('\n');
    expect(lines.map((line) => line.trim())).toContain(`"covered": ${partial.transitions.covered},`);
  });

  it('refuses two coverages of the same machine', () => {
    expect(() => coverageReportJson([full, full])).toThrow(InputError);
  });

  it('writes the report, creating the folder', async () => {
    const dir = await mkdtemp(join(tmpdir(), 'loopchart-coverage-'));
    try {
      const file = join(dir, 'visualizations', 'coverage.json');
      const written = await writeCoverageReport([partial, full], file);
      expect(await readFile(file, 'utf8')).toBe(written);
    } finally {
      await rm(dir, { recursive: true, force: true });
    }
  });
});

describe('coverage lines', () => {
  it('prints covered/total prefixed with the machine id', () => {
    const total = enumerateTransitions(repairFixtureMachine).length;
    const states = enumerateStates(repairFixtureMachine).length;
    expect(formatCoverageLines(partial)).toEqual([
      `fixture: transitions covered ${total - 1}/${total}`,
      `fixture: states covered ${states - 1}/${states}`,
    ]);
  });

  it('passes full coverage and names every gap otherwise', () => {
    expect(() => assertFullCoverage(full)).not.toThrow();
    expect(() => assertFullCoverage(partial)).toThrow(CoverageGapError);
    expect(() => assertFullCoverage(partial)).toThrow(
      /fixture\.working\.deciding --always#1 \[allowanceExhausted\] R2 exhausted--> fixture\.escalated/,
    );
    expect(() => assertFullCoverage(partial)).toThrow(/state not entered: fixture\.escalated/);
  });
});
