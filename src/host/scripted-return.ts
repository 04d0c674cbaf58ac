/**
 * The ledger edit and commit of a scripted child's dispatch. Valid returns are built with the
 * pure formats (decision formatters, the attribution lines), so they are valid by construction; a
 * `miss` starts from a valid return and breaks exactly the named rule.
 */
import { extractActionRecords } from '../gauntlet/action-records.js';
import { formatAttribution, formatSubject } from '../gauntlet/commits.js';
import { legRows } from '../gauntlet/companion.js';
import { formatOutcomeDecision, formatSeedDecision, MAX_DECISION_CELL } from '../gauntlet/decisions.js';
import type { ChildTask } from '../gauntlet/dispatch.js';
import { escapeSegment, splitEvidence, unescapeEvidence } from '../gauntlet/evidence.js';
import type { Ledger, LedgerRow, PendingTuple } from '../gauntlet/types.js';
import type { Behaviour, ScriptedViolation } from './child-script.js';

/** What the child commits. */
export interface ScriptedCommit {
  /** The ledger to write (`null`: leave the file as it is). */
  readonly ledger: Ledger | null;
  readonly subject: string;
  readonly body: string;
}

type Outcome = Extract<Behaviour, { do: 'done' | 'failed' | 'seed' | 'miss' | 'verify-fix' | 'nothing' }>;

function withRows(ledger: Ledger, changes: ReadonlyMap<number, Partial<LedgerRow>>): Ledger {
  return { ...ledger, rows: ledger.rows.map((row) => ({ ...row, ...(changes.get(row.row) ?? {}) })) };
}

function clip(text: string): string {
  const chars = [...text];
  return chars.length <= MAX_DECISION_CELL ? text : chars.slice(0, MAX_DECISION_CELL).join('');
}

function firstResult(evidence: string): string {
  const segments = splitEvidence(evidence);
  return unescapeEvidence(segments[1] ?? segments[0] ?? 'no result').replace(/\|/g, '/');
}

/** Carried and newly spent records, each its own sentence, before the child's own words (§3.19). */
function summaryWith(records: readonly string[], text: string): string {
  return clip([...records, text].join('. '));
}

/** The attribution lines of the body, as the behaviour wants them. */
function bodyOf(
  task: ChildTask,
  pending: PendingTuple,
  behaviour: Outcome,
  records: readonly string[],
): string {
  const consumed = task.iteration + 1;
  const lines =
    behaviour.attribution === 'missing'
      ? []
      : behaviour.attribution === 'wrong-iteration'
        ? formatAttribution(pending, consumed + 1).split('\n')
        : [...task.commitBody];
  return [...lines, ...records].join('\n');
}

/**
 * The scripted child's commit for one dispatch.
 *
 * @param reserved the ledger on disk when the child starts (bumped, with the tuple)
 * @param task the task the child read
 * @param behaviour what the script says to do
 * @param spend action records the child spent in this dispatch (already in the jobs file)
 */
export function scriptedCommit(
  reserved: Ledger,
  task: ChildTask,
  behaviour: Outcome,
  spend: readonly string[] = [],
): ScriptedCommit {
  const pending = reserved.pending;
  if (pending === null) throw new Error('the ledger on disk carries no pending tuple');
  const records = [...task.actionRecords, ...spend];
  const body = bodyOf(task, pending, behaviour, records);
  const cleared: Ledger = { ...reserved, pending: null };

  if (behaviour.do === 'nothing') return { ledger: null, subject: 'scripted child: nothing', body };
  if (behaviour.do === 'verify-fix') return { ledger: null, subject: task.commitSubject, body };

  if (task.target === 'seed') return seedCommit(cleared, behaviour, records, body, task.leg?.member);
  if (typeof task.target !== 'number')
    throw new Error(`a ${behaviour.do} behaviour does not fit a ${task.kind} task`);
  return rowCommit(cleared, task.target, behaviour, records, body, pending);
}

