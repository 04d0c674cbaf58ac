/**
 * `amend reopen <n>` at the verification-failed stop (gauntlet-protocol §3.17; docs/decisions/
 * amendments.md item 6), driven through the real machine by the scripted in-memory host: the
 * `loop: amend` commit's body says how the row was re-bounded, and only a reply with a new
 * criterion text rewrites the spec. Every expected value is written here from those texts.
 */
import { describe, expect, it } from 'vitest';
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
