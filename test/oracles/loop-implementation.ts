/**
 * Hand-written expectations for every step of the loop engine's model-based suite, by the kind of
 * state the step ends in, derived from the gauntlet protocol (not from src/gauntlet):
 *
 * - a step that passes the ordered table takes the rule the reference table
 *   (./ordered-table.ts) answers for the refreshed facts, and the escalation check it prescribes;
 * - a step that validates a return takes the verdict of a small reference validation (§3.10);
 * - a step that starts an effect gives it the input the protocol prescribes: the reserved ledger
 *   is the saved one plus exactly the bump and the tuple for the reference's target, a commit has
 *   the protocol's subject, its ledger the protocol's edit and its body the protocol's lines;
 * - a step that ends at a human stop renders `gauntlet: question` alone on the first line, the
 *   stop's header, one `row <n>: <attempts> of <effective allowance>` line per unresolved row, the
 *   preservation sentence, and accepts exactly the offers the protocol's table lists;
 * - a step that ends the run ends in the final state its cause prescribes, with its text.
 */
import type { AnyStateNode } from 'xstate';
import { renderHumanStop } from '../../src/gauntlet/human-stop.js';
import type { ControlledInvocation } from '../../src/graph/controlled-actors.js';
import type { PathStep } from '../../src/graph/path-suite-schema.js';
import type { StepContext } from '../../src/graph/run-path.js';
import type { Oracle } from './harness.js';
import {
  effectiveAllowanceOf,
  labelOf,
  type RefRow,
  readLedgerText,
  referenceTable,
  type TableAnswer,
} from './ordered-table.js';
import {
  checkReviewInvocation,
  checkReviewStep,
  checkStep6Lines,
  REVIEW_STOP_HEADERS,
  REVIEW_STOP_OFFERS,
} from './reviews.js';

/** The parts of the loop's context the oracle reads (plain data; kept structural on purpose). */
interface Row extends RefRow {}
interface LedgerView {
  readonly base: string;
  readonly iterations: number;
  readonly allowance: number;
  readonly pending: {
    readonly target: number | 'seed' | 'verify';
    readonly repo: string;
    readonly head: string;
  } | null;
  readonly rows: readonly Row[];
  readonly decisions: readonly string[];
  /** A coordinated ledger's leg mapping (§1.7). */
  readonly legs?: { readonly mapping: readonly { readonly row: number; readonly leg: string }[] };
}
interface PlanView {
  readonly target: number | 'seed' | 'verify';
  readonly iteration: number;
  readonly pending: {
    readonly target: number | 'seed' | 'verify';
    readonly repo: string;
    readonly head: string;
  };
  readonly saved: LedgerView;
  readonly reserved: LedgerView;
  readonly hint: string | null;
  readonly previousDecision: string;
  readonly model: string | null;
  readonly actionRecords: readonly string[];
  /** A companion dispatch: home HEAD when it was planned (§3.20). */
  readonly homeHead?: string;
}
interface ContextView {
  readonly input: { readonly specPath: string; readonly ledgerPath: string };
  readonly settings: { readonly allowance: number; readonly escalateAfter: number } | null;
  readonly specText: string | null;
  readonly ledger: LedgerView | null;
  readonly plan: PlanView | null;
  readonly head: string | null;
  readonly stop: { readonly kind: string; readonly [field: string]: unknown } | null;
  readonly stopLedger: LedgerView | null;
  readonly problem: {
    readonly message: string;
    readonly findings: readonly { readonly line: number; readonly code: string }[];
  } | null;
  readonly error: string | null;
  readonly workspace: {
    readonly head: string;
    readonly ledgerText: string | null;
    readonly savedLedgerText: string | null;
  } | null;
  readonly history: { readonly verificationRepairs: number };
}
interface Snapshot {
  readonly value: unknown;
  readonly status: string;
  readonly output?: unknown;
  readonly context: ContextView;
  readonly _nodes: AnyStateNode[];
}

/** The stop texts the protocol fixes (§3.16, §4). */
const QUESTION = 'gauntlet: question';
const PRESERVE = "Preserve every row's attempts.";

/** §3.16's table of offers per stop, as the human events each stop state must accept. */
const OFFERS: Record<string, readonly string[]> = {
  rowAllowance: ['human.retry', 'human.raise', 'human.amend', 'human.stop'],
  missingModel: ['human.retry', 'human.raise', 'human.amend', 'human.stop'],
  seedExhaustion: ['human.retry', 'human.raise', 'human.amend', 'human.stop'],
  boundSpent: ['human.retry', 'human.raise', 'human.amend', 'human.stop'],
  // Answered by a retry, `rows +N` or an applied amendment (§3.13), so the row menu; an amendment
  // stop also offers the redraw the surface keeps outside its batch (docs/decisions/amendments.md).
  unreachableAmend: ['human.retry', 'human.raise', 'human.amend', 'human.redraw', 'human.stop'],
  specAmend: ['human.retry', 'human.raise', 'human.amend', 'human.redraw', 'human.stop'],
  repeatedEvidence: ['human.retry', 'human.raise', 'human.amend', 'human.redraw', 'human.stop'],
  redraw: ['human.retry', 'human.raise', 'human.amend', 'human.redraw', 'human.stop'],
  recoveryIncomplete: ['human.discard', 'human.stop'],
  commitBoundary: ['human.discard', 'human.stop'],
  // A dirty tree at a fresh entry: every change predates the run, so only stop (issue 10 item 2).
  dirtyTree: ['human.stop'],
  verificationFailed: ['human.amend', 'human.stop'],
  reopenedDuringVerify: ['human.return', 'human.stop'],
  ...REVIEW_STOP_OFFERS,
};

/** Effects whose failure the protocol routes somewhere other than the failed end. */
const ERROR_ROUTES: Record<string, string> = {
  // §3.9: a dispatch error is routed through the boundary to interrupted recovery.
  dispatchChild: 'implement.readingBoundary',
  dispatchRepairChild: 'verify.repair.readingBoundary',
  // §3.7: no model for the escalated round is the missing-model stop.
  resolveImplModel: 'humanStop.missingModel',
  // §3.18: no model for a verification repair is the verification stop.
  resolveRepairModel: 'humanStop.verificationFailed',
  // §3.1: an unavailable settings tool is a configuration error decided at seed, not a crash.
  resolveSettings: 'entry.routing',
};

