/**
 * A scripted in-memory host for the loop engine (verify steps 1-5, coordinated legs, and the
 * dispatch loop before them): the machine starts on a restored ledger (in the verify tests every
 * row is closed, so the ordered table enters verify at once). The host keeps one "disk" (the
 * ledger text and home HEAD): a commit writes the requested ledger and moves HEAD, a reservation
 * writes the reserved ledger, a refresh reads them back. Gate runs, reviews, child reports and
 * boundaries are taken from the script in order; the script may replace any other actor (the
 * recovery steps, the model resolution); every actor's input and every notice the loop prints are
 * recorded, so a test asserts on what the machine handed the host.
 * No process is spawned and nothing touches a disk.
 */
import { type Actor, createActor, fromPromise, type SnapshotFrom, waitFor } from 'xstate';
import {
  type BoundaryFacts,
  type ChildReport,
  type GateRun,
  loopImplementationMachine,
  type ReviewReport,
} from '../../machines/loop-implementation/index.js';
import { emptyLoopHistory, type LoopHistory } from '../../src/gauntlet/history.js';
import { parseLedger, serializeLedger } from '../../src/gauntlet/ledger.js';
import type { Ledger } from '../../src/gauntlet/types.js';

/** A full SHA made of one repeated hex digit (readable in expectations). */
export function sha(digit: string): string {
  return digit.repeat(40);
}

/** A single-leg ledger (the layout of gauntlet-protocol §1.8) whose two rows are done. */
export const SINGLE_LEG_LEDGER = [
  '# Loop ledger',
  '**Spec:** docs/specs/csv-export.md',
  `base: ${sha('e')}`,
  'verification: npm test',
  'checks: commands',
  'iterations: 2',
  'allowance: 4',
  '',
  '| row | status | attempts | evidence |',
  '|---|---|---|---|',
  '| 1 | done | 1 | npm test; header row written |',
  '| 2 | done | 1 | npm test; commas and quotes escaped |',
  '',
  '## Decisions',
  '',
  'row 1 done | header row written | take row 2',
  'row 2 done | commas and quotes escaped | verify',
  '',
].join('\n');

/** The spec of {@link SINGLE_LEG_LEDGER}: two acceptance criteria, no amend grant. */
export const SINGLE_LEG_SPEC = [
  '# CSV export',
  '',
  '**Amend-grant:** none',
  '',
  '## Acceptance criteria',
  '',
  '- [ ] Export writes a header row',
  '- [ ] Commas and quotes are escaped',
  '',
].join('\n');

/** What a verify test scripts. */
export interface VerifyScript {
  /** The ledger on disk at start (in the verify tests every row is closed). */
  readonly ledgerText: string;
  /** The spec file, or `null` when it cannot be read. */
  readonly specText: string | null;
  /** Home HEAD at start. */
  readonly head: string;
  /** A coordinated run's checkouts (member -> path); absent for a single leg. */
  readonly legCheckouts?: Readonly<Record<string, string>>;
  /**
   * A coordinated run's checkout HEADs as `inspectWorkspace` and `refresh` report them, like the
   * real host only when their input names the checkouts.
   */
  readonly legHeads?: Readonly<Record<string, string>>;
  /** The checkout HEADs of the refreshes, in order; a refresh past the list reports `legHeads`. */
  readonly refreshLegHeads?: readonly Readonly<Record<string, string>>[];
  /** Home `loop: repair verification` markers since base, as the host's replay reports them. */
  readonly verificationRepairs?: number;
  /**
   * Other facts of the history the host's replay reports (such as the surviving seed), over the
   * empty history of the ledger on disk.
   */
  readonly history?: Partial<LoopHistory>;
  /** Gate runs, in order. */
  readonly gates?: readonly GateRun[];
  /** Review reports, in order (whole-diff and conformance alike). */
  readonly reviews?: readonly ReviewReport[];
  /** Child reports of verification repairs, in order. */
  readonly children?: readonly ChildReport[];
  /** Boundary reads after each child, in order. */
  readonly boundaries?: readonly BoundaryFacts[];
  /** HEADs the host's commits move home to, in order (marker, amendment, fix round ...). */
  readonly commitHeads?: readonly string[];
  /**
   * Bodies replacing (or adding) actors by source name, such as the recovery steps
   * (`checkProvenance`, `cleanupJobs`, `collectActionRecords`, `resetCheckout`) or
   * `resolveImplModel`; their calls are recorded like the others.
   */
  // biome-ignore lint/suspicious/noExplicitAny: each test scripts the actor it replaces
  readonly actors?: Readonly<Record<string, (input: any) => unknown>>;
}

/** One actor invocation the host saw. */
export interface HostCall {
  readonly actor: string;
  // biome-ignore lint/suspicious/noExplicitAny: each test reads the fields of the actor it asserts on
  readonly input: any;
}

type LoopSnapshot = SnapshotFrom<typeof loopImplementationMachine>;

