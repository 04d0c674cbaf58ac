import { type Finding, finding } from '../common/finding.js';
import {
  ENTRY_CONTRACT_FIELDS,
  type EntryContract,
  type EntryContractField,
  entryContractSchema,
  type PartialEntryContract,
} from './entry-contract.js';

/** What a missing field would materially change if the loop guessed it. */
export type MaterialConcern = 'scope' | 'authority' | 'success-metric' | 'external-action';

/** Facts the host read from the repository and tools (read-only) that low-risk inference may use. */
export interface InferenceFacts {
  /** The checkout the loop would run in, e.g. `main at 3f2c1e0, clean`. */
  readonly checkout?: string;
}

/** A field filled by inference, with where the value came from. */
export interface InferredField {
  readonly field: EntryContractField;
  readonly label: string;
  readonly value: EntryContract[EntryContractField];
  /** Where the value came from: a protocol rule, another field, or a repository fact. */
  readonly source: string;
}

/** A missing field that stops the loop for user direction. */
export interface MissingField {
  readonly field: EntryContractField;
  readonly label: string;
  readonly concerns: readonly MaterialConcern[];
  /** Why the loop may not guess it. */
  readonly reason: string;
}

type Inference = (
  contract: PartialEntryContract,
  facts: InferenceFacts,
) => { value: unknown; source: string } | null;

/**
 * How each field is treated when it is missing. `infer` returns a value and its source, or null
 * when the value cannot be inferred safely (then the field stops for direction with `concerns`).
 */
interface FieldPolicy {
  readonly concerns: readonly MaterialConcern[];
  readonly reason: string;
  readonly infer: Inference | null;
}

const never: Inference | null = null;

/**
 * The infer-or-stop policy of every field. Fields that set scope, authority, the success metric
 * or an external action are never guessed; the rest take a protocol default, another field's
 * value or a repository fact, and record the source.
 */
export const ENTRY_CONTRACT_POLICY: Readonly<Record<EntryContractField, FieldPolicy>> = {
  outcome: {
    concerns: ['success-metric', 'scope'],
    reason: 'the outcome is what the loop works toward',
    infer: never,
  },
  nonGoals: {
    concerns: ['scope'],
    reason: 'non-goals narrow the scope',
    infer: () => ({
      value: 'none declared beyond the forbidden actions; anything outside the outcome is out of scope',
      source: 'protocol: the outcome and allowed actions already bound the scope, so no non-goal widens it',
    }),
  },
  environment: {
    concerns: ['scope'],
    reason: 'the checkout decides what the loop touches',
    infer: (_contract, facts) =>
      facts.checkout
        ? { value: facts.checkout, source: 'repository inspection (read-only)' }
        : {
            value: 'the current checkout, revision and dirty state recorded at baseline',
            source: 'protocol: baseline step 2 records the source revision, branch and dirty state',
          },
  },
  observableSource: {
    concerns: ['success-metric'],
    reason: 'the authoritative source defines what is measured',
    infer: never,
  },
  baseline: {
    concerns: [],
    reason: '',
    infer: () => ({
      value:
        'record revision, branch, dirty state and pre-existing work; run the evaluator once before acting',
      source: 'protocol: Baseline steps 1-6 (read-only inspection)',
    }),
  },
  unitOfAction: {
    concerns: [],
    reason: '',
    infer: () => ({
      value: 'the smallest permitted action with a causal reason',
      source: 'protocol: one cycle, step 3',
    }),
  },
  allowedActions: {
    concerns: ['authority', 'scope'],
    reason: 'allowed actions grant authority, which the protocol never adds',
    infer: never,
  },
  forbiddenActions: {
    concerns: ['authority'],
    reason: 'forbidden actions limit authority',
    infer: () => ({
      value:
        'commits, pushes, merges, deployments, production changes, messages and automation creation unless the request includes them',
      source: 'protocol: safety invariants treat these as separate authority (inferring them only narrows)',
    }),
  },
  actor: {
    concerns: ['authority'],
    reason: 'the sole writer holds the mutating authority over the checkout',
    infer: never,
  },
  evaluator: { concerns: ['success-metric'], reason: 'the evaluator decides success', infer: never },
  progressRule: {
    concerns: [],
    reason: '',
    infer: () => ({
      value:
        'each cycle closes a criterion, improves the metric beyond tolerance, eliminates a hypothesis, reduces the queue, yields new evidence or observes a new state; repeated activity is not progress',
      source: 'protocol: "Repeated activity is not progress"',
    }),
  },
  checkpoint: {
    concerns: [],
    reason: '',
    infer: () => ({
      value: 'loop-owned changes only; pre-existing work is preserved; no destructive git recovery',
      source: 'protocol: safety invariants (restore only loop-owned changes)',
    }),
  },
  stateLocation: {
    concerns: ['external-action'],
    reason: 'a durable path needs the user to approve it',
    infer: () => ({
      value: { kind: 'task_only' },
      source: 'protocol: keep the ledger in the current task unless the user approved a durable path',
    }),
  },
  iterationBudget: {
    concerns: ['authority'],
    reason: 'the iteration or poll budget bounds how much the loop may do',
    infer: never,
  },
  timeOrCostBudget: {
    concerns: ['authority'],
    reason: 'without an iteration budget there is no other bound on time or spend',
    infer: (contract) =>
      contract.iterationBudget !== undefined
        ? { value: {}, source: 'Iteration or poll budget: the loop is bounded by its iteration count' }
        : null,
  },
  success: {
    concerns: ['success-metric'],
    reason: 'success cannot be restated without an outcome',
    infer: (contract) => (contract.outcome ? { value: contract.outcome, source: 'Outcome' } : null),
  },
  terminalFailure: {
    concerns: [],
    reason: '',
    infer: () => ({
      value: 'the evaluator cannot run, or the outcome needs a forbidden action',
      source: 'protocol: stop rules (terminal failure, access lost, broader authority needed)',
    }),
  },
  plateauRule: {
    concerns: [],
    reason: '',
    infer: () => ({
      value: 'stop after 3 non-improving cycles',
      source: 'protocol: example contract ("stop after 3 non-improving attempts")',
    }),
  },
  escalateWhen: {
    concerns: [],
    reason: '',
    infer: () => ({
      value:
        'the next useful action needs broader scope or new authority, user changes overlap the rollback boundary, or the source is lost',
      source: 'protocol: stop rules that need user direction',
    }),
  },
  wakeup: {
    concerns: ['external-action'],
    reason: 'a cross-turn wakeup or automation is a separate authority',
    infer: () => ({
      value: 'continuation inside the current task; no cross-turn wakeup',
      source: 'protocol: the heartbeat may be a continuation inside the current task',
    }),
  },
  finalEvidence: {
    concerns: ['success-metric'],
    reason: 'final evidence cannot be named without an evaluator',
    infer: (contract) =>
      contract.evaluator
        ? {
            value: `the evaluator (${contract.evaluator}) passes on the final state`,
            source: 'Evaluator or guard',
          }
        : null,
  },
};

