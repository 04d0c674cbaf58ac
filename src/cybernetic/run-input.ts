import { type Finding, finding } from '../common/finding.js';
import type { Check } from './check.js';
import { parseCheckCommand } from './check-command.js';
import { minimalScope, normalizeScopePath, type Scope } from './scope.js';

/** A check as the caller names it. `passExitCode` defaults to 0. */
export interface CheckRequest {
  /** Unique check name; optional for the invariant's check, which defaults to `invariant`. */
  readonly name?: string;
  /** The exact command: an argument list, or a plain string without shell syntax. */
  readonly command: string | readonly string[];
  /** The exit code that means pass (integer 0..255); 0 when omitted. */
  readonly passExitCode?: number;
}

/** The caller's one invariant. */
export interface InvariantRequest {
  /** What must hold, in words, e.g. "a reorganized index still answers every stored key". */
  readonly statement: string;
  /**
   * The situation outside the prior happy path that the invariant covers (reorganization,
   * peer-to-peer behaviour, index recovery...). Required: the cybernetic loop is not for normal
   * feature delivery or happy-path requests.
   */
  readonly offHappyPath: string;
  /** The executable check that can falsify the invariant. */
  readonly check: CheckRequest;
}

/**
 * Everything the caller supplies to start a cybernetic run. `invariant` may be a one-element
 * list (callers that collect invariants as a list); any other count is refused.
 */
export interface RunRequest {
  readonly invariant: InvariantRequest | readonly InvariantRequest[];
  /** Finite positive integer: the number of candidate patches that may be attempted. */
  readonly budget: number;
  /** Repository-relative paths the run may change. */
  readonly scope: readonly string[];
  /** The repository's existing executable checks (may be empty). */
  readonly existingChecks?: readonly CheckRequest[];
}

/** A validated request: the material of the frozen run contract. */
export interface ValidRunInput {
  readonly invariant: { readonly statement: string; readonly offHappyPath: string };
  /** Invariant check first, then the existing checks in the caller's order. */
  readonly checks: readonly Check[];
  readonly scope: Scope;
  readonly budget: number;
}

/** Outcome of {@link validateRunInput}. */
export type RunInputValidation =
  | { readonly ok: true; readonly input: ValidRunInput }
  | { readonly ok: false; readonly findings: readonly Finding[] };

/** Default name of the invariant's check. */
export const INVARIANT_CHECK_NAME = 'invariant';

const CHECK_NAME = /^[A-Za-z0-9][A-Za-z0-9._:@/-]{0,99}$/;
const REQUEST_FIELDS = new Set(['invariant', 'budget', 'scope', 'existingChecks']);
const INVARIANT_FIELDS = new Set(['statement', 'offHappyPath', 'check']);
const CHECK_FIELDS = new Set(['name', 'command', 'passExitCode']);

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function unknownFields(value: Record<string, unknown>, allowed: Set<string>, where: string): Finding[] {
  return Object.keys(value)
    .filter((key) => !allowed.has(key))
    .map((key) =>
      finding(
        'cybernetic.input.unknown-field',
        0,
        `${where} has an unknown field "${key}" (a typo would go unnoticed)`,
      ),
    );
}