/** The configuration stops (§3.1, §3.2, §3.4) by the rule that took the run there. */
const INVALID_TEXT: Record<string, RegExp> = {
  'spec missing or malformed': /spec/i,
  'settings tool unavailable': /settings tool unavailable/,
  'plan check found problems': /does not check|plan check/i,
  'pending tuple without a recoverable before-image': /pending tuple .*cannot be (read|recovered)/,
  'ledger on disk does not parse':
    /^(the ledger \S+ does not parse|ledger has no checks: line.*|ledger has no allowance: line - resume through \/skill:gauntlet-resume)$/,
  'legacy cap: ledger that cannot be migrated':
    /^cannot migrate the legacy ledger \S+: the legacy cap: value "two" is not a non-negative integer$/,
  'preconditions (checks:, allowance:, escalateAfter)':
    /^(ledger has no allowance: line - resume through \/skill:gauntlet-resume|ledger has no checks: line.*|cannot resolve escalation threshold: settings tool unavailable \(loopEngine\.escalateAfter\))$/,
};

/** The leaf state id (without the machine id) the snapshot is in. */
function leafOf(snapshot: Snapshot): string {
  const leaves = snapshot._nodes.filter(
    (n) => n.type !== 'parallel' && (n.states === undefined || Object.keys(n.states).length === 0),
  );
  const leaf = leaves.at(-1);
  return leaf === undefined ? '' : leaf.id.replace(/^loop-implementation\./, '');
}

function tuple(p: { target: unknown; repo: string; head: string }): string {
  return `pending: ${String(p.target)} | ${p.repo} | ${p.head}`;
}

function rowsWithout(ledger: LedgerView, row: number): Row[] {
  return ledger.rows
    .filter((r) => r.row !== row)
    .map(({ row: n, status, attempts, evidence }) => ({ row: n, status, attempts, evidence }));
}

function plainRows(ledger: LedgerView): Row[] {
  return rowsWithout(ledger, -1);
}

/** The facts of the latest refresh in the path up to this step, with the reference's answer. */
function latestTable(
  context: StepContext,
  snapshot: Snapshot,
): { answer: TableAnswer; refreshedAt: number } | null {
  for (let i = context.index; i >= 0; i--) {
    const step = context.path.steps[i];
    if (step?.event.type !== 'xstate.done.actor.refresh') continue;
    const output = step.event.output as {
      ledgerText: string;
      commits: { subject: string; body: string; paths: string[] }[];
    };
    const c = snapshot.context;
    return {
      refreshedAt: i,
      answer: referenceTable({
        ledgerText: output.ledgerText,
        ledger: readLedgerText(output.ledgerText),
        commits: output.commits,
        ledgerPath: c.input.ledgerPath,
        specText: c.specText,
        escalateAfter: c.settings?.escalateAfter ?? null,
      }),
    };
  }
  return null;
}

/** HEAD as the latest gate run in the path reported it (after its gate-produced commit). */
function latestGateHead(context: StepContext): unknown {
  for (let i = context.index; i >= 0; i--) {
    const event = context.path.steps[i]?.event;
    if (event?.type === 'xstate.done.actor.runGates') return (event.output as { head?: unknown }).head;
  }
  return 'no gate run';
}

/** The latest gate run's output in the path (coordinated runs name the failing leg), if any. */
function latestGateOutput(context: StepContext): { leg?: string; legHead?: string } | null {
  for (let i = context.index; i >= 0; i--) {
    const event = context.path.steps[i]?.event;
    if (event?.type === 'xstate.done.actor.runGates')
      return event.output as { leg?: string; legHead?: string };
  }
  return null;
}

/** The human event of the latest step up to this one, if any. */
function latestHumanEvent(context: StepContext): PathStep['event'] | null {
  for (let i = context.index; i >= 0; i--) {
    const event = context.path.steps[i]?.event;
    if (event?.type.startsWith('human.')) return event;
  }
  return null;
}

/** The latest output of the effect `id` in the path up to this step, if it reported one. */
function latestOutput(context: StepContext, id: string): Record<string, unknown> | null {
  for (let i = context.index; i >= 0; i--) {
    const event = context.path.steps[i]?.event;
    if (event?.type === `xstate.done.actor.${id}`)
      return (event.output ?? null) as Record<string, unknown> | null;
  }
  return null;
}

/** A reservation the host reported at entry (WorkspaceFacts.reservation), as plain data. */
interface ReservationView {
  readonly plan: PlanView;
  readonly launched: boolean;
  readonly subjects: readonly string[] | null;
}

/**
 * The plan a resumed dispatch must carry, written from §3.2 and the host contract: the stored
 * plan's task fields when its tuple is the one in flight. The tuple is in flight either because
 * the ledger carries it, or because the child's own commit (and only child commits: `loop: row <n>
 * done|failed`, `loop: seed evidence`, `loop: verification fix`) followed the reservation.
 */
function storedPlanInFlight(context: StepContext, pending: PlanView['pending']): PlanView | null {
  const workspace = latestOutput(context, 'inspectWorkspace');
  const reservation = (workspace?.reservation ?? null) as ReservationView | null;
  if (reservation === null || tuple(reservation.plan.pending) !== tuple(pending)) return null;
  return reservation.plan;
}

const CHILD_SUBJECT = /^loop: (row \d+ (done|failed)|seed evidence|verification fix)$/;

