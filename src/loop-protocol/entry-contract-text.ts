import { type Finding, finding } from '../common/finding.js';
import {
  ENTRY_CONTRACT_FIELDS,
  type EntryContractField,
  type EntryContractFieldSpec,
  type PartialEntryContract,
  plateauThresholdOf,
  type StateLocation,
} from './entry-contract.js';
import { parseTimeOrCostBudget, renderTimeOrCostBudget } from './time-or-cost-budget.js';

/** Result of {@link parseEntryContract}: the fields that parsed, where they were, and every problem. */
export interface EntryContractParse {
  readonly contract: PartialEntryContract;
  /** 1-based line of each field present in the text. */
  readonly lines: Partial<Record<EntryContractField, number>>;
  readonly findings: readonly Finding[];
}

const LABEL_LINE = /^([A-Za-z][A-Za-z -]*?)\s*:(.*)$/;

const byLabel = new Map<string, EntryContractFieldSpec>();
for (const spec of ENTRY_CONTRACT_FIELDS)
  for (const label of [spec.label, ...spec.aliases]) byLabel.set(label.toLowerCase(), spec);

function parseValue(
  spec: EntryContractFieldSpec,
  value: string,
  line: number,
): { ok: true; value: unknown } | { ok: false; finding: Finding } {
  switch (spec.kind) {
    case 'text':
      return { ok: true, value };
    case 'state-location': {
      if (value === 'task_only') return { ok: true, value: { kind: 'task_only' } satisfies StateLocation };
      const approved = /^approved_path\s*[:=]?\s+(\S.*)$/.exec(value);
      if (approved)
        return { ok: true, value: { kind: 'approved_path', path: (approved[1] as string).trim() } };
      return {
        ok: false,
        finding: finding(
          'loop-protocol.entry.state-location-invalid',
          line,
          `State location "${value}" must be "task_only" or "approved_path <path the user approved>"`,
        ),
      };
    }
    case 'iteration-budget': {
      const match = /^(\d+)(?:\s+(?:iterations?|polls?|cycles?|attempts?))?$/i.exec(value);
      const limit = match ? Number(match[1]) : Number.NaN;
      if (!Number.isSafeInteger(limit) || limit <= 0 || limit > 1_000_000)
        return {
          ok: false,
          finding: finding(
            'loop-protocol.entry.iteration-budget-invalid',
            line,
            `Iteration or poll budget "${value}" must be a whole number from 1 to 1000000, e.g. "6" or "6 iterations"`,
          ),
        };
      return { ok: true, value: limit };
    }
    case 'time-or-cost-budget': {
      const parsed = parseTimeOrCostBudget(value);
      if (!parsed.ok)
        return {
          ok: false,
          finding: finding(
            'loop-protocol.entry.time-or-cost-budget-invalid',
            line,
            `Time or cost budget: ${parsed.reason}`,
          ),
        };
      return { ok: true, value: parsed.budget };
    }
    case 'plateau-rule':
      if (plateauThresholdOf(value) === null)
        return {
          ok: false,
          finding: finding(
            'loop-protocol.entry.plateau-threshold-missing',
            line,
            `Plateau or no-progress rule "${value}" states no threshold; say how many non-improving cycles stop the loop`,
          ),
        };
      return { ok: true, value };
  }
}

/**
 * Parses an entry contract from the protocol's `Field: value` text form.
 *
 * - Labels are matched case-insensitively; the protocol's shorter labels (`Iteration budget`,
 *   `Plateau`, `Evaluator`...) are accepted.
 * - A line indented by whitespace continues the previous field's value (joined with a newline).
 * - Blank lines are ignored. A field with an empty value is missing (the protocol's blank
 *   template parses to an empty contract).
 *
 * @param text the contract text
 * @returns the fields that parsed and findings: `loop-protocol.entry.field-unknown`,
 *   `.field-duplicate`, `.line-unrecognized`, `.state-location-invalid`,
 *   `.iteration-budget-invalid`, `.time-or-cost-budget-invalid`, `.plateau-threshold-missing`
 */
