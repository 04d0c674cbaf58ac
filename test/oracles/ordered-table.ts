/**
 * A reference of the loop engine's "Before each dispatch" (gauntlet protocol §3.4-§3.8, §3.11,
 * §3.13), written in test code from the protocol text and NOT from src/gauntlet: it reads the raw
 * facts (the ledger text and rows, the commit subjects, bodies and paths since the base, the spec
 * text, the held `escalateAfter`) and answers which row of the table applies, in the protocol's
 * order:
 *
 * 1. preconditions: `checks:` line, `allowance:` line and no `cap:` line, `escalateAfter` held;
 * 2. unreachable routing of the latest admitted failed target, once, until answered;
 * 3. rule 1: no `open` or `failed` row;
 * 4. rule 2: the lowest unresolved row with attempts >= its effective allowance;
 * 5. the seed until a validated seed survives (the seed count replaces rule 3);
 * 6. target selection, rule 3's hint for that row, rule 4's dispatch and the escalation threshold.
 *
 * Model-based tests compare the machine's choice with this; a mutant of the pure core that
 * changes a rule cannot change this reference.
 */

/** A ledger row as the reference reads it. */
export interface RefRow {
  readonly row: number;
  readonly status: string;
  readonly attempts: number;
  readonly evidence: string;
}

/**
 * Reads a ledger file's allowance, rows and decisions with plain patterns (§1.2-§1.5), so the
 * reference does not depend on the project's parser; `null` without an `allowance:` line.
 */