/** A started loop actor on the scripted host, with the calls it made. */
export interface VerifyRun {
  readonly actor: Actor<typeof loopImplementationMachine>;
  readonly calls: HostCall[];
  /** The text of every `notice` the loop emitted (`terminated <k> child jobs` ...), in order. */
  readonly notices: string[];
  /** The inputs of every call of one actor source, in order. */
  // biome-ignore lint/suspicious/noExplicitAny: see HostCall.input
  inputsOf(actor: string): any[];
  /** Waits until the machine reaches a human stop or a final state, and returns that snapshot. */
  settled(): Promise<LoopSnapshot>;
  /** Waits until a snapshot satisfies `predicate` (rejects when the run ends first). */
  until(predicate: (snapshot: LoopSnapshot) => boolean): Promise<LoopSnapshot>;
}

/**
 * Starts the loop engine on the scripted host.
 *
 * @param script the start state and the scripted outcomes
 */
export function startVerifyRun(script: VerifyScript): VerifyRun {
  const calls: HostCall[] = [];
  const gates = [...(script.gates ?? [])];
  const reviews = [...(script.reviews ?? [])];
  const children = [...(script.children ?? [])];
  const boundaries = [...(script.boundaries ?? [])];
  const commitHeads = [...(script.commitHeads ?? [])];
  const refreshLegHeads = [...(script.refreshLegHeads ?? [])];
  let ledgerText = script.ledgerText;
  let head = script.head;

  const take = <T>(queue: T[], what: string): T => {
    const next = queue.shift();
    if (next === undefined) throw new Error(`the script has no ${what} left`);
    return next;
  };
  const scripted = <I, O>(name: string, body: (input: I) => O) =>
    fromPromise<O, I>(async ({ input }) => {
      calls.push({ actor: name, input });
      return body(input);
    });
  const commit = (ledger: Ledger) => {
    ledgerText = serializeLedger(ledger);
    head = take(commitHeads, 'commit HEAD');
    return { head };
  };
  // Without scripted history facts the machine replays history itself (no commits since base).
  const history = (): { history: LoopHistory } | { commits: [] } => {
    if (script.verificationRepairs === undefined && script.history === undefined) return { commits: [] };
    const ledger = parseLedger(ledgerText).ledger ?? undefined;
    return {
      history: {
        ...emptyLoopHistory(ledger),
        ...script.history,
        ...(script.verificationRepairs === undefined
          ? {}
          : { verificationRepairs: script.verificationRepairs }),
      },
    };
  };

  // The real host reads the HEADs of the checkouts it is given, and of none otherwise.
  const legHeadsPart = (input: { legCheckouts?: unknown }, heads = script.legHeads) =>
    heads === undefined || input.legCheckouts === undefined ? {} : { legHeads: heads };

  const replaced = Object.fromEntries(
    Object.entries(script.actors ?? {}).map(([name, body]) => [name, scripted(name, body)]),
  );
  const machine = loopImplementationMachine.provide({
    actors: {
      inspectWorkspace: scripted('inspectWorkspace', (input: { legCheckouts?: unknown }) => ({
        head,
        porcelain: '',
        ledgerText,
        specText: script.specText,
        savedLedgerText: null,
        ...legHeadsPart(input),
      })),
      resolveSettings: scripted('resolveSettings', () => ({ allowance: 4, escalateAfter: 2 })),
      refresh: scripted('refresh', (input: { legCheckouts?: unknown }) => ({
        head,
        ledgerText,
        ...history(),
        ...legHeadsPart(input, refreshLegHeads.shift() ?? script.legHeads),
      })),
      commitLedger: scripted('commitLedger', (request: { ledger: Ledger }) => commit(request.ledger)),
      resolveImplModel: scripted('resolveImplModel', () => ({ model: 'repair-model' })),
      reserveDispatch: scripted('reserveDispatch', (input: { plan: { reserved: Ledger } }) => {
        ledgerText = serializeLedger(input.plan.reserved);
        return {};
      }),
      dispatchChild: scripted('dispatchChild', () => take(children, 'child report')),
      readBoundary: scripted('readBoundary', () => take(boundaries, 'boundary read')),
      finishDispatch: scripted('finishDispatch', () => ({})),
      runGates: scripted('runGates', () => {
        const run = take(gates, 'gate run');
        head = run.head;
        return run;
      }),
      runReview: scripted('runReview', () => take(reviews, 'review report')),
      runFixRound: scripted('runFixRound', () => {
        head = take(commitHeads, 'commit HEAD');
        return { head };
      }),
      finishBranch: scripted('finishBranch', () => ({})),
      ...replaced,
    } as never,
  });
  const actor = createActor(machine, {
    input: {
      ledgerPath: 'docs/plans/csv-export.md',
      specPath: 'docs/specs/csv-export.md',
      verification: 'npm test',
      ...(script.legCheckouts === undefined ? {} : { legCheckouts: script.legCheckouts }),
    },
  });
  const notices: string[] = [];
  actor.on('notice', (event) => notices.push(event.text));
  actor.start();
  return {
    actor,
    calls,
    notices,
    inputsOf: (name) => calls.filter((c) => c.actor === name).map((c) => c.input),
    settled: () => waitFor(actor, (s) => s.status !== 'active' || s.matches('humanStop')),
    until: (predicate) => waitFor(actor, predicate),
  };
}