/** Checks one step of the loop engine's suite; `previous` is the count of invocations before it. */
export function checkLoopStep(
  oracle: Oracle,
  snapshot: Snapshot,
  step: PathStep,
  context: StepContext,
  previous: number,
  definitions: ReadonlyMap<
    string,
    { readonly source: string; readonly rule?: string; readonly index: number }
  >,
): void {
  const c = snapshot.context;
  const leaf = leafOf(snapshot);
  const taken = step.transitions.map((key) => definitions.get(key));

  // 1. The ordered table: the rule the reference answers for the refreshed facts.
  const table = latestTable(context, snapshot);
  for (const t of taken) {
    if (t?.source === 'loop-implementation.implement.beforeDispatch') {
      if (table === null) throw new Error('the ordered table ran without a refresh in the path');
      oracle.same(
        step,
        'ordered table rule',
        (t.rule ?? '').startsWith(labelOf(table.answer)) ? labelOf(table.answer) : t.rule,
        labelOf(table.answer),
      );
    }
    if (t?.source === 'loop-implementation.implement.escalation' && table !== null) {
      const escalated = 'escalated' in table.answer && table.answer.escalated;
      oracle.same(step, 'escalation threshold (§3.7)', t.index === 0, escalated);
    }
  }

  // 2. Validation verdicts: a small reference of §3.10.
  for (const t of taken) {
    if (
      t?.source === 'loop-implementation.implement.validating' ||
      t?.source === 'loop-implementation.verify.repair.validating'
    )
      oracle.same(
        step,
        'validation verdict (§3.10)',
        verdictLabel(t.rule ?? ''),
        referenceVerdict(context, c),
      );
  }

  // 3. The effect this step started gets the input the protocol prescribes.
  for (const invocation of context.invocations.slice(previous)) {
    if (checkReviewInvocation(oracle, step, invocation, c, context)) continue;
    checkInvocation(oracle, step, invocation, c, table?.answer ?? null, context);
  }
  // 3b. Verify steps 2-3: where a review verdict leads (./reviews.ts).
  checkReviewStep(oracle, step, leaf, snapshot.status, c, context);

  // 4. Human stops: text and menu.
  const stopNode = snapshot._nodes.find((node) => node.parent?.key === 'humanStop');
  if (stopNode !== undefined) checkStop(oracle, step, stopNode, c);

  // 5. Error events end where the protocol routes them, with the effect's message held.
  if (step.event.type.startsWith('xstate.error.actor.')) {
    const actor = step.event.type.slice('xstate.error.actor.'.length);
    const route = ERROR_ROUTES[actor];
    if (route === undefined) {
      // The model rejects with a plain object (not an Error): the run ends failed with an error held.
      oracle.same(
        step,
        'an effect failure ends the run',
        [leaf, snapshot.status, typeof c.error],
        ['failed', 'done', 'string'],
      );
    } else {
      oracle.same(
        step,
        'an effect failure is routed (§3.7, §3.9, §3.18)',
        step.transitions.some((k) => k.startsWith(`loop-implementation.${route}|`)) ||
          leaf.startsWith(route) ||
          JSON.stringify(snapshot.value).includes(route.split('.').at(-1) ?? ''),
        true,
      );
    }
  }

  // 6. Final states other than failed: the run ends for the cause the protocol names.
  if (snapshot.status === 'done' && leaf === 'invalid') {
    const cause = taken.map((t) => t?.rule ?? '').find((rule) => rule in INVALID_TEXT) ?? 'no cause';
    oracle.matches(
      step,
      `configuration stop text (${cause})`,
      c.problem?.message ?? '',
      INVALID_TEXT[cause] ?? /^$/,
    );
  }
  if (taken.some((t) => t?.rule === 'ledger on disk does not parse'))
    checkUnreadableLedger(oracle, step, c, context.invocations.length - previous);
  if (snapshot.status === 'done' && leaf === 'stopped') {
    oracle.same(step, 'stop keeps the branch (human.stop)', step.event.type, 'human.stop');
    // The machine itself says what Stop means (its output); a host prints it as is.
    oracle.same(step, 'stop text (output of stopped)', snapshot.output, {
      status: 'stopped',
      text: 'Stopped by the human: branch state preserved.\n',
    });
  }
  if (snapshot.status === 'done' && leaf === 'redrawn') {
    // A redraw ends the run after its commit; the next run reseeds (docs/decisions/amendments.md).
    oracle.same(step, 'redraw ends after its commit', step.event.type, 'xstate.done.actor.commitRedraw');
    const reason = (latestHumanEvent(context) as { reason?: string } | null)?.reason ?? '';
    oracle.same(step, 'redrawn text (output of redrawn)', snapshot.output, {
      status: 'stopped',
      text: `Redrawn: ${c.input.ledgerPath} is deleted (loop: redraw - ${reason}). Redraw the spec, then run again: the next run seeds a fresh ledger from the spec.\n`,
    });
  }
  if (snapshot.status === 'done' && leaf === 'invalid')
    oracle.same(
      step,
      'configuration stop output',
      (snapshot.output as { status?: string; message?: string } | undefined)?.message,
      c.problem?.message,
    );
  if (snapshot.status === 'done' && leaf === 'failed')
    oracle.same(step, 'failure output', snapshot.output, { status: 'failed', message: c.error });
  if (snapshot.status === 'done' && leaf === 'finished')
    oracle.same(
      step,
      // Verify finishes only through step 5, after a closure (CONFORMS, or the audit waived):
      // never straight from a missing conformance reviewer.
      'finishing only after closure (step 5)',
      step.event.type,
      'xstate.done.actor.finishBranch',
    );
}

/** The row statuses of the ledger format (gauntlet-protocol §1). */
const ROW_STATUSES = ['open', 'done', 'failed', 'cut'];

/**
 * A restore of a file that is no loop ledger (§3.2, §4's configuration errors): the run ends
 * `invalid` with §3.4's precondition sentence when the `checks:` or `allowance:` line is what
 * fails (docs/decisions/rules.md 21-22), else naming the ledger; with a finding on every table line
 * whose status is none of the four; and starts no effect (no refresh, reset, discard or commit).
 */
function checkUnreadableLedger(oracle: Oracle, step: PathStep, c: ContextView, started: number): void {
  const text = c.workspace?.ledgerText ?? '';
  const header = text.split(/^\|/m)[0] ?? '';
  const message = !/^checks: *\S/m.test(header)
    ? 'ledger has no checks: line - add `checks: commands` after the verification: header'
    : !/^allowance:/m.test(header) || /^cap:/m.test(header)
      ? 'ledger has no allowance: line - resume through /skill:gauntlet-resume'
      : `the ledger ${c.input.ledgerPath} does not parse`;
  const lines = text.split('\n');
  const badRows = lines
    .map((line, i) => ({ line: i + 1, status: /^\| \d+ \| (\w+) \|/.exec(line)?.[1] }))
    .filter((r) => r.status !== undefined && !ROW_STATUSES.includes(r.status))
    .map((r) => r.line);
  const findingLines = new Set((c.problem?.findings ?? []).map((f) => f.line));
  oracle.same(
    step,
    'an unreadable ledger at restore (§3.2)',
    {
      message: c.problem?.message,
      named: badRows.every((line) => findingLines.has(line)),
      effectsStarted: started,
    },
    { message, named: true, effectsStarted: 0 },
  );
}

function verdictLabel(rule: string): string {
  if (rule.includes('interrupted') || rule.startsWith('not admitted')) return 'interrupted';
  if (rule.includes('not attributable')) return 'unattributed';
  if (rule.includes('miss')) return 'miss';
  return 'admitted';
}

