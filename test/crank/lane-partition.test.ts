import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { laneConflict, partitionLanes } from '../../src/crank/lane-partition.js';
import { scopesOverlap } from '../../src/crank/scope.js';
import type { Lane } from '../../src/crank/wave.js';

function lane(id: string, scope: string[], regenSurfaces: string[] | null = []): Lane {
  return { id, scope, brief: `work on ${id}`, acceptance: ['npm test'], regenSurfaces };
}

describe('lane conflicts', () => {
  it('lanes with disjoint write scopes and disjoint regen surfaces may run in parallel', () => {
    expect(laneConflict(lane('a', ['src/a/**']), lane('b', ['src/b/**']))).toBeNull();
  });

  it('overlapping write scopes serialize (src/** overlaps src/lib/**)', () => {
    expect(laneConflict(lane('a', ['src/**']), lane('b', ['src/lib/**']))).toEqual({
      lanes: ['a', 'b'],
      reason: 'write-scope',
      surfaces: ['src/**', 'src/lib/**'],
    });
  });

  it('two lanes reaching the same regen surface serialize even with disjoint write scopes', () => {
    const a = lane('a', ['skills/rpi/**'], ['skills-codex/**']);
    const b = lane('b', ['skills/crank/**'], ['skills-codex/crank/**']);
    expect(laneConflict(a, b)).toMatchObject({
      reason: 'regen-surface',
      surfaces: ['skills-codex/**', 'skills-codex/crank/**'],
    });
  });

  it('a lane regenerating what another lane writes serializes them', () => {
    const a = lane('a', ['src/**'], ['docs/api/**']);
    const b = lane('b', ['docs/api/index.md'], []);
    expect(laneConflict(a, b)?.reason).toBe('regen-surface');
    expect(laneConflict(b, a)?.reason).toBe('regen-surface');
  });

  it('unknown overlap counts as overlap: an undeclared regen surface serializes', () => {
    expect(laneConflict(lane('a', ['src/a/**'], null), lane('b', ['src/b/**']))).toEqual({
      lanes: ['a', 'b'],
      reason: 'regen-unknown',
      surfaces: null,
    });
  });

  it('a whole-repository scope conflicts with every lane', () => {
    expect(laneConflict(lane('a', ['.']), lane('b', ['docs/x.md']))?.reason).toBe('write-scope');
  });
});

describe('partitionLanes', () => {
  it('runs disjoint lanes in one parallel batch', () => {
    const lanes = [lane('a', ['src/a/**']), lane('b', ['src/b/**']), lane('c', ['docs/**'])];
    expect(partitionLanes(lanes)).toEqual({
      batches: [['a', 'b', 'c']],
      serialGroups: [['a'], ['b'], ['c']],
      conflicts: [],
    });
  });

  it('puts each lane in the earliest batch after the lanes it conflicts with, in caller order', () => {
    const lanes = [
      lane('a', ['src/**']),
      lane('b', ['docs/**']),
      lane('c', ['src/lib/**']),
      lane('d', ['test/**']),
      lane('e', ['src/lib/x.ts']),
    ];
    const partition = partitionLanes(lanes);
    expect(partition.batches).toEqual([['a', 'b', 'd'], ['c'], ['e']]);
    expect(partition.serialGroups).toEqual([['a', 'c', 'e'], ['b'], ['d']]);
    expect(partition.conflicts.map((c) => c.lanes)).toEqual([
      ['a', 'c'],
      ['a', 'e'],
      ['c', 'e'],
    ]);
  });

  it('links serial groups through shared lanes', () => {
    // a-b share src/x, b-c share docs; a and c are disjoint but one group.
    const lanes = [lane('a', ['src/x/**']), lane('b', ['src/x/y', 'docs/**']), lane('c', ['docs/api/**'])];
    expect(partitionLanes(lanes).serialGroups).toEqual([['a', 'b', 'c']]);
  });

  it('undeclared regen surfaces serialize the whole wave', () => {
    const lanes = [
      lane('a', ['src/a/**'], null),
      lane('b', ['src/b/**'], null),
      lane('c', ['src/c/**'], null),
    ];
    expect(partitionLanes(lanes).batches).toEqual([['a'], ['b'], ['c']]);
  });

  it('an empty wave partitions into nothing', () => {
    expect(partitionLanes([])).toEqual({ batches: [], serialGroups: [], conflicts: [] });
  });

  it('duplicate lane ids are a named error', () => {
    expect(() => partitionLanes([lane('a', ['x']), lane('a', ['y'])])).toThrow(InputError);
  });
});

