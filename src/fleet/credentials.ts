/**
 * Who may do what on a fleet (docs/scale-out.md, docs/decisions/scale-out.md F4-F6).
 *
 * An operator credential is a name and a secret. The secret never travels: `submit` and `answer`
 * send the name, the time and an HMAC-SHA256 of the request under the secret, and the worker
 * recomputes it from its operators file. So neither Restate's journal, nor a transcript, a commit
 * or a log can hold the secret: only the signature, which names its request and expires.
 *
 * Also here: the run id of a fleet run, and the `publickeyv1_…` form of a Restate request-identity
 * key (what `loopchart serve --identity-key` takes), derived from the server's private key.
 */
import {
  createHash,
  createHmac,
  createPrivateKey,
  createPublicKey,
  randomBytes,
  timingSafeEqual,
} from 'node:crypto';
import { readFileSync } from 'node:fs';
import { InputError } from '../common/errors.js';

/** What identifies one fleet run: the repository remote, the spec path in it and the loop's branch. */
export interface RunCoordinates {
  readonly remote: string;
  readonly spec: string;
  readonly branch: string;
}

/**
 * The run id (the `loop` object's key): the first 20 hex digits of SHA-256 over remote, spec and
 * branch. The same three always give the same id, so submitting twice names one run.
 */
export function fleetRunId(run: RunCoordinates): string {
  return createHash('sha256').update(`${run.remote}\n${run.spec}\n${run.branch}`).digest('hex').slice(0, 20);
}

/** One operator: the name recorded with every answer, and the shared secret. */
export interface OperatorCredential {
  readonly name: string;
  readonly secret: string;
}

const NAME = /^[A-Za-z0-9][A-Za-z0-9._@-]{0,63}$/;

/**
 * Reads a credentials file: one `<name> <secret>` per line (blank lines and `#` comments skipped).
 * The operators file of `serve` holds one line per operator; a client's credential file holds its
 * own line. The secret is at least 16 characters.
 *
 * @throws InputError `fleet.credentials` naming the line, never quoting a secret
 */
export function readCredentials(path: string): OperatorCredential[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch {
    throw new InputError('fleet.credentials', `cannot read the credentials file ${path}`);
  }
  const found: OperatorCredential[] = [];
  text.split('\n').forEach((raw, index) => {
    const line = raw.trim();
    if (line === '' || line.startsWith('#')) return;
    const [name, secret, ...rest] = line.split(/\s+/);
    if (
      name === undefined ||
      secret === undefined ||
      rest.length > 0 ||
      !NAME.test(name) ||
      secret.length < 16
    )
      throw new InputError(
        'fleet.credentials',
        `${path} line ${index + 1}: expected "<name> <secret>" (a name of letters, digits, . _ @ -, and a secret of 16 characters or more)`,
      );
    if (found.some((c) => c.name === name))
      throw new InputError('fleet.credentials', `${path} line ${index + 1}: operator ${name} is named twice`);
    found.push({ name, secret });
  });
  if (found.length === 0) throw new InputError('fleet.credentials', `${path} names no operator`);
  return found;
}

/** What a signed request carries instead of the secret. */
export interface RequestSignature {
  /** The operator's name. */
  readonly by: string;
  /** Milliseconds since the epoch when it was signed. */
  readonly at: number;
  readonly nonce: string;
  /** HMAC-SHA256, hex. */
  readonly sig: string;
}

/** What a signature covers: the action, the run, and the request's own fields. */
function signedText(action: string, runId: string, payload: unknown, by: string, at: number, nonce: string) {
  const digest = createHash('sha256').update(JSON.stringify(payload)).digest('hex');
  return `loopchart-fleet-v1\n${action}\n${runId}\n${digest}\n${by}\n${at}\n${nonce}`;
}

/** Signs `payload` for `action` on run `runId` with the operator's credential. */
export function signRequest(
  credential: OperatorCredential,
  action: 'submit' | 'answer',
  runId: string,
  payload: unknown,
  now: number = Date.now(),
): RequestSignature {
  const nonce = randomBytes(8).toString('hex');
  const sig = createHmac('sha256', credential.secret)
    .update(signedText(action, runId, payload, credential.name, now, nonce))
    .digest('hex');
  return { by: credential.name, at: now, nonce, sig };
}

/** How long a signature is accepted after (and before, for clock skew) it was made. */
export const SIGNATURE_WINDOW_MS = 5 * 60 * 1000;

/** The outcome of {@link verifyRequest}: the operator's name, or why the request is refused. */
export type Admission =
  | { readonly ok: true; readonly by: string }
  | { readonly ok: false; readonly reason: string };

/**
 * Checks a request's signature against the operators. `now === null` skips the time window (for
 * a signature already admitted once, re-checked later).
 */
export function verifyRequest(
  operators: readonly OperatorCredential[],
  action: 'submit' | 'answer',
  runId: string,
  payload: unknown,
  signature: RequestSignature | undefined,
  now: number | null,
): Admission {
  if (
    signature === undefined ||
    typeof signature !== 'object' ||
    typeof signature.by !== 'string' ||
    typeof signature.at !== 'number' ||
    typeof signature.nonce !== 'string' ||
    typeof signature.sig !== 'string'
  )
    return { ok: false, reason: `${action} refused: no operator credential` };
  const operator = operators.find((o) => o.name === signature.by);
  if (operator === undefined) return { ok: false, reason: `${action} refused: unknown operator` };
  if (now !== null && Math.abs(now - signature.at) > SIGNATURE_WINDOW_MS)
    return { ok: false, reason: `${action} refused: the signature has expired` };
  const expected = createHmac('sha256', operator.secret)
    .update(signedText(action, runId, payload, signature.by, signature.at, signature.nonce))
    .digest();
  const given = Buffer.from(signature.sig, 'hex');
  if (given.length !== expected.length || !timingSafeEqual(given, expected))
    return { ok: false, reason: `${action} refused: the signature does not match` };
  return { ok: true, by: operator.name };
}

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz';

function base58(bytes: Uint8Array): string {
  let n = 0n;
  for (const b of bytes) n = n * 256n + BigInt(b);
  let out = '';
  while (n > 0n) {
    out = BASE58[Number(n % 58n)] + out;
    n /= 58n;
  }
  for (const b of bytes) {
    if (b !== 0) break;
    out = `1${out}`;
  }
  return out;
}

/**
 * The `publickeyv1_<base58>` name of the Ed25519 key in a PEM private key: what the Restate server
 * logs at startup for its `request-identity-private-key-pem-file`, and what `serve --identity-key`
 * takes.
 */
export function requestIdentityPublicKey(privateKeyPem: string): string {
  const key = createPublicKey(createPrivateKey(privateKeyPem));
  const x = key.export({ format: 'jwk' }).x;
  if (key.asymmetricKeyType !== 'ed25519' || typeof x !== 'string')
    throw new InputError(
      'fleet.identity-key',
      'the request identity key must be an Ed25519 private key (PEM)',
    );
  return `publickeyv1_${base58(Buffer.from(x, 'base64url'))}`;
}
