import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { laneSchema, waveSchema } from '../../src/crank/schemas.js';

// docs/convergence.md §6: the description of each field of the published crank schemas, typed
// from that table.
const descriptions = (schema: z.ZodType): Record<string, string | undefined> => {
  const json = z.toJSONSchema(schema, { io: 'input', unrepresentable: 'any' }) as {
    properties: Record<string, { description?: string }>;
  };
  return Object.fromEntries(Object.entries(json.properties).map(([key, value]) => [key, value.description]));
};

describe('the published crank schemas', () => {
  it('describe each lane field as documented', () => {
    expect(descriptions(laneSchema)).toEqual({
      id: 'Unique lane id; defaults to lane-<n> (1-based).',
      scope: 'Write scope: repository-relative paths or globs.',
      brief: 'What the lane is for: the intent RPI plans from.',
      acceptance: "The lane's own executable acceptance.",
      regen_surfaces:
        'Generated outputs, mirrors and manifests the lane reaches. Omitted means unknown, which serializes the lane with every other lane; [] declares none.',
    });
  });

  it('describe the wave fields as documented', () => {
    const wave = descriptions(waveSchema);
    expect(wave.repair_rounds).toBe('Repair rounds forwarded unchanged to every lane.');
    expect(wave.acceptance).toBe('Run once after every lane has returned.');
  });
});
