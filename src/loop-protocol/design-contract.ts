/**
 * The protocol's "design or audit only" mode: produce and check the entry contract of a loop
 * without starting it. Designing validates the contract's text, infers the low-risk fields and
 * names the material ones a person must supply; auditing also holds a finished (or interrupted)
 * run's transcript against the contract. Pure: the caller reads the files.
 */
import { type Finding, finding } from '../common/finding.js';
import type { EntryContract, PartialEntryContract } from './entry-contract.js';
import { parseEntryContract, renderEntryContract } from './entry-contract-text.js';
import { type FinalReport, finalReport } from './final-report.js';
import {
  completeEntryContract,
  type InferenceFacts,
  type InferredField,
  type MissingField,
  renderStopForDirection,
} from './infer-or-stop.js';
import type { TranscriptRecord } from './transcript-record.js';

/** The designed contract: complete, stopped on missing material fields, or invalid. */
export interface ContractDesign {
  readonly status: 'complete' | 'needs-direction' | 'invalid';
  /** The contract as given with every inferable field filled in (complete only when `status` is). */
  readonly contract: PartialEntryContract;
  readonly inferred: readonly InferredField[];
  /** The material fields a person must supply, in the protocol's order. */
  readonly missing: readonly MissingField[];
  /** Lines of the text that do not parse, and present fields that are invalid. */
  readonly findings: readonly Finding[];
}

/**
 * Designs the entry contract from its `Label: value` text.
 *
 * @param text the contract file's text
 * @param facts read-only repository facts low-risk inference may use
 * @returns the completed contract, or what is missing or invalid
 */
export function designEntryContract(text: string, facts: InferenceFacts = {}): ContractDesign {
  const parsed = parseEntryContract(text);
  if (parsed.findings.length > 0)
    return {
      status: 'invalid',
      contract: parsed.contract,
      inferred: [],
      missing: [],
      findings: parsed.findings,
    };
  const completion = completeEntryContract(parsed.contract, facts);
  if (completion.kind === 'invalid')
    return {
      status: 'invalid',
      contract: parsed.contract,
      inferred: [],
      missing: [],
      findings: completion.findings,
    };
  const filled: Record<string, unknown> = { ...parsed.contract };
  for (const field of completion.inferred) filled[field.field] = field.value;
  return {
    status: completion.kind === 'complete' ? 'complete' : 'needs-direction',
    contract: completion.kind === 'complete' ? completion.contract : (filled as PartialEntryContract),
    inferred: completion.inferred,
    missing: completion.kind === 'stop' ? completion.missing : [],
    findings: [],
  };
}

/**
 * The design as text: the contract (missing fields left blank), where each inferred value came
 * from, and the question for the person when material fields are missing.
 *
 * @param design a result of {@link designEntryContract}
 */
export function renderContractDesign(design: ContractDesign): string {
  const parts = [renderEntryContract(design.contract)];
  if (design.inferred.length > 0)
    parts.push(
      [
        'Inferred (low-risk) fields:',
        ...design.inferred.map((field) => `- ${field.label}: from ${field.source}`),
        '',
      ].join('\n'),
    );
  if (design.missing.length > 0) parts.push(renderStopForDirection(design.missing));
  if (design.findings.length > 0)
    parts.push(
      [
        'The contract is invalid:',
        ...design.findings.map((f) => `- ${f.line > 0 ? `line ${f.line}: ` : ''}${f.reason} (${f.code})`),
        '',
      ].join('\n'),
    );
  return parts.join('\n');
}

/** What an audit of a run against its contract found. */
export interface ContractAudit {
  readonly report: FinalReport;
  /** Each way the run broke its contract or the protocol; empty when it kept both. */
  readonly findings: readonly Finding[];
}

/**
 * Audits a run's transcript against a complete contract: the run must end with terminal evidence
 * (a complete report), stay within the iteration budget, and verify and decide every action it
 * applied.
 *
 * @param contract the complete entry contract
 * @param records the run's transcript records
 * @returns the final report and the audit's findings
 */
export function auditRun(contract: EntryContract, records: readonly TranscriptRecord[]): ContractAudit {
  const report = finalReport(records);
  const findings: Finding[] = [];
  if (report.status === 'incomplete')
    findings.push(
      finding(
        'loop-protocol.audit.no-terminal-evidence',
        0,
        `the run has no terminal evidence: ${report.incompleteReason ?? 'incomplete'}`,
      ),
    );
  if (report.cyclesCompleted > contract.iterationBudget)
    findings.push(
      finding(
        'loop-protocol.audit.over-budget',
        0,
        `${report.cyclesCompleted} cycles completed, the iteration budget is ${contract.iterationBudget}`,
      ),
    );
  for (const action of report.actions.undecided)
    findings.push(
      finding(
        'loop-protocol.audit.action-unverified',
        0,
        `cycle ${action.cycle}: "${action.summary}" was applied but never verified and decided`,
      ),
    );
  return { report, findings };
}