/** §3.10 as a reference: boundary, attribution, headers, then the table per target. */
function referenceVerdict(context: StepContext, c: ContextView): string {
  const plan = c.plan;
  if (plan === null) return 'no plan';
  type Child = { returned?: string | null; killedAfterSilence?: boolean };
  type Boundary = {
    porcelain: string;
    commitCount: number;
    commit: { subject: string; body: string } | null;
    headLedgerText: string | null;
    home?: { head: string; porcelain: string };
  };
  let child = null as Child | null;
  let boundary = null as Boundary | null;
  for (let i = context.index; i >= 0; i--) {
    const event = context.path.steps[i]?.event;
    if (event === undefined) continue;
    if (boundary === null && /^xstate\.done\.actor\.read(Repair)?Boundary$/.test(event.type))
      boundary = event.output as unknown as Boundary;
    if (
      child === null &&
      /^xstate\.(done|error)\.actor\.(dispatch(Repair)?Child|recover(Verify)?Dispatch)$/.test(event.type)
    )
      child = event.type.includes('.error.') ? { returned: null } : (event.output as unknown as Child);
    if (child !== null && boundary !== null) break;
  }
  if (child === null || boundary === null) return 'no return';
  // Step 1: DONE, clean, exactly one commit.
  if (
    child.returned !== 'DONE' ||
    child.killedAfterSilence === true ||
    boundary.porcelain !== '' ||
    boundary.commitCount !== 1
  )
    return 'interrupted';
  // Step 2: attribution: the exact tuple and the consumed iteration on the first two body lines.
  const lines = (boundary.commit?.body ?? '').split('\n');
  if (lines[0] !== tuple(plan.pending) || lines[1] !== `iteration: ${plan.iteration + 1}`)
    return 'unattributed';
  // §3.20: a companion return (the tuple names a member other than home `web`): home unmoved and
  // clean, then the rows and decisions of the commit body, every row in the dispatched leg.
  if (boundary.home !== undefined) {
    if (boundary.home.head !== plan.homeHead || boundary.home.porcelain !== '') return 'unattributed';
    // A companion verification repair (L17): its commit is in the companion, the home ledger is
    // the reserved one; nothing else to read.
    if (plan.target === 'verify') return 'admitted';
    const bodyRows = lines
      .slice(2)
      .map((l) => /^\| (\d+) \| (\w+) \| (\d+) \| (.*) \|$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => ({
        row: Number(m[1]),
        status: m[2] ?? '',
        attempts: Number(m[3]),
        evidence: (m[4] ?? '').trim(),
      }));
    const legOf = (row: number) => plan.saved.legs?.mapping.find((e) => e.row === row)?.leg;
    if (bodyRows.some((r) => legOf(r.row) !== plan.pending.repo)) return 'miss';
    const decisionLines = lines.slice(2).filter((l) => l.startsWith('row '));
    const target = bodyRows.find((r) => r.row === plan.target);
    const before = plan.saved.rows.find((r) => r.row === plan.target);
    const ok =
      target !== undefined &&
      before !== undefined &&
      (target.status === 'done' || target.status === 'failed') &&
      target.attempts === before.attempts + 1 &&
      target.evidence !== '' &&
      boundary.commit?.subject === `loop: row ${plan.target} ${target.status}` &&
      decisionLines.length === bodyRows.length &&
      new RegExp(`^row ${plan.target} ${target.status} \\| .{1,200} \\| .{1,200}$`).test(
        decisionLines[0] ?? '',
      );
    return ok ? 'admitted' : 'miss';
  }
  const text = boundary.headLedgerText ?? '';
  const header = (name: string) => new RegExp(`^${name}: (.*)$`, 'm').exec(text)?.[1] ?? null;
  if (plan.target === 'verify') {
    // A verification repair keeps the bumped ledger with the tuple and changes no row.
    return header('allowance') === String(plan.saved.allowance) && header('pending') !== null
      ? 'admitted'
      : 'not admitted';
  }
  // Headers: only iterations +1 and removal of the tuple.
  if (header('allowance') !== String(plan.saved.allowance)) return 'miss';
  if (header('iterations') !== String(plan.saved.iterations + 1)) return 'miss';
  if (header('pending') !== null) return 'miss';
  const rows = [...text.matchAll(/^\| (\d+) \| (\w+) \| (\d+) \| (.*) \|$/gm)].map((m) => ({
    row: Number(m[1]),
    status: m[2] ?? '',
    attempts: Number(m[3]),
    evidence: (m[4] ?? '').trim(),
  }));
  const decisions =
    text
      .split('## Decisions')[1]
      ?.split('\n')
      .filter((l: string) => l.trim() !== '') ?? [];
  const added = decisions.filter((d: string) => !plan.saved.decisions.includes(d));
  if (plan.target === 'seed') {
    const evidenced = rows.filter((r) => r.status !== 'cut' && r.evidence !== '');
    const ok =
      evidenced.length >= 1 &&
      rows.every((r) => r.attempts === 0 && r.status !== 'failed') &&
      added.length === 1 &&
      /^row 0 done \| seeded \d+ rows, closed \d+ on baseline \| .+$/.test(added[0] ?? '');
    return ok ? 'admitted' : 'miss';
  }
  const target = rows.find((r) => r.row === plan.target);
  const saved = plan.saved.rows.find((r) => r.row === plan.target);
  const ok =
    target !== undefined &&
    saved !== undefined &&
    (target.status === 'done' || target.status === 'failed') &&
    target.attempts === saved.attempts + 1 &&
    target.evidence !== '' &&
    boundary.commit?.subject === `loop: row ${plan.target} ${target.status}` &&
    new RegExp(`^row ${plan.target} ${target.status} \\| .{1,200} \\| .{1,200}$`).test(added[0] ?? '');
  return ok ? 'admitted' : 'miss';
}

