/**
 * From a transcript file's text to the viewer page: parse and check the records once at this
 * boundary, find the machine they name, draw it, lay the records over it.
 */
import type { AnyStateMachine } from 'xstate';
import { InputError } from '../../common/errors.js';
import type { Finding } from '../../common/finding.js';
import { parseTranscript } from '../../loop-protocol/transcript.js';
import { toDot } from '../dot.js';
import { registeredMachine } from '../load-machine.js';
import { toSvg } from '../svg.js';
import { renderViewerPage } from './page.js';
import { buildRunView, type RunView } from './run-view.js';

/** Finding codes that make a transcript line unreadable; the others become page warnings. */
const MALFORMED = new Set(['loop-protocol.transcript.not-json', 'loop-protocol.transcript.record-invalid']);

/** A transcript the viewer cannot show (code `view.transcript.invalid`); findings name the lines. */
export class TranscriptViewError extends InputError {
  constructor(source: string, message: string, findings: readonly Finding[] = []) {
    super('view.transcript.invalid', `${source}: ${message}`, findings);
  }
}

/** Options of {@link transcriptViewerPage}. */
export interface TranscriptPageOptions {
  /** The transcript's file name, shown on the page and in messages. */
  readonly source?: string;
  /**
   * The machine to draw the records on, for a host's own variant; by default the registered
   * machine the records name.
   */
  readonly machine?: { readonly name: string; readonly machine: AnyStateMachine };
}

/** The page and the run view it shows. */
export interface TranscriptPage {
  readonly html: string;
  readonly view: RunView;
}

/**
 * Builds the viewer page of a transcript.
 *
 * @param text the transcript's text (JSON Lines of transcript records)
 * @throws TranscriptViewError when a line is not a transcript record, there are no records, or
 *   the records name more than one machine
 * @throws UnknownMachineError when the records name a machine the registry does not have and no
 *   machine is given
 */
export async function transcriptViewerPage(
  text: string,
  options: TranscriptPageOptions = {},
): Promise<TranscriptPage> {
  const source = options.source ?? 'transcript';
  const parsed = parseTranscript(text);
  const malformed = parsed.findings.filter((f) => MALFORMED.has(f.code));
  if (malformed.length > 0) throw new TranscriptViewError(source, 'is not a valid transcript', malformed);
  const records = parsed.records;
  const first = records[0];
  if (first === undefined) throw new TranscriptViewError(source, 'has no records');
  const names = [...new Set(records.map((r) => r.machine))];
  if (names.length > 1)
    throw new TranscriptViewError(
      source,
      `mixes records of several machines (${names.join(', ')}); a view shows one run of one machine`,
    );
  const target = options.machine ?? registeredMachine(first.machine);
  const svg = await toSvg(toDot(target.machine));
  const warnings = parsed.findings
    .filter((f) => !MALFORMED.has(f.code))
    .map((f) => `line ${f.line}: ${f.reason}`);
  const view = buildRunView(records, target.machine, { name: target.name, source, warnings });
  return { html: renderViewerPage(view, svg), view };
}