export function readLedgerText(text: string): TableFacts['ledger'] {
  const allowance = /^allowance: (\d+)$/m.exec(text)?.[1];
  if (allowance === undefined) return null;
  const rows = [...text.matchAll(/^\| (\d+) \| (\w+) \| (\d+) \| ?(.*?) ?\|$/gm)].map((m) => ({
    row: Number(m[1]),
    status: m[2] ?? '',
    attempts: Number(m[3]),
    evidence: (m[4] ?? '').trim(),
  }));
  const decisions = (text.split(/^## Decisions$/m)[1] ?? '').split('\n').filter((l) => l.trim() !== '');
  return { allowance: Number(allowance), rows, decisions };
}

/** The facts the table reads. */
export interface TableFacts {
  /** The ledger file as on disk (for the header preconditions). */
  readonly ledgerText: string;
  /** Rows, allowance and decisions of that ledger (`null` when it does not parse at all). */
  readonly ledger: {
    readonly allowance: number;
    readonly rows: readonly RefRow[];
    readonly decisions: readonly string[];
  } | null;
  /** Commits since the ledger base, oldest first. */
  readonly commits: readonly {
    readonly subject: string;
    readonly body: string;
    readonly paths: readonly string[];
  }[];
  readonly ledgerPath: string;
  /** The spec text held at seed or restore (venue rows, the amendment grant). */
  readonly specText: string | null;
  /** `loopEngine.escalateAfter`, or `null` when the settings tool was unavailable. */
  readonly escalateAfter: number | null;
}

/** The reference's answer. */
export type TableAnswer =
  | { readonly rule: 'preconditions' }
  | { readonly rule: 'bound-spent'; readonly row: number }
  | { readonly rule: 'unreachable-cut'; readonly row: number; readonly what: string; readonly where: string }
  | {
      readonly rule: 'unreachable-batch';
      readonly row: number;
      readonly what: string;
      readonly where: string;
    }
  /** `redraw: <why>`: always a stop (docs/decisions/amendments.md). */
  | { readonly rule: 'redraw'; readonly row: number; readonly reason: string }
  /** `amend: <what> - <evidence>` whose evidence the spec's `## Amendments` already carries. */
  | {
      readonly rule: 'repeated-evidence';
      readonly row: number;
      readonly what: string;
      readonly evidence: string;
    }
  /** `amend: <what> - <evidence>` applied under amend permission (`loop: amend`). */
  | { readonly rule: 'amend-apply'; readonly row: number; readonly what: string; readonly evidence: string }
  /** `amend: <what> - <evidence>` for the human without amend permission. */
  | { readonly rule: 'amend-batch'; readonly row: number; readonly what: string; readonly evidence: string }
  | { readonly rule: 'R1' }
  | { readonly rule: 'R2'; readonly row: number }
  | { readonly rule: 'seed-stop'; readonly repairs: number }
  | { readonly rule: 'seed'; readonly repairs: number }
  | {
      readonly rule: 'R3' | 'R4';
      readonly row: number;
      readonly escalated: boolean;
      /** The `hint:` the dispatch carries (human retry hint, rule-3 hint, or none). */
      readonly hint: string | null;
    };

/** The fragment of the rule label (transition description) the machine must take for an answer. */
export function labelOf(answer: TableAnswer): string {
  switch (answer.rule) {
    case 'preconditions':
      return 'preconditions';
    case 'bound-spent':
      return 'unreachable routing: bound spent';
    case 'unreachable-cut':
      return 'unreachable routing: cut under amend permission';
    case 'unreachable-batch':
      return 'unreachable routing: amend batch';
    case 'redraw':
      return 'amendment routing: a redraw item always stops';
    case 'repeated-evidence':
      return 'amendment routing: repeated evidence stops';
    case 'amend-apply':
      return 'amendment routing: apply the amend item under amend permission';
    case 'amend-batch':
      return 'amendment routing: amend item for the human';
    case 'R1':
      return 'R1 no open or failed row';
    case 'R2':
      return 'R2 ';
    case 'seed-stop':
      return 'R4 seed count reached';
    case 'seed':
      return 'R4 select seed';
    case 'R3':
      return 'R3 ';
    case 'R4':
      return 'R4 dispatch the selected row';
  }
}

const unresolved = (row: RefRow) => row.status === 'open' || row.status === 'failed';

/** §3.5: the header allowance plus one per `row <n> retry | … | allowed attempts <m>` decision. */
export function effectiveAllowanceOf(
  ledger: { readonly allowance: number; readonly decisions: readonly string[] },
  row: number,
): number {
  const retry = new RegExp(`^row ${row} retry \\| .* \\| allowed attempts \\d+$`);
  return ledger.allowance + ledger.decisions.filter((d) => retry.test(d)).length;
}

/** Splits an evidence cell on unescaped semicolons and trims each segment (§1.4). */
export function evidenceSegments(cell: string): string[] {
  const out: string[] = [];
  let current = '';
  for (let i = 0; i < cell.length; i++) {
    const ch = cell[i];
    if (ch === '\\' && i + 1 < cell.length) {
      current += ch + cell[i + 1];
      i++;
    } else if (ch === ';') {
      out.push(current.trim());
      current = '';
    } else current += ch;
  }
  out.push(current.trim());
  return out;
}

/** Spec facts: AC rows with a `venue:` disposition, and whether an amendment grant is active. */
export function specFacts(specText: string | null): {
  venueRows: number[];
  grant: boolean;
  /** The `; evidence: <e>` tails of the `## Amendments` bullets. */
  amendedEvidence: string[];
} {
  if (specText === null) return { venueRows: [], grant: false, amendedEvidence: [] };
  const lines = specText.split('\n');
  const venueRows: number[] = [];
  let row = 0;
  let inCriteria = false;
  for (const line of lines) {
    if (/^## /.test(line)) inCriteria = /^## Acceptance criteria\s*$/.test(line);
    else if (inCriteria && /^- \[[ x]\] /.test(line)) row++;
    else if (inCriteria && row > 0 && /^\s+venue: /.test(line)) venueRows.push(row);
  }
  const grantLines = lines.filter((l) => /^\*\*Amend-grant:\*\*/.test(l));
  const value = grantLines[0]?.replace(/^\*\*Amend-grant:\*\*/, '').trim() ?? '';
  const amendedEvidence: string[] = [];
  let inAmendments = false;
  for (const line of lines) {
    if (/^#{1,6} /.test(line)) inAmendments = line.trim() === '## Amendments';
    else if (inAmendments) {
      const tail = /^- .*; evidence: (.+)$/.exec(line.trim());
      if (tail !== null) amendedEvidence.push((tail[1] ?? '').trim());
    }
  }
  return { venueRows, grant: grantLines.length === 1 && value !== '' && value !== 'none', amendedEvidence };
}

const ROW_CHILD = /^loop: row (\d+) (done|failed)$/;
const ANSWERS = /^loop: (retry row \d+|raise allowance|amend|cut row \d+)$/;

/** §3.13: the admitted failed target routing still applies to, if any. */
function unroutedFailedTarget(facts: TableFacts): number | null {
  const { commits } = facts;
  let latest = -1;
  for (let i = commits.length - 1; i >= 0; i--) {
    const subject = commits[i]?.subject ?? '';
    if (ROW_CHILD.test(subject) || subject === 'loop: seed evidence' || /^loop: repair /.test(subject)) {
      latest = i;
      break;
    }
  }
  if (latest < 0) return null;
  const match = ROW_CHILD.exec(commits[latest]?.subject ?? '');
  if (match === null || match[2] !== 'failed') return null;
  if (commits.slice(latest + 1).some((c) => ANSWERS.test(c.subject))) return null;
  return Number(match[1]);
}

/** §3.8: the start of row `n`'s windows: after the latest retry of that row, amend, or any cut. */
function windowStart(facts: TableFacts, row: number): number {
  let start = 0;
  facts.commits.forEach((c, i) => {
    if (
      c.subject === `loop: retry row ${row}` ||
      c.subject === 'loop: amend' ||
      /^loop: cut row \d+$/.test(c.subject)
    )
      start = i + 1;
  });
  return start;
}

/** §3.8: rule 3's hint for `row`, or `null`. */
function rule3Hint(facts: TableFacts, row: number): string | null {
  const window = facts.commits.slice(windowStart(facts, row));
  // Empty-child stagnation: the last two child commits for this row changed nothing outside the ledger.
  const childCommits = window.filter((c) => new RegExp(`^loop: row ${row} `).test(c.subject));
  const lastTwo = childCommits.slice(-2);
  const changedOnlyLedger = (c: { paths: readonly string[] }) => c.paths.every((p) => p === facts.ledgerPath);
  // Status unchanged is not checkable from subjects alone; the world's empty-child commits are
  // failed→failed, so only the paths are read here.
  if (lastTwo.length === 2 && lastTwo.every(changedOnlyLedger))
    return 'the last two attempts changed nothing outside the ledger';
  // Validation misses: two consecutive ordinary-miss repairs of this row, with no conforming
  // return (a child row commit or a validated seed) in between.
  let misses = 0;
  let lastMiss = '';
  for (const c of window) {
    if (c.subject === `loop: repair row ${row}` && !/interrupted/.test(c.body)) {
      misses++;
      lastMiss = /^miss: (.+)$/m.exec(c.body)?.[1] ?? '';
    } else if (new RegExp(`^loop: row ${row} `).test(c.subject) || c.subject === 'loop: seed evidence') {
      misses = 0;
    }
  }
  if (misses >= 2) return `two returns broke the contract: ${lastMiss}`;
  return null;
}

/** §3.6: the retry target still unresolved (latest retry decision whose row was not dispatched since). */
function pendingRetry(facts: TableFacts, rows: readonly RefRow[]): { row: number; hint: string } | null {
  const ledger = facts.ledger;
  if (ledger === null) return null;
  for (let i = facts.commits.length - 1; i >= 0; i--) {
    const c = facts.commits[i];
    if (c === undefined) continue;
    const retry = /^loop: retry row (\d+)$/.exec(c.subject);
    if (retry !== null) {
      const row = Number(retry[1]);
      const status = rows.find((r) => r.row === row);
      if (status === undefined || !unresolved(status)) return null;
      const decision = [...ledger.decisions]
        .reverse()
        .find((d) => new RegExp(`^row ${row} retry \\| `).test(d));
      const hint = decision?.split(' | ')[1] ?? '';
      return { row, hint };
    }
    // A later dispatch of any kind consumed it.
    if (ROW_CHILD.test(c.subject) || /^loop: repair row /.test(c.subject)) return null;
  }
  return null;
}

/** The previous decision's row: the target of the latest admitted child row commit. */
function previousDecisionRow(facts: TableFacts): number | null {
  for (let i = facts.commits.length - 1; i >= 0; i--) {
    const subject = facts.commits[i]?.subject ?? '';
    const match = ROW_CHILD.exec(subject);
    if (match !== null) return Number(match[1]);
    if (/^loop: repair row /.test(subject)) return null; // §3.12: previous decision := none
  }
  return null;
}

/**
 * The protocol's answer for these facts.
 */
export function referenceTable(facts: TableFacts): TableAnswer {
  const text = facts.ledgerText;
  if (
    facts.ledger === null ||
    !/^checks: \S/m.test(text) ||
    !/^allowance: \d+$/m.test(text) ||
    /^cap:/m.test(text)
  )
    return { rule: 'preconditions' };
  // docs/decisions/rules.md 19: without `escalateAfter` the table still answers rule 1, rule 2 and
  // the seed stop; only where a dispatch would start does it stop ("stop before dispatch").
  const escalateAfter = facts.escalateAfter;
  const { ledger } = facts;
  const rows = ledger.rows;

  // Unreachable routing (§3.13), once per admitted failed target, before the ordered table.
  const failed = unroutedFailedTarget(facts);
  if (failed !== null) {
    const target = rows.find((r) => r.row === failed);
    const first = evidenceSegments(target?.evidence ?? '')[1] ?? '';
    if (/^bound spent: .+$/.test(first)) return { rule: 'bound-spent', row: failed };
    const unreachable = /^unreachable: (.+?) - (.+)$/.exec(first);
    const spec = specFacts(facts.specText);
    if (unreachable !== null && !spec.venueRows.includes(failed)) {
      const answer = { row: failed, what: unreachable[1] ?? '', where: unreachable[2] ?? '' };
      return spec.grant ? { rule: 'unreachable-cut', ...answer } : { rule: 'unreachable-batch', ...answer };
    }
    // Amendment markers (docs/decisions/amendments.md): a redraw always stops; an amend item whose
    // evidence the spec already carries stops; otherwise it applies under the grant or asks.
    const redraw = /^redraw: (.+)$/.exec(first);
    if (redraw !== null && unreachable === null)
      return { rule: 'redraw', row: failed, reason: (redraw[1] ?? '').trim() };
    const amend = /^amend: (.+?) - (.+)$/.exec(first);
    if (amend !== null && unreachable === null) {
      const answer = { row: failed, what: (amend[1] ?? '').trim(), evidence: (amend[2] ?? '').trim() };
      if (spec.amendedEvidence.includes(answer.evidence)) return { rule: 'repeated-evidence', ...answer };
      return spec.grant ? { rule: 'amend-apply', ...answer } : { rule: 'amend-batch', ...answer };
    }
  }

  // Rule 1.
  if (!rows.some(unresolved)) return { rule: 'R1' };
  // Rule 2: any unresolved row, lowest first.
  const exhausted = rows.find((r) => unresolved(r) && r.attempts >= effectiveAllowanceOf(ledger, r.row));
  if (exhausted !== undefined) return { rule: 'R2', row: exhausted.row };

  // Seed until a validated seed survives: a `loop: seed evidence` commit and its `row 0 done` decision.
  const seedSurvives =
    facts.commits.some((c) => c.subject === 'loop: seed evidence') &&
    ledger.decisions.some((d) => d.startsWith('row 0 done | '));
  if (!seedSurvives) {
    const repairs = facts.commits.filter((c) => c.subject === 'loop: repair seed').length;
    if (repairs >= ledger.allowance) return { rule: 'seed-stop', repairs };
    return escalateAfter === null ? { rule: 'preconditions' } : { rule: 'seed', repairs };
  }
  if (escalateAfter === null) return { rule: 'preconditions' };

  // Target selection (§3.6).
  const retry = pendingRetry(facts, rows);
  const previous = previousDecisionRow(facts);
  const target =
    retry?.row ??
    (previous !== null && rows.find((r) => r.row === previous)?.status === 'failed' ? previous : null) ??
    rows.find((r) => r.status === 'failed')?.row ??
    rows.find((r) => r.status === 'open')?.row;
  if (target === undefined) return { rule: 'R1' };
  const row = rows.find((r) => r.row === target) as RefRow;

  // Escalation threshold (§3.7).
  const effective = effectiveAllowanceOf(ledger, target);
  const spent = ledger.decisions.some((d) => d.startsWith(`row ${target} escalated | `));
  const threshold = Math.min(escalateAfter, effective - 1);
  const escalated = !spent && row.attempts >= threshold;

  // Rule 3 hint, unless the human's retry hint for this row wins.
  const hint3 = rule3Hint(facts, target);
  if (retry !== null && retry.row === target) return { rule: 'R4', row: target, escalated, hint: retry.hint };
  if (hint3 !== null) return { rule: 'R3', row: target, escalated, hint: hint3 };
  return { rule: 'R4', row: target, escalated, hint: null };
}
