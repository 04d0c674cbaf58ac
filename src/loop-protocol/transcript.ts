import { InputError } from '../common/errors.js';
import { type Finding, finding } from '../common/finding.js';
import { type TranscriptRecord, transcriptRecordSchema } from './transcript-record.js';

/** Result of {@link parseTranscript}: the valid records in order and a finding per bad line. */
export interface TranscriptParse {
  readonly records: readonly TranscriptRecord[];
  readonly findings: readonly Finding[];
}

/**
 * Parses a transcript: one JSON object per line (JSON Lines); blank lines are ignored. A line
 * that is not JSON or not a valid record is reported and skipped, so the rest stays readable.
 * Cycles must not go backwards and timestamps must not decrease.
 *
 * @param text the transcript file's text
 * @returns records and findings: `loop-protocol.transcript.not-json`, `.record-invalid`,
 *   `.cycle-decreased`, `.time-decreased`
 */
export function parseTranscript(text: string): TranscriptParse {
  const records: TranscriptRecord[] = [];
  const findings: Finding[] = [];
  text.split(/\r?\n/).forEach((source, index) => {
    const line = index + 1;
    if (source.trim() === '') return;
    let json: unknown;
    try {
      json = JSON.parse(source);
    } catch {
      findings.push(finding('loop-protocol.transcript.not-json', line, 'the line is not a JSON object'));
      return;
    }
    const parsed = transcriptRecordSchema.safeParse(json);
    if (!parsed.success) {
      const detail = parsed.error.issues
        .slice(0, 3)
        .map((issue) => `${issue.path.join('.') || 'record'}: ${issue.message}`)
        .join('; ');
      findings.push(
        finding('loop-protocol.transcript.record-invalid', line, `not a transcript record (${detail})`),
      );
      return;
    }
    const previous = records.at(-1);
    if (previous && parsed.data.cycle < previous.cycle)
      findings.push(
        finding(
          'loop-protocol.transcript.cycle-decreased',
          line,
          `cycle ${parsed.data.cycle} follows cycle ${previous.cycle}`,
        ),
      );
    if (previous && Date.parse(parsed.data.timestamp) < Date.parse(previous.timestamp))
      findings.push(
        finding(
          'loop-protocol.transcript.time-decreased',
          line,
          'the timestamp is earlier than the previous record',
        ),
      );
    records.push(parsed.data);
  });
  return { records, findings };
}

/**
 * Serializes one record as a transcript line (JSON, no newline inside, keys in schema order).
 *
 * @param record a record; it is validated first
 * @returns the line followed by `\n`
 * @throws InputError (`loop-protocol.transcript.record-invalid`) when the record does not
 *   satisfy the transcript record schema
 */
export function serializeTranscriptRecord(record: TranscriptRecord): string {
  const parsed = transcriptRecordSchema.safeParse(record);
  if (!parsed.success)
    throw new InputError(
      'loop-protocol.transcript.record-invalid',
      'the transcript record does not satisfy the schema',
      parsed.error.issues.map((issue) =>
        finding(
          'loop-protocol.transcript.record-invalid',
          0,
          `${issue.path.join('.') || 'record'}: ${issue.message}`,
        ),
      ),
    );
  return `${JSON.stringify(parsed.data)}\n`;
}