function checkInvocation(
  oracle: Oracle,
  step: PathStep,
  invocation: ControlledInvocation,
  c: ContextView,
  answer: TableAnswer | null,
  context: StepContext,
) {
  const input = invocation.input as Record<string, unknown>;
  const what = `input of ${invocation.id}`;
  switch (invocation.id) {
    case 'inspectWorkspace':
      return oracle.same(
        step,
        what,
        [input.specPath, input.ledgerPath],
        [c.input.specPath, c.input.ledgerPath],
      );
    case 'resolveSettings':
      return oracle.same(step, what, input, {});
    case 'commitSeedLedger': {
      // §3.1 step 4: one row per AC, deferred rows cut with their disposition, iterations 0,
      // allowance from the setting, nothing pending, no decisions.
      const ledger = input.ledger as LedgerView;
      return oracle.same(
        step,
        what,
        [
          input.subject,
          ledger.iterations,
          ledger.allowance,
          ledger.pending,
          ledger.decisions,
          plainRows(ledger),
        ],
        [
          'loop: seed ledger',
          0,
          c.settings?.allowance,
          null,
          [],
          [
            { row: 1, status: 'open', attempts: 0, evidence: '' },
            { row: 2, status: 'open', attempts: 0, evidence: '' },
            { row: 3, status: 'cut', attempts: 0, evidence: 'deferred: ACME-412' },
          ],
        ],
      );
    }
    case 'refresh':
      return oracle.same(step, what, input.ledgerPath, c.input.ledgerPath);
    case 'resolveImplModel':
      return oracle.same(step, what, input, {
        row: answer !== null && 'row' in answer ? answer.row : 'no row',
      });
    case 'resolveRepairModel':
      return oracle.same(step, what, input, { row: 'verify' });
    case 'commitEscalation': {
      // §3.7: append `row <n> escalated | implModel round | allowed attempts <m>`; rows unchanged.
      const ledger = input.ledger as LedgerView;
      const row = answer !== null && 'row' in answer ? answer.row : -1;
      const before = c.plan?.saved ?? null;
      oracle.same(step, `${what}: subject`, input.subject, `loop: escalate row ${row}`);
      const last = ledger.decisions.at(-1) ?? '';
      oracle.matches(
        step,
        `${what}: decision`,
        last,
        new RegExp(`^row ${row} escalated \\| implModel round \\| allowed attempts \\d+$`),
      );
      if (before !== null) oracle.same(step, `${what}: rows`, plainRows(ledger), plainRows(before));
      return;
    }
    case 'reserveDispatch':
    case 'reserveVerifyDispatch': {
      // §3.9: the reserved ledger is the saved one plus exactly the bump and the tuple on HEAD.
      const plan = input.plan as PlanView;
      const target =
        invocation.id === 'reserveVerifyDispatch'
          ? 'verify'
          : answer?.rule === 'seed'
            ? 'seed'
            : answer !== null && 'row' in answer
              ? answer.row
              : 'no target';
      // A verification repair plans on the HEAD the gate set left, which includes the commit of
      // the tracked changes the gates produced (§3.18 step 1), failing run or not.
      // On a coordinated run the failing pair's leg and that checkout's HEAD (§1.6, L17).
      const gate = latestGateOutput(context);
      const head =
        invocation.id === 'reserveVerifyDispatch' ? (gate?.legHead ?? latestGateHead(context)) : c.head;
      // The two-leg world's home member is web; a single leg's repo is home.
      const homeRepo = (c.ledger as { legs?: unknown } | null)?.legs === undefined ? 'home' : 'web';
      const repo = invocation.id === 'reserveVerifyDispatch' ? (gate?.leg ?? homeRepo) : 'home';
      oracle.same(step, `${what}: tuple`, plan.pending, { target, repo, head });
      oracle.same(step, `${what}: reserved = saved + bump + tuple`, plan.reserved, {
        ...plan.saved,
        iterations: plan.saved.iterations + 1,
        pending: plan.pending,
      });
      oracle.same(step, `${what}: iteration`, plan.iteration, plan.saved.iterations);
      if (answer !== null && invocation.id === 'reserveDispatch') {
        if (answer.rule === 'seed') {
          oracle.same(step, `${what}: seed previous decision`, plan.previousDecision, 'none');
          oracle.matches(step, `${what}: seed hint`, plan.hint ?? '', /seed contract/);
        } else if (answer.rule === 'R3' || answer.rule === 'R4') {
          oracle.same(step, `${what}: hint`, plan.hint, answer.hint);
          oracle.same(
            step,
            `${what}: model only on the escalated round`,
            plan.model !== null,
            answer.escalated,
          );
        }
      }
      return;
    }
    case 'recoverDispatch':
    case 'recoverVerifyDispatch': {
      // §3.2: the dispatch found in flight: reserved from disk, before-image from the tuple's HEAD.
      const plan = input.plan as PlanView;
      const workspace = latestOutput(context, 'inspectWorkspace');
      const reservation = (workspace?.reservation ?? null) as ReservationView | null;
      const diskText = typeof workspace?.ledgerText === 'string' ? workspace.ledgerText : '';
      if (reservation !== null && !/^pending: /m.test(diskText)) {
        // The child committed before the run ended: only child subjects since HEAD_BEFORE, so the
        // reservation is resumed, its reserved ledger and before-image as stored.
        oracle.same(
          step,
          `${what}: a child commit after a crash resumes the reservation`,
          [
            (reservation.subjects ?? []).every((subject) => CHILD_SUBJECT.test(subject)),
            tuple(plan.pending),
            [plan.saved.iterations, plainRows(plan.saved), plan.saved.decisions],
          ],
          [
            true,
            tuple(reservation.plan.pending),
            [
              reservation.plan.saved.iterations,
              plainRows(reservation.plan.saved),
              reservation.plan.saved.decisions,
            ],
          ],
        );
      }
      const stored = storedPlanInFlight(context, plan.pending);
      oracle.same(
        step,
        `${what}: task fields kept from the reservation`,
        [plan.hint, plan.previousDecision, plan.model, plan.actionRecords],
        stored === null
          ? [null, 'none', null, []]
          : [stored.hint, stored.previousDecision, stored.model, stored.actionRecords],
      );
      return oracle.same(
        step,
        what,
        [plan.reserved.pending, plan.reserved.iterations, plan.pending],
        [c.ledger?.pending, plan.saved.iterations + 1, c.ledger?.pending],
      );
    }
    case 'dispatchChild':
    case 'dispatchRepairChild':
      return oracle.same(
        step,
        what,
        [input.plan, input.specPath, input.ledgerPath],
        [c.plan, c.input.specPath, c.input.ledgerPath],
      );
    case 'readBoundary':
    case 'readRepairBoundary':
    case 'finishAdmittedDispatch':
    case 'finishRepairedDispatch':
    case 'checkProvenance':
    case 'cleanupJobs':
    case 'collectActionRecords':
      return oracle.same(step, what, (input.plan as PlanView).pending, c.plan?.pending);
    case 'resetCheckout':
      // §3.14 step 3: reset to HEAD_BEFORE, the tuple's HEAD.
      return oracle.same(step, what, input, { head: c.plan?.pending.head });
    case 'resetCompanion':
      // §3.20: reset only the selected companion (never home `web`) to its HEAD_BEFORE.
      oracle.same(step, `${what}: not home`, input.leg === 'web' || input.leg === 'home', false);
      return oracle.same(step, what, input, { head: c.plan?.pending.head, leg: c.plan?.pending.repo });
    case 'commitCompanionRecord':
      return checkCompanionRecord(oracle, step, invocation, c, context);
    case 'discardChanges':
      return oracle.same(step, what, input, { head: c.workspace?.head });
    case 'runGates':
      return oracle.same(
        step,
        what,
        (input.ledger as LedgerView).rows.every((r) => r.status === 'done' || r.status === 'cut'),
        true,
      );
    case 'reviewDiff':
      return oracle.same(step, what, input, { base: c.ledger?.base });
    case 'conformanceReview':
      return oracle.same(step, what, input, { base: c.ledger?.base, specPath: c.input.specPath });
    case 'commitRepair':
      return checkRepair(oracle, step, invocation, c);
    case 'commitInterruptedRepair': {
      // §3.19 rule 1: every record the dispatch left (action accounting, on the provenance path
      // and on an authorized discard alike) is in the repair body.
      const collected = (latestOutput(context, 'collectActionRecords')?.actionRecords ?? []) as {
        text: string;
      }[];
      oracle.same(
        step,
        `${what}: body keeps the collected records`,
        collected.filter((r) => !String(input.body).includes(r.text)).map((r) => r.text),
        [],
      );
      return checkRepair(oracle, step, invocation, c);
    }
    case 'commitVerificationMarker': {
      // §2: the marker carries the consumed iteration, the exact tuple and the admitted child SHA.
      const plan = c.plan as PlanView;
      const body = String(input.body);
      oracle.same(step, `${what}: subject`, input.subject, 'loop: repair verification');
      oracle.same(
        step,
        `${what}: body`,
        [
          body.includes(tuple(plan.pending)),
          body.includes(`iteration: ${plan.iteration + 1}`),
          /[0-9a-f]{40}/.test(body),
        ],
        [true, true, true],
      );
      oracle.same(
        step,
        `${what}: tuple removed, rows untouched`,
        [(input.ledger as LedgerView).pending, plainRows(input.ledger as LedgerView)],
        [null, plainRows(plan.saved)],
      );
      return;
    }
    case 'commitUnreachableCut': {
      // §3.13 under amend permission: `loop: cut row <n>`, the row cut with the disposition.
      if (answer?.rule !== 'unreachable-cut') return oracle.same(step, what, answer?.rule, 'unreachable-cut');
      const ledger = input.ledger as LedgerView;
      const before = c.ledger as LedgerView;
      oracle.same(step, `${what}: subject`, input.subject, `loop: cut row ${answer.row}`);
      oracle.same(
        step,
        `${what}: ledger`,
        [
          plainRows(ledger).find((r) => r.row === answer.row),
          ledger.iterations,
          ledger.allowance,
          rowsWithout(ledger, answer.row),
        ],
        [
          {
            row: answer.row,
            status: 'cut',
            attempts: before.rows.find((r) => r.row === answer.row)?.attempts,
            evidence: `deviates: unreachable in this checkout - ${answer.what}; proof at ${answer.where}`,
          },
          before.iterations,
          before.allowance,
          rowsWithout(before, answer.row),
        ],
      );
      return;
    }
    case 'commitMigration': {
      // §3.2 / RS3: `loop: migrate allowance`; the allowance takes the legacy cap: value (our
      // decision where the protocol is silent); rows and decisions unchanged; nothing pending.
      const text = c.workspace?.ledgerText ?? '';
      const cap = /^cap: (\d+)$/m.exec(text)?.[1];
      const before = readLedgerText(text.replace(/^cap: (\d+)$/m, 'allowance: $1'));
      const ledger = input.ledger as LedgerView;
      return oracle.same(
        step,
        what,
        [input.subject, input.body, ledger.allowance, plainRows(ledger), ledger.decisions, ledger.pending],
        [
          'loop: migrate allowance',
          `cap: ${cap}\nallowance: ${cap}`,
          Number(cap),
          before?.rows,
          before?.decisions,
          null,
        ],
      );
    }
    case 'commitChoice':
    case 'commitReopen':
      return checkChoice(oracle, step, invocation, c, latestHumanEvent(context));
    case 'commitAmendItem': {
      // Option 5: `loop: amend` with the spec's new `## Amendments` entry; rows, iterations and
      // allowance unchanged (§3.17 "requirement-preserving amendments leave rows unchanged").
      if (answer?.rule !== 'amend-apply') return oracle.same(step, what, answer?.rule, 'amend-apply');
      const ledger = input.ledger as LedgerView;
      const before = c.ledger as LedgerView;
      const entry = `- row ${answer.row}: ${answer.what}; evidence: ${answer.evidence}`;
      oracle.same(
        step,
        `${what}: subject, body, rows, counters`,
        [
          input.subject,
          String(input.body).split('\n').slice(0, 3),
          plainRows(ledger),
          ledger.iterations,
          ledger.allowance,
          ledger.pending,
        ],
        [
          'loop: amend',
          [`amended the spec: row ${answer.row} - ${answer.what}`, `evidence: ${answer.evidence}`, 'granted'],
          plainRows(before),
          before.iterations,
          before.allowance,
          before.pending,
        ],
      );
      const specText = String(input.specText);
      oracle.same(
        step,
        `${what}: spec entry under ## Amendments`,
        [specText.includes('## Amendments'), specText.split('\n').includes(entry)],
        [true, true],
      );
      return;
    }
    case 'commitRedraw': {
      // Redraw: one `loop: redraw` commit that deletes the ledger and touches nothing else.
      const event = latestHumanEvent(context) as { type: string; reason?: string } | null;
      return oracle.same(
        step,
        what,
        [input.subject, input.body, input.deleteLedger, input.specText],
        ['loop: redraw', `redraw: ${event?.reason ?? ''}`, true, undefined],
      );
    }
    default:
      throw new Error(`no expectation written for effect ${invocation.id}`);
  }
}

