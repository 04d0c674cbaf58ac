/**
 * Coordinated legs in the dispatch loop (gauntlet-protocol §3.20 and the coordinated-legs
 * reference in §4): which leg a dispatch goes to, how a leg's return is validated (a companion's
 * from its commit, never the reply), and the single home commit that records an admitted
 * companion return. Pure; the decisions where the reference is silent are in
 * docs/decisions/legs.md (L6-L12).
 */
import { formatActionRecord } from './action-records.js';
import { formatAttribution } from './commits.js';
import { formatPending } from './ledger.js';
import type { LedgerEdit } from './repair.js';
import {
  type ActionRecord,
  HOME,
  type Ledger,
  type LedgerRow,
  type PendingTuple,
  ROW_STATUSES,
  type RowStatus,
  type Target,
} from './types.js';
import {
  checkReturnBoundary,
  porcelainLines,
  type ReturnFacts,
  type ReturnOutcome,
  validateReturn,
} from './validate.js';

/**
 * The member a ledger row belongs to (`## Leg mapping`), or `home` for a single-leg ledger.
 *
 * @param ledger the ledger
 * @param row a row number of the ledger
 */
export function legOfRow(ledger: Ledger, row: number): string {
  if (ledger.legs === undefined) return HOME;
  const entry = ledger.legs.mapping.find((m) => m.row === row);
  if (entry === undefined) throw new Error(`row ${row} has no leg mapping`);
  return entry.leg;
}

/**
 * The member whose seed is still due (L7): the first member, in membership order, whose
 * `seeded <member>:` is `no` and which has at least one non-cut row. `null` when every such leg is
 * seeded (or the ledger is single-leg).
 *
 * @param ledger a coordinated ledger
 */
export function seedLeg(ledger: Ledger): string | null {
  if (ledger.legs === undefined) return null;
  for (const member of ledger.legs.members) {
    if (member.seeded) continue;
    const rows = legRows(ledger, member.name);
    if (rows.some((row) => row.status !== 'cut')) return member.name;
  }
  return null;
}

/**
 * The member a dispatch of `target` goes to: the mapped leg of a numbered row, the due seed leg
 * of a seed; `home` for a single-leg ledger.
 *
 * @param ledger the ledger at HEAD
 * @param target the selected target
 */
export function dispatchLeg(ledger: Ledger, target: Target): string {
  if (ledger.legs === undefined || target === 'verify') return HOME;
  if (target === 'seed') return seedLeg(ledger) ?? HOME;
  return legOfRow(ledger, target);
}

/**
 * The name of the home member of a ledger: the member whose base is the ledger's `base:` (L5:
 * the home base equals `base:`), else the first member; `home` for a single-leg ledger.
 *
 * @param ledger the ledger
 */
export function homeMemberOf(ledger: Ledger): string {
  if (ledger.legs === undefined) return HOME;
  const members = ledger.legs.members;
  return (members.find((m) => m.base === ledger.base) ?? members[0])?.name ?? HOME;
}

/**
 * Whether a tuple names a companion (a coordinated member other than home): its return is read
 * from the companion's commit and recorded in home.
 *
 * @param ledger the ledger the tuple was planned over
 * @param pending the tuple
 */
export function isCompanionTuple(ledger: Ledger, pending: PendingTuple): boolean {
  return ledger.legs !== undefined && pending.repo !== homeMemberOf(ledger);
}

/** The rows of one member, in row order. */
export function legRows(ledger: Ledger, member: string): LedgerRow[] {
  if (ledger.legs === undefined) return member === HOME ? [...ledger.rows] : [];
  const rows = new Set(ledger.legs.mapping.filter((m) => m.leg === member).map((m) => m.row));
  return ledger.rows.filter((row) => rows.has(row.row));
}

/** What a companion's commit body carries after its two attribution lines (L8). */
export interface CompanionBody {
  /** The four-column row lines, parsed, in body order. */
  readonly rows: readonly LedgerRow[];
  /** The decision lines (`row <n> ...`) after the row lines, verbatim. */
  readonly decisions: readonly string[];
  /** The first problem found reading the body, or `null`. */
  readonly problem: string | null;
}

