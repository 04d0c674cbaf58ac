/**
 * Options shared by the fleet's client commands (`submit`, `answer`, `runs`): the Restate ingress
 * and the operator credential file (docs/cli.md, docs/scale-out.md).
 */
import { UsageError } from '../common/errors.js';
import { type OperatorCredential, readCredentials } from '../fleet/credentials.js';

/** The environment variables the client commands fall back to. */
export const INGRESS_VARIABLE = 'LOOPCHART_INGRESS';
export const CREDENTIAL_VARIABLE = 'LOOPCHART_CREDENTIAL';

/** `--ingress`, else $LOOPCHART_INGRESS. */
export function ingressOption(command: string, value: string | undefined): string {
  const url = value ?? process.env[INGRESS_VARIABLE];
  if (url === undefined || url === '')
    throw new UsageError(
      `${command}: give the Restate ingress URL (--ingress <url> or $${INGRESS_VARIABLE})`,
    );
  try {
    new URL(url);
  } catch {
    throw new UsageError(`${command}: --ingress is not a URL: ${url}`);
  }
  return url;
}

/** The one operator in `--credential <file>` (else the file $LOOPCHART_CREDENTIAL names). */
export function credentialOption(command: string, value: string | undefined): OperatorCredential {
  const path = value ?? process.env[CREDENTIAL_VARIABLE];
  if (path === undefined || path === '')
    throw new UsageError(
      `${command}: give the operator credential file (--credential <file> or $${CREDENTIAL_VARIABLE}); it holds one "<name> <secret>" line`,
    );
  const found = readCredentials(path);
  if (found.length !== 1)
    throw new UsageError(`${command}: the credential file ${path} must hold exactly one operator`);
  return found[0] as OperatorCredential;
}
