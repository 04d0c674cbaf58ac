import type { Finding } from '../common/finding.js';

// Its own module because both the contract (which refuses a request) and the terminal records
// (which list it among the five statuses) need it; defining it in either made them import each
// other.

/** The request was refused before any mutation. */
export interface InvalidInputRecord {
  readonly status: 'invalid-input';
  readonly findings: readonly Finding[];
}
