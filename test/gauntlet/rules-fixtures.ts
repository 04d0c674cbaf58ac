/**
 * Test fixtures for the loop engine's counting and decision rules: ledgers built as plain data and
 * a small run builder that writes the commits a loop would write (gauntlet-protocol §2), so that
 * history tests read like the protocol's scenarios.
 *
 * The builder follows the protocol text, not the implementation under test: each method commits
 * the subject, body and ledger that §2's table and §3.10-§3.17 prescribe.
 */

import { historyFromCommits, type LoopHistory } from '../../src/gauntlet/history.js';
import type { CommitFact, Ledger, LedgerRow, PendingTuple, RowStatus } from '../../src/gauntlet/types.js';

/** Repo-relative ledger path used by every fixture. */
export const LEDGER_PATH = 'doc/plans/2026-11-02-csv-export.md';
/** Repo-relative spec path used by every fixture. */
export const SPEC_PATH = 'doc/specs/2026-11-02-csv-export.md';
/** A source file a child may touch. */
export const SOURCE_PATH = 'src/export/csv.ts';

const BASE = '3f9c2d1e6b0a47c58f1d2e3a4b5c6d7e8f901234';

/** One row as `[status, attempts, evidence]`. */
export type RowSpec = readonly [RowStatus, number, string?];

/** Builds a ledger: rows are numbered 1..N in the given order. */
export function ledgerOf(options: {
  readonly rows: readonly RowSpec[];
  readonly allowance?: number;
  readonly decisions?: readonly string[];
  readonly iterations?: number;
  readonly pending?: PendingTuple | null;
}): Ledger {
  return {
    discriminant: '# Loop ledger',
    spec: SPEC_PATH,
    base: BASE,
    verification: 'npm test',
    checks: 'commands',
    iterations: options.iterations ?? 0,
    allowance: options.allowance ?? 4,
    pending: options.pending ?? null,
    rows: options.rows.map(([status, attempts, evidence], index) => ({
      row: index + 1,
      status,
      attempts,
      evidence: evidence ?? '',
    })),
    decisions: [...(options.decisions ?? [])],
  };
}

/** Replaces one row's cells. */
export function withRow(ledger: Ledger, row: number, cells: Partial<Omit<LedgerRow, 'row'>>): Ledger {
  return { ...ledger, rows: ledger.rows.map((r) => (r.row === row ? { ...r, ...cells } : r)) };
}

let shaCounter = 0;

/** A fresh, unique, full 40-hex sha. */
export function nextSha(): string {
  shaCounter += 1;
  return shaCounter.toString(16).padStart(40, 'c');
}

/**
 * Writes the commits of a loop run one protocol step at a time and keeps the ledger as each step
 * leaves it.
 */
export class RunBuilder {
  ledger: Ledger;
  readonly commits: CommitFact[] = [];

  constructor(ledger: Ledger) {
    this.ledger = ledger;
    this.commit('loop: seed ledger', '', [LEDGER_PATH]);
  }

  /** HEAD of the run (the ledger base before the first commit). */
  head(): string {
    return this.commits.at(-1)?.sha ?? BASE;
  }

  /** Appends a commit with the current ledger (or `ledger`), returns its sha. */
  commit(
    subject: string,
    body: string,
    paths: readonly string[],
    ledger: Ledger | null = this.ledger,
  ): string {
    const sha = nextSha();
    this.commits.push({ sha, subject, body, paths: [...paths], ledger });
    return sha;
  }

  /** The tuple line and consumed iteration every dispatch body starts with. */
  private dispatch(target: number | 'seed' | 'verify'): { tuple: PendingTuple; body: string; i: number } {
    const i = this.ledger.iterations;
    const tuple: PendingTuple = { target, repo: 'home', head: this.head() };
    return { tuple, i, body: `pending: ${target} | home | ${tuple.head}\niteration: ${i + 1}` };
  }

  /** An admitted seed return: evidence on the given rows, `closed` of them done on baseline. */
  seedEvidence(evidence: Record<number, string>, closed: readonly number[] = [], firstRow = 'row 1'): this {
    const { body } = this.dispatch('seed');
    const seeded = Object.keys(evidence).length;
    let ledger: Ledger = { ...this.ledger, iterations: this.ledger.iterations + 1 };
    for (const [row, text] of Object.entries(evidence))
      ledger = withRow(ledger, Number(row), {
        evidence: text,
        ...(closed.includes(Number(row)) ? { status: 'done' as const } : {}),
      });
    ledger = {
      ...ledger,
      decisions: [
        ...ledger.decisions,
        `row 0 done | seeded ${seeded} rows, closed ${closed.length} on baseline | ${firstRow}`,
      ],
    };
    this.ledger = ledger;
    this.commit('loop: seed evidence', body, [LEDGER_PATH]);
    return this;
  }