export function parseEntryContract(text: string): EntryContractParse {
  const findings: Finding[] = [];
  const raw = new Map<EntryContractField, { spec: EntryContractFieldSpec; line: number; parts: string[] }>();
  let current: { parts: string[] } | null = null;
  text.split(/\r?\n/).forEach((source, index) => {
    const line = index + 1;
    if (source.trim() === '') return;
    if (/^\s/.test(source)) {
      if (current) current.parts.push(source.trim());
      else
        findings.push(
          finding(
            'loop-protocol.entry.line-unrecognized',
            line,
            'an indented line continues no field; start with "Field: value"',
          ),
        );
      return;
    }
    const match = LABEL_LINE.exec(source);
    const spec = match ? byLabel.get((match[1] as string).toLowerCase()) : undefined;
    if (!match) {
      findings.push(
        finding(
          'loop-protocol.entry.line-unrecognized',
          line,
          `"${source.trim()}" is not a "Field: value" line`,
        ),
      );
      current = null;
      return;
    }
    if (!spec) {
      findings.push(
        finding(
          'loop-protocol.entry.field-unknown',
          line,
          `"${match[1]}" is not a field of the entry contract`,
        ),
      );
      current = null;
      return;
    }
    const previous = raw.get(spec.field);
    if (previous) {
      findings.push(
        finding(
          'loop-protocol.entry.field-duplicate',
          line,
          `${spec.label} is given again (first on line ${previous.line}); give each field once`,
        ),
      );
      current = null;
      return;
    }
    const entry = { spec, line, parts: [(match[2] as string).trim()] };
    raw.set(spec.field, entry);
    current = entry;
  });
  const contract: Record<string, unknown> = {};
  const lines: Partial<Record<EntryContractField, number>> = {};
  for (const spec of ENTRY_CONTRACT_FIELDS) {
    const entry = raw.get(spec.field);
    if (!entry) continue;
    const value = entry.parts.filter((part, i) => i > 0 || part !== '').join('\n');
    if (value === '') continue;
    const parsed = parseValue(spec, value, entry.line);
    if (!parsed.ok) {
      findings.push(parsed.finding);
      continue;
    }
    contract[spec.field] = parsed.value;
    lines[spec.field] = entry.line;
  }
  findings.sort((a, b) => a.line - b.line);
  return { contract: contract as PartialEntryContract, lines, findings };
}

function renderValue(spec: EntryContractFieldSpec, value: unknown): string {
  switch (spec.kind) {
    case 'state-location': {
      const location = value as StateLocation;
      return location.kind === 'task_only' ? 'task_only' : `approved_path ${location.path}`;
    }
    case 'iteration-budget':
      return String(value);
    case 'time-or-cost-budget':
      return renderTimeOrCostBudget(value as Parameters<typeof renderTimeOrCostBudget>[0]);
    default:
      return String(value);
  }
}

/**
 * Renders an entry contract in the `Field: value` text form, every field in the protocol's
 * order under its canonical label. Missing fields are rendered with an empty value (like the
 * protocol's template) unless `omitMissing` is set. Multi-line values continue on lines indented
 * by two spaces.
 *
 * @param contract a complete or partial contract
 * @param options `omitMissing`: leave missing fields out instead of writing `Label:`
 * @returns text that {@link parseEntryContract} reads back to an equal contract
 */
export function renderEntryContract(
  contract: PartialEntryContract,
  options: { omitMissing?: boolean } = {},
): string {
  const lines: string[] = [];
  for (const spec of ENTRY_CONTRACT_FIELDS) {
    const value = contract[spec.field];
    if (value === undefined) {
      if (!options.omitMissing) lines.push(`${spec.label}:`);
      continue;
    }
    const [first, ...rest] = renderValue(spec, value).split('\n');
    lines.push(`${spec.label}: ${first}`, ...rest.map((part) => `  ${part}`));
  }
  return `${lines.join('\n')}\n`;
}
