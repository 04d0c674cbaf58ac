/**
 * `amend reopen <n>` at the verification-failed stop (gauntlet-protocol §3.17; docs/decisions/
 * amendments.md item 6), driven through the real machine by the scripted in-memory host: the
 * `loop: amend` commit's body says how the row was re-bounded, and only a reply with a new
 * criterion text rewrites the spec; and the unreachable-amend stop (§3.13; docs/human-stops.md,
 * "Unreachable row without amend permission") quotes the spec row it would move out of scope.
 * Every expected value is written here from those texts.
 */
import { describe, expect, it } from 'vitest';
import { renderHumanStop } from '../../src/gauntlet/human-stop.js';
import { SINGLE_LEG_LEDGER, SINGLE_LEG_SPEC, sha, startVerifyRun } from '../support/verify-host.js';

/** Stops at verification-failed (repairs spent, 4 of 4), replies `amend reopen 2 [text]`, returns the amend commit. */
async function reopen(text?: string) {
  const run = startVerifyRun({
    ledgerText: SINGLE_LEG_LEDGER,
    specText: SINGLE_LEG_SPEC,
    head: sha('1'),
    verificationRepairs: 4,
    gates: [
      {
        passed: false,
        head: sha('2'),
        gate: 1,
        command: 'npm test',
        exitCode: 1,
        logPath: '/tmp/loopchart-logs/gate-1.log',
        tail: 'FAIL test/export.test.ts',
      },
    ],
    commitHeads: [sha('3')],
  });
  await run.settled();
  run.actor.send({
    type: 'human.amend',
    amendment: text === undefined ? { kind: 'reopen', row: 2 } : { kind: 'reopen', row: 2, text },
  });
  await run.until((s) => s.matches({ humanStop: 'reopenedDuringVerify' }));
  run.actor.stop();
  const [amend] = run.inputsOf('commitLedger');
  return amend;
}

describe('amend reopen at the verification-failed stop', () => {
  it('without text: the body says the spec text is unchanged and the spec is not rewritten', async () => {
    const amend = await reopen();
    expect(amend.subject).toBe('loop: amend');
    expect(amend.body).toContain('reopened by a human amendment - the spec text is unchanged');
    expect(amend.specText).toBeUndefined();
  });

  it("with text: the body names criterion 2's new text and the spec's row 2 carries it", async () => {
    const amend = await reopen('Commas, quotes and newlines are escaped');
    expect(amend.subject).toBe('loop: amend');
    expect(amend.body).toContain(
      'reopened by a human amendment - criterion 2 is now: Commas, quotes and newlines are escaped',
    );
    expect(amend.specText.split('\n')).toContain('- [ ] Commas, quotes and newlines are escaped');
    expect(amend.specText).not.toContain('Commas and quotes are escaped');
  });
});

describe('an admitted failed return marked unreachable, without amend permission (§3.13)', () => {
  it('stops at unreachable-amend naming the spec text of row 2; `redraw <reason>` there ends the run', async () => {
    const marker = 'unreachable: staging bucket - docs/ops/staging.md';
    const ledger = SINGLE_LEG_LEDGER.replace('iterations: 2', 'iterations: 3')
      .replace(
        '| 2 | done | 1 | npm test; commas and quotes escaped |',
        `| 2 | failed | 1 | npm test; ${marker} |`,
      )
      .replace(
        'row 2 done | commas and quotes escaped | verify',
        `row 2 failed | ${marker} | human decision needed`,
      );
    const run = startVerifyRun({
      ledgerText: ledger,
      specText: SINGLE_LEG_SPEC,
      head: sha('1'),
      commitHeads: [sha('7')],
      // The history replay found row 2's failed return (its child commit), not yet answered.
      history: {
        latestAdmission: {
          row: 2,
          sha: sha('6'),
          status: 'failed',
          evidence: `npm test; ${marker}`,
          decision: `row 2 failed | ${marker} | human decision needed`,
          answeredBy: null,
        },
      },
    });
    const stopped = await run.settled();
    expect(stopped.value).toEqual({ humanStop: 'unreachableAmend' });
    expect(stopped.context.stop).toEqual({
      kind: 'unreachable-amend',
      row: 2,
      what: 'staging bucket',
      where: 'docs/ops/staging.md',
      rowText: 'Commas and quotes are escaped',
    });
    const text = renderHumanStop(stopped.context.stop as never, stopped.context.stopLedger as never).split(
      '\n',
    );
    expect(text).toContain(
      'Recommendation: amend cut 2 deviates: unreachable in this checkout - staging bucket; proof at docs/ops/staging.md',
    );
    expect(text).toContain(
      'Out of scope entry: Commas and quotes are escaped - unreachable in this checkout - staging bucket',
    );
    expect(run.inputsOf('reserveDispatch')).toEqual([]);

    // `redraw <reason>` at that stop (docs/human-stops.md replies; docs/decisions/amendments.md):
    // one `loop: redraw` commit deleting the ledger, body `redraw: <reason>`, and the run ends.
    run.actor.send({ type: 'human.redraw', reason: 'uploads moved to the API' });
    const end = await run.settled();
    const [redraw] = run.inputsOf('commitLedger');
    expect(redraw.subject).toBe('loop: redraw');
    expect(redraw.body).toBe('redraw: uploads moved to the API');
    expect(redraw.deleteLedger).toBe(true);
    expect(end.output).toEqual({
      status: 'stopped',
      text: 'Redrawn: docs/plans/csv-export.md is deleted (loop: redraw - uploads moved to the API). Redraw the spec, then run again: the next run seeds a fresh ledger from the spec.\n',
    });
  });
});
