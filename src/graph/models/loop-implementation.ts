/**
 * The model of the loop engine statechart for path generation: which outcome each actor can
 * report (as `xstate.done.actor.*` / `xstate.error.actor.*` events with payloads), which replies a
 * person can give at each stop, and the abstraction of the context its guards read.
 *
 * The world behind the payloads is in loop-implementation-world.ts. Actor outcomes that depend on
 * the dispatch in flight (child commits, boundary reads) are computed from the snapshot with the
 * reference child, so every path is coherent: the ledger a child "commits" is the one a
 * conforming child (or a child breaking one named rule) would commit for exactly that dispatch.
 */
import type { SnapshotFrom } from 'xstate';
import { type LoopContext, loopImplementationMachine } from '../../../machines/loop-implementation/index.js';
import type { JsonValue } from '../../common/json-value.js';
import { formatChildBody } from '../../gauntlet/commits.js';
import { type DispatchPlan, planDispatch } from '../../gauntlet/dispatch.js';
import { serializeLedger } from '../../gauntlet/ledger.js';
import { legacyAllowance } from '../../gauntlet/legacy-allowance.js';
import { defineMachineModel, type EventPayload } from '../machine-model.js';
import {
  API_HEAD,
  BASE,
  childCommit,
  companionCommit,
  legacyCapLedgerText,
  legsClosed,
  legsReady,
  reservedLedger,
  reservedLegLedger,
  sha,
  WORLD_ALLOWANCE,
  WORLD_BAD_SPEC,
  WORLD_ESCALATE_AFTER,
  WORLD_LEG_SPEC,
  WORLD_PATHS,
  WORLD_SPEC,
  WORLD_SPEC_WITH_GRANT,
  worldStates,
} from './loop-implementation-world.js';

type Snapshot = SnapshotFrom<typeof loopImplementationMachine>;

const states = worldStates();
const rowReady = states.find((s) => s.name === 'row 1 ready');
const allClosed = states.find((s) => s.name === 'every row closed');
if (rowReady === undefined || allClosed === undefined) throw new Error('the model world is incomplete');

const failure = { error: { message: 'the effect failed' } };

/**
 * The plan the host stored when it reserved row 1 over `row 1 ready` (task fields a resumed
 * dispatch keeps: the hint, the previous decision, the carried spend).
 */
const storedRowPlan = planDispatch({
  ledger: rowReady.ledger,
  target: 1,
  head: rowReady.head,
  hint: 'stored hint: use the local fixture',
  previousDecision: null,
  actionRecords: ['ran fixture capture (1 of 3)'],
});
/** What the child of that dispatch committed before the run ended (the commit removed the tuple). */
const committedBeforeCrash = childCommit(storedRowPlan, {
  kind: 'done',
  evidence: 'npm test; header row written',
});

/** `row 1 ready` with row 1's status `finished`, none of the four: the file is no loop ledger. */
const unparseableLedgerText = serializeLedger(rowReady.ledger).replace(
  /^\| 1 \| open \|/m,
  '| 1 | finished |',
);
if (!unparseableLedgerText.includes('| 1 | finished |')) throw new Error('the model world is incomplete');

/** Plain JSON of a value (ledgers and plans are plain data already; this drops `undefined`). */
function json(value: unknown): JsonValue {
  return JSON.parse(JSON.stringify(value)) as JsonValue;
}

