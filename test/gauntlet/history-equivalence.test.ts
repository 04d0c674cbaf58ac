import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { type CommitLedgerFacts, historyFromCommits } from '../../src/gauntlet/history.js';
import { referenceHistory } from './history-reference.js';
import { LEDGER_PATH, ledgerOf, RunBuilder, SOURCE_PATH } from './rules-fixtures.js';

const ROWS = 3;
const row = fc.integer({ min: 1, max: ROWS });
const status = fc.constantFrom('done' as const, 'failed' as const);

/** One protocol step (or a stray commit) applied to a run. */
type Step = (run: RunBuilder) => void;

const steps: fc.Arbitrary<Step> = fc.oneof(
  row.map((r) => (run: RunBuilder) => run.seedEvidence({ [r]: `npm test; seeded ${r}` }, [], `row ${r}`)),
  fc.constant((run: RunBuilder) => run.seedMiss('counts do not add up')),
  fc.constant((run: RunBuilder) => run.seedInterrupted('killed')),
  fc.tuple(row, status, fc.boolean()).map(
    ([r, s, onlyLedger]) =>
      (run: RunBuilder) =>
        run.child(r, s, { paths: onlyLedger ? [LEDGER_PATH] : [LEDGER_PATH, SOURCE_PATH] }),
  ),
  fc.tuple(row, fc.boolean()).map(
    ([r, onlyLedger]) =>
      (run: RunBuilder) =>
        run.miss(r, `miss ${r}`, onlyLedger ? [LEDGER_PATH] : [LEDGER_PATH, SOURCE_PATH]),
  ),
  row.map((r) => (run: RunBuilder) => run.interrupted(r, 'silence', ['ran capture (1 of 2)'])),
  row.map((r) => (run: RunBuilder) => run.retry(r, `hint ${r}`)),
  fc.constant((run: RunBuilder) => run.raise(1, 'more')),
  row.map((r) => (run: RunBuilder) => run.cut(r, 'out of scope')),
  fc.constant((run: RunBuilder) => run.amend()),
  row.map((r) => (run: RunBuilder) => run.escalate(r)),
  fc.constant((run: RunBuilder) => run.verificationRepair()),
  // A child commit that changes only the ledger and no status (an empty return, §3.8).
  fc.tuple(row, status).map(
    ([r, s]) =>
      (run: RunBuilder) =>
        void run.commit(`loop: row ${r} ${s}`, '', [LEDGER_PATH]),
  ),
  fc.tuple(row, status).map(
    ([r, s]) =>
      (run: RunBuilder) =>
        void run.commit(`loop: row ${r} ${s}`, '', [LEDGER_PATH]),
  ),
  // Stray commits: an unknown subject, a commit that does not touch the ledger, an unreadable ledger.
  fc.constant((run: RunBuilder) => void run.commit('fix typo', '', [SOURCE_PATH])),
  row.map((r) => (run: RunBuilder) => void run.commit(`loop: row ${r} done`, '', [SOURCE_PATH], null)),
  fc.constant((run: RunBuilder) => void run.commit('loop: repair row 1', 'miss: x', [LEDGER_PATH], null)),
);

describe('the lazy replay answers what the forward replay answers', () => {
  it('for any sequence of protocol steps and stray commits, with or without a pending tuple', () => {
    fc.assert(
      fc.property(
        fc.array(steps, { maxLength: 40 }),
        fc.option(fc.constantFrom<number | 'seed' | 'verify'>(1, 2, 'seed', 'verify')),
        (sequence, pending) => {
          const run = new RunBuilder(
            ledgerOf({ rows: Array.from({ length: ROWS }, () => ['open', 0] as const) }),
          );
          for (const step of sequence) step(run);
          if (pending !== null) run.pending(pending);
          const options = { ledger: run.ledger, ledgerPath: LEDGER_PATH };
          expect(historyFromCommits(run.commits, options)).toEqual(referenceHistory(run.commits, options));
        },
      ),
      { numRuns: 600 },
    );
  });

  it('answers the same with a memo of ledger facts kept from the replays of earlier prefixes', () => {
    // A host keeps the facts the replay derived (the latest admission's decision line, cells,
    // repair kinds, empty returns) with each commit and hands them to the next replay of a longer
    // branch (a resume, the next iteration). Facts of commit i depend only on commits up to i, so
    // the memo must never change an answer, whichever prefixes filled it.
    fc.assert(
      fc.property(
        fc.array(steps, { maxLength: 30 }),
        fc.array(fc.nat(), { maxLength: 4 }),
        fc.option(fc.constantFrom<number | 'seed' | 'verify'>(1, 2, 'seed', 'verify')),
        (sequence, cuts, pending) => {
          const run = new RunBuilder(
            ledgerOf({ rows: Array.from({ length: ROWS }, () => ['open', 0] as const) }),
          );
          for (const step of sequence) step(run);
          if (pending !== null) run.pending(pending);
          const ends = [...cuts.map((cut) => cut % (run.commits.length + 1)), run.commits.length].sort(
            (a, b) => a - b,
          );
          const facts = new Map<string, CommitLedgerFacts>();
          for (const end of ends) {
            const commits = run.commits.slice(0, end);
            const plain = historyFromCommits(commits, { ledger: run.ledger, ledgerPath: LEDGER_PATH });
            const memo = historyFromCommits(commits, { ledger: run.ledger, ledgerPath: LEDGER_PATH, facts });
            expect(memo).toEqual(plain);
          }
          // Replayed again from the memo alone: no ledger is needed for a fact the memo holds.
          const blind = run.commits.map((commit) =>
            facts.has(commit.sha) ? { ...commit, ledger: null } : commit,
          );
          const again = historyFromCommits(blind, { ledger: run.ledger, ledgerPath: LEDGER_PATH, facts });
          expect(again).toEqual(
            historyFromCommits(run.commits, { ledger: run.ledger, ledgerPath: LEDGER_PATH }),
          );
        },
      ),
      { numRuns: 400 },
    );
  });
});
