import { type Finding, finding } from '../common/finding.js';
import type { EvidenceBinding, NormalizedRound, OpenFinding } from './round.js';
import { locate, type RoundShapeCode, RoundShapeError, type RoundShapeProblem } from './round-shape-error.js';
import { isSubjectDigest } from './subject-digest.js';
import { isVerdict, type Verdict, worstVerdict } from './verdict.js';

/**
 * Round-shape validation and leg merging (reference §1.3-§1.5).
 *
 * One pass collects every problem of a round, so `checkRound` can name them all at once and
 * `normalizeRound` throws for the first one while still carrying the rest.
 */

type JsonObject = Record<string, unknown>;

/** What one well-formed leg contributes to its round. */
interface LegFacts {
  readonly status: Verdict;
  readonly findings: readonly OpenFinding[];
  readonly digest: string;
  readonly evidence: readonly EvidenceBinding[];
  readonly family: string | null;
  readonly checked: readonly string[];
  readonly notChecked: readonly string[];
}

/** The outcome of one inspection: every problem, and the merged round when there is none. */
export interface RoundInspection {
  readonly problems: readonly RoundShapeProblem[];
  readonly round: NormalizedRound | null;
}

// Plain JSON objects only: arrays, strings, byte arrays, maps and dates are not legs.
function isJsonObject(value: unknown): value is JsonObject {
  return Object.prototype.toString.call(value) === '[object Object]';
}

function isNonBlankString(value: unknown): value is string {
  return typeof value === 'string' && value.trim() !== '';
}

function isListOfNonBlankStrings(value: unknown): value is string[] {
  return Array.isArray(value) && value.every(isNonBlankString);
}

// A key counts as given when it is present with a non-null value (used where null means "absent").
function given(leg: JsonObject, key: string): boolean {
  return Object.hasOwn(leg, key) && leg[key] !== null && leg[key] !== undefined;
}

/**
 * Inspects a round without throwing.
 *
 * @param round untrusted input: one validate leg (a JSON object) or a non-empty list of legs
 * @returns every shape problem in check order, and the normalized round when there are none
 */
export function inspectRound(round: unknown): RoundInspection {
  const problems: RoundShapeProblem[] = [];
  const report = (code: RoundShapeCode, legIndex: number | null, field: string | null, message: string) => {
    problems.push({ code, legIndex, field, message });
  };

  let legs: readonly unknown[];
  if (Array.isArray(round)) {
    if (round.length === 0) {
      report('round.empty', null, null, 'a validation round must contain at least one validate leg');
      return { problems, round: null };
    }
    legs = round;
  } else if (isJsonObject(round)) {
    legs = [round];
  } else {
    report(
      'round.not-a-list',
      null,
      null,
      `a validation round must be one validate leg (an object) or a list of them, not ${describe(round)}`,
    );
    return { problems, round: null };
  }

  const facts: (LegFacts | null)[] = legs.map((leg, index) => inspectLeg(leg, index, report));

  // Legs must judge the same subject; compare every valid digest with the first valid one.
  const firstDigest = firstValidDigest(legs);
  legs.forEach((leg, index) => {
    if (!isJsonObject(leg)) return;
    const digest = digestOf(leg);
    if (isSubjectDigest(digest.value) && digest.value !== firstDigest) {
      report(
        'round.legs-disagree-digest',
        index,
        digest.field,
        `the legs of one round disagree about the subject digest (${digest.value} is not ${firstDigest})`,
      );
    }
  });

  if (problems.length > 0) return { problems, round: null };
  return { problems, round: mergeLegs(facts as LegFacts[]) };
}

function firstValidDigest(legs: readonly unknown[]): string | undefined {
  for (const leg of legs) {
    if (!isJsonObject(leg)) continue;
    const { value } = digestOf(leg);
    if (isSubjectDigest(value)) return value;
  }
  return undefined;
}

function digestOf(leg: JsonObject): { field: string; value: unknown } {
  if (given(leg, 'subject_digest')) return { field: 'subject_digest', value: leg.subject_digest };
  if (given(leg, 'subject_manifest_digest'))
    return { field: 'subject_manifest_digest', value: leg.subject_manifest_digest };
  return { field: 'subject_digest', value: undefined };
}

function describe(value: unknown): string {
  if (value === null) return 'null';
  if (value === undefined) return 'undefined';
  if (typeof value === 'string') return 'a string';
  if (typeof value !== 'object') return `a ${typeof value}`;
  return `a ${Object.prototype.toString.call(value).slice(8, -1)}`;
}

