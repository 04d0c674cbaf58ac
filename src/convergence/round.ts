/**
 * The records a repair round is made of.
 *
 * Input records (a validation leg and its parts) use snake_case keys, exactly as validators emit
 * them in JSON. The normalized round is loopchart's own record of the facts the convergence law
 * reasons over, so it uses camelCase. Every list keeps insertion order, and every field is plain
 * JSON, so a normalized round can live in a persisted statechart snapshot.
 */

import type { Verdict } from './verdict.js';

/**
 * One open finding named by a validator. `id` is the finding's identity: a reworded finding with the
 * same id is the same finding. Any other keys the validator sent are carried through untouched.
 */
export interface OpenFinding {
  /** Stable, non-blank identity of the defect, e.g. `criterion-slug:defect-slug`. */
  readonly id: string;
  /** The validator's wording; the last leg's wording wins when legs share an id. */
  readonly summary?: string;
  readonly [key: string]: unknown;
}

/**
 * A piece of evidence after normalization. A bare string label `s` becomes `{ ref: s }`; such a
 * label has no digest, so it can never admit a round over an unchanged subject.
 */
export interface EvidenceBinding {
  /** Non-blank reference to the evidence (a receipt path, a log id, a URL). Evidence is deduped by it. */
  readonly ref: string;
  /** The subject digest the evidence was produced against, when the validator bound it. */
  readonly subject_digest?: string;
  /** Finding ids the evidence claims to resolve. */
  readonly resolves?: readonly string[];
  readonly [key: string]: unknown;
}

/**
 * One validate leg as a validator emits it (the input shape; see docs/convergence.md). The type
 * documents the accepted keys; values arrive as untyped JSON and are checked by `checkRound`.
 */
export interface ValidationLeg {
  /** The leg's verdict. Takes precedence over `verdict` when both are present. */
  readonly status?: Verdict;
  /** Accepted spelling of `status`. */
  readonly verdict?: Verdict;
  /** Required key: the open findings (empty on PASS, non-empty on FAIL). */
  readonly findings: readonly OpenFinding[];
  /** The digest of the subject manifest the leg judged. Takes precedence over `subject_manifest_digest`. */
  readonly subject_digest?: string;
  /** Accepted spelling of `subject_digest`. */
  readonly subject_manifest_digest?: string;
  /** Required key: evidence labels or bindings (may be empty). */
  readonly evidence_refs: readonly (string | EvidenceBinding)[];
  /** The validator's model family; rounds on a risky surface need two distinct families to converge. */
  readonly validator_family?: string;
  /** What the leg checked (default empty). */
  readonly checked?: readonly string[];
  /** In-scope acceptance the leg could not verify (default empty). Never the open findings. */
  readonly not_checked?: readonly string[];
  readonly [key: string]: unknown;
}

/** A round: one validate leg, or a non-empty list of legs (a fresh leg plus, say, a cross-family leg). */
export type ValidationRound = ValidationLeg | readonly ValidationLeg[];

/**
 * A round after its legs are checked and merged: the facts the convergence law reads.
 */
export interface NormalizedRound {
  /** Worst-of over the legs: PASS < NOT_PROVEN < FAIL. */
  readonly status: Verdict;
  /** Union over the legs by id, in first-seen order; the last leg's wording wins. */
  readonly openFindings: readonly OpenFinding[];
  /** The ids of `openFindings`, same order. The open finding set the law compares. */
  readonly openIds: readonly string[];
  /** The subject digest every leg agreed on. */
  readonly subjectDigest: string;
  /** Evidence of all legs, deduped by `ref` (the first binding with a ref wins). */
  readonly evidenceRefs: readonly EvidenceBinding[];
  /** Distinct validator families, first-seen spelling and order. */
  readonly families: readonly string[];
  /** The legs' `checked` lists, concatenated in leg order. */
  readonly checked: readonly string[];
  /** The legs' `not_checked` lists, concatenated in leg order. */
  readonly notChecked: readonly string[];
}
