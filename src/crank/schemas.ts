import { z } from 'zod';
import { checkWave } from './wave-input.js';

/**
 * zod schemas of crank's input, for hosts that validate at their boundary and for JSON Schema
 * emission. Acceptance by these schemas is exactly acceptance by `checkWave`: the structural
 * part describes each field, and a refinement adds the rules JSON Schema cannot say (unique lane
 * ids, repository-relative scopes).
 */

const nonBlank = z.string().regex(/\S/, 'must be a non-blank string');
const commandSet = z
  .union([nonBlank, z.array(nonBlank).min(1)])
  .meta({ description: 'One command, or a non-empty list of commands.' });
const pathsOrGlobs = z.union([nonBlank, z.array(nonBlank).min(1)]);

/** One lane of a wave as the caller writes it. Unknown keys are allowed and ignored. */
export const laneSchema = z
  .looseObject({
    id: nonBlank
      .nullable()
      .optional()
      .meta({ description: 'Unique lane id; defaults to lane-<n> (1-based).' }),
    scope: pathsOrGlobs.meta({ description: 'Write scope: repository-relative paths or globs.' }),
    brief: nonBlank.meta({ description: 'What the lane is for: the intent RPI plans from.' }),
    acceptance: commandSet.meta({ description: "The lane's own executable acceptance." }),
    regen_surfaces: z.array(nonBlank).nullable().optional().meta({
      description:
        'Generated outputs, mirrors and manifests the lane reaches. Omitted means unknown, which serializes the lane with every other lane; [] declares none.',
    }),
  })
  .meta({ title: 'crank lane' });

/** A wave as the caller writes it: lanes, the repair bound forwarded to each lane, the wave acceptance. */
export const waveSchema = z
  .looseObject({
    lanes: z.array(laneSchema).min(1),
    repair_rounds: z.int().min(0).meta({ description: 'Repair rounds forwarded unchanged to every lane.' }),
    acceptance: commandSet.meta({ description: 'Run once after every lane has returned.' }),
  })
  .superRefine((wave, ctx) => {
    for (const f of checkWave(wave))
      ctx.addIssue({ code: 'custom', message: f.reason, params: { code: f.code } });
  })
  .meta({ title: 'crank wave' });
