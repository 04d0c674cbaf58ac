/**
 * A reference child: the ledger a conforming child commits for a dispatch, and named ways to break
 * the contract. Pure. The model-based tests use it to build child returns for any dispatch the
 * machine plans, and the scripted child uses it to edit the real ledger, so a "valid return" is
 * valid by construction and a "miss" breaks exactly one named rule.
 */
import { formatChildBody, formatSubject } from './commits.js';
import { legRows } from './companion.js';
import { formatOutcomeDecision, formatSeedDecision } from './decisions.js';
import type { DispatchPlan } from './dispatch.js';
import type { Ledger, LedgerRow } from './types.js';

/** The contract violations the reference child can commit, one rule each. */
export type ContractViolation =
  /** Changes the `allowance:` header (V9). */
  | 'allowance-change'
  /** Writes a decision whose middle cell is 201 characters (V7). */
  | 'long-decision'
  /** Writes four result lines in the target's evidence (V11). */
  | 'four-results'
  /** Commits the ledger with the pending tuple still in it. */
  | 'keep-pending'
  /** Leaves the target's attempts unchanged. */
  | 'no-attempt'
  /** Marks a seed row `failed` (V3); for a row target, closes a foreign row as `failed`. */
  | 'failed-extra';

/** What the reference child does for one dispatch. */
export type ReferenceBehaviour =
  /** Seed: give `evidence` to these rows; close the listed ones on the baseline. */
  | {
      readonly kind: 'seed';
      readonly evidence: Readonly<Record<number, string>>;
      readonly closeOnBaseline?: readonly number[];
    }
  /** Numbered target: close it (`done`) or record a failed attempt, with this evidence cell. */
  | {
      readonly kind: 'done' | 'failed';
      readonly evidence: string;
      /** Other open rows closed beside the target, with their evidence. */
      readonly extras?: readonly { readonly row: number; readonly evidence: string }[];
    }
  /** A return that breaks exactly one rule of the contract. */
  | { readonly kind: 'violate'; readonly violation: ContractViolation };

/** The child's single commit: the ledger to commit, its subject and body. */
export interface ReferenceReturn {
  readonly ledger: Ledger;
  readonly subject: string;
  readonly body: string;
}

function withRows(ledger: Ledger, changes: ReadonlyMap<number, Partial<LedgerRow>>): Ledger {
  return { ...ledger, rows: ledger.rows.map((row) => ({ ...row, ...(changes.get(row.row) ?? {}) })) };
}

/**
 * The commit a child makes for `plan` when it behaves as `behaviour`.
 *
 * @param plan the planned dispatch (its reserved ledger is the one on disk when the child starts)
 * @param behaviour what the child does
 * @returns the ledger to commit (no pending tuple unless the violation keeps it), subject, body
 * @throws Error for a behaviour that does not fit the target (e.g. `seed` for a numbered target)
 */
