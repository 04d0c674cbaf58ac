/**
 * The run journal (src/host/run-journal.ts) and what a cybernetic run reads out of it
 * (src/host/cybernetic-journal.ts): a line cut by a kill is dropped and only it, a damaged line
 * elsewhere is refused by name, and the steps come back in order with the one in flight apart.
 */
import { appendFileSync, mkdtempSync, readFileSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  CyberJournalReplayError,
  createCyberJournalSession,
  cyberResumePlan,
  identityDifferences,
} from '../../src/host/cybernetic-journal.js';
import { appendJournal, JournalMalformedError, readJournal } from '../../src/host/run-journal.js';

const dir = mkdtempSync(join(tmpdir(), 'loopchart-journal-'));
let files = 0;
const fresh = () => {
  files += 1;
  return join(dir, `journal-${files}.jsonl`);
};

const identity = {
  version: 1 as const,
  request: { budget: 3 },
  patcher: './patch.sh',
  scopeCheck: null,
  checkTimeoutMs: null,
  patcherTimeoutMs: null,
  transcriptPath: null,
};
const begin = { kind: 'begin', version: 1, identity, derivation: null, head: null, transcriptPath: 't' };

describe('run journal', () => {
  it('reads back what was appended, and an empty journal when there is none', async () => {
    const path = fresh();
    expect(await readJournal(path)).toEqual([]);
    appendJournal(path, { kind: 'a', n: 1 });
    appendJournal(path, { kind: 'b', list: [1, 2] });
    expect(await readJournal(path)).toEqual([
      { kind: 'a', n: 1 },
      { kind: 'b', list: [1, 2] },
    ]);
  });

  it('drops a last line a kill cut short, from the file too, and keeps the rest', async () => {
    const path = fresh();
    appendJournal(path, { kind: 'a' });
    appendFileSync(path, '{"kind":"b","cut');
    expect(await readJournal(path)).toEqual([{ kind: 'a' }]);
    expect(readFileSync(path, 'utf8')).toBe('{"kind":"a"}\n');
    appendJournal(path, { kind: 'c' });
    expect((await readJournal(path)).map((e) => e.kind)).toEqual(['a', 'c']);
  });

  it('refuses a damaged complete line by name', async () => {
    const path = fresh();
    writeFileSync(path, '{"kind":"a"}\nnot json\n{"kind":"c"}\n');
    await expect(readJournal(path)).rejects.toBeInstanceOf(JournalMalformedError);
    writeFileSync(path, '{"no":"kind"}\n');
    await expect(readJournal(path)).rejects.toMatchObject({ code: 'host.journal-malformed' });
  });
});

describe('cybernetic resume plan', () => {
  it('splits completed steps from the one in flight, and sees the end', () => {
    const entries = [
      begin,
      { kind: 'start', seq: 1, actor: 'echoContract', input: { x: 1 }, facts: {} },
      { kind: 'done', seq: 1, actor: 'echoContract', output: {}, facts: { head: 'h' } },
      { kind: 'start', seq: 2, actor: 'runChecks', input: { run: 0 }, facts: {} },
    ];
    const plan = cyberResumePlan(entries);
    expect(plan.completed.map((s) => [s.seq, s.actor, s.outcome?.kind])).toEqual([
      [1, 'echoContract', 'done'],
    ]);
    expect(plan.inFlight).toMatchObject({ seq: 2, actor: 'runChecks', outcome: null });
    expect(plan.ended).toBe(false);
    const ended = cyberResumePlan([
      ...entries,
      { kind: 'error', seq: 2, actor: 'runChecks', error: 'boom', facts: {} },
      { kind: 'end' },
    ]);
    expect(ended.inFlight).toBeNull();
    expect(ended.completed[1]?.outcome).toEqual({ kind: 'error', error: 'boom', facts: {} });
    expect(ended.ended).toBe(true);
  });

  it('refuses a journal without its begin line or with an outcome that never started', () => {
    expect(() => cyberResumePlan([{ kind: 'start', seq: 1, actor: 'a' }])).toThrow(CyberJournalReplayError);
    expect(() =>
      cyberResumePlan([begin, { kind: 'done', seq: 1, actor: 'echoContract', output: {} }]),
    ).toThrow(/never started/);
  });

  it('names the fields in which another command differs', () => {
    expect(identityDifferences(identity, identity)).toEqual([]);
    expect(
      identityDifferences(identity, { ...identity, request: { budget: 4 }, patcherTimeoutMs: 5 }),
    ).toEqual(['request', 'patcherTimeoutMs']);
  });

  it('a session replays the recorded steps in order, refuses a diverging one, then records new ones', async () => {
    const path = fresh();
    const entries = [
      begin,
      { kind: 'start', seq: 1, actor: 'echoContract', input: { x: 1 }, facts: {} },
      { kind: 'done', seq: 1, actor: 'echoContract', output: {}, facts: {} },
      { kind: 'start', seq: 2, actor: 'runChecks', input: { run: 0 }, facts: { before: 1 } },
    ];
    for (const entry of entries) appendJournal(path, entry);
    const heard: string[] = [];
    const session = createCyberJournalSession(path, cyberResumePlan(entries), (kind) => heard.push(kind));
    expect(session.take('echoContract', { x: 1 })?.outcome?.kind).toBe('done');
    // The step in flight comes back without an outcome, with the facts recorded at its start.
    expect(session.take('runChecks', { run: 0 })).toMatchObject({
      seq: 2,
      outcome: null,
      startFacts: { before: 1 },
    });
    session.finish(2, 'runChecks', { output: { ok: true } }, {});
    expect(session.take('applyCandidate', {})).toBeNull();
    expect(session.start('applyCandidate', {}, {})).toBe(3);
    session.end();
    expect(heard).toEqual(['done runChecks', 'start applyCandidate', 'end']);
    expect(cyberResumePlan(await readJournal(path)).inFlight).toMatchObject({
      seq: 3,
      actor: 'applyCandidate',
    });

    const diverging = createCyberJournalSession(path, cyberResumePlan(entries), () => undefined);
    expect(() => diverging.take('echoContract', { x: 2 })).toThrow(CyberJournalReplayError);
    expect(() => diverging.take('retainCandidate', {})).toThrow(/recorded runChecks/);
  });
});
