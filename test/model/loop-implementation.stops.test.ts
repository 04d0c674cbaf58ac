/**
 * Two stops on the statechart, driven through the real machine by the scripted in-memory host:
 * an authorized restore whose spec cannot be read ends before the loop does anything
 * (gauntlet-protocol §3.1 step 2, §3.2: the spec is read in full at seed and restore), and a row
 * reopened by amendment during verify is named in its stop (§3.16, §3.17: "a re-bounded done row
 * becomes `open`"; docs/human-stops.md). Every expected value is written here from those texts.
 */
import { describe, expect, it } from 'vitest';
import { renderHumanStop } from '../../src/gauntlet/human-stop.js';
import { SINGLE_LEG_LEDGER, SINGLE_LEG_SPEC, sha, startVerifyRun } from '../support/verify-host.js';

describe('a restore whose spec cannot be read', () => {
  it('ends invalid naming the spec, before any refresh, gate, dispatch or commit', async () => {
    const run = startVerifyRun({ ledgerText: SINGLE_LEG_LEDGER, specText: null, head: sha('1') });
    const end = await run.settled();
    expect(end.output).toMatchObject({ status: 'invalid' });
    expect((end.output as { message: string }).message).toContain('docs/specs/csv-export.md');
    expect(run.calls.map((c) => c.actor)).toEqual(['inspectWorkspace', 'resolveSettings']);
  });
});

describe('a row reopened by amendment during verify', () => {
  it('stops on that row (row 2, not the first row) after the `loop: amend` commit', async () => {
    // The repairs are spent (4 of 4), so the failed gate run stops at verification-failed, whose
    // menu offers amend or stop.
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
    const failed = await run.settled();
    expect(failed.value).toEqual({ humanStop: 'verificationFailed' });

    run.actor.send({ type: 'human.amend', amendment: { kind: 'reopen', row: 2 } });
    const stopped = await run.until((s) => s.matches({ humanStop: 'reopenedDuringVerify' }));
    const [amend] = run.inputsOf('commitLedger');
    expect(amend.subject).toBe('loop: amend');
    expect(amend.ledger.rows.map((r: { status: string }) => r.status)).toEqual(['done', 'open']);
    expect(stopped.context.stop).toEqual({ kind: 'reopened-during-verify', row: 2 });
    const text = renderHumanStop(stopped.context.stop as never, stopped.context.stopLedger as never);
    expect(text.split('\n').slice(0, 2)).toEqual([
      'gauntlet: question',
      'Stopped: row 2 reopened by amendment during verify',
    ]);
  });
});
