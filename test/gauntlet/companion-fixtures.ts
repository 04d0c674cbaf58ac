/**
 * The companion return the coordinated-legs tests validate (gauntlet-protocol §3.20,
 * docs/decisions/legs.md L9-L11): a dispatch to the api leg at a fixed companion HEAD, a clean
 * boundary, the commit whose body carries the attribution lines and then the table and decision
 * lines a test gives, and a home checkout that did not move. Everything here is written from the
 * protocol's commit body grammar, never from the code under test.
 */

import type { Ledger, PendingTuple } from '../../src/gauntlet/types.js';
import { HOME_BASE } from '../support/legs-fixtures.js';

/** The api checkout's HEAD at the dispatch (the tuple's `head`). */
export const API_HEAD = 'a'.repeat(40);
/** A companion commit's SHA, as a home record commit names it. */
export const API_COMMIT = 'c0ffee0123456789abcdef0123456789abcdef01';

/** A boundary that passes: DONE, a clean tree, one commit. */
export const clean = { returned: 'DONE', porcelain: '', commitCount: 1 };

/**
 * The facts of a companion return of `target` to the api leg, validated against `saved`.
 *
 * @param saved the saved pre-dispatch ledger
 * @param target the dispatched row, or `'seed'`
 * @param subject the companion commit's subject
 * @param lines the body lines after `pending:` and `iteration:` (table lines, then decisions)
 * @returns facts with a clean boundary and home at {@link HOME_BASE} with nothing changed
 */
export function companionFacts(saved: Ledger, target: number | 'seed', subject: string, lines: string[]) {
  const pending: PendingTuple = { target, repo: 'api', head: API_HEAD };
  return {
    target,
    iteration: saved.iterations,
    pending,
    saved,
    boundary: clean,
    commit: {
      subject,
      body: [`pending: ${target} | api | ${API_HEAD}`, `iteration: ${saved.iterations + 1}`, ...lines].join(
        '\n',
      ),
    },
    home: { headBefore: HOME_BASE, head: HOME_BASE, porcelain: '' },
  };
}
