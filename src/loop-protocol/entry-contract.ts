import { z } from 'zod';

/**
 * Where the loop's runtime state (its evidence ledger) lives: in the current task only, or at a
 * durable path the user approved. Never inferred as `approved_path`.
 */
export type StateLocation =
  | { readonly kind: 'task_only' }
  | { readonly kind: 'approved_path'; readonly path: string };

const text = z.string().trim().min(1);

/** Finds the plateau threshold in the rule's text: the first positive whole number. */
export function plateauThresholdOf(rule: string): number | null {
  const match = /\b(\d+)\b/.exec(rule);
  const value = match ? Number(match[1]) : 0;
  return Number.isSafeInteger(value) && value > 0 ? value : null;
}

const stateLocationSchema = z.discriminatedUnion('kind', [
  z.strictObject({ kind: z.literal('task_only') }),
  z.strictObject({ kind: z.literal('approved_path'), path: text }),
]);

const timeOrCostBudgetSchema = z.strictObject({
  timeMs: z.int().positive().optional(),
  tokens: z.int().positive().optional(),
  cost: z
    .strictObject({
      amount: z
        .number()
        .positive()
        .max(1e12)
        .refine((n) => Number(n.toFixed(6)) === n, 'at most 6 decimal places'),
      currency: z.string().regex(/^[A-Z]{3}$/, 'an ISO 4217 code such as USD'),
    })
    .optional(),
});

/**
 * The entry contract of the loop protocol as a zod 4 schema: one property per field of the
 * protocol's contract, all required (a complete contract). Field labels in the text form are in
 * {@link ENTRY_CONTRACT_FIELDS}.
 */
export const entryContractSchema = z.strictObject({
  outcome: text.describe('Outcome'),
  nonGoals: text.describe('Non-goals'),
  environment: text.describe('Environment or checkout'),
  observableSource: text.describe('Observable source'),
  baseline: text.describe('Baseline'),
  unitOfAction: text.describe('Unit of action'),
  allowedActions: text.describe('Allowed actions'),
  forbiddenActions: text.describe('Forbidden actions'),
  actor: text.describe('Actor and sole writer'),
  evaluator: text.describe('Evaluator or guard'),
  progressRule: text.describe('Progress rule'),
  checkpoint: text.describe('Checkpoint and rollback boundary'),
  stateLocation: stateLocationSchema.describe('State location: task_only | approved_path <path>'),
  iterationBudget: z.int().positive().max(1_000_000).describe('Iteration or poll budget'),
  timeOrCostBudget: timeOrCostBudgetSchema.describe(
    'Time or cost budget ({} = none beyond the iteration budget)',
  ),
  success: text.describe('Success'),
  terminalFailure: text.describe('Terminal failure'),
  plateauRule: text
    .refine(
      (rule) => plateauThresholdOf(rule) !== null,
      'the plateau rule must state a threshold, e.g. "stop after 3 non-improving attempts"',
    )
    .describe('Plateau or no-progress rule'),
  escalateWhen: text.describe('Escalate when'),
  wakeup: text.describe('Wakeup mechanism'),
  finalEvidence: text.describe('Final evidence'),
});

/** A complete entry contract. */
export type EntryContract = z.infer<typeof entryContractSchema>;

/** An entry contract with any fields missing (as parsed from text before inference). */
export type PartialEntryContract = Partial<EntryContract>;

/** The name of one entry contract field. */
export type EntryContractField = keyof EntryContract;

/** How a field's value is written in the `Field: value` text form. */
export type FieldValueKind =
  | 'text'
  | 'state-location'
  | 'iteration-budget'
  | 'time-or-cost-budget'
  | 'plateau-rule';

/** One field of the entry contract: its key, canonical label, accepted label aliases and value kind. */
export interface EntryContractFieldSpec {
  readonly field: EntryContractField;
  /** The label exactly as the protocol writes it. */
  readonly label: string;
  /** Shorter labels accepted when parsing (the protocol's own example uses `Iteration budget`, `Plateau`). */
  readonly aliases: readonly string[];
  readonly kind: FieldValueKind;
}

/** Every field of the entry contract, in the protocol's order. */
export const ENTRY_CONTRACT_FIELDS: readonly EntryContractFieldSpec[] = [
  { field: 'outcome', label: 'Outcome', aliases: [], kind: 'text' },
  { field: 'nonGoals', label: 'Non-goals', aliases: ['Non goals'], kind: 'text' },
  {
    field: 'environment',
    label: 'Environment or checkout',
    aliases: ['Environment', 'Checkout'],
    kind: 'text',
  },
  { field: 'observableSource', label: 'Observable source', aliases: [], kind: 'text' },
  { field: 'baseline', label: 'Baseline', aliases: [], kind: 'text' },
  { field: 'unitOfAction', label: 'Unit of action', aliases: [], kind: 'text' },
  { field: 'allowedActions', label: 'Allowed actions', aliases: [], kind: 'text' },
  { field: 'forbiddenActions', label: 'Forbidden actions', aliases: [], kind: 'text' },
  { field: 'actor', label: 'Actor and sole writer', aliases: ['Actor', 'Sole writer'], kind: 'text' },
  { field: 'evaluator', label: 'Evaluator or guard', aliases: ['Evaluator', 'Guard'], kind: 'text' },
  { field: 'progressRule', label: 'Progress rule', aliases: [], kind: 'text' },
  {
    field: 'checkpoint',
    label: 'Checkpoint and rollback boundary',
    aliases: ['Checkpoint', 'Rollback boundary'],
    kind: 'text',
  },
  { field: 'stateLocation', label: 'State location', aliases: [], kind: 'state-location' },
  {
    field: 'iterationBudget',
    label: 'Iteration or poll budget',
    aliases: ['Iteration budget', 'Poll budget'],
    kind: 'iteration-budget',
  },
  {
    field: 'timeOrCostBudget',
    label: 'Time or cost budget',
    aliases: ['Time budget', 'Cost budget'],
    kind: 'time-or-cost-budget',
  },
  { field: 'success', label: 'Success', aliases: [], kind: 'text' },
  { field: 'terminalFailure', label: 'Terminal failure', aliases: [], kind: 'text' },
  {
    field: 'plateauRule',
    label: 'Plateau or no-progress rule',
    aliases: ['Plateau', 'No-progress rule', 'Plateau rule'],
    kind: 'plateau-rule',
  },
  { field: 'escalateWhen', label: 'Escalate when', aliases: [], kind: 'text' },
  { field: 'wakeup', label: 'Wakeup mechanism', aliases: ['Wakeup'], kind: 'text' },
  { field: 'finalEvidence', label: 'Final evidence', aliases: [], kind: 'text' },
];