/**
 * §3.20: the ONE home commit recording an admitted companion return: `loop: record <member> row
 * <n>`, the tuple and consumed iteration first in the body with the companion SHA, the returned
 * target row written with the SHA after its check name, the tuple removed, other rows unchanged.
 */
function checkCompanionRecord(
  oracle: Oracle,
  step: PathStep,
  invocation: ControlledInvocation,
  c: ContextView,
  context: StepContext,
): void {
  const plan = c.plan as PlanView;
  const input = invocation.input as { subject: string; body: string; ledger: LedgerView };
  const what = `input of ${invocation.id}`;
  const boundary = latestOutput(context, 'readBoundary') as { commit?: { sha: string; body: string } } | null;
  const sha = boundary?.commit?.sha ?? '';
  const member = plan.pending.repo;
  oracle.same(
    step,
    `${what}: subject`,
    input.subject,
    `loop: record ${member} row ${plan.target === 'seed' ? 0 : String(plan.target)}`,
  );
  oracle.same(step, `${what}: body`, input.body.split('\n').slice(0, 3), [
    tuple(plan.pending),
    `iteration: ${plan.iteration + 1}`,
    `companion: ${member} ${sha}`,
  ]);
  oracle.same(
    step,
    `${what}: headers`,
    [input.ledger.iterations, input.ledger.allowance, input.ledger.pending],
    [plan.saved.iterations + 1, plan.saved.allowance, null],
  );
  if (typeof plan.target !== 'number') return;
  const returned = (boundary?.commit?.body ?? '')
    .split('\n')
    .find((l) => l.startsWith(`| ${String(plan.target)} |`));
  const cells = (returned ?? '').split(' | ');
  const target = input.ledger.rows.find((r) => r.row === plan.target);
  oracle.same(
    step,
    `${what}: target row with the companion SHA after its check name`,
    target === undefined ? null : [target.status, target.attempts, target.evidence],
    [
      cells[1],
      Number(cells[2]),
      (cells[3] ?? '').replace(/ \|$/, '').replace(';', ` @ ${member} ${sha.slice(0, 12)};`),
    ],
  );
  oracle.same(
    step,
    `${what}: other rows unchanged`,
    rowsWithout(input.ledger, plan.target),
    rowsWithout(plan.saved, plan.target),
  );
}

