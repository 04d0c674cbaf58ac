/**
 * A transcript without a repository: the longest path of a registered machine's generated suite,
 * run on a live actor with the host's transcript recorder attached. The CLI tests of
 * `loopchart view` use it on small machines; the evidence is the rule labels of the transitions.
 */
import type { AnyStateMachine } from 'xstate';
import { machines } from '../../machines/index.js';
import { type CoverageCollector, createCoverageCollector } from '../../src/graph/coverage.js';
import { models } from '../../src/graph/models/index.js';
import { generatePathSuite } from '../../src/graph/path-suite.js';
import { runPath } from '../../src/graph/run-path.js';
import { createTranscriptRecorder } from '../../src/host/transcript.js';

/** Writes the transcript of the longest generated path of machine `name` to `file`. */
export async function writePathTranscript(file: string, name: keyof typeof machines): Promise<void> {
  const machine = machines[name] as AnyStateMachine;
  const model = models[name];
  if (model === undefined) throw new Error(`no model for ${name}`);
  const suite = generatePathSuite(machine, model);
  const path = [...suite.paths].sort((a, b) => b.steps.length - a.steps.length)[0];
  if (path === undefined) throw new Error('the suite has no path');
  const recorder = createTranscriptRecorder({
    path: file,
    machine: name,
    project: (step) => ({
      evidence: step.transitions.flatMap((t) =>
        t.description === undefined ? [] : [`rule: ${t.description}`],
      ),
    }),
  });
  const coverage = createCoverageCollector();
  const collector: CoverageCollector = {
    ...coverage,
    inspect: (event) => {
      coverage.inspect(event);
      recorder.inspect(event);
    },
  };
  await runPath(machine, model, path, { collector });
}