  /** A seed return that fails validation: the child's commit stays, the parent restores the ledger. */
  seedMiss(miss: string): this {
    const { body, i } = this.dispatch('seed');
    const saved = this.ledger;
    const broken = withRow(
      {
        ...saved,
        iterations: i + 1,
        decisions: [...saved.decisions, 'row 0 done | seeded 9 rows, closed 0 on baseline | row 1'],
      },
      1,
      { status: 'failed', evidence: 'npm test; 1 failing' },
    );
    this.commit('loop: seed evidence', body, [LEDGER_PATH, SOURCE_PATH], broken);
    this.ledger = { ...saved, iterations: i + 1 };
    this.commit('loop: repair seed', `${body}\nseed miss: ${miss}`, [LEDGER_PATH]);
    return this;
  }

  /** An interrupted seed dispatch: reset, then `loop: repair seed` with `seed interrupted: <reason>`. */
  seedInterrupted(reason: string, records: readonly string[] = []): this {
    const { body, i } = this.dispatch('seed');
    this.ledger = { ...this.ledger, iterations: i + 1 };
    this.commit('loop: repair seed', [body, `seed interrupted: ${reason}`, ...records].join('\n'), [
      LEDGER_PATH,
    ]);
    return this;
  }

  /**
   * An admitted ordinary return for `row`: status, attempts + 1, evidence, one decision per changed
   * row (target first), optional `open` → `done` extras.
   */
  child(
    row: number,
    status: 'done' | 'failed',
    options: {
      readonly evidence?: string;
      readonly paths?: readonly string[];
      readonly extras?: readonly { readonly row: number; readonly evidence: string }[];
      readonly summary?: string;
    } = {},
  ): this {
    const { body, i } = this.dispatch(row);
    this.ledger = { ...this.childLedger(row, status, options), iterations: i + 1 };
    this.commit(`loop: row ${row} ${status}`, body, options.paths ?? [LEDGER_PATH, SOURCE_PATH]);
    return this;
  }

  private childLedger(
    row: number,
    status: 'done' | 'failed',
    options: {
      readonly evidence?: string;
      readonly extras?: readonly { readonly row: number; readonly evidence: string }[];
      readonly summary?: string;
    },
  ): Ledger {
    const current = this.ledger.rows.find((r) => r.row === row) as LedgerRow;
    let ledger = withRow(this.ledger, row, {
      status,
      attempts: current.attempts + 1,
      evidence: options.evidence ?? `npm test; attempt ${current.attempts + 1} ${status}`,
    });
    const decisions = [
      `row ${row} ${status} | ${options.summary ?? `attempt ${current.attempts + 1}`} | next step`,
    ];
    for (const extra of options.extras ?? []) {
      ledger = withRow(ledger, extra.row, { status: 'done', evidence: extra.evidence });
      decisions.push(`row ${extra.row} done | closed beside row ${row} | nothing`);
    }
    return { ...ledger, decisions: [...ledger.decisions, ...decisions] };
  }

  /**
   * An ordinary validation miss: the child's (rejected) commit stays on the branch; the parent
   * restores the saved ledger, sets the target failed with attempts + 1 and evidence
   * `iteration <i>: <miss>` and commits `loop: repair row <n>`.
   */
  miss(row: number, miss: string, childPaths: readonly string[] = [LEDGER_PATH, SOURCE_PATH]): this {
    const { body, i } = this.dispatch(row);
    const saved = this.ledger;
    const rejected = { ...this.childLedger(row, 'done', { evidence: '' }), iterations: i + 1 };
    this.commit(`loop: row ${row} done`, body, childPaths, rejected);
    const cells = saved.rows.find((r) => r.row === row) as LedgerRow;
    this.ledger = withRow({ ...saved, iterations: i + 1 }, row, {
      status: 'failed',
      attempts: cells.attempts + 1,
      evidence: `iteration ${i}: ${miss}`,
    });
    this.commit(`loop: repair row ${row}`, `${body}\nmiss: ${miss}`, [LEDGER_PATH]);
    return this;
  }