/** §3.11, §3.12, §3.14, §3.18: the parent repair of the dispatch in flight. */
function checkRepair(oracle: Oracle, step: PathStep, invocation: ControlledInvocation, c: ContextView): void {
  const plan = c.plan as PlanView;
  const input = invocation.input as { subject: string; body: string; ledger: LedgerView };
  const what = `input of ${invocation.id}`;
  const { saved } = plan;
  const subject =
    plan.target === 'seed'
      ? 'loop: repair seed'
      : plan.target === 'verify'
        ? 'loop: repair verification'
        : `loop: repair row ${plan.target}`;
  oracle.same(step, `${what}: subject`, input.subject, subject);
  oracle.same(
    step,
    `${what}: headers`,
    [input.ledger.iterations, input.ledger.allowance, input.ledger.pending],
    [saved.iterations + 1, saved.allowance, null],
  );
  oracle.same(step, `${what}: body names the tuple`, input.body.includes(tuple(plan.pending)), true);
  if (typeof plan.target === 'number') {
    const target = input.ledger.rows.find((r) => r.row === plan.target);
    const before = saved.rows.find((r) => r.row === plan.target);
    oracle.same(
      step,
      `${what}: other rows restored`,
      rowsWithout(input.ledger, plan.target),
      rowsWithout(saved, plan.target),
    );
    oracle.same(
      step,
      `${what}: target failed, attempts +1`,
      [target?.status, target?.attempts],
      ['failed', (before?.attempts ?? 0) + 1],
    );
    oracle.matches(step, `${what}: target evidence`, target?.evidence ?? '', /^iteration \d+: .+/);
    oracle.same(step, `${what}: decisions restored`, input.ledger.decisions, saved.decisions);
  } else {
    oracle.same(
      step,
      `${what}: rows and decisions restored`,
      [plainRows(input.ledger), input.ledger.decisions],
      [plainRows(saved), saved.decisions],
    );
    if (plan.target === 'seed')
      oracle.matches(step, `${what}: seed reason`, input.body, /^seed (miss|interrupted): .+/m);
  }
}

/** §3.16's durable action per choice. */
function checkChoice(
  oracle: Oracle,
  step: PathStep,
  invocation: ControlledInvocation,
  c: ContextView,
  event: PathStep['event'] | null,
): void {
  const input = invocation.input as { subject: string; ledger: LedgerView; specText?: string };
  const before = (c.stopLedger ?? c.ledger) as LedgerView;
  const what = `input of ${invocation.id}`;
  if (event === null) throw new Error('a choice commit without a human event');
  const after = input.ledger;
  const unchangedRows = (row: number) =>
    oracle.same(step, `${what}: other rows unchanged`, rowsWithout(after, row), rowsWithout(before, row));
  if (event.type === 'human.retry') {
    const row = event.row as number;
    oracle.same(step, `${what}: subject`, input.subject, `loop: retry row ${row}`);
    oracle.same(step, `${what}: retry decision`, after.decisions, [
      ...before.decisions,
      `row ${row} retry | ${String(event.hint)} | allowed attempts ${effectiveAllowanceOf(before, row) + 1}`,
    ]);
    oracle.same(
      step,
      `${what}: rows and allowance unchanged`,
      [plainRows(after), after.allowance],
      [plainRows(before), before.allowance],
    );
  } else if (event.type === 'human.raise') {
    const amount = event.amount as number;
    oracle.same(step, `${what}: subject`, input.subject, 'loop: raise allowance');
    oracle.same(
      step,
      `${what}: allowance +N and the raise decision`,
      [after.allowance, after.decisions, plainRows(after)],
      [
        before.allowance + amount,
        [...before.decisions, `rows +${amount} |${event.words === '' ? '' : ` ${String(event.words)}`}`],
        plainRows(before),
      ],
    );
  } else if (event.type === 'human.amend') {
    const amendment = event.amendment as { kind: string; row?: number; disposition?: string };
    if (amendment.kind === 'cut') {
      const row = amendment.row as number;
      oracle.same(step, `${what}: subject`, input.subject, `loop: cut row ${row}`);
      oracle.same(
        step,
        `${what}: cut row`,
        plainRows(after).find((r) => r.row === row),
        {
          row,
          status: 'cut',
          attempts: before.rows.find((r) => r.row === row)?.attempts,
          evidence: amendment.disposition,
        },
      );
      unchangedRows(row);
    } else if (amendment.kind === 'reopen') {
      const row = amendment.row as number;
      // With new criterion text the spec's row is rewritten in the same commit; without, the spec
      // is not part of the commit (docs/decisions/amendments.md, the `amend reopen` finding).
      const text = (amendment as { text?: string }).text;
      if (text === undefined)
        oracle.same(step, `${what}: no spec text without new criterion text`, input.specText, undefined);
      else {
        const rowLines = String(input.specText)
          .split('\n')
          .filter((l) => /^- \[[ xX]\] /.test(l));
        oracle.same(step, `${what}: criterion ${row} rewritten`, rowLines[row - 1], `- [ ] ${text}`);
      }
      oracle.same(step, `${what}: subject`, input.subject, 'loop: amend');
      oracle.same(
        step,
        `${what}: reopened row`,
        plainRows(after).find((r) => r.row === row),
        {
          row,
          status: 'open',
          attempts: before.rows.find((r) => r.row === row)?.attempts,
          evidence: 'reopened by amendment',
        },
      );
      unchangedRows(row);
    } else {
      oracle.same(step, `${what}: subject`, input.subject, 'loop: amend');
      oracle.same(step, `${what}: rows unchanged`, plainRows(after), plainRows(before));
    }
    // §3.17 "Reconcile ledger and spec in one commit" for an amendment that changes the spec; a
    // reopen without new criterion text changes no spec text (checked above).
    if (amendment.kind !== 'reopen')
      oracle.same(step, `${what}: spec and ledger in one commit`, typeof input.specText, 'string');
    oracle.same(
      step,
      `${what}: iterations and allowance preserved`,
      [after.iterations, after.allowance],
      [before.iterations, before.allowance],
    );
  } else {
    throw new Error(`no choice commit expected for ${event.type}`);
  }
}