const workspaces: EventPayload[] = [
  { name: 'fresh', head: BASE, porcelain: '', ledgerText: null, specText: WORLD_SPEC, savedLedgerText: null },
  {
    name: 'fresh, dirty tree',
    head: BASE,
    porcelain: '?? notes.txt',
    ledgerText: null,
    specText: WORLD_SPEC,
    savedLedgerText: null,
  },
  {
    name: 'fresh, bad spec',
    head: BASE,
    porcelain: '',
    ledgerText: null,
    specText: WORLD_BAD_SPEC,
    savedLedgerText: null,
  },
  {
    name: 'restore under a standing grant',
    head: rowReady.head,
    porcelain: '',
    ledgerText: serializeLedger(rowReady.ledger),
    specText: WORLD_SPEC_WITH_GRANT,
    savedLedgerText: null,
  },
  {
    name: 'restore, dirty tree',
    head: rowReady.head,
    porcelain: ' M src/export.ts',
    ledgerText: serializeLedger(rowReady.ledger),
    specText: WORLD_SPEC,
    savedLedgerText: null,
  },
  {
    name: 'restore, row dispatch in flight',
    head: rowReady.head,
    porcelain: '',
    ledgerText: serializeLedger(reservedLedger(rowReady, 1)),
    specText: WORLD_SPEC,
    savedLedgerText: serializeLedger(rowReady.ledger),
  },
  {
    name: 'restore, the child committed before the run ended',
    head: committedBeforeCrash.commit.sha,
    porcelain: '',
    ledgerText: committedBeforeCrash.headLedgerText,
    specText: WORLD_SPEC,
    savedLedgerText: null,
    reservation: json({
      plan: storedRowPlan,
      launched: true,
      subjects: [committedBeforeCrash.commit.subject],
    }),
  },
  {
    name: 'restore, verification repair in flight',
    head: allClosed.head,
    porcelain: '',
    ledgerText: serializeLedger(reservedLedger(allClosed, 'verify')),
    specText: WORLD_SPEC,
    savedLedgerText: serializeLedger(allClosed.ledger),
  },
  {
    name: 'restore, legacy cap: ledger',
    head: BASE,
    porcelain: ' M notes.txt',
    ledgerText: legacyCapLedgerText(),
    specText: WORLD_SPEC,
    savedLedgerText: null,
  },
  {
    name: 'restore, legacy cap: ledger with a cap that is not a number',
    head: BASE,
    porcelain: '',
    ledgerText: legacyCapLedgerText().replace(/^cap: \d+$/m, 'cap: two'),
    specText: WORLD_SPEC,
    savedLedgerText: null,
  },
  {
    name: 'restore, companion (api) row dispatch in flight',
    head: legsReady().head,
    porcelain: '',
    ledgerText: serializeLedger(reservedLegLedger(legsReady())),
    specText: WORLD_LEG_SPEC,
    savedLedgerText: serializeLedger(legsReady().ledger),
  },
  {
    name: 'restore, two legs, every row closed',
    head: legsClosed().head,
    porcelain: '',
    ledgerText: serializeLedger(legsClosed().ledger),
    specText: WORLD_LEG_SPEC,
    savedLedgerText: null,
  },
  {
    name: 'restore, tuple without a before-image',
    head: rowReady.head,
    porcelain: '',
    ledgerText: serializeLedger(reservedLedger(rowReady, 1)),
    specText: WORLD_SPEC,
    savedLedgerText: null,
  },
  {
    name: 'restore, a ledger that does not parse',
    head: rowReady.head,
    porcelain: '',
    ledgerText: unparseableLedgerText,
    specText: WORLD_SPEC,
    savedLedgerText: null,
  },
].map(({ name: _name, ...facts }) => ({ output: facts as EventPayload }));

const refreshOf = (state: {
  head: string;
  ledger: Parameters<typeof serializeLedger>[0];
  commits: unknown;
}) => ({
  output: json({ head: state.head, ledgerText: serializeLedger(state.ledger), commits: state.commits }),
});
const singleLegRefreshes: EventPayload[] = [
  ...states.map(refreshOf),
  { output: { head: BASE, ledgerText: legacyCapLedgerText(), commits: [] } },
];
/** A coordinated run's refreshes also offer the two-leg world with every row closed (verify). */
function refreshes(snapshot: Snapshot): EventPayload[] {
  const coordinated = snapshot.context.ledger?.legs !== undefined;
  return coordinated ? [...singleLegRefreshes, refreshOf(legsClosed())] : singleLegRefreshes;
}