/** Splits a table line on unescaped pipes (`\|` stays in the cell). */
function cellsOf(line: string): string[] {
  const inner = line.trim().replace(/^\|/, '').replace(/\|$/, '');
  const cells: string[] = [];
  let cell = '';
  for (let i = 0; i < inner.length; i++) {
    const ch = inner[i] as string;
    if (ch === '\\' && inner[i + 1] === '|') {
      cell += '\\|';
      i++;
    } else if (ch === '|') {
      cells.push(cell.trim());
      cell = '';
    } else cell += ch;
  }
  cells.push(cell.trim());
  return cells;
}

/**
 * Reads a companion commit body (L8): after the tuple and iteration lines, the returned rows as
 * ledger table lines (`| <n> | <status> | <attempts> | <evidence> |`), then the decision lines
 * (`row <n> ...`, the seed's `row 0 done | ...` included). Other lines (action records, prose) are
 * ignored; a decision line before the last row line, a malformed row line and a row listed twice
 * are problems.
 *
 * @param body the companion commit's body
 */
export function parseCompanionBody(body: string): CompanionBody {
  const lines = body.split('\n').slice(2);
  const rows: LedgerRow[] = [];
  const decisions: string[] = [];
  let problem: string | null = null;
  const fail = (text: string) => {
    problem ??= text;
  };
  for (const raw of lines) {
    const line = raw.trimEnd();
    if (line.trimStart().startsWith('|')) {
      if (decisions.length > 0) fail('a row line follows the decision lines (rows come first)');
      const cells = cellsOf(line);
      if (cells.length !== 4) {
        fail(`row line "${line.slice(0, 60)}" has ${cells.length} cells instead of 4`);
        continue;
      }
      const [id, status, attempts, evidence] = cells as [string, string, string, string];
      if (
        !/^\d+$/.test(id) ||
        !(ROW_STATUSES as readonly string[]).includes(status) ||
        !/^\d+$/.test(attempts)
      ) {
        fail(`row line "${line.slice(0, 60)}" is not | <row> | <status> | <attempts> | <evidence> |`);
        continue;
      }
      const row = Number(id);
      if (rows.some((r) => r.row === row)) fail(`row ${row} is listed twice`);
      rows.push({ row, status: status as RowStatus, attempts: Number(attempts), evidence });
    } else if (/^row \d+ /.test(line)) decisions.push(line);
  }
  return { rows, decisions, problem };
}

/**
 * The home ledger a companion's return stands for (L8): the saved ledger with the consumed
 * iteration, no tuple, every returned row's cells in place of the saved ones and the returned
 * decisions appended. Rows the body does not list keep their saved cells.
 *
 * @param saved the ledger saved before the dispatch
 * @param body the companion's parsed body
 * @returns the candidate ledger, or the problem that prevents building it
 */
export function companionCandidate(saved: Ledger, body: CompanionBody): Ledger | string {
  for (const row of body.rows)
    if (!saved.rows.some((r) => r.row === row.row)) return `row ${row.row} is not a row of the ledger`;
  const byRow = new Map(body.rows.map((row) => [row.row, row]));
  return {
    ...saved,
    iterations: saved.iterations + 1,
    pending: null,
    rows: saved.rows.map((row) => byRow.get(row.row) ?? row),
    decisions: [...saved.decisions, ...body.decisions],
  };
}

/** Facts of a leg return: the ordinary return facts, with the companion's body for a companion. */
export interface LegReturnFacts extends ReturnFacts {
  /**
   * For a companion return: the home checkout at the boundary (HEAD, and `status --porcelain`
   * minus the reserved ledger) and home HEAD when the dispatch was reserved. Home must be unmoved
   * and carry no dirt but the bump and tuple, else the return is not attributable to the dispatch.
   */
  readonly home?: { readonly headBefore: string; readonly head: string; readonly porcelain: string };
}

