/**
 * Per-leg state of a coordinated ledger (issue 13), as `loopchart status` and the run viewer show
 * it: each member's base and seeded flag, its rows by status (from `## Leg mapping`) and whether
 * the in-flight tuple names it. Pure.
 */
import { HOME, type Ledger, type RowStatus } from './types.js';

/** Rows of one leg, counted by status. */
export type LegRowCounts = Readonly<Record<RowStatus, number>>;

/** One member of a coordinated ledger, as status reports it. */
export interface LegSummary {
  readonly member: string;
  /** True for the member whose checkout holds the spec and the ledger. */
  readonly home: boolean;
  /** `base <member>:` (full SHA). */
  readonly base: string;
  /** `seeded <member>:`. */
  readonly seeded: boolean;
  /** The ledger rows mapped to this member, in row order. */
  readonly rowNumbers: readonly number[];
  readonly rows: LegRowCounts;
  /** True when the ledger's `pending:` tuple names this member. */
  readonly pending: boolean;
}

/**
 * The members of a coordinated ledger in membership order, or `null` for a single-leg ledger.
 *
 * @param ledger the ledger
 * @param home the home member's name (from the spec); when omitted, the first member whose base
 *   equals `base:` (the home base, docs/decisions/legs.md L5)
 */
export function legSummaries(ledger: Ledger, home?: string): LegSummary[] | null {
  const legs = ledger.legs;
  if (legs === undefined) return null;
  const homeName = home ?? legs.members.find((member) => member.base === ledger.base)?.name ?? null;
  const statusOf = new Map(ledger.rows.map((row) => [row.row, row.status]));
  return legs.members.map((member) => {
    const rowNumbers = legs.mapping.filter((entry) => entry.leg === member.name).map((entry) => entry.row);
    const rows: Record<RowStatus, number> = { open: 0, done: 0, failed: 0, cut: 0 };
    for (const row of rowNumbers) {
      const status = statusOf.get(row);
      if (status !== undefined) rows[status] += 1;
    }
    return {
      member: member.name,
      home: member.name === homeName,
      base: member.base,
      seeded: member.seeded,
      rowNumbers,
      rows,
      pending: ledger.pending?.repo === member.name,
    };
  });
}

/**
 * The leg a ledger row belongs to (`home` for a single-leg ledger), or `null` for a row the
 * mapping does not list.
 *
 * @param ledger the ledger
 * @param row a ledger row number
 */
export function legOfRow(ledger: Ledger, row: number): string | null {
  if (ledger.legs === undefined) return ledger.rows.some((r) => r.row === row) ? HOME : null;
  return ledger.legs.mapping.find((entry) => entry.row === row)?.leg ?? null;
}

/** `open 1, done 2, failed 0, cut 0`: one leg's row counts on one line. */
export function formatLegRows(rows: LegRowCounts): string {
  return `open ${rows.open}, done ${rows.done}, failed ${rows.failed}, cut ${rows.cut}`;
}