/** Gate runs: a coordinated ledger's gate set also fails in api, a companion leg (L13-L17). */
function gateRuns(snapshot: Snapshot): EventPayload[] {
  const single: EventPayload[] = [
    // HEAD moved: the gates produced tracked changes and the host committed them.
    { output: { passed: true, head: sha('9') } },
    {
      output: {
        passed: false,
        head: sha('8'),
        gate: 1,
        command: WORLD_PATHS.verification,
        exitCode: 1,
        logPath: '/tmp/loopchart-logs/gate-1.log',
        tail: 'FAIL test/export.test.ts',
      },
    },
  ];
  if (snapshot.context.ledger?.legs === undefined) return single;
  return [
    ...single,
    {
      output: {
        passed: false,
        head: sha('8'),
        verified: { web: sha('8') },
        leg: 'api',
        legHead: API_HEAD,
        gate: 2,
        command: 'make api-test',
        exitCode: 2,
        logPath: '/tmp/loopchart-logs/gate-2.log',
        tail: 'FAIL api/csv.test.ts',
      },
    },
  ];
}

function plan(snapshot: Snapshot): DispatchPlan | null {
  return snapshot.context.plan;
}

/** Boundary reads for the dispatch in flight, by what the child reported. */
function boundaries(snapshot: Snapshot): EventPayload[] {
  const current = plan(snapshot);
  const child = snapshot.context.child;
  if (current === null) return [];
  const none = { porcelain: '', commitCount: 0, commit: null, headLedgerText: null };
  if (current.pending.repo === 'api' && current.target === 'verify')
    return companionRepairBoundaries(current, child?.returned === 'DONE');
  if (current.pending.repo === 'api') return companionBoundaries(current, child?.returned === 'DONE');
  if (child === null || child.returned !== 'DONE') return [{ output: none }];
  const dirty = { porcelain: ' M src/export.ts', commitCount: 1, commit: null, headLedgerText: null };
  if (current.target === 'verify') {
    const body = formatChildBody(current.pending, current.iteration + 1);
    const fix = { sha: sha('d'), subject: 'loop: verification fix', body };
    const reserved = serializeLedger(current.reserved);
    return [
      { output: { porcelain: '', commitCount: 1, commit: fix, headLedgerText: reserved } },
      {
        output: {
          porcelain: '',
          commitCount: 1,
          commit: { ...fix, body: 'fixed it' },
          headLedgerText: reserved,
        },
      },
      { output: dirty },
    ];
  }
  const one = (made: ReturnType<typeof childCommit>) => ({
    output: json({ porcelain: '', commitCount: 1, ...made }),
  });
  const valid =
    current.target === 'seed'
      ? childCommit(current, { kind: 'seed', evidence: { 1: 'npm test; header row missing' } })
      : childCommit(current, { kind: 'done', evidence: 'npm test; header row written' });
  const cases = [
    one(valid),
    one(childCommit(current, { kind: 'violate', violation: 'allowance-change' })),
    one({ ...valid, commit: { ...valid.commit, body: 'no attribution' } }),
    { output: dirty },
    { output: none },
  ];
  if (current.target !== 'seed')
    cases.push(one(childCommit(current, { kind: 'failed', evidence: 'npm test; header row missing' })));
  return cases;
}

/**
 * Boundary reads of a companion dispatch (§3.20): the companion checkout's dirt, commits and its
 * single commit (rows in the body), and home (unmoved, or moved during the dispatch).
 */
function companionBoundaries(current: DispatchPlan, done: boolean): EventPayload[] {
  const home = { head: current.homeHead ?? '', porcelain: '' };
  const none = { porcelain: '', commitCount: 0, commit: null, headLedgerText: null, home };
  if (!done) return [{ output: none }];
  const one = (variant: 'done' | 'foreign') => ({
    porcelain: '',
    commitCount: 1,
    commit: { sha: sha('8'), subject: 'loop: row 2 done', body: companionCommit(current, variant) },
    headLedgerText: null,
    home,
  });
  return [
    { output: one('done') },
    { output: one('foreign') },
    { output: { ...one('done'), home: { ...home, head: sha('5') } } },
    { output: { ...none, porcelain: '?? src/serve.ts' } },
  ];
}

/**
 * Boundary reads of a verification repair in api (L17): the companion's single commit (tuple and
 * consumed iteration, no ledger), home unmoved or moved meanwhile, a dirty companion.
 */