function seedCommit(
  cleared: Ledger,
  behaviour: Outcome,
  records: readonly string[],
  body: string,
  member: string | undefined,
): ScriptedCommit {
  const subject = formatSubject({ kind: 'seed-evidence' });
  // A coordinated seed concerns its leg's rows only (`## Leg mapping`, docs/decisions/legs.md L24).
  const own = member === undefined || cleared.legs === undefined ? cleared.rows : legRows(cleared, member);
  let evidence: Record<string, string>;
  let close: number[] = [];
  let firstRow: string | undefined;
  if (behaviour.do === 'seed') {
    evidence = behaviour.evidence;
    close = behaviour.closeOnBaseline ?? [];
    firstRow = behaviour.firstRow;
  } else {
    const first = own.find((row) => row.status === 'open');
    evidence =
      first === undefined
        ? {}
        : {
            [first.row]:
              behaviour.do === 'miss' && behaviour.evidence ? behaviour.evidence : 'scripted check; seeded',
          };
  }
  const changes = new Map<number, Partial<LedgerRow>>();
  const seeded = Object.keys(evidence)
    .map(Number)
    .sort((a, b) => a - b);
  for (const row of seeded) {
    const cell = evidence[String(row)] as string;
    changes.set(row, { evidence: cell, ...(close.includes(row) ? { status: 'done' as const } : {}) });
  }
  // Carried records survive in the first seeded row's evidence (the seed decision has no room).
  const carried = records.filter(
    (record) =>
      !cleared.rows.some((row) => extractActionRecords(row.evidence).some((r) => r.text === record)),
  );
  const firstSeeded = seeded[0];
  if (carried.length > 0 && firstSeeded !== undefined) {
    const current = changes.get(firstSeeded)?.evidence ?? '';
    changes.set(firstSeeded, {
      ...changes.get(firstSeeded),
      evidence: [current, ...carried.map(escapeSegment)].join('; '),
    });
  }
  const closedCount = seeded.filter((row) => close.includes(row)).length;
  const open = own.find((row) => row.status === 'open' && !close.includes(row.row));
  const decision = formatSeedDecision(
    seeded.length,
    closedCount,
    firstRow ?? (open === undefined ? 'none' : `row ${open.row}`),
  );
  const valid: Ledger = { ...withRows(cleared, changes), decisions: [...cleared.decisions, decision] };
  if (behaviour.do !== 'miss') return { ledger: valid, subject, body };
  return {
    ...violate(valid, cleared, behaviour.violation, null, decision),
    subject: subjectFor(behaviour.violation, subject, null),
    body,
  };
}

function rowCommit(
  cleared: Ledger,
  target: number,
  behaviour: Outcome,
  records: readonly string[],
  body: string,
  pending: PendingTuple,
): ScriptedCommit {
  const row = cleared.rows.find((candidate) => candidate.row === target);
  if (row === undefined) throw new Error(`the ledger has no row ${target}`);
  const status = behaviour.do === 'done' ? 'done' : 'failed';
  const evidence =
    behaviour.do === 'done' || behaviour.do === 'failed'
      ? behaviour.evidence
      : behaviour.do === 'miss' && behaviour.evidence !== undefined
        ? behaviour.evidence
        : 'scripted check; still failing';
  const attempt = row.attempts + 1;
  const summary = summaryWith(
    records,
    behaviour.summary ?? `attempt ${attempt} ${status}: ${firstResult(evidence)}`,
  );
  const next = behaviour.next ?? (status === 'done' ? 'take the next row' : 'try again with this evidence');
  const changes = new Map<number, Partial<LedgerRow>>([[target, { status, attempts: attempt, evidence }]]);
  const decisions = [formatOutcomeDecision(target, status, summary, next)];
  const extras = behaviour.do === 'done' || behaviour.do === 'failed' ? (behaviour.extras ?? []) : [];
  for (const extra of extras) {
    changes.set(extra.row, { status: 'done', evidence: extra.evidence });
    decisions.push(
      formatOutcomeDecision(
        extra.row,
        'done',
        `closed beside row ${target}: ${firstResult(extra.evidence)}`,
        next,
      ),
    );
  }
  const valid: Ledger = { ...withRows(cleared, changes), decisions: [...cleared.decisions, ...decisions] };
  const subject = formatSubject({ kind: 'row', row: target, status });
  if (behaviour.do !== 'miss') return { ledger: valid, subject, body };
  const decision = decisions[0] as string;
  return {
    ...violate(valid, cleared, behaviour.violation, { target, status, pending }, decision),
    subject: subjectFor(behaviour.violation, subject, { target, status }),
    body,
  };
}

