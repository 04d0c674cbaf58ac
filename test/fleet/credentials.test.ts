/**
 * Operator credentials and the request-identity key name (docs/decisions/scale-out.md F3, F4, F6).
 */
import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import {
  fleetRunId,
  readCredentials,
  requestIdentityPublicKey,
  SIGNATURE_WINDOW_MS,
  signRequest,
  verifyRequest,
} from '../../src/fleet/credentials.js';

const scratch = mkdtempSync(join(tmpdir(), 'loopchart-credentials-'));
afterAll(() => rmSync(scratch, { recursive: true, force: true }));

const alice = { name: 'alice', secret: 'a-secret-of-twenty-chars' };
const bob = { name: 'bob', secret: 'another-secret-for-bob' };
const run = { remote: 'git@example.org:team/app.git', spec: 'docs/specs/a.md', branch: 'loop/a' };
const T = Date.UTC(2026, 0, 1);

describe('run ids', () => {
  it('are the first 20 hex digits of SHA-256 over remote, spec and branch, one per run', () => {
    // sha256("git@example.org:team/app.git\ndocs/specs/a.md\nloop/a"), computed with sha256sum.
    expect(fleetRunId(run)).toBe('3dc82a5c41c6543c3fcd');
    expect(fleetRunId(run)).toBe(fleetRunId({ ...run }));
    expect(fleetRunId({ ...run, branch: 'loop/b' })).not.toBe(fleetRunId(run));
    expect(fleetRunId({ ...run, spec: 'docs/specs/b.md' })).not.toBe(fleetRunId(run));
  });
});

describe('signed requests', () => {
  const id = fleetRunId(run);

  it('admit the operator who signed, by name', () => {
    const auth = signRequest(alice, 'submit', id, run, T);
    expect(JSON.stringify(auth)).not.toContain(alice.secret);
    expect(verifyRequest([alice, bob], 'submit', id, run, auth, T + 1000)).toEqual({ ok: true, by: 'alice' });
  });

  it.each([
    ['no signature', undefined, 'submit', id, run, T, 'no operator credential'],
    ['another action', 'answer', 'submit', id, run, T, 'does not match'],
    ['another run', 'submit', 'submit', 'ffffffffffffffffffff', run, T, 'does not match'],
    ['another request', 'submit', 'submit', id, { ...run, branch: 'loop/x' }, T, 'does not match'],
    ['an expired signature', 'submit', 'submit', id, run, T + SIGNATURE_WINDOW_MS + 1, 'expired'],
  ] as const)('refuse %s', (_, signedFor, action, runId, payload, now, reason) => {
    const auth = signedFor === undefined ? undefined : signRequest(alice, signedFor, id, run, T);
    const result = verifyRequest([alice], action, runId, payload, auth, now);
    expect(result.ok).toBe(false);
    expect(result.ok ? '' : result.reason).toContain(reason);
  });

  it('refuse an unknown operator, and a known name with the wrong secret', () => {
    const stranger = signRequest({ name: 'mallory', secret: alice.secret }, 'submit', id, run, T);
    expect(verifyRequest([alice], 'submit', id, run, stranger, T)).toEqual({
      ok: false,
      reason: 'submit refused: unknown operator',
    });
    const forged = signRequest({ name: 'alice', secret: 'not-alices-secret-at-all' }, 'submit', id, run, T);
    expect(verifyRequest([alice], 'submit', id, run, forged, T).ok).toBe(false);
  });

  it('a re-check without the time window admits an old signature (the run re-checks a journaled answer)', () => {
    const auth = signRequest(alice, 'answer', id, { reply: 'stop', stopId: `${id}.0` }, T);
    expect(verifyRequest([alice], 'answer', id, { reply: 'stop', stopId: `${id}.0` }, auth, null).ok).toBe(
      true,
    );
    expect(verifyRequest([alice], 'answer', id, { reply: 'stop', stopId: `${id}.1` }, auth, null).ok).toBe(
      false,
    );
  });
});

describe('credential files', () => {
  it('read "<name> <secret>" lines, skipping comments and blank lines', () => {
    const path = join(scratch, 'operators');
    writeFileSync(path, `# operators\n\nalice ${alice.secret}\nbob ${bob.secret}\n`);
    expect(readCredentials(path)).toEqual([alice, bob]);
  });

  it.each([
    ['a short secret', 'alice short\n'],
    ['three fields', `alice ${alice.secret} extra\n`],
    ['a name twice', `alice ${alice.secret}\nalice ${bob.secret}\n`],
    ['no operator', '# none\n'],
  ])('refuse %s, naming the line without quoting a secret', (_, text) => {
    const path = join(scratch, 'bad');
    writeFileSync(path, text);
    let message = '';
    try {
      readCredentials(path);
    } catch (error) {
      message = (error as Error).message;
      expect((error as { code?: string }).code).toBe('fleet.credentials');
    }
    expect(message).not.toBe('');
    expect(message).not.toContain(alice.secret);
    expect(message).not.toContain(bob.secret);
  });
});

describe('request identity keys', () => {
  it('name an Ed25519 key as the Restate server logs it', () => {
    // A throwaway key; restate-server 1.7.12 logged it as this kid when started with it.
    const pem = [
      '-----BEGIN PRIVATE KEY-----',
      'MC4CAQAwBQYDK2VwBCIEIKPzCh/vzn+cT4x9HemMUse0ID1/1SUz3FESjbtkfdvp',
      '-----END PRIVATE KEY-----',
      '',
    ].join('\n');
    expect(requestIdentityPublicKey(pem)).toBe('publickeyv1_86Qperqzichx319kyoUYK4tU3c2LUs2eFoPjD1d9wJQ9');
  });
});