function companionRepairBoundaries(current: DispatchPlan, done: boolean): EventPayload[] {
  const home = { head: current.homeHead ?? '', porcelain: '' };
  const none = { porcelain: '', commitCount: 0, commit: null, headLedgerText: null, home };
  if (!done) return [{ output: none }];
  const fix = {
    porcelain: '',
    commitCount: 1,
    commit: {
      sha: sha('d'),
      subject: 'loop: verification fix',
      body: formatChildBody(current.pending, current.iteration + 1),
    },
    headLedgerText: null,
    home,
  };
  return [
    { output: fix },
    { output: { ...fix, home: { ...home, head: sha('4') } } },
    { output: { ...none, porcelain: '?? api/csv.ts' } },
  ];
}

/** Rows a human can name: for a retry an open or failed row, for an amendment any row. */
function rowsOf(snapshot: Snapshot, statuses: readonly string[]): number[] {
  return (snapshot.context.ledger?.rows ?? []).filter((r) => statuses.includes(r.status)).map((r) => r.row);
}

const actorIds = [
  'inspectWorkspace',
  'resolveSettings',
  'commitSeedLedger',
  'refresh',
  'resolveImplModel',
  'commitEscalation',
  'reserveDispatch',
  'recoverDispatch',
  'dispatchChild',
  'readBoundary',
  'finishAdmittedDispatch',
  'commitRepair',
  'finishRepairedDispatch',
  'checkProvenance',
  'cleanupJobs',
  'collectActionRecords',
  'resetCheckout',
  'commitInterruptedRepair',
  'commitCompanionRecord',
  'resetCompanion',
  'commitUnreachableCut',
  'commitAmendItem',
  'commitRedraw',
  'commitChoice',
  'commitReopen',
  'commitMigration',
  'discardChanges',
  'runGates',
  'resolveRepairModel',
  'recoverVerifyDispatch',
  'reserveVerifyDispatch',
  'dispatchRepairChild',
  'readRepairBoundary',
  'commitVerificationMarker',
  'wholeDiffReview',
  'wholeDiffFixRound',
  'conformanceReview',
  'commitGrant',
  'conformanceFixRound',
  'finishBranch',
] as const;

/** A review report of the model: the reviewer's return with the role's counts from history. */
function reviewReport(
  role: 'whole-diff' | 'conformance',
  returned: JsonValue,
  used: number,
  granted = 0,
  enforce = true,
  maxFixRounds = 1,
): EventPayload {
  return {
    output: {
      ran: true,
      role,
      returned,
      counts: { used, granted },
      settings: { maxFixRounds, enforce },
      head: sha('f'),
      fixCommits: used === 0 ? [] : [`${role} round 1: ${sha('a')} fix: ${role} review, round 1`],
    },
  };
}

/** The model's reviews: not run, a named miss, accepted, a round left, at the cap (cap 1). */
const wholeDiffReviews: EventPayload[] = [
  { output: { ran: false, role: 'whole-diff' } },
  reviewReport('whole-diff', { ok: false, miss: 'review miss: the whole-diff return is not JSON' }, 0),
  reviewReport(
    'whole-diff',
    { ok: true, review: { role: 'whole-diff', verdict: 'SHIP', minors: ['rename tmp'], fixTasks: [] } },
    0,
  ),
  reviewReport(
    'whole-diff',
    {
      ok: true,
      review: { role: 'whole-diff', verdict: 'REVISE', minors: [], fixTasks: ['split the writer'] },
    },
    0,
  ),
  reviewReport(
    'whole-diff',
    {
      ok: true,
      review: { role: 'whole-diff', verdict: 'REVISE', minors: [], fixTasks: ['split the writer'] },
    },
    1,
  ),
];
const gaps = {
  ok: true,
  review: {
    role: 'conformance',
    verdict: 'GAPS',
    openGaps: [{ id: 'G1', text: 'row 1 header missing' }],
    fixTasks: [],
  },
};
const gapsReview = (openGaps: JsonValue[]) => ({
  ok: true,
  review: { role: 'conformance', verdict: 'GAPS', openGaps, fixTasks: [] },
});
const carriedGaps = gapsReview([
  { id: 'G1', text: 'XLSX export dropped', recommended: 'accept' },
  { id: 'G2', text: 'an unrequested cache', verdict: 'UNAUTHORIZED' },
]);
const mixedGaps = gapsReview([
  { id: 'G1', text: 'row 1 header missing' },
  { id: 'G2', text: 'XLSX export dropped', recommended: 'rescope' },
]);
const conformanceReviews: EventPayload[] = [
  { output: { ran: false, role: 'conformance' } },
  {
    output: {
      ran: false,
      role: 'conformance',
      waived: true,
      head: sha('9'),
      fixCommits: [`whole-diff round 1: ${sha('a')} fix: whole-diff review, round 1`],
    },
  },
  reviewReport(
    'conformance',
    { ok: false, miss: 'review miss: the conformance reviewer wrote no return' },
    0,
  ),
  reviewReport(
    'conformance',
    {
      ok: true,
      review: {
        role: 'conformance',
        verdict: 'CONFORMS',
        openGaps: [],
        fixTasks: [],
        happyPath: 'export ran',
      },
    },
    1,
  ),
  // a round left (cap 1), at the cap below the allowance (fundable under a grant), at the allowance
  reviewReport('conformance', gaps, 0),
  reviewReport('conformance', gaps, 1),
  reviewReport('conformance', gaps, 1, 0, false),
  reviewReport('conformance', gaps, WORLD_ALLOWANCE, 1),
  // a carried-open deferred inventory (accept and UNAUTHORIZED gaps); a fix gap beside an accepted
  // one (the fix round works on the fix gap only); a fix gap under an audit-only cap of 0
  reviewReport('conformance', carriedGaps, 0),
  reviewReport('conformance', mixedGaps, 0),
  reviewReport('conformance', gaps, 0, 0, true, 0),
];