type Report = (code: RoundShapeCode, legIndex: number | null, field: string | null, message: string) => void;

function inspectLeg(leg: unknown, index: number, report: Report): LegFacts | null {
  if (!isJsonObject(leg)) {
    report(
      'round.leg-not-an-object',
      index,
      null,
      `each validate leg must be an object, not ${describe(leg)}`,
    );
    return null;
  }
  let ok = true;
  const fail: Report = (...args) => {
    ok = false;
    report(...args);
  };

  const statusField = given(leg, 'status') || !given(leg, 'verdict') ? 'status' : 'verdict';
  const status = leg[statusField];
  if (!isVerdict(status)) {
    fail(
      'round.status-invalid',
      index,
      statusField,
      'each validate leg must report PASS, FAIL or NOT_PROVEN',
    );
  }

  const findings = inspectFindings(leg, index, fail);
  if (isVerdict(status) && Array.isArray(leg.findings)) {
    if (status === 'PASS' && leg.findings.length > 0)
      fail('round.pass-with-findings', index, 'findings', 'a PASS leg cannot carry open findings');
    if (status === 'FAIL' && leg.findings.length === 0)
      fail('round.fail-without-findings', index, 'findings', 'a FAIL leg must name at least one finding');
  }

  const evidence = inspectEvidence(leg, index, fail);

  const digest = digestOf(leg);
  if (digest.value === undefined) {
    fail(
      'round.digest-missing',
      index,
      'subject_digest',
      'each validate leg must carry the subject digest it judged (subject_digest)',
    );
  } else if (!isSubjectDigest(digest.value)) {
    fail('round.digest-invalid', index, digest.field, 'a subject digest must be 64 lowercase hex characters');
  }

  let family: string | null = null;
  if (given(leg, 'validator_family')) {
    if (isNonBlankString(leg.validator_family)) family = leg.validator_family;
    else
      fail(
        'round.validator-family-invalid',
        index,
        'validator_family',
        'validator_family must be a non-blank string',
      );
  }

  for (const [key, code] of [
    ['checked', 'round.checked-invalid'],
    ['not_checked', 'round.not-checked-invalid'],
  ] as const) {
    if (Object.hasOwn(leg, key) && !isListOfNonBlankStrings(leg[key]))
      fail(code, index, key, `${key} must be a list of non-blank strings`);
  }

  if (!ok || findings === null || evidence === null) return null;
  return {
    status: status as Verdict,
    findings,
    digest: digest.value as string,
    evidence,
    family,
    checked: (leg.checked as string[] | undefined) ?? [],
    notChecked: (leg.not_checked as string[] | undefined) ?? [],
  };
}

function inspectFindings(leg: JsonObject, index: number, fail: Report): OpenFinding[] | null {
  if (!Object.hasOwn(leg, 'findings')) {
    fail(
      'round.findings-missing',
      index,
      'findings',
      'each validate leg must carry a findings list (empty on PASS)',
    );
    return null;
  }
  const raw = leg.findings;
  if (!Array.isArray(raw)) {
    fail('round.findings-not-a-list', index, 'findings', `findings must be a list, not ${describe(raw)}`);
    return null;
  }
  const seen = new Set<string>();
  const findings: OpenFinding[] = [];
  raw.forEach((entry: unknown, i) => {
    if (!isJsonObject(entry)) {
      fail(
        'round.finding-not-an-object',
        index,
        `findings[${i}]`,
        `each finding must be an object, not ${describe(entry)}`,
      );
      return;
    }
    const id = entry.id;
    if (!isNonBlankString(id)) {
      fail(
        'round.finding-id-invalid',
        index,
        `findings[${i}].id`,
        'each finding must carry a stable non-blank string id',
      );
      return;
    }
    if (seen.has(id)) {
      fail(
        'round.duplicate-finding-id',
        index,
        `findings[${i}].id`,
        `finding id "${id}" appears twice in one validate leg`,
      );
      return;
    }
    seen.add(id);
    findings.push({ ...entry, id });
  });
  return findings;
}

