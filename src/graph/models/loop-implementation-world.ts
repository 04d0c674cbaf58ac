/**
 * The small world the loop engine's model explores: one spec (with and without a standing amend
 * grant), ledgers and branch histories that put the ordered table in each of its outcomes, and
 * child returns built by the reference child for whatever dispatch the machine planned.
 *
 * Everything is built with the pure protocol core (seedLedger, decision and subject formatters,
 * the reference child), so the world is valid by construction: the model never feeds the machine
 * a ledger the protocol could not produce, except where a case is named as malformed.
 */
import { formatChildBody, formatRepairBody, formatSubject } from '../../gauntlet/commits.js';
import {
  formatEscalatedDecision,
  formatOutcomeDecision,
  formatSeedDecision,
} from '../../gauntlet/decisions.js';
import type { DispatchPlan } from '../../gauntlet/dispatch.js';
import { serializeLedger } from '../../gauntlet/ledger.js';
import { type ReferenceBehaviour, referenceChildReturn } from '../../gauntlet/reference-child.js';
import { seedLedger } from '../../gauntlet/seed.js';
import { parseSpec } from '../../gauntlet/spec.js';
import type { CommitFact, Ledger, LedgerRow } from '../../gauntlet/types.js';

/** Where the model's spec and ledger live. */
export const WORLD_PATHS = {
  specPath: 'doc/specs/demo.md',
  ledgerPath: 'doc/plans/demo.md',
  verification: 'npm test',
} as const;

/** A spec of three rows: an in-scope row, a `venue:` row and a deferred (cut) row. */
export const WORLD_SPEC = [
  '# CSV export',
  '',
  '## Acceptance criteria',
  '',
  '- [ ] Export writes a header row',
  '- [ ] Upload appears in the staging bucket',
  '  venue: staging - upload visible in the bucket listing',
  '- [ ] XLSX export',
  '  deferred: ACME-412',
  '',
].join('\n');

/** The same spec under a standing amendment grant (amend permission). */
export const WORLD_SPEC_WITH_GRANT = WORLD_SPEC.replace(
  '# CSV export\n',
  '# CSV export\n\n**Amend-grant:** The loop may cut rows that are unreachable in this checkout.\n',
);

/** A spec the loop cannot use (no acceptance criteria section). */
export const WORLD_BAD_SPEC = '# CSV export\n\nNo criteria yet.\n';

/** A full SHA built from one hex digit, so the world's commits are easy to tell apart. */
export function sha(digit: string): string {
  return digit.repeat(40);
}

/** The ledger base of every world ledger. */
export const BASE = sha('b');

/** The allowance of the world's ledgers (small, so both sides of every bound are near). */
export const WORLD_ALLOWANCE = 2;

/** `loopEngine.escalateAfter` in the world. */
export const WORLD_ESCALATE_AFTER = 2;

function seeded(allowance = WORLD_ALLOWANCE): Ledger {
  const spec = parseSpec(WORLD_SPEC).spec;
  const { ledger } = seedLedger(spec, { ...WORLD_PATHS, base: BASE, allowance });
  if (ledger === null) throw new Error('the world spec does not seed');
  return ledger;
}

function withRow(ledger: Ledger, row: number, cells: Partial<LedgerRow>): Ledger {
  return { ...ledger, rows: ledger.rows.map((r) => (r.row === row ? { ...r, ...cells } : r)) };
}

function commit(
  digit: string,
  subject: string,
  ledger: Ledger | null,
  body = '',
  paths?: string[],
): CommitFact {
  return {
    sha: sha(digit),
    subject,
    body,
    paths: paths ?? [WORLD_PATHS.ledgerPath, 'src/export.ts'],
    ledger,
  };
}

/** A branch state: the ledger on disk and the commits since the base, oldest first. */
export interface WorldState {
  readonly name: string;
  readonly head: string;
  readonly ledger: Ledger;
  readonly commits: readonly CommitFact[];
}

const seedLedgerCommit = (ledger: Ledger) =>
  commit('1', formatSubject({ kind: 'seed-ledger' }), ledger, '', [WORLD_PATHS.ledgerPath]);

