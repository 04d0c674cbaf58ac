import { type Finding, formatFindings } from './finding.js';

/**
 * Base class of every error loopchart throws on purpose. `code` is stable and machine-readable;
 * the CLI maps it to an exit code (see docs/cli.md).
 */
export class LoopchartError extends Error {
  /** Stable name of the failure, e.g. `ledger.malformed`. */
  readonly code: string;
  /** Findings behind the error, when it summarizes a validation. */
  readonly findings: readonly Finding[];

  constructor(code: string, message: string, findings: readonly Finding[] = []) {
    super(findings.length > 0 ? `${message}\n${formatFindings(findings)}` : message);
    this.name = new.target.name;
    this.code = code;
    this.findings = findings;
  }
}

/** Invalid input or configuration supplied by the user (CLI exit code 2). */
export class InputError extends LoopchartError {}

/** A ledger file that does not parse or check. */
export class LedgerFormatError extends InputError {
  constructor(findings: readonly Finding[], path = 'ledger') {
    super('ledger.malformed', `${path} is not a valid loop ledger`, findings);
  }
}

/** A spec file that does not parse. */
export class SpecFormatError extends InputError {
  constructor(findings: readonly Finding[], path = 'spec') {
    super('spec.malformed', `${path} is not a valid spec`, findings);
  }
}

/** A command-line usage error. */
export class UsageError extends InputError {
  constructor(message: string) {
    super('cli.usage', message);
  }
}

/** A side effect the host was asked to perform but did not provide. */
export class NotProvidedError extends LoopchartError {
  constructor(actor: string) {
    super(
      'actor.not-provided',
      `actor "${actor}" was not provided: supply it with machine.provide({ actors: { ${actor}: ... } })`,
    );
  }
}
