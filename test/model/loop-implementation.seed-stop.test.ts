/**
 * The seed-exhaustion stop (gauntlet-protocol §3.6 seed count; docs/human-stops.md, "Seed
 * exhaustion"), driven through the real machine by the scripted in-memory host: once the
 * `loop: repair seed` count reaches the allowance the loop stops on the seed and quotes the last
 * repair's reason, or says every seed dispatch was repaired when the history has none. Every
 * expected value is written here from those texts.
 */
import { describe, expect, it } from 'vitest';
import { renderHumanStop } from '../../src/gauntlet/human-stop.js';
import { SINGLE_LEG_SPEC, sha, startVerifyRun } from '../support/verify-host.js';

/** A seeded ledger, both rows open and untouched, after four repaired seed dispatches. */
const LEDGER = [
  '# Loop ledger',
  '**Spec:** docs/specs/csv-export.md',
  `base: ${sha('e')}`,
  'verification: npm test',
  'checks: commands',
  'iterations: 4',
  'allowance: 4',
  '',
  '| row | status | attempts | evidence |',
  '|---|---|---|---|',
  '| 1 | open | 0 |  |',
  '| 2 | open | 0 |  |',
  '',
  '## Decisions',
  '',
].join('\n');

async function seedStop(lastSeedRepairReason: string | null) {
  const run = startVerifyRun({
    ledgerText: LEDGER,
    specText: SINGLE_LEG_SPEC,
    head: sha('1'),
    history: { seedRepairCount: 4, lastSeedRepairReason },
  });
  const stopped = await run.settled();
  run.actor.stop();
  expect(run.inputsOf('reserveDispatch')).toEqual([]);
  return stopped;
}

describe('seed exhaustion (4 of 4 seed repairs)', () => {
  it("stops on the seed quoting the last repair's reason, as docs/human-stops.md shows", async () => {
    const stopped = await seedStop('seed miss: the seed gave no row evidence');
    expect(stopped.value).toEqual({ humanStop: 'seedExhaustion' });
    expect(stopped.context.stop).toEqual({
      kind: 'seed-exhaustion',
      seedRepairs: 4,
      lastReason: 'seed miss: the seed gave no row evidence',
    });
    const text = renderHumanStop(stopped.context.stop as never, stopped.context.stopLedger as never);
    expect(text.split('\n').slice(0, 9)).toEqual([
      'gauntlet: question',
      'Stopped on seed',
      'seed: 4 of 4',
      'row 1: 0 of 4',
      'row 2: 0 of 4',
      "Preserve every row's attempts.",
      'Problem: seed miss: the seed gave no row evidence',
      'Recommendation: rows +N - only a raised allowance permits more seed dispatches; a numbered retry leaves the seed count at 4',
      '1 - Retry with hint: retry <n> | <hint>',
    ]);
  });

  it('says every seed dispatch so far was repaired when the history gives no reason', async () => {
    const stopped = await seedStop(null);
    expect(stopped.context.stop).toEqual({ kind: 'seed-exhaustion', seedRepairs: 4 });
    const text = renderHumanStop(stopped.context.stop as never, stopped.context.stopLedger as never);
    expect(text.split('\n').find((line) => line.startsWith('Problem: '))).toContain(
      'every seed dispatch so far was repaired',
    );
  });
});