/** §3.16: first line, header, row lines, preservation sentence; the offers of the stop. */
function checkStop(oracle: Oracle, step: PathStep, stopNode: AnyStateNode, c: ContextView) {
  const accepted = [...stopNode.transitions.keys()].filter((type) => type.startsWith('human.')).sort();
  oracle.same(
    step,
    `offers at ${stopNode.key}`,
    accepted,
    [...(OFFERS[stopNode.key] ?? ['unknown stop'])].sort(),
  );
  const stop = c.stop;
  if (stop === null) return oracle.same(step, `stop held at ${stopNode.key}`, stop, 'a stop');
  const lines = renderHumanStop(stop as never, c.stopLedger as never).split('\n');
  const expected = expectedStopLines(stop, c.stopLedger);
  if (stop.kind === 'conformance-step6')
    checkStep6Lines(oracle, step, lines, stop as { used?: unknown; cap?: unknown });
  else oracle.same(step, 'first line of a stop', lines[0], QUESTION);
  oracle.matches(step, `header of ${stop.kind}`, lines[1] ?? '', expected.header);
  const rowLines = lines.filter((l) => /^row \d+: \d+ of \d+$/.test(l));
  oracle.same(step, 'row lines with effective allowances', rowLines, expected.rows);
  oracle.same(
    step,
    'preservation sentence after the row lines',
    lines[lines.indexOf(PRESERVE) - 1],
    rowLines.at(-1) ??
      lines[
        ['seed-exhaustion', 'verification-failed', 'review-cap', 'conformance-step6'].includes(stop.kind)
          ? 2
          : 1
      ],
  );
  if (stop.kind === 'bound-spent')
    oracle.same(
      step,
      'bound-spent recommendation',
      lines.includes('Recommendation: none - named action bound spent'),
      true,
    );
  if (stop.kind === 'redraw')
    oracle.same(
      step,
      'redraw recommendation',
      lines.includes(
        `Recommendation: redraw ${String(stop.reason)} - a redraw stops under every approval option`,
      ),
      true,
    );
  if (stop.kind === 'spec-amend')
    oracle.same(
      step,
      'amend item recommendation',
      lines.includes(
        `Recommendation: amend spec row ${String(stop.row)}: ${String(stop.what)}; evidence: ${String(stop.evidence)}`,
      ),
      true,
    );
  if (stop.kind === 'seed-exhaustion')
    oracle.same(
      step,
      'seed count line',
      lines[2],
      `seed: ${String(stop.seedRepairs)} of ${c.stopLedger?.allowance}`,
    );
}

/** The rendered stop text's expected lines, checked by the caller that renders it. */
export function expectedStopLines(
  stop: { readonly kind: string; readonly [field: string]: unknown },
  ledger: LedgerView | null,
): { header: RegExp; rows: string[] } {
  const rows =
    ledger?.rows
      .filter((r) => r.status === 'open' || r.status === 'failed')
      .map((r) => `row ${r.row}: ${r.attempts} of ${effectiveAllowanceOf(ledger, r.row)}`) ?? [];
  const header: Record<string, RegExp> = {
    'row-allowance': new RegExp(`^Stopped on row ${String(stop.row)}$`),
    'missing-model': new RegExp(`^Stopped on row ${String(stop.row)}$`),
    'bound-spent': new RegExp(`^Stopped on row ${String(stop.row)}$`),
    'unreachable-amend': new RegExp(`^Stopped on row ${String(stop.row)}$`),
    'spec-amend': new RegExp(`^Stopped on row ${String(stop.row)}$`),
    'repeated-evidence': new RegExp(`^Stopped on row ${String(stop.row)}$`),
    redraw: new RegExp(`^Stopped on row ${String(stop.row)}$`),
    'seed-exhaustion': /^Stopped on seed$/,
    'recovery-incomplete': new RegExp(
      `^Stopped: iteration ${String(stop.iteration)} recovery incomplete - .+$`,
    ),
    'commit-boundary': /^Stopped: .+$/,
    'dirty-start': /^Stopped: dirty tree - .+$/,
    'verification-failed': /^Stopped: verification failed with every row closed$/,
    'reopened-during-verify': new RegExp(
      `^Stopped: row ${String(stop.row)} reopened by amendment during verify$`,
    ),
    ...REVIEW_STOP_HEADERS,
  };
  return { header: header[stop.kind] ?? /^unknown stop kind$/, rows };
}

export { PRESERVE, QUESTION };