/**
 * Validates a return of a coordinated run (§3.20, the coordinated-legs reference's `## Companion
 * return validation`); a single-leg ledger goes to {@link validateReturn} unchanged.
 *
 * A companion return is read from its commit, never the reply: its boundary is the companion
 * checkout's (clean, exactly one commit after the tuple's HEAD), home must be unmoved and carry
 * only the bump and tuple, and the rows and decisions come from the commit body
 * ({@link parseCompanionBody}), validated as the home ledger they stand for by the driver's table.
 * Then, for every leg: a changed row of another leg is a miss (a foreign-leg extra); a companion
 * body listing a row of another leg is a miss (a foreign entry); a seed must list all and only its
 * leg's non-cut rows (a companion) and, for the home leg, set its own `seeded` to `yes` (L9); any
 * other change of the coordinated metadata is a miss.
 *
 * @param facts the return facts; `headLedger` is the home ledger at HEAD for a home return and is
 *   ignored (built from the body) for a companion return
 */
export function validateLegReturn(facts: LegReturnFacts): ReturnOutcome {
  const { saved, pending, target } = facts;
  if (saved.legs === undefined) return validateReturn(facts);
  const member = pending.repo;
  const companion = isCompanionTuple(saved, pending);
  const miss = (code: 'miss.rows' | 'miss.extra' | 'miss.header' | 'miss.seed-table', text: string) =>
    ({ kind: 'miss', target, code, miss: text }) as const;

  if (!companion) {
    const outcome = validateReturn(facts);
    if (outcome.kind !== 'admitted') return outcome;
    const foreign = outcome.changedRows.find((c) => legOfRow(saved, c.row) !== member);
    if (foreign !== undefined)
      return miss(
        'miss.extra',
        `row ${foreign.row} belongs to leg ${legOfRow(saved, foreign.row)}, not ${member}`,
      );
    const expectedLegs = seededAfter(saved, member, target === 'seed');
    if (JSON.stringify(outcome.ledger.legs) !== JSON.stringify(expectedLegs))
      return miss(
        'miss.header',
        target === 'seed'
          ? `a home seed sets "seeded ${member}: yes" and changes no other leg header or mapping`
          : 'the commit changed the coordinated leg headers or the leg mapping',
      );
    return outcome;
  }

  const reason = checkReturnBoundary(facts.boundary);
  if (reason !== null) return { kind: 'interrupted', target, reason };
  const home = facts.home;
  if (home !== undefined && (home.head !== home.headBefore || home.porcelain.trim() !== ''))
    return {
      kind: 'unattributed',
      target,
      what: 'ambiguous attribution',
      detail:
        home.head !== home.headBefore
          ? `home HEAD moved from ${home.headBefore} to ${home.head} during the ${member} dispatch`
          : `home has changes besides the reserved ledger: ${porcelainLines(home.porcelain)[0]}`,
    };
  const body = parseCompanionBody(facts.commit?.body ?? '');
  const candidate = companionCandidate(saved, body);
  const outcome = validateReturn({ ...facts, headLedger: typeof candidate === 'string' ? saved : candidate });
  if (outcome.kind === 'interrupted' || outcome.kind === 'unattributed') return outcome;
  if (body.problem !== null) return miss('miss.rows', body.problem);
  if (typeof candidate === 'string') return miss('miss.rows', candidate);
  const foreignEntry = body.rows.find((row) => legOfRow(saved, row.row) !== member);
  if (foreignEntry !== undefined)
    return miss(
      'miss.extra',
      `row ${foreignEntry.row} belongs to leg ${legOfRow(saved, foreignEntry.row)}, not ${member}`,
    );
  if (target === 'seed') {
    const listed = new Set(body.rows.map((row) => row.row));
    const unlisted = legRows(saved, member).find((row) => row.status !== 'cut' && !listed.has(row.row));
    if (unlisted !== undefined)
      return miss('miss.seed-table', `the ${member} seed does not list its row ${unlisted.row}`);
    const cut = body.rows.find((row) => saved.rows.find((r) => r.row === row.row)?.status === 'cut');
    if (cut !== undefined) return miss('miss.seed-table', `the ${member} seed lists the cut row ${cut.row}`);
  }
  return outcome;
}

