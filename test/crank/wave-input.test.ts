import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import { waveSchema } from '../../src/crank/schemas.js';
import { checkWave, parseWave } from '../../src/crank/wave-input.js';
import { WAVE_FINDING_CODES, WaveUnrunnableError } from '../../src/crank/wave-unrunnable-error.js';

const lane = (extra: Record<string, unknown> = {}) => ({
  scope: ['src/parser/**'],
  brief: 'Parse the ledger header.',
  acceptance: ['npx vitest run test/parser'],
  regen_surfaces: [],
  ...extra,
});
const wave = (extra: Record<string, unknown> = {}) => ({
  lanes: [lane({ id: 'parser' }), lane({ id: 'docs', scope: 'docs/**' })],
  repair_rounds: 2,
  acceptance: 'npm test',
  ...extra,
});

function codes(input: unknown): string[] {
  return checkWave(input).map((f) => f.code);
}

describe('wave input', () => {
  it('a complete wave parses in caller order; single strings become one-element lists', () => {
    expect(parseWave(wave())).toEqual({
      lanes: [
        {
          id: 'parser',
          scope: ['src/parser/**'],
          brief: 'Parse the ledger header.',
          acceptance: ['npx vitest run test/parser'],
          regenSurfaces: [],
        },
        {
          id: 'docs',
          scope: ['docs/**'],
          brief: 'Parse the ledger header.',
          acceptance: ['npx vitest run test/parser'],
          regenSurfaces: [],
        },
      ],
      repairRounds: 2,
      acceptance: ['npm test'],
    });
  });

  it('lanes without an id are named by their 1-based position', () => {
    expect(parseWave(wave({ lanes: [lane(), lane()] })).lanes.map((l) => l.id)).toEqual(['lane-1', 'lane-2']);
  });

  it('undeclared regen surfaces are unknown (null), not empty', () => {
    const { regen_surfaces: _, ...noRegen } = lane();
    expect(parseWave(wave({ lanes: [noRegen] })).lanes[0]?.regenSurfaces).toBeNull();
  });

  it('a lane missing scope, brief or acceptance makes the wave unrunnable (named error, every problem listed)', () => {
    const input = wave({
      lanes: [lane({ scope: undefined }), lane({ brief: '' }), lane({ acceptance: [] })],
    });
    expect(codes(input)).toEqual([
      'wave.lane-scope-missing',
      'wave.lane-brief-missing',
      'wave.lane-acceptance-missing',
    ]);
    let thrown: unknown;
    try {
      parseWave(input);
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(WaveUnrunnableError);
    expect(thrown).toBeInstanceOf(InputError);
    expect((thrown as WaveUnrunnableError).code).toBe('wave.unrunnable');
    expect((thrown as WaveUnrunnableError).findings).toHaveLength(3);
    expect((thrown as Error).message).toMatch(/lane 1: the lane has no write scope/);
  });

  it('wave.not-an-object', () => expect(codes('lanes')).toEqual(['wave.not-an-object']));
  it('wave.lanes-not-a-list', () => expect(codes(wave({ lanes: {} }))).toEqual(['wave.lanes-not-a-list']));
  it('wave.no-lanes', () => expect(codes(wave({ lanes: [] }))).toEqual(['wave.no-lanes']));
  it('wave.repair-rounds-missing: crank never chooses the bound', () =>
    expect(codes(wave({ repair_rounds: undefined }))).toEqual(['wave.repair-rounds-missing']));
  it('wave.repair-rounds-invalid', () => {
    for (const value of [-1, 1.5, '2'])
      expect(codes(wave({ repair_rounds: value }))).toEqual(['wave.repair-rounds-invalid']);
  });
  it('wave.acceptance-missing', () =>
    expect(codes(wave({ acceptance: ' ' }))).toEqual(['wave.acceptance-missing']));
  it('wave.acceptance-invalid', () =>
    expect(codes(wave({ acceptance: ['ok', 3] }))).toEqual(['wave.acceptance-invalid']));
  it('wave.lane-not-an-object', () =>
    expect(codes(wave({ lanes: ['src/**'] }))).toEqual(['wave.lane-not-an-object']));
  it('wave.lane-id-invalid', () =>
    expect(codes(wave({ lanes: [lane({ id: 7 })] }))).toEqual(['wave.lane-id-invalid']));
  it('wave.duplicate-lane-id', () =>
    expect(codes(wave({ lanes: [lane({ id: 'a' }), lane({ id: 'a' })] }))).toEqual([
      'wave.duplicate-lane-id',
    ]));
  it('wave.lane-scope-invalid: absolute, escaping or non-string scopes', () => {
    for (const scope of ['/etc/**', 'C:\\work', '../other/**', 'src/../../x', [3]]) {
      expect(codes(wave({ lanes: [lane({ scope })] }))).toEqual(['wave.lane-scope-invalid']);
    }
  });
  it('wave.lane-acceptance-invalid', () =>
    expect(codes(wave({ lanes: [lane({ acceptance: { run: 'x' } })] }))).toEqual([
      'wave.lane-acceptance-invalid',
    ]));
  it('wave.lane-regen-surfaces-invalid', () => {
    for (const regen_surfaces of ['gen/**', [''], ['/abs']]) {
      expect(codes(wave({ lanes: [lane({ regen_surfaces })] }))).toEqual([
        'wave.lane-regen-surfaces-invalid',
      ]);
    }
  });

  it('every documented code is produced above', () => {
    const inputs = [
      'x',
      wave({ lanes: 1 }),
      wave({ lanes: [] }),
      wave({ repair_rounds: null, acceptance: [3] }),
      wave({ repair_rounds: -1, acceptance: '' }),
      wave({
        lanes: [
          1,
          lane({ id: '' }),
          lane({ id: 'x', scope: [], brief: null, acceptance: undefined }),
          lane({ id: 'x' }),
          lane({ scope: '/x', acceptance: [1], regen_surfaces: 'y' }),
        ],
      }),
    ];
    const produced = new Set(inputs.flatMap(codes));
    expect([...produced].sort()).toEqual([...WAVE_FINDING_CODES].sort());
  });

  it('the wave schema accepts exactly what checkWave accepts', () => {
    const odd = fc.constantFrom<unknown>(
      undefined,
      null,
      '',
      'x',
      '/abs',
      0,
      2,
      -1,
      [],
      ['a'],
      [''],
      {},
      'src/**',
    );
    const laneArb = fc
      .tuple(
        fc.constantFrom(lane(), lane({ id: 'a' }), lane({ id: 'b', scope: 'lib/**' })),
        fc.array(fc.tuple(fc.constantFrom('id', 'scope', 'brief', 'acceptance', 'regen_surfaces'), odd), {
          maxLength: 2,
        }),
      )
      .map(([base, edits]) => Object.assign({ ...base }, Object.fromEntries(edits)));
    const waveArb = fc
      .tuple(
        fc.array(laneArb, { maxLength: 3 }),
        fc.array(fc.tuple(fc.constantFrom('repair_rounds', 'acceptance'), odd), { maxLength: 1 }),
      )
      .map(([lanes, edits]) => Object.assign(wave({ lanes }), Object.fromEntries(edits)));
    let accepted = 0;
    fc.assert(
      fc.property(waveArb, (input) => {
        const ok = checkWave(input).length === 0;
        if (ok) accepted += 1;
        expect(waveSchema.safeParse(input).success).toBe(ok);
      }),
      { numRuns: 1000 },
    );
    expect(accepted).toBeGreaterThan(20);
  });
});