function subjectFor(
  violation: ScriptedViolation,
  subject: string,
  row: { target: number; status: 'done' | 'failed' } | null,
): string {
  if (violation !== 'wrong-subject') return subject;
  if (row === null) return 'loop: seed done';
  return formatSubject({ kind: 'row', row: row.target, status: row.status === 'done' ? 'failed' : 'done' });
}

function violate(
  valid: Ledger,
  cleared: Ledger,
  violation: ScriptedViolation,
  row: { target: number; status: 'done' | 'failed'; pending: PendingTuple } | null,
  decision: string,
): { ledger: Ledger } {
  const withoutDecision: Ledger = {
    ...valid,
    decisions: valid.decisions.filter((line) => line !== decision),
  };
  switch (violation) {
    case 'header-change':
      return { ledger: { ...valid, allowance: valid.allowance + 1 } };
    case 'malformed-decision': {
      const long =
        row === null
          ? decision
          : `row ${row.target} ${row.status} | ${'x'.repeat(MAX_DECISION_CELL + 1)} | continue`;
      return { ledger: { ...withoutDecision, decisions: [...withoutDecision.decisions, long] } };
    }
    case 'four-result-lines': {
      const target =
        row?.target ??
        valid.rows.find((r) => r.evidence !== cleared.rows.find((c) => c.row === r.row)?.evidence)?.row;
      if (target === undefined) return { ledger: valid };
      return { ledger: withRows(valid, new Map([[target, { evidence: 'scripted check; r1; r2; r3; r4' }]])) };
    }
    case 'keep-pending':
      return { ledger: { ...valid, pending: row?.pending ?? cleared.pending ?? null } };
    case 'no-attempt': {
      if (row === null) return { ledger: valid };
      const before = cleared.rows.find((r) => r.row === row.target)?.attempts ?? 0;
      return { ledger: withRows(valid, new Map([[row.target, { attempts: before }]])) };
    }
    case 'failed-extra': {
      const other = valid.rows.find((r) => r.status === 'open' && r.row !== row?.target);
      if (other === undefined) return { ledger: valid };
      const line = formatOutcomeDecision(other.row, 'failed', 'marked failed beside the target', 'continue');
      return {
        ledger: {
          ...withRows(
            valid,
            new Map([[other.row, { status: 'failed', evidence: 'scripted check; failed' }]]),
          ),
          decisions: [...valid.decisions, line],
        },
      };
    }
    case 'missing-decision':
      return { ledger: withoutDecision };
    case 'wrong-subject':
      return { ledger: valid };
    case 'removed-decision': {
      if (cleared.decisions.length === 0) return { ledger: withoutDecision };
      return { ledger: { ...valid, decisions: valid.decisions.slice(1) } };
    }
    case 'seed-miscount': {
      const m = /^row 0 done \| seeded (\d+) rows, closed (\d+) on baseline \| (.+)$/.exec(decision);
      if (m === null) return { ledger: valid };
      const wrong = formatSeedDecision(Number(m[1]) + 1, Number(m[2]), m[3] as string);
      return { ledger: { ...withoutDecision, decisions: [...withoutDecision.decisions, wrong] } };
    }
    case 'dropped-spend':
      // The records were left out when the ledger was built; the ledger itself conforms.
      return { ledger: valid };
  }
}