/** The saved coordinated part with `member`'s seeded flag set when `seeded` is true. */
function seededAfter(saved: Ledger, member: string, seeded: boolean): Ledger['legs'] {
  const legs = saved.legs;
  if (legs === undefined || !seeded) return legs;
  return { ...legs, members: legs.members.map((m) => (m.name === member ? { ...m, seeded: true } : m)) };
}

/** The companion SHA as written into evidence: its first 12 characters (L10). */
export function shortSha(sha: string): string {
  return sha.slice(0, 12);
}

/**
 * The home commit that records an admitted companion return (L10, L11): the admitted ledger
 * (returned rows and decisions, consumed iteration, no tuple), each changed row's evidence with
 * the companion commit named after its check (`<check> @ <member> <sha12>; <results>`), and for a
 * seed `seeded <member>: yes`. Subject `loop: record <member> row <n>`, or `loop: record <member>
 * row 0` for a seed (row 0 is the seed decision's row). Body: the tuple and consumed iteration,
 * `companion: <member> <full sha>`, then the retained action records.
 *
 * @param input the admitted ledger (built from the body), the changed rows, the tuple, the
 *   companion commit and the retained action records
 */
export function companionRecordEdit(input: {
  readonly admitted: Ledger;
  readonly changedRows: readonly number[];
  readonly pending: PendingTuple;
  readonly companionSha: string;
  readonly actionRecords?: readonly ActionRecord[];
}): LedgerEdit {
  const { admitted, pending, companionSha } = input;
  const member = pending.repo;
  const changed = new Set(input.changedRows);
  const rows = admitted.rows.map((row) =>
    changed.has(row.row) ? withCommit(row, member, companionSha) : row,
  );
  const seed = pending.target === 'seed';
  const ledger: Ledger = { ...admitted, rows, legs: seededAfter(admitted, member, seed) as Ledger['legs'] };
  const rowNumber = seed ? 0 : pending.target;
  return {
    ledger,
    subject: `loop: record ${member} row ${String(rowNumber)}`,
    body: [
      formatAttribution(pending, admitted.iterations),
      `companion: ${member} ${companionSha}`,
      ...(input.actionRecords ?? []).map(formatActionRecord),
    ].join('\n'),
  };
}

function withCommit(row: LedgerRow, member: string, sha: string): LedgerRow {
  const mark = `@ ${member} ${shortSha(sha)}`;
  if (row.evidence.includes(mark)) return row;
  const at = row.evidence.search(/(?<!\\);/);
  const evidence =
    at < 0
      ? `${row.evidence} ${mark}`
      : `${row.evidence.slice(0, at).trimEnd()} ${mark}${row.evidence.slice(at)}`;
  return { ...row, evidence };
}

/** The tuple line of a companion dispatch, for messages. */
export function describeTuple(pending: PendingTuple): string {
  return formatPending(pending);
}

/**
 * What a companion child writes after its two attribution lines (L8), from the home ledger it
 * would have written: the changed rows as table lines (for a seed, every non-cut row of its leg,
 * changed or not), then the decision lines it added. The child contract's reference helper; the
 * scripted child uses it.
 *
 * @param reserved the home ledger on disk when the child started (bump and tuple)
 * @param edited the home ledger the child's work stands for
 * @param member the companion member
 * @param seed whether the dispatch is the leg's seed
 */
export function companionReturnLines(
  reserved: Ledger,
  edited: Ledger,
  member: string,
  seed: boolean,
): string[] {
  const before = new Map(reserved.rows.map((row) => [row.row, row]));
  const leg = new Set(legRows(reserved, member).map((row) => row.row));
  const rows = edited.rows.filter((row) => {
    const old = before.get(row.row);
    const changed =
      old === undefined ||
      old.status !== row.status ||
      old.attempts !== row.attempts ||
      old.evidence !== row.evidence;
    return changed || (seed && leg.has(row.row) && row.status !== 'cut');
  });
  const decisions = edited.decisions.slice(reserved.decisions.length);
  return [
    ...rows.map((row) => `| ${row.row} | ${row.status} | ${row.attempts} | ${row.evidence} |`),
    ...decisions,
  ];
}