const committed: EventPayload[] = [{ output: { head: sha('e') } }];
const finished: EventPayload[] = [{ output: {} }];
const children: EventPayload[] = [
  { output: { returned: 'DONE' } },
  { output: { returned: 'BLOCKED' } },
  { output: { returned: null, killedAfterSilence: true } },
];
const recoveries: EventPayload[] = [
  { output: { launched: false } },
  { output: { launched: true, returned: 'DONE' } },
];

/**
 * The abstraction of the context that tells model states apart: where the dispatch in flight
 * aims, the flags of entry, recovery and verify, the stop held, the review in hand. It holds no
 * verdict of the ordered table or of return validation: those are computed by the functions the
 * guards call, so a projection holding them would be compared with itself by the runner's
 * projection check. States that differ only in such a verdict are still told apart by the event
 * that reached them (the refresh or boundary payload is part of a model node's "via"), and the
 * verdicts are asserted against the reference table and the reference validator in
 * test/oracles/ instead.
 */
export function loopProjection(context: LoopContext): JsonValue {
  return {
    target:
      context.plan === null ? null : typeof context.plan.target === 'number' ? 'row' : context.plan.target,
    // Which leg the dispatch in flight works in (a companion's path differs from home's, §3.20).
    leg: context.plan === null ? null : context.plan.pending.repo,
    model: context.model !== null,
    settings: context.settings === null ? null : context.settings.allowance > 0,
    stop: context.stop?.kind ?? null,
    interrupted: context.interruption !== null,
    repairsLeft:
      context.ledger === null ? null : context.history.verificationRepairs < context.ledger.allowance,
    pendingChoice: context.pendingChoice !== null,
    review: context.review === null ? null : context.review.role,
    grant: context.spec?.amendGrant.kind === 'active',
    reservation: context.workspace?.reservation != null,
    legacy: context.workspace?.ledgerText == null ? null : legacyAllowance(context.workspace.ledgerText).kind,
  };
}