/** The seeded skeleton, nothing dispatched yet: the table selects the seed. */
function freshSeeded(): WorldState {
  const ledger = seeded();
  return { name: 'seeded skeleton', head: sha('1'), ledger, commits: [seedLedgerCommit(ledger)] };
}

/** The ledger after an admitted seed: row 1 has evidence, still open. */
function seededWithEvidence(allowance = WORLD_ALLOWANCE): Ledger {
  const ledger = withRow(seeded(allowance), 1, { evidence: 'npm test; header row missing' });
  return {
    ...ledger,
    iterations: 1,
    decisions: [formatSeedDecision(1, 0, 'row 1')],
  };
}

function seedEvidenceCommit(ledger: Ledger): CommitFact {
  const pending = { target: 'seed' as const, repo: 'home', head: sha('1') };
  return commit('2', formatSubject({ kind: 'seed-evidence' }), ledger, formatChildBody(pending, 1));
}

/** The seed survived: the table selects row 1, not escalated. */
function rowReady(): WorldState {
  const ledger = seededWithEvidence();
  return {
    name: 'row 1 ready',
    head: sha('2'),
    ledger,
    commits: [seedLedgerCommit(seeded()), seedEvidenceCommit(ledger)],
  };
}

/** One admitted failed attempt on row 1 with this evidence. */
function oneFailedAttempt(name: string, evidence: string, allowance = WORLD_ALLOWANCE): WorldState {
  const before = seededWithEvidence(allowance);
  const decision = formatOutcomeDecision(1, 'failed', 'the export still lacks a header', 'try again');
  const ledger: Ledger = {
    ...withRow(before, 1, { status: 'failed', attempts: 1, evidence }),
    iterations: 2,
    decisions: [...before.decisions, decision],
  };
  const pending = { target: 1, repo: 'home', head: sha('2') };
  return {
    name,
    head: sha('3'),
    ledger,
    commits: [
      seedLedgerCommit(seeded(allowance)),
      seedEvidenceCommit(before),
      commit(
        '3',
        formatSubject({ kind: 'row', row: 1, status: 'failed' }),
        ledger,
        formatChildBody(pending, 2),
      ),
    ],
  };
}

/** Row 1 failed once: with allowance 2 and escalateAfter 2 its next dispatch is the escalated round. */
function escalationDue(): WorldState {
  return oneFailedAttempt('row 1 due for its escalated round', 'npm test; header row missing');
}

/** Row 1 at its allowance: rule 2. */
function rowExhausted(): WorldState {
  const state = escalationDue();
  const ledger = withRow(state.ledger, 1, { attempts: WORLD_ALLOWANCE });
  return { ...state, name: 'row 1 at its allowance', ledger };
}

/** Two consecutive validation misses on row 1 (allowance raised to 4, escalation spent): rule 3. */
function twoMisses(): WorldState {
  const allowance = 4;
  const base = seededWithEvidence(allowance);
  const escalated = formatEscalatedDecision(1, allowance);
  const pending = (i: number) => ({ target: 1, repo: 'home', head: sha(String(i)) });
  const miss = 'the child changed the allowance header';
  const first: Ledger = {
    ...withRow(base, 1, { status: 'failed', attempts: 1, evidence: `iteration 1: ${miss}` }),
    iterations: 2,
    decisions: [...base.decisions, escalated],
  };
  const second: Ledger = {
    ...withRow(first, 1, { attempts: 2, evidence: `iteration 2: ${miss}` }),
    iterations: 3,
  };
  const repair = (digit: string, ledger: Ledger, i: number) =>
    commit(
      digit,
      formatSubject({ kind: 'repair-row', row: 1 }),
      ledger,
      formatRepairBody({ pending: pending(i), iteration: i + 1, reason: { kind: 'miss', text: miss } }),
      [WORLD_PATHS.ledgerPath],
    );
  return {
    name: 'two validation misses on row 1',
    head: sha('5'),
    ledger: second,
    commits: [
      seedLedgerCommit(seeded(allowance)),
      seedEvidenceCommit(base),
      commit(
        '3',
        formatSubject({ kind: 'escalate-row', row: 1 }),
        { ...base, decisions: [...base.decisions, escalated] },
        escalated,
        [WORLD_PATHS.ledgerPath],
      ),
      repair('4', first, 1),
      repair('5', second, 2),
    ],
  };
}