function inspectEvidence(leg: JsonObject, index: number, fail: Report): EvidenceBinding[] | null {
  if (!Object.hasOwn(leg, 'evidence_refs')) {
    fail(
      'round.evidence-refs-missing',
      index,
      'evidence_refs',
      'each validate leg must carry an evidence_refs list (empty if there is none)',
    );
    return null;
  }
  const raw = leg.evidence_refs;
  if (!Array.isArray(raw)) {
    fail(
      'round.evidence-refs-not-a-list',
      index,
      'evidence_refs',
      `evidence_refs must be a list, not ${describe(raw)}`,
    );
    return null;
  }
  const evidence: EvidenceBinding[] = [];
  raw.forEach((entry: unknown, i) => {
    const field = `evidence_refs[${i}]`;
    if (typeof entry === 'string') {
      if (isNonBlankString(entry)) evidence.push({ ref: entry });
      else fail('round.evidence-ref-missing', index, field, 'an evidence label must be a non-blank string');
      return;
    }
    if (!isJsonObject(entry)) {
      fail(
        'round.evidence-entry-invalid',
        index,
        field,
        `each evidence entry must be a string label or a binding object, not ${describe(entry)}`,
      );
      return;
    }
    let ok = true;
    if (!isNonBlankString(entry.ref)) {
      ok = false;
      fail(
        'round.evidence-ref-missing',
        index,
        `${field}.ref`,
        'each evidence binding must carry a non-blank ref',
      );
    }
    if (given(entry, 'resolves') && !isListOfNonBlankStrings(entry.resolves)) {
      ok = false;
      fail(
        'round.evidence-resolves-invalid',
        index,
        `${field}.resolves`,
        'evidence resolves must be a list of finding ids',
      );
    }
    if (given(entry, 'subject_digest') && !isSubjectDigest(entry.subject_digest)) {
      ok = false;
      fail(
        'round.evidence-digest-invalid',
        index,
        `${field}.subject_digest`,
        'an evidence subject_digest must be 64 lowercase hex characters',
      );
    }
    if (!ok) return;
    // Null optional keys mean "absent"; drop them so the binding reads the same either way.
    const binding: Record<string, unknown> = { ...entry };
    if (binding.resolves === null) delete binding.resolves;
    if (binding.subject_digest === null) delete binding.subject_digest;
    evidence.push(binding as unknown as EvidenceBinding);
  });
  return evidence;
}

function mergeLegs(legs: readonly LegFacts[]): NormalizedRound {
  const findings = new Map<string, OpenFinding>();
  const evidence = new Map<string, EvidenceBinding>();
  const families = new Map<string, string>();
  for (const leg of legs) {
    // Map.set on an existing key keeps its position: first-seen order, last wording.
    for (const f of leg.findings) findings.set(f.id, f);
    for (const e of leg.evidence) if (!evidence.has(e.ref)) evidence.set(e.ref, e);
    if (leg.family !== null) {
      const key = familyKey(leg.family);
      if (!families.has(key)) families.set(key, leg.family);
    }
  }
  const first = legs[0] as LegFacts;
  return {
    status: worstVerdict(legs.map((l) => l.status)),
    openFindings: [...findings.values()],
    openIds: [...findings.keys()],
    subjectDigest: first.digest,
    evidenceRefs: [...evidence.values()],
    families: [...families.values()],
    checked: legs.flatMap((l) => l.checked),
    notChecked: legs.flatMap((l) => l.notChecked),
  };
}

/**
 * The key under which validator families are compared: trimmed and case-folded, so that `Codex`
 * and `codex ` cannot pass for two families on a risky surface.
 *
 * @param family a validator family as a leg spelled it
 * @returns the comparison key
 */
export function familyKey(family: string): string {
  return family.trim().toLowerCase();
}

/**
 * Lists every shape problem of a round as findings, without throwing.
 *
 * @param round untrusted input: one validate leg or a list of legs
 * @returns one finding per problem (code from `ROUND_SHAPE_CODES`, line 0, the location in the
 *   reason); empty when the round is well formed
 */
export function checkRound(round: unknown): Finding[] {
  return inspectRound(round).problems.map((p) => finding(p.code, 0, `${locate(p)}${p.message}`));
}

/**
 * Checks a round and merges its legs: worst-of status, union of finding ids (last leg's wording
 * wins), evidence deduped by ref (first wins; bare labels become `{ ref }`), distinct families,
 * `checked` and `not_checked` concatenated.
 *
 * @param round untrusted input: one validate leg or a non-empty list of legs
 * @returns the normalized round
 * @throws RoundShapeError for the first shape problem; its `findings` list every problem
 */
export function normalizeRound(round: unknown): NormalizedRound {
  const { problems, round: normalized } = inspectRound(round);
  const [first] = problems;
  if (first !== undefined || normalized === null) {
    throw new RoundShapeError(
      first as RoundShapeProblem,
      problems.map((p) => finding(p.code, 0, `${locate(p)}${p.message}`)),
    );
  }
  return normalized;
}