/** The loop engine's model (registered as `loop-implementation`). */
export const loopImplementationModel = defineMachineModel(loopImplementationMachine, {
  input: { ...WORLD_PATHS },
  project: (snapshot) => loopProjection(snapshot.context),
  maxStates: 60_000,
  events: {
    ...Object.fromEntries(actorIds.map((id) => [`xstate.error.actor.${id}`, [failure]])),
    'xstate.done.actor.inspectWorkspace': workspaces,
    'xstate.done.actor.resolveSettings': [
      { output: { allowance: WORLD_ALLOWANCE, escalateAfter: WORLD_ESCALATE_AFTER } },
      { output: { allowance: 0, escalateAfter: WORLD_ESCALATE_AFTER } },
    ],
    'xstate.done.actor.commitSeedLedger': committed,
    'xstate.done.actor.refresh': refreshes,
    'xstate.done.actor.resolveImplModel': [
      { output: { model: 'openai/strong-model' } },
      { output: { model: null } },
    ],
    'xstate.done.actor.commitEscalation': committed,
    'xstate.done.actor.reserveDispatch': finished,
    'xstate.done.actor.recoverDispatch': recoveries,
    'xstate.done.actor.dispatchChild': children,
    'xstate.done.actor.readBoundary': boundaries,
    'xstate.done.actor.finishAdmittedDispatch': finished,
    'xstate.done.actor.commitRepair': committed,
    'xstate.done.actor.finishRepairedDispatch': finished,
    'xstate.done.actor.checkProvenance': [
      { output: { owned: true } },
      { output: { owned: false, what: 'checkout ownership unproven' } },
    ],
    'xstate.done.actor.cleanupJobs': [
      { output: { terminated: 1, problem: null } },
      { output: { terminated: 0, problem: 'job 4242 not owned' } },
    ],
    'xstate.done.actor.collectActionRecords': [
      {
        output: {
          actionRecords: [
            { kind: 'ran', action: 'fixture capture', k: 1, bound: 3, text: 'ran fixture capture (1 of 3)' },
          ],
        },
      },
    ],
    'xstate.done.actor.resetCheckout': [{ output: { clean: true } }, { output: { clean: false } }],
    'xstate.done.actor.commitInterruptedRepair': committed,
    'xstate.done.actor.commitCompanionRecord': committed,
    'xstate.done.actor.resetCompanion': [{ output: { clean: true } }, { output: { clean: false } }],
    'xstate.done.actor.commitUnreachableCut': committed,
    'xstate.done.actor.commitAmendItem': committed,
    'xstate.done.actor.commitRedraw': committed,
    'xstate.done.actor.commitChoice': committed,
    'xstate.done.actor.commitReopen': committed,
    'xstate.done.actor.commitMigration': committed,
    'xstate.done.actor.discardChanges': [{ output: { clean: true } }, { output: { clean: false } }],
    'xstate.done.actor.runGates': gateRuns,
    'xstate.done.actor.resolveRepairModel': [
      { output: { model: 'openai/strong-model' } },
      { output: { model: null } },
    ],
    'xstate.done.actor.recoverVerifyDispatch': recoveries,
    'xstate.done.actor.reserveVerifyDispatch': finished,
    'xstate.done.actor.dispatchRepairChild': children,
    'xstate.done.actor.readRepairBoundary': boundaries,
    'xstate.done.actor.commitVerificationMarker': committed,
    'xstate.done.actor.wholeDiffReview': wholeDiffReviews,
    'xstate.done.actor.wholeDiffFixRound': [{ output: { head: sha('e') } }],
    'xstate.done.actor.conformanceReview': conformanceReviews,
    'xstate.done.actor.commitGrant': committed,
    'xstate.done.actor.conformanceFixRound': [{ output: { head: sha('e') } }],
    'xstate.done.actor.finishBranch': finished,
    'human.retry': (snapshot) =>
      rowsOf(snapshot, ['open', 'failed'])
        .slice(0, 1)
        .map((row) => ({ row, hint: 'use the local fixture' })),
    'human.raise': [{ amount: 2, words: '' }],
    'human.amend': (snapshot) => [
      ...rowsOf(snapshot, ['open', 'failed', 'done'])
        .slice(0, 1)
        .map((row) => ({
          amendment: { kind: 'cut', row, disposition: 'deviates: dropped by product decision' },
        })),
      ...rowsOf(snapshot, ['done'])
        .slice(0, 1)
        .flatMap((row): EventPayload[] => [
          { amendment: { kind: 'reopen', row } },
          { amendment: { kind: 'reopen', row, text: 'Export writes a header row with quoted names' } },
        ]),
      { amendment: { kind: 'preserve', what: 'clarified the header wording' } },
    ],
    'human.redraw': [{ reason: 'the export moves to a service' }],
    'human.discard': [{}],
    'human.return': [{}],
    'human.stop': [{}],
  },
});
