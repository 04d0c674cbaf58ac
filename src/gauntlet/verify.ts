/**
 * Verify step 1 of the loop engine (gauntlet-protocol §3.18): admission of one verification
 * repair, and the repair-count gate. Pure.
 *
 * A verification repair child fixes code for a failing gate. Its single commit keeps the bumped
 * ledger with `pending: verify …` and changes no row, header or decision; the parent's
 * `loop: repair verification` marker then removes the tuple. Anything else (killed, error,
 * non-DONE, dirty, zero or several commits, a ledger edit) is not admitted: the checkout is
 * recovered (interrupted recovery steps 1-3) and an empty marker records the consumed iteration.
 *
 * On a coordinated run the repair runs in the failing leg's checkout (§3.20). A companion child
 * commits in its own leg only: the home checkout keeps its HEAD and its only dirt is the bumped
 * ledger with the tuple, which the parent marker then commits in home without the tuple.
 */
import type { Finding } from '../common/finding.js';
import { extractActionRecords } from './action-records.js';
import { attributionMatches, readAttribution } from './commits.js';
import { formatPending, samePending } from './ledger.js';
import type { ActionRecord, Ledger, PendingTuple } from './types.js';
import {
  checkReturnBoundary,
  type InterruptedReason,
  porcelainLines,
  type ReturnBoundary,
} from './validate.js';

/** Facts about one verification repair return. */
export interface VerificationReturnFacts {
  /** The `pending: verify | <repo> | <HEAD>` tuple written before the dispatch. */
  readonly pending: PendingTuple;
  /** The ledger saved before the bump; its `iterations` is the pre-bump `i`. */
  readonly saved: Ledger;
  readonly boundary: ReturnBoundary;
  /** The single new commit, once the boundary passed. */
  readonly commit?: { readonly sha: string; readonly subject: string; readonly body: string };
  /**
   * The ledger at HEAD (or its findings), once the boundary passed. For a companion repair: the
   * home ledger on disk, which must still be the reserved one (bump and tuple, rows untouched).
   */
  readonly headLedger?: Ledger | readonly Finding[];
  /**
   * A repair in a companion leg (the tuple's repo is not home): what the home checkout showed
   * after the return. `boundary` and `commit` are then the companion checkout's.
   */
  readonly home?: {
    /** True when home's HEAD is no longer the HEAD it had at the dispatch. */
    readonly headMoved: boolean;
    /** Home's `status --porcelain` lines other than the reserved ledger (empty when none). */
    readonly unexpectedDirt: string;
  };
}

/** The verdict on a verification repair return. */
export type VerificationReturnOutcome =
  | {
      readonly kind: 'admitted';
      /** The admitted repair commit. */
      readonly childSha: string;
      /** Action records after the tuple and iteration lines of the child's body (§3.19). */
      readonly actionRecords: readonly ActionRecord[];
      /** The ledger at HEAD, still carrying the verify tuple. */
      readonly ledger: Ledger;
    }
  /** Recover the checkout (steps 1-3) and commit an empty marker with this reason. */
  | { readonly kind: 'not-admitted'; readonly reason: InterruptedReason | string }
  /** The commit cannot be attributed to this dispatch: recovery-incomplete stop (A12). */
  | { readonly kind: 'unattributed'; readonly detail: string }
  /**
   * A companion repair left home changed (HEAD moved, or dirt beyond the reserved ledger): a
   * state-preserving recovery-incomplete stop; nothing is reset (§3.20, "unexpected home changes").
   */
  | { readonly kind: 'home-changed'; readonly detail: string };

/**
 * Judges a verification repair return.
 *
 * @param facts the dispatch, the saved ledger and what git and the child reported
 * @returns `admitted`, `not-admitted` (with the interruption reason), `unattributed`, or
 *   `home-changed` for a companion repair that changed home
 */
export function validateVerificationReturn(facts: VerificationReturnFacts): VerificationReturnOutcome {
  const interrupted = checkReturnBoundary(facts.boundary);
  if (interrupted !== null) return { kind: 'not-admitted', reason: interrupted };
  const home = facts.home;
  if (home !== undefined && (home.headMoved || home.unexpectedDirt.trim() !== ''))
    return {
      kind: 'home-changed',
      detail: home.headMoved
        ? `home HEAD moved during the ${facts.pending.repo} verification repair`
        : `home has changes beyond the reserved ledger during the ${facts.pending.repo} verification repair: ${porcelainLines(home.unexpectedDirt).join('; ')}`,
    };
  const commit = facts.commit;
  if (commit === undefined) return { kind: 'not-admitted', reason: 'repair commit unreadable' };
  const consumed = facts.saved.iterations + 1;
  if (!attributionMatches(commit.body, facts.pending, consumed)) {
    const seen = readAttribution(commit.body);
    return {
      kind: 'unattributed',
      detail: `commit body starts with "${seen.pendingLine ?? ''}" / "${seen.iterationLine ?? ''}", expected "${formatPending(facts.pending)}" / "iteration: ${consumed}"`,
    };
  }
  const head = facts.headLedger;
  if (head === undefined || Array.isArray(head))
    return { kind: 'not-admitted', reason: 'ledger unreadable after repair' };
  const ledger = head as Ledger;
  const problem = ledgerChange(facts.saved, ledger, facts.pending);
  if (problem !== null) return { kind: 'not-admitted', reason: problem };
  const records = extractActionRecords(commit.body.split('\n').slice(2).join('\n'));
  return { kind: 'admitted', childSha: commit.sha, actionRecords: records, ledger };
}

function ledgerChange(saved: Ledger, head: Ledger, pending: PendingTuple): string | null {
  if (!samePending(head.pending, pending)) return 'repair commit did not keep the pending verify tuple';
  if (head.iterations !== saved.iterations + 1) return 'repair commit changed the iterations count';
  if (head.allowance !== saved.allowance) return 'repair commit changed the allowance';
  if (head.rows.length !== saved.rows.length) return 'repair commit changed the ledger rows';
  for (const [index, row] of saved.rows.entries()) {
    const after = head.rows[index];
    if (
      after === undefined ||
      after.row !== row.row ||
      after.status !== row.status ||
      after.attempts !== row.attempts ||
      after.evidence !== row.evidence
    )
      return `repair commit changed ledger row ${row.row}`;
  }
  if (
    head.decisions.length !== saved.decisions.length ||
    head.decisions.some((d, i) => d !== saved.decisions[i])
  )
    return 'repair commit changed the decisions';
  return null;
}

/**
 * True while verification repairs remain: `repairs < allowance`, with the bare header allowance
 * and no per-row retry increments (§3.18).
 */
export function verificationRepairAllowed(ledger: Ledger, repairs: number): boolean {
  return repairs < ledger.allowance;
}
