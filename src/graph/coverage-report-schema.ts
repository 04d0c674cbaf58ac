/**
 * Reading `visualizations/coverage.json` back (the format {@link coverageReportJson} writes), for
 * tools that draw it: `loopchart viz --coverage`. A report is checked once at this boundary;
 * a report that no longer matches the machine (a transition key the machine does not have) is an
 * error, because drawing it would show stale gaps as real ones.
 */
import type { AnyStateMachine } from 'xstate';
import { z } from 'zod';
import { InputError } from '../common/errors.js';
import { type Finding, finding } from '../common/finding.js';
import { COVERAGE_REPORT_FORMAT } from './coverage-report.js';
import { stateNodesInDocumentOrder } from './state-nodes.js';
import { enumerateTransitions } from './transitions.js';

const countSchema = z.int().nonnegative();

/** One machine's entry of a coverage report. */
export const coverageReportEntrySchema = z.object({
  transitions: z.object({
    covered: countSchema,
    total: countSchema,
    missing: z.array(
      z.object({
        key: z.string().min(1),
        source: z.string(),
        event: z.string(),
        index: countSchema,
        guard: z.string().optional(),
        rule: z.string().optional(),
        targets: z.array(z.string()),
      }),
    ),
  }),
  states: z.object({ covered: countSchema, total: countSchema, missing: z.array(z.string()) }),
  guards: z
    .object({
      covered: countSchema,
      total: countSchema,
      missing: z.array(z.object({ key: z.string().min(1), guard: z.string(), outcome: z.boolean() })),
    })
    .optional()
    .describe('guard outcomes shown (true and false per guarded transition, see guardCoverage)'),
});

/** `visualizations/coverage.json`: the format tag and one entry per machine id. */
export const coverageReportSchema = z.object({
  format: z.literal(COVERAGE_REPORT_FORMAT),
  machines: z.record(z.string(), coverageReportEntrySchema),
});

/** A parsed coverage report. */
export type CoverageReport = z.infer<typeof coverageReportSchema>;
/** One machine's entry of a {@link CoverageReport}. */
export type CoverageReportEntry = z.infer<typeof coverageReportEntrySchema>;

/** A coverage report that does not parse or does not fit a machine (code `graph.coverage.report-invalid`). */
export class CoverageReportError extends InputError {
  constructor(source: string, message: string, findings: readonly Finding[] = []) {
    super('graph.coverage.report-invalid', `${source}: ${message}`, findings);
  }
}

/**
 * Parses the text of a coverage report.
 *
 * @param text the file's text
 * @param source the file name, for messages
 * @throws CoverageReportError when the text is not JSON or not a `loopchart-coverage/1` report
 */
export function parseCoverageReport(text: string, source = 'coverage report'): CoverageReport {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new CoverageReportError(source, 'not JSON');
  }
  const parsed = coverageReportSchema.safeParse(json);
  if (!parsed.success)
    throw new CoverageReportError(
      source,
      `not a ${COVERAGE_REPORT_FORMAT} report (as \`loopchart generate\` writes visualizations/coverage.json)`,
      parsed.error.issues
        .slice(0, 5)
        .map((issue) =>
          finding(
            'graph.coverage.report-invalid',
            0,
            `${issue.path.join('.') || 'report'}: ${issue.message}`,
          ),
        ),
    );
  return parsed.data;
}

/**
 * The report's entry for `machine` (looked up by machine id), checked against the machine.
 *
 * @throws CoverageReportError when the report has no entry for the machine, or names a
 *   transition key or state id the machine does not have (the report is stale)
 */
export function coverageEntryFor(
  report: CoverageReport,
  machine: AnyStateMachine,
  source = 'coverage report',
): CoverageReportEntry {
  const entry = report.machines[machine.id];
  if (entry === undefined || !Object.hasOwn(report.machines, machine.id))
    throw new CoverageReportError(
      source,
      `has no entry for machine "${machine.id}" (it has: ${Object.keys(report.machines).join(', ') || 'none'})`,
    );
  const keys = new Set(enumerateTransitions(machine).map((t) => t.key));
  const states = new Set(stateNodesInDocumentOrder(machine).map((node) => node.id));
  const stale: Finding[] = [
    ...entry.transitions.missing
      .filter((t) => !keys.has(t.key))
      .map((t) => finding('graph.coverage.stale', 0, `transition ${t.key} is not in the machine`)),
    ...entry.states.missing
      .filter((id) => !states.has(id))
      .map((id) => finding('graph.coverage.stale', 0, `state ${id} is not in the machine`)),
  ];
  if (stale.length > 0)
    throw new CoverageReportError(
      source,
      `does not match machine "${machine.id}"; regenerate it (npm run generate)`,
      stale,
    );
  return entry;
}