/** Result of {@link completeEntryContract}. */
export type EntryContractCompletion =
  | {
      readonly kind: 'complete';
      readonly contract: EntryContract;
      readonly inferred: readonly InferredField[];
    }
  | {
      readonly kind: 'stop';
      /** Fields the user must supply; nothing may start until they do. */
      readonly missing: readonly MissingField[];
      /** Fields that could be inferred meanwhile. */
      readonly inferred: readonly InferredField[];
    }
  | { readonly kind: 'invalid'; readonly findings: readonly Finding[] };

/**
 * Applies the infer-or-stop rule: infers low-risk missing fields (recording each source) and
 * stops for user direction when a missing field would change scope, authority, the success
 * metric or an external action. Fields already present are never replaced.
 *
 * @param contract the parsed (partial) contract
 * @param facts read-only repository facts low-risk inference may use
 * @returns the complete contract with its inferred fields, a stop naming every missing
 *   material field, or `invalid` with `loop-protocol.entry.field-invalid` findings when a present
 *   field does not satisfy the schema
 */
export function completeEntryContract(
  contract: PartialEntryContract,
  facts: InferenceFacts = {},
): EntryContractCompletion {
  const present = entryContractSchema.partial().safeParse(contract);
  if (!present.success)
    return {
      kind: 'invalid',
      findings: present.error.issues.map((issue) =>
        finding(
          'loop-protocol.entry.field-invalid',
          0,
          `${issue.path.join('.') || 'contract'}: ${issue.message}`,
        ),
      ),
    };
  const inferred: InferredField[] = [];
  const missing: MissingField[] = [];
  const filled: Record<string, unknown> = { ...contract };
  for (const spec of ENTRY_CONTRACT_FIELDS) {
    if (contract[spec.field] !== undefined) continue;
    const policy = ENTRY_CONTRACT_POLICY[spec.field];
    const guess = policy.infer ? policy.infer(contract, facts) : null;
    if (guess) {
      filled[spec.field] = guess.value;
      inferred.push({
        field: spec.field,
        label: spec.label,
        value: guess.value as EntryContract[EntryContractField],
        source: guess.source,
      });
    } else
      missing.push({
        field: spec.field,
        label: spec.label,
        concerns: policy.concerns,
        reason: policy.reason,
      });
  }
  if (missing.length > 0) return { kind: 'stop', missing, inferred };
  return { kind: 'complete', contract: entryContractSchema.parse(filled), inferred };
}

/**
 * The question put to the user when the contract stops for direction.
 *
 * @param missing the missing material fields
 * @returns one line per field: label, what it would change, why it cannot be guessed
 */
export function renderStopForDirection(missing: readonly MissingField[]): string {
  return `${[
    'The loop cannot start: these fields would materially change the loop and need your direction:',
    ...missing.map((m) => `- ${m.label} (changes ${m.concerns.join(', ')}): ${m.reason}`),
  ].join('\n')}\n`;
}
