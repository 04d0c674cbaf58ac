import { mkdtempSync, readFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { assign, createActor, setup } from 'xstate';
import { enumerateTransitions } from '../../src/graph/transitions.js';
import { createTranscriptRecorder } from '../../src/host/transcript.js';
import { parseTranscript } from '../../src/loop-protocol/transcript.js';

// A machine with an eventless rule table, so one event causes several transitions.
const counter = setup({
  types: { context: {} as { n: number }, events: {} as { type: 'bump' } | { type: 'noop' } },
  guards: { reachedTwo: ({ context }) => context.n >= 2 },
}).createMachine({
  id: 'counter',
  context: { n: 0 },
  initial: 'idle',
  states: {
    idle: { on: { bump: { target: 'deciding', actions: assign({ n: ({ context }) => context.n + 1 }) } } },
    deciding: {
      always: [
        { guard: 'reachedTwo', target: 'done', description: 'R1 reached two' },
        { target: 'idle', description: 'R2 keep counting' },
      ],
    },
    done: { type: 'final' },
  },
});

function record(events: string[]) {
  const path = join(mkdtempSync(join(tmpdir(), 'transcript-')), 'run.jsonl');
  const recorder = createTranscriptRecorder({
    path,
    machine: 'counter',
    project: ({ snapshot }) => ({ cycle: (snapshot.context as { n: number }).n }),
    now: () => new Date('2026-11-29T12:00:00Z'),
  });
  const actor = createActor(counter, { inspect: recorder.inspect }).start();
  for (const type of events) actor.send({ type } as { type: 'bump' });
  return { text: readFileSync(path, 'utf8'), written: recorder.written() };
}

describe('transcript recorder', () => {
  it('writes one schema-valid record per processed event, with the always transitions it caused', () => {
    const { text, written } = record(['bump', 'bump']);
    const records = parseTranscript(text).records;
    // One line per record, no blank lines: line numbers in errors are record numbers.
    expect(text.split('\n')).toHaveLength(records.length + 1);
    // the initial snapshot (xstate.init) plus two bumps
    expect(records.map((r) => r.event)).toEqual(['xstate.init', 'bump', 'bump']);
    expect(written).toBe(3);
    expect(records.map((r) => r.state)).toEqual(['idle', 'idle', 'done']);
    expect(records[1]?.transition.map((t) => t.description ?? null)).toEqual([null, 'R2 keep counting']);
    expect(records[2]?.transition.map((t) => t.description ?? null)).toEqual([null, 'R1 reached two']);
    expect(records.map((r) => r.cycle)).toEqual([0, 1, 2]);
  });

  it('keys transitions exactly as the coverage enumeration does', () => {
    const keys = new Set(enumerateTransitions(counter).map((t) => t.key));
    const { text } = record(['bump', 'bump']);
    const taken = parseTranscript(text).records.flatMap((r) => r.transition.map((t) => t.key));
    expect(taken.length).toBeGreaterThan(0);
    for (const key of taken) expect(keys.has(key)).toBe(true);
  });

  it('records an event that no state handles with no transitions', () => {
    const { text } = record(['noop']);
    const records = parseTranscript(text).records;
    expect(records[1]).toMatchObject({ event: 'noop', state: 'idle', transition: [] });
  });
});