function nonEmptyText(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

function validateCheck(raw: unknown, where: string, role: Check['role'], findings: Finding[]): Check | null {
  if (!isRecord(raw)) {
    findings.push(finding('cybernetic.check.not-object', 0, `${where} must be an object with a command`));
    return null;
  }
  findings.push(...unknownFields(raw, CHECK_FIELDS, where));
  let ok = true;
  let name = INVARIANT_CHECK_NAME;
  if (raw.name === undefined && role === 'existing') {
    findings.push(finding('cybernetic.check.name-missing', 0, `${where} needs a name`));
    ok = false;
  } else if (raw.name !== undefined) {
    if (typeof raw.name !== 'string' || !CHECK_NAME.test(raw.name)) {
      findings.push(
        finding(
          'cybernetic.check.name-invalid',
          0,
          `${where} name ${JSON.stringify(raw.name)} must be 1-100 characters of letters, digits and . _ : @ / - (starting with a letter or digit)`,
        ),
      );
      ok = false;
    } else name = raw.name;
  }
  if (raw.command === undefined) {
    findings.push(
      finding(
        role === 'invariant' ? 'cybernetic.invariant.not-falsifiable' : 'cybernetic.check.command-missing',
        0,
        role === 'invariant'
          ? `${where} has no command, so nothing can falsify the invariant`
          : `${where} has no command`,
      ),
    );
    ok = false;
  }
  const command = raw.command === undefined ? null : parseCheckCommand(raw.command);
  if (command !== null && !command.ok) {
    findings.push(finding(command.code, 0, `${where}: ${command.reason}`));
    ok = false;
  }
  let exitCode = 0;
  if (raw.passExitCode !== undefined) {
    const code = raw.passExitCode;
    if (typeof code !== 'number' || !Number.isInteger(code) || code < 0 || code > 255) {
      findings.push(
        finding(
          'cybernetic.check.pass-exit-code-invalid',
          0,
          `${where} passExitCode ${JSON.stringify(code)} must be an integer from 0 to 255`,
        ),
      );
      ok = false;
    } else exitCode = code;
  }
  if (!ok || command === null || !command.ok) return null;
  return { name, role, command: command.command, pass: { kind: 'exit-code', exitCode } };
}

function validateInvariant(
  raw: unknown,
  findings: Finding[],
): { invariant: ValidRunInput['invariant']; check: Check | null } | null {
  if (raw === undefined) {
    findings.push(
      finding('cybernetic.invariant.missing', 0, 'the request names no invariant; exactly one is required'),
    );
    return null;
  }
  let single: unknown = raw;
  if (Array.isArray(raw)) {
    if (raw.length !== 1) {
      findings.push(
        finding(
          'cybernetic.invariant.not-singular',
          0,
          `the request names ${raw.length} invariants; a cybernetic run restores exactly one`,
        ),
      );
      return null;
    }
    single = raw[0];
  }
  if (!isRecord(single)) {
    findings.push(finding('cybernetic.invariant.not-object', 0, 'the invariant must be an object'));
    return null;
  }
  findings.push(...unknownFields(single, INVARIANT_FIELDS, 'the invariant'));
  let ok = true;
  if (!nonEmptyText(single.statement)) {
    findings.push(
      finding('cybernetic.invariant.statement-missing', 0, 'the invariant needs a non-empty statement'),
    );
    ok = false;
  }
  if (!nonEmptyText(single.offHappyPath)) {
    findings.push(
      finding(
        'cybernetic.invariant.happy-path',
        0,
        'the invariant must name the situation outside the prior happy path it covers (offHappyPath); normal feature work and happy-path requests are not cybernetic runs',
      ),
    );
    ok = false;
  }
  let check: Check | null = null;
  if (single.check === undefined)
    findings.push(
      finding(
        'cybernetic.invariant.not-falsifiable',
        0,
        'the invariant has no check, so nothing can falsify it',
      ),
    );
  else check = validateCheck(single.check, "the invariant's check", 'invariant', findings);
  if (!ok) return null;
  return {
    invariant: {
      statement: (single.statement as string).trim(),
      offHappyPath: (single.offHappyPath as string).trim(),
    },
    check,
  };
}

function validateBudget(raw: unknown, findings: Finding[]): number | null {
  const bad = (code: string, reason: string): null => {
    findings.push(finding(code, 0, reason));
    return null;
  };
  if (raw === undefined) return bad('cybernetic.budget.missing', 'the request has no patch budget');
  if (typeof raw !== 'number' || Number.isNaN(raw))
    return bad('cybernetic.budget.not-a-number', `patch budget ${JSON.stringify(raw)} is not a number`);
  if (!Number.isFinite(raw))
    return bad(
      'cybernetic.budget.not-finite',
      'the patch budget must be finite; an unbounded retry loop is not a cybernetic run',
    );
  if (!Number.isSafeInteger(raw))
    return bad('cybernetic.budget.not-integer', `patch budget ${raw} is not a whole number`);
  if (raw <= 0) return bad('cybernetic.budget.not-positive', `patch budget ${raw} must be at least 1`);
  return raw;
}

function validateScope(raw: unknown, findings: Finding[]): Scope | null {
  if (raw === undefined) {
    findings.push(finding('cybernetic.scope.missing', 0, 'the request records no scope'));
    return null;
  }
  if (!Array.isArray(raw)) {
    findings.push(
      finding('cybernetic.scope.not-list', 0, 'the scope must be a list of repository-relative paths'),
    );
    return null;
  }
  if (raw.length === 0) {
    findings.push(
      finding('cybernetic.scope.empty', 0, 'the scope is empty; name at least one path the run may change'),
    );
    return null;
  }
  const paths: string[] = [];
  let ok = true;
  for (const entry of raw) {
    if (typeof entry !== 'string') {
      findings.push(
        finding('cybernetic.scope.path-invalid', 0, `scope entry ${JSON.stringify(entry)} is not a string`),
      );
      ok = false;
      continue;
    }
    const normalized = normalizeScopePath(entry);
    if (normalized.ok) paths.push(normalized.path);
    else {
      findings.push(finding(normalized.code, 0, normalized.reason));
      ok = false;
    }
  }
  return ok ? minimalScope(paths) : null;
}

/**
 * Validates a caller's request before anything is mutated. Every problem is reported at once.
 *
 * @param raw the request, typically parsed JSON (see {@link RunRequest})
 * @returns the validated input (checks in contract order: the invariant's check first), or the
 *   findings that make the run `invalid-input`; codes are `cybernetic.input.*`,
 *   `cybernetic.invariant.*`, `cybernetic.check.*`, `cybernetic.budget.*`, `cybernetic.scope.*`
 */
export function validateRunInput(raw: unknown): RunInputValidation {
  const findings: Finding[] = [];
  if (!isRecord(raw)) {
    return {
      ok: false,
      findings: [finding('cybernetic.input.not-object', 0, 'the run request must be an object')],
    };
  }
  findings.push(...unknownFields(raw, REQUEST_FIELDS, 'the request'));
  const invariant = validateInvariant(raw.invariant, findings);
  const budget = validateBudget(raw.budget, findings);
  const scope = validateScope(raw.scope, findings);
  const checks: Check[] = [];
  if (invariant?.check) checks.push(invariant.check);
  if (raw.existingChecks !== undefined) {
    if (!Array.isArray(raw.existingChecks))
      findings.push(
        finding('cybernetic.existing-checks.not-list', 0, 'existingChecks must be a list of checks'),
      );
    else
      raw.existingChecks.forEach((entry: unknown, index: number) => {
        const check = validateCheck(entry, `existing check ${index + 1}`, 'existing', findings);
        if (check) checks.push(check);
      });
  }
  const seen = new Set<string>();
  for (const check of checks) {
    if (seen.has(check.name))
      findings.push(
        finding(
          'cybernetic.check.name-duplicate',
          0,
          `two checks are named "${check.name}"; check names must be unique`,
        ),
      );
    seen.add(check.name);
  }
  if (findings.length > 0 || invariant === null || budget === null || scope === null)
    return { ok: false, findings };
  return { ok: true, input: { invariant: invariant.invariant, checks, scope, budget } };
}