/** Two seed repairs at allowance 2: the seed stop. */
function seedExhausted(): WorldState {
  const ledger = { ...seeded(), iterations: 2 };
  const repair = (digit: string, i: number) =>
    commit(
      digit,
      formatSubject({ kind: 'repair-seed' }),
      { ...ledger, iterations: i + 1 },
      formatRepairBody({
        pending: { target: 'seed', repo: 'home', head: sha(String(i + 1)) },
        iteration: i + 1,
        reason: { kind: 'seed-miss', text: 'no row got evidence' },
      }),
      [WORLD_PATHS.ledgerPath],
    );
  return {
    name: 'seed repairs at the allowance',
    head: sha('3'),
    ledger,
    commits: [seedLedgerCommit(seeded()), repair('2', 0), repair('3', 1)],
  };
}

/** Every row closed. `repairs` verification markers spent. */
function allClosed(repairs: number): WorldState {
  const base = seededWithEvidence();
  const ledger: Ledger = {
    ...withRow(
      withRow(base, 1, { status: 'done', attempts: 1, evidence: 'npm test; header row written' }),
      2,
      {
        status: 'done',
        evidence: 'staging-smoke; upload listed',
      },
    ),
    iterations: 2 + repairs,
  };
  const markers = Array.from({ length: repairs }, (_, k) =>
    commit(
      String(5 + k),
      formatSubject({ kind: 'repair-verification' }),
      { ...ledger, iterations: 3 + k },
      formatRepairBody({
        pending: { target: 'verify', repo: 'home', head: sha(String(4 + k)) },
        iteration: 3 + k,
        reason: { kind: 'admitted', child: sha(String(4 + k)) },
      }),
    ),
  );
  return {
    name: repairs === 0 ? 'every row closed' : 'every row closed, verification repairs spent',
    head: sha(String(4 + repairs)),
    ledger,
    commits: [
      seedLedgerCommit(seeded()),
      seedEvidenceCommit(base),
      commit(
        '4',
        formatSubject({ kind: 'row', row: 1, status: 'done' }),
        ledger,
        formatChildBody({ target: 1, repo: 'home', head: sha('2') }, 2),
      ),
      ...markers,
    ],
  };
}

/** The branch states the model offers at every refresh, one per outcome of the ordered table. */
export function worldStates(): readonly WorldState[] {
  return [
    freshSeeded(),
    seedExhausted(),
    rowReady(),
    escalationDue(),
    rowExhausted(),
    twoMisses(),
    oneFailedAttempt('row 1 reported a spent action bound', 'capture; bound spent: capture (1 of 1)'),
    oneFailedAttempt('row 1 reported unreachable', 'e2e; unreachable: prod DNS - runbook section 4'),
    oneFailedAttempt(
      'row 1 proposed an amendment',
      'e2e; amend: the header row is named Title - fixture header.csv line 1',
    ),
    oneFailedAttempt('row 1 asked for a redraw', 'e2e; redraw: the export moves to a service'),
    allClosed(0),
    allClosed(WORLD_ALLOWANCE),
  ];
}

/** A ledger that fails the preconditions (a legacy `cap:` header instead of `allowance:`). */
export function legacyCapLedgerText(): string {
  return serializeLedger(seeded()).replace(/^allowance: (\d+)$/m, 'cap: $1');
}

/** A reserved ledger on disk for a dispatch of `target` planned over `state`. */
export function reservedLedger(state: WorldState, target: number | 'seed' | 'verify'): Ledger {
  return {
    ...state.ledger,
    iterations: state.ledger.iterations + 1,
    pending: { target, repo: 'home', head: state.head },
  };
}

/** The commit git would report after a child for `plan` behaved as `behaviour`. */
export function childCommit(plan: DispatchPlan, behaviour: ReferenceBehaviour, digit = 'c') {
  const { ledger, subject, body } = referenceChildReturn(plan, behaviour);
  return { commit: { sha: sha(digit), subject, body }, headLedgerText: serializeLedger(ledger) };
}

