import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { partitionLanes } from '../../src/crank/lane-partition.js';
import { laneSchema, waveSchema } from '../../src/crank/schemas.js';
import { checkWave, parseWave } from '../../src/crank/wave-input.js';
import { WaveUnrunnableError } from '../../src/crank/wave-unrunnable-error.js';

// Edges of crank's input contract (reference §2: a lane needs a write scope, a brief and an
// executable acceptance; the wave needs repair_rounds, forwarded unchanged, and its acceptance).
const lane = (extra: Record<string, unknown> = {}) => ({
  scope: ['src/parser/**'],
  brief: 'Parse the ledger header.',
  acceptance: ['npx vitest run test/parser'],
  regen_surfaces: [],
  ...extra,
});
const wave = (extra: Record<string, unknown> = {}) => ({
  lanes: [lane({ id: 'parser' })],
  repair_rounds: 2,
  acceptance: 'npm test',
  ...extra,
});
const codes = (input: unknown): string[] => checkWave(input).map((f) => f.code);

describe('wave input edges', () => {
  it('repair_rounds 0 is a bound (no repair round), forwarded unchanged', () => {
    expect(parseWave(wave({ repair_rounds: 0 })).repairRounds).toBe(0);
  });

  it('a brief of blanks carries no intent: the lane has no brief', () => {
    expect(codes(wave({ lanes: [lane({ brief: ' \t ' })] }))).toEqual(['wave.lane-brief-missing']);
  });

  it('null is an absent value: a missing acceptance or scope, not an invalid one', () => {
    expect(codes(wave({ acceptance: null }))).toEqual(['wave.acceptance-missing']);
    expect(codes(wave({ lanes: [lane({ scope: null })] }))).toEqual(['wave.lane-scope-missing']);
    expect(codes(wave({ lanes: [lane({ acceptance: null })] }))).toEqual(['wave.lane-acceptance-missing']);
  });

  it('a null id is no id: the lane is named by its position', () => {
    expect(parseWave(wave({ lanes: [lane(), lane({ id: null })] })).lanes.map((l) => l.id)).toEqual([
      'lane-1',
      'lane-2',
    ]);
  });

  it('null regen surfaces are undeclared (unknown), declared ones are kept as given', () => {
    const parsed = parseWave(
      wave({
        lanes: [lane({ id: 'a', regen_surfaces: null }), lane({ id: 'b', regen_surfaces: ['gen/**'] })],
      }),
    );
    expect(parsed.lanes.map((l) => l.regenSurfaces)).toEqual([null, ['gen/**']]);
  });

  it('only a leading drive letter makes a path absolute', () => {
    const parsed = parseWave(wave({ lanes: [lane({ scope: ['notes/c:/draft.md'] })] }));
    expect(parsed.lanes[0]?.scope).toEqual(['notes/c:/draft.md']);
    expect(codes(wave({ lanes: [lane({ scope: ['c:/draft.md'] })] }))).toEqual(['wave.lane-scope-invalid']);
  });

  it('every finding names the field at fault, and a lane finding its 1-based lane', () => {
    const cases: [unknown, RegExp][] = [
      ['lanes', /object/],
      [wave({ repair_rounds: undefined }), /repair_rounds/],
      [wave({ repair_rounds: -2 }), /repair_rounds.*non-negative integer/],
      [wave({ acceptance: '' }), /acceptance/],
      [wave({ acceptance: [1] }), /acceptance/],
      [wave({ lanes: 'x' }), /lanes/],
      [wave({ lanes: [] }), /no lanes/],
      [wave({ lanes: [lane(), 'x'] }), /^lane 2: .*object/],
      [wave({ lanes: [lane(), lane({ id: 3 })] }), /^lane 2: .*id/],
      [wave({ lanes: [lane({ scope: {} })] }), /^lane 1: .*scope/],
      [wave({ lanes: [lane({ scope: ['/etc/**'] })] }), /^lane 1: .*"\/etc\/\*\*".*absolute/],
      [wave({ lanes: [lane({ scope: ['a/../../b'] })] }), /^lane 1: .*"a\/\.\.\/\.\.\/b".*\.\./],
      [wave({ lanes: [lane({ brief: '' })] }), /^lane 1: .*brief/],
      [wave({ lanes: [lane({ acceptance: [] })] }), /^lane 1: .*acceptance/],
      [wave({ lanes: [lane({ acceptance: {} })] }), /^lane 1: .*acceptance/],
      [wave({ lanes: [lane({ regen_surfaces: 'gen' })] }), /^lane 1: .*regen_surfaces/],
      [wave({ lanes: [lane({ regen_surfaces: ['/gen'] })] }), /^lane 1: .*"\/gen".*absolute/],
    ];
    for (const [input, reason] of cases) {
      const findings = checkWave(input);
      expect(findings, JSON.stringify(input)).toHaveLength(1);
      expect(findings[0]?.reason, JSON.stringify(input)).toMatch(reason);
    }
  });

  it('a duplicate id names both lanes by position and the id', () => {
    const [only] = checkWave(wave({ lanes: [lane({ id: 'a' }), lane({ id: 'b' }), lane({ id: 'a' })] }));
    expect(only?.code).toBe('wave.duplicate-lane-id');
    expect(only?.reason).toMatch(/^lane 3: .*"a"/);
    expect(only?.reason.endsWith('lane 1')).toBe(true);
  });

  it('the unrunnable wave says so before listing its problems', () => {
    let thrown: unknown;
    try {
      parseWave(wave({ lanes: [] }));
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(WaveUnrunnableError);
    expect((thrown as Error).message).toMatch(/^the wave is unrunnable/);
  });

  it('partitioning refuses a reused lane id and names it', () => {
    const parsed = parseWave(wave({ lanes: [lane({ id: 'a' }), lane({ id: 'b', scope: 'docs/**' })] }));
    const reused = [parsed.lanes[0]!, { ...parsed.lanes[1]!, id: 'a' }];
    let thrown: unknown;
    try {
      partitionLanes(reused);
    } catch (error) {
      thrown = error;
    }
    expect((thrown as { code?: string }).code).toBe('wave.duplicate-lane-id');
    expect((thrown as Error).message).toMatch(/"a"/);
  });
});

describe('crank schemas (published JSON Schema)', () => {
  it('accept a list of several commands and several scope entries, and refuse an empty list', () => {
    const many = wave({
      acceptance: ['npm test', 'npm run lint'],
      lanes: [lane({ scope: ['a/**', 'b/**'] })],
    });
    expect(waveSchema.safeParse(many).success).toBe(true);
    expect(checkWave(many)).toEqual([]);
    expect(waveSchema.safeParse(wave({ acceptance: [] })).success).toBe(false);
  });

  it("carry each finding's code on the issue", () => {
    // A reused id passes the structural part; the refinement reports it with checkWave's code.
    const result = waveSchema.safeParse(wave({ lanes: [lane({ id: 'a' }), lane({ id: 'a' })] }));
    expect(result.success).toBe(false);
    const issueCodes = result.error?.issues.map(
      (issue) => (issue as { params?: { code?: string } }).params?.code,
    );
    expect(issueCodes).toEqual(['wave.duplicate-lane-id']);
  });

  it('say why a blank string is refused', () => {
    const result = laneSchema.safeParse(lane({ brief: ' ' }));
    expect(result.error?.issues.map((issue) => issue.message)).toContain('must be a non-blank string');
  });

  it('describe every field of the wave and the lane, under their titles', () => {
    const waveJson = z.toJSONSchema(waveSchema, { io: 'input', unrepresentable: 'any' }) as {
      title?: string;
      properties: Record<string, { description?: string; items?: { properties: Record<string, unknown> } }>;
    };
    const laneJson = z.toJSONSchema(laneSchema, { io: 'input', unrepresentable: 'any' }) as {
      title?: string;
      properties: Record<string, { description?: string }>;
    };
    expect(waveJson.title).toBe('crank wave');
    expect(laneJson.title).toBe('crank lane');
    expect(Object.keys(waveJson.properties).sort()).toEqual(['acceptance', 'lanes', 'repair_rounds']);
    expect(Object.keys(laneJson.properties).sort()).toEqual([
      'acceptance',
      'brief',
      'id',
      'regen_surfaces',
      'scope',
    ]);
    for (const key of ['acceptance', 'repair_rounds'])
      expect(waveJson.properties[key]?.description, key).toMatch(/\w{3}/);
    for (const [key, value] of Object.entries(laneJson.properties))
      expect(value.description, key).toMatch(/\w{3}/);
    expect(waveJson.properties.acceptance?.description).toMatch(/once/);
    expect(waveJson.properties.repair_rounds?.description).toMatch(/unchanged/);
    expect(laneJson.properties.regen_surfaces?.description).toMatch(/unknown/);
  });
});