  /** An interrupted numbered dispatch: reset, then `loop: repair row <n>` with the interrupted evidence. */
  interrupted(row: number, reason: string, records: readonly string[] = []): this {
    const { body, i } = this.dispatch(row);
    const cells = this.ledger.rows.find((r) => r.row === row) as LedgerRow;
    this.ledger = withRow({ ...this.ledger, iterations: i + 1 }, row, {
      status: 'failed',
      attempts: cells.attempts + 1,
      evidence: [`iteration ${i}: interrupted - ${reason}`, ...records].join('; '),
    });
    this.commit(`loop: repair row ${row}`, [body, `interrupted: ${reason}`, ...records].join('\n'), [
      LEDGER_PATH,
    ]);
    return this;
  }

  /** Human retry: `row <n> retry | <hint> | allowed attempts <m>`, commit `loop: retry row <n>`. */
  retry(row: number, hint: string, allowedAttempts = 99): this {
    const line = `row ${row} retry | ${hint} | allowed attempts ${allowedAttempts}`;
    this.ledger = { ...this.ledger, decisions: [...this.ledger.decisions, line] };
    this.commit(`loop: retry row ${row}`, line, [LEDGER_PATH]);
    return this;
  }

  /** `rows +N`: allowance += N, `rows +N | <words>`, commit `loop: raise allowance`. */
  raise(amount: number, words = ''): this {
    const line = words === '' ? `rows +${amount} |` : `rows +${amount} | ${words}`;
    this.ledger = {
      ...this.ledger,
      allowance: this.ledger.allowance + amount,
      decisions: [...this.ledger.decisions, line],
    };
    this.commit('loop: raise allowance', line, [LEDGER_PATH]);
    return this;
  }

  /** An approved cut: row `cut` with the disposition as evidence, commit `loop: cut row <n>` (spec + ledger). */
  cut(row: number, disposition: string): this {
    this.ledger = withRow(this.ledger, row, { status: 'cut', evidence: disposition });
    this.commit(`loop: cut row ${row}`, `cut row ${row}: ${disposition}`, [SPEC_PATH, LEDGER_PATH]);
    return this;
  }

  /** A requirement-preserving amendment: rows unchanged, commit `loop: amend` (spec + ledger). */
  amend(): this {
    this.commit('loop: amend', 'clarified wording', [SPEC_PATH, LEDGER_PATH]);
    return this;
  }

  /** The escalated round's durable decision, commit `loop: escalate row <n>`. */
  escalate(row: number): this {
    const line = `row ${row} escalated | implModel round | allowed attempts ${this.ledger.allowance}`;
    this.ledger = { ...this.ledger, decisions: [...this.ledger.decisions, line] };
    this.commit(`loop: escalate row ${row}`, line, [LEDGER_PATH]);
    return this;
  }

  /** Writes an in-flight tuple on disk (uncommitted) with the iterations bump. */
  pending(target: number | 'seed' | 'verify'): PendingTuple {
    const tuple: PendingTuple = { target, repo: 'home', head: this.head() };
    this.ledger = { ...this.ledger, iterations: this.ledger.iterations + 1, pending: tuple };
    return tuple;
  }

  /** A verification repair: the child's commit keeps the tuple, the marker removes it. */
  verificationRepair(): this {
    const tuple = this.pending('verify');
    const body = `pending: verify | home | ${tuple.head}\niteration: ${this.ledger.iterations}`;
    const childSha = this.commit('loop: verification fix', body, [LEDGER_PATH, SOURCE_PATH]);
    this.ledger = { ...this.ledger, pending: null };
    this.commit('loop: repair verification', `${body}\nadmitted: ${childSha}`, [LEDGER_PATH]);
    return this;
  }

  /** The history as the loop would rebuild it now. */
  history(): LoopHistory {
    return historyFromCommits(this.commits, { ledger: this.ledger, ledgerPath: LEDGER_PATH });
  }
}

/** A run of `rows` open rows whose seed survived (evidence on every row, nothing closed). */
export function seededRun(rowCount: number, allowance = 4): RunBuilder {
  const run = new RunBuilder(
    ledgerOf({ rows: Array.from({ length: rowCount }, () => ['open', 0] as const), allowance }),
  );
  const evidence: Record<number, string> = {};
  for (let row = 1; row <= rowCount; row++) evidence[row] = `npm test; row ${row} not yet passing`;
  return run.seedEvidence(evidence);
}