// ---------------------------------------------------------------------------------------------
// The two-leg world (issue 13): web (home) holds AC 1, api (a companion checkout) holds AC 2.

/** A coordinated spec: web (home) implements AC 1, api implements AC 2. */
export const WORLD_LEG_SPEC = [
  '# CSV export',
  '',
  '## Acceptance criteria',
  '',
  '- [ ] Export writes a header row',
  '- [ ] The API serves the CSV',
  '',
  '## Legs',
  '',
  '- web (home): 1',
  '- api: 2',
  '',
].join('\n');

/** The api checkout's base and its HEAD after its seed commit. */
export const API_BASE = sha('a');
export const API_HEAD = sha('7');

/**
 * The coordinated ledger with both legs seeded (web's row 1 done, api's row 2 open with seed
 * evidence), at home HEAD `sha('6')`: the table selects api's row 2, a companion dispatch.
 */
export function legsReady(): WorldState {
  const spec = parseSpec(WORLD_LEG_SPEC).spec;
  const { ledger } = seedLedger(spec, {
    ...WORLD_PATHS,
    base: BASE,
    allowance: WORLD_ALLOWANCE,
    memberBases: { web: BASE, api: API_BASE },
  });
  if (ledger === null || ledger.legs === undefined) throw new Error('the two-leg world spec does not seed');
  const ready: Ledger = {
    ...ledger,
    iterations: 3,
    legs: { ...ledger.legs, members: ledger.legs.members.map((m) => ({ ...m, seeded: true })) },
    rows: ledger.rows.map((r) =>
      r.row === 1
        ? { ...r, status: 'done', attempts: 1, evidence: 'npm test; header row written' }
        : { ...r, evidence: 'npm test; api serves nothing yet' },
    ),
    decisions: [
      formatSeedDecision(1, 0, 'row 1'),
      formatSeedDecision(1, 0, 'row 2'),
      formatOutcomeDecision(1, 'done', 'header row written', 'take row 2'),
    ],
  };
  return { name: 'two legs, api row 2 ready', head: sha('6'), ledger: ready, commits: [] };
}

/** The reserved home ledger of api's row 2 dispatch over {@link legsReady}. */
export function reservedLegLedger(state: WorldState): Ledger {
  return {
    ...state.ledger,
    iterations: state.ledger.iterations + 1,
    pending: { target: 2, repo: 'api', head: API_HEAD },
  };
}

/**
 * What a companion's commit reports for api's row 2 dispatch (docs/decisions/legs.md L8): its
 * rows and decisions in the body after the attribution lines. `foreign` also lists web's row 1
 * (unchanged: a foreign entry).
 */
export function companionCommit(plan: DispatchPlan, variant: 'done' | 'foreign'): CommitFact['body'] {
  const lines = [
    formatChildBody(plan.pending, plan.iteration + 1),
    ...(variant === 'foreign' ? ['| 1 | done | 1 | npm test; header row written |'] : []),
    '| 2 | done | 1 | npm test; api serves the CSV |',
    formatOutcomeDecision(2, 'done', 'api serves the CSV', 'verify'),
  ];
  return lines.join('\n');
}

/**
 * Both legs closed (coordinated verify, L13-L17): api's row 2 recorded done in home, at home HEAD
 * `sha('5')`; the ordered table enters verify, whose gate set runs web's pair then api's.
 */
export function legsClosed(): WorldState {
  const ready = legsReady();
  return {
    name: 'two legs, every row closed',
    head: sha('5'),
    ledger: {
      ...ready.ledger,
      iterations: ready.ledger.iterations + 1,
      rows: ready.ledger.rows.map((r) =>
        r.row === 2 ? { ...r, status: 'done', attempts: 1, evidence: 'npm test; api serves the CSV' } : r,
      ),
      decisions: [
        ...ready.ledger.decisions,
        formatOutcomeDecision(2, 'done', 'api serves the CSV', 'verify'),
      ],
    },
    commits: [],
  };
}