export function referenceChildReturn(plan: DispatchPlan, behaviour: ReferenceBehaviour): ReferenceReturn {
  const consumed = plan.iteration + 1;
  const base: Ledger = { ...plan.reserved, pending: null };
  const body = formatChildBody(plan.pending, consumed);
  if (plan.target === 'verify') throw new Error('the reference child does not do verification repairs');

  if (behaviour.kind === 'violate') return violate(plan, base, body, behaviour.violation);

  if (plan.target === 'seed') {
    if (behaviour.kind !== 'seed') throw new Error('a seed dispatch needs a seed behaviour');
    const closed = new Set(behaviour.closeOnBaseline ?? []);
    const changes = new Map<number, Partial<LedgerRow>>();
    for (const [row, evidence] of Object.entries(behaviour.evidence))
      changes.set(Number(row), { evidence, ...(closed.has(Number(row)) ? { status: 'done' as const } : {}) });
    const seeded = changes.size;
    // A leg's seed names its own leg's first open row (docs/decisions/legs.md L24).
    const legOf = base.legs === undefined ? base.rows : legRows(base, plan.pending.repo);
    const firstOpen = legOf.find((row) => row.status === 'open' && !closed.has(row.row));
    const decision = formatSeedDecision(
      seeded,
      closed.size,
      firstOpen === undefined ? 'none' : `row ${firstOpen.row}`,
    );
    return {
      ledger: { ...withRows(base, changes), decisions: [...base.decisions, decision] },
      subject: formatSubject({ kind: 'seed-evidence' }),
      body,
    };
  }

  if (behaviour.kind === 'seed') throw new Error('a numbered dispatch needs a done or failed behaviour');
  const target = plan.target;
  const targetRow = base.rows.find((row) => row.row === target);
  if (targetRow === undefined) throw new Error(`the ledger has no row ${target}`);
  const changes = new Map<number, Partial<LedgerRow>>([
    [target, { status: behaviour.kind, attempts: targetRow.attempts + 1, evidence: behaviour.evidence }],
  ]);
  const decisions = [
    formatOutcomeDecision(
      target,
      behaviour.kind,
      `attempt ${targetRow.attempts + 1} ${behaviour.kind}`,
      'continue',
    ),
  ];
  for (const extra of behaviour.extras ?? []) {
    changes.set(extra.row, { status: 'done', evidence: extra.evidence });
    decisions.push(formatOutcomeDecision(extra.row, 'done', 'closed beside the target', 'continue'));
  }
  return {
    ledger: { ...withRows(base, changes), decisions: [...base.decisions, ...decisions] },
    subject: formatSubject({ kind: 'row', row: target, status: behaviour.kind }),
    body,
  };
}

function violate(
  plan: DispatchPlan,
  base: Ledger,
  body: string,
  violation: ContractViolation,
): ReferenceReturn {
  const seed = plan.target === 'seed';
  const targetRow = seed
    ? base.rows.find((row) => row.status === 'open')
    : base.rows.find((row) => row.row === plan.target);
  const row = targetRow?.row ?? 1;
  const attempts = (targetRow?.attempts ?? 0) + (seed ? 0 : 1);
  const subject = seed
    ? formatSubject({ kind: 'seed-evidence' })
    : formatSubject({ kind: 'row', row, status: 'failed' });
  const decision = seed
    ? formatSeedDecision(1, 0, `row ${row}`)
    : formatOutcomeDecision(row, 'failed', 'attempt failed', 'continue');
  const failed = { status: 'failed' as const, attempts, evidence: 'check; still failing' };
  const conforming = withRows(base, new Map([[row, seed ? { evidence: 'check; seeded' } : failed]]));
  const withDecision = (ledger: Ledger, line = decision): Ledger => ({
    ...ledger,
    decisions: [...ledger.decisions, line],
  });
  switch (violation) {
    case 'allowance-change':
      return { ledger: withDecision({ ...conforming, allowance: conforming.allowance + 1 }), subject, body };
    case 'long-decision':
      return {
        ledger: withDecision(conforming, `row ${row} failed | ${'x'.repeat(201)} | continue`),
        subject,
        body,
      };
    case 'four-results':
      return {
        ledger: withDecision(withRows(conforming, new Map([[row, { evidence: 'check; r1; r2; r3; r4' }]]))),
        subject,
        body,
      };
    case 'keep-pending':
      return { ledger: withDecision({ ...conforming, pending: plan.pending }), subject, body };
    case 'no-attempt':
      return {
        ledger: withDecision(withRows(conforming, new Map([[row, { attempts: targetRow?.attempts ?? 0 }]]))),
        subject,
        body,
      };
    case 'failed-extra': {
      const other = base.rows.find((candidate) => candidate.row !== row && candidate.status === 'open');
      const ledger =
        other === undefined
          ? conforming
          : withRows(conforming, new Map([[other.row, { status: 'failed', evidence: 'x; y' }]]));
      return {
        ledger: withDecision(seed ? withRows(ledger, new Map([[row, { status: 'failed' }]])) : ledger),
        subject,
        body,
      };
    }
  }
}