describe('partition properties (fast-check)', () => {
  const segment = fc.constantFrom('src', 'SRC', 'lib', 'docs', 'a', 'b', '**', '*.ts', '.');
  const entry = fc.array(segment, { minLength: 1, maxLength: 3 }).map((parts) => parts.join('/'));
  const lanesArb = fc
    .array(
      fc.record({
        scope: fc.array(entry, { minLength: 1, maxLength: 2 }),
        regen: fc.option(fc.array(entry, { maxLength: 2 }), { nil: null, freq: 4 }),
      }),
      { maxLength: 7 },
    )
    .map((specs) => specs.map((s, i) => lane(`l${i}`, s.scope, s.regen)));

  // Independent of the implementation: any overlap among everything two lanes touch, or an undeclared regen.
  function mustSerialize(a: Lane, b: Lane): boolean {
    if (a.scope.some((x) => b.scope.some((y) => scopesOverlap(x, y)))) return true;
    if (a.regenSurfaces === null || b.regenSurfaces === null) return true;
    const aAll = [...a.scope, ...a.regenSurfaces];
    const bAll = [...b.scope, ...b.regenSurfaces];
    return aAll.some((x) => bAll.some((y) => scopesOverlap(x, y)));
  }

  it('every lane appears once; lanes sharing a batch never must serialize; order is kept; batches are earliest', () => {
    fc.assert(
      fc.property(lanesArb, (lanes) => {
        const { batches, serialGroups, conflicts } = partitionLanes(lanes);
        const ids = lanes.map((l) => l.id);
        expect(batches.flat().sort()).toEqual([...ids].sort());
        expect(serialGroups.flat().sort()).toEqual([...ids].sort());
        const batchOf = new Map(batches.flatMap((batch, k) => batch.map((id) => [id, k] as const)));
        const groupOf = new Map(serialGroups.flatMap((group, k) => group.map((id) => [id, k] as const)));
        lanes.forEach((b, j) => {
          lanes.slice(0, j).forEach((a) => {
            const serialize = mustSerialize(a, b);
            expect(conflicts.some((c) => c.lanes[0] === a.id && c.lanes[1] === b.id)).toBe(serialize);
            if (serialize) {
              expect(batchOf.get(a.id)!).toBeLessThan(batchOf.get(b.id)!);
              expect(groupOf.get(a.id)).toBe(groupOf.get(b.id));
            }
          });
          // Earliest: a lane after batch 0 conflicts with some lane of the batch before it.
          const k = batchOf.get(b.id)!;
          if (k > 0)
            expect(batches[k - 1]!.some((id) => mustSerialize(lanes.find((l) => l.id === id)!, b))).toBe(
              true,
            );
        });
        // Lanes of different serial groups may run at the same time: none must serialize.
        for (const a of lanes)
          for (const b of lanes)
            if (groupOf.get(a.id) !== groupOf.get(b.id)) expect(mustSerialize(a, b)).toBe(false);
        // Caller order inside batches and groups.
        for (const list of [...batches, ...serialGroups])
          expect(list).toEqual([...list].sort((x, y) => ids.indexOf(x) - ids.indexOf(y)));
      }),
      { numRuns: 1000 },
    );
  });
});
