/**
 * The commands RPI runs, as real child processes: a validator's verdict record read from stdout and
 * checked at the boundary, and the exit code of stage commands.
 */
import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { InputError } from '../../src/common/errors.js';
import {
  runStageCommand,
  runValidatorCommand,
  ValidatorOutputError,
} from '../../src/effects/rpi-commands.js';

const dir = mkdtempSync(join(tmpdir(), 'loopchart-rpi-commands-'));
afterAll(() => rmSync(dir, { recursive: true, force: true }));

const DIGEST = 'd'.repeat(64);
let logs = 0;
const logPath = () => join(dir, `log-${++logs}.txt`);

function printing(record: unknown, exit = 0): string {
  return `printf '%s\\n' '${JSON.stringify(record)}'; exit ${exit}`;
}

async function validatorError(command: string): Promise<ValidatorOutputError> {
  const error = await runValidatorCommand({
    command,
    cwd: dir,
    logPath: logPath(),
    defaultFamily: 'fresh',
  }).catch((e: unknown) => e);
  expect(error).toBeInstanceOf(ValidatorOutputError);
  expect(error).toBeInstanceOf(InputError);
  return error as ValidatorOutputError;
}

describe('runValidatorCommand', () => {
  const fail = { status: 'FAIL', findings: [{ id: 'f1' }], subject_digest: DIGEST, evidence_refs: [] };

  it('reads the record on stdout and fills in the leg family when the record names none', async () => {
    const log = logPath();
    const leg = await runValidatorCommand({
      command: `echo judging >&2; ${printing(fail, 1)}`,
      cwd: dir,
      logPath: log,
      defaultFamily: 'cross-family',
    });
    // A validator may exit 1 on FAIL: the record carries the verdict.
    expect(leg).toEqual({ ...fail, validator_family: 'cross-family' });
    const text = readFileSync(log, 'utf8');
    expect(text).toContain('judging');
    expect(text).toContain('exit 1');
  });

  it('keeps the family the validator named', async () => {
    const leg = await runValidatorCommand({
      command: printing({ ...fail, validator_family: 'codex' }),
      cwd: dir,
      logPath: logPath(),
      defaultFamily: 'fresh',
    });
    expect(leg.validator_family).toBe('codex');
  });

  it('takes the last line when the validator printed progress first', async () => {
    const leg = await runValidatorCommand({
      command: `echo 'running 3 checks'; ${printing(fail)}`,
      cwd: dir,
      logPath: logPath(),
      defaultFamily: 'fresh',
    });
    expect(leg.status).toBe('FAIL');
  });

  it('passes the environment through to the command', async () => {
    const leg = await runValidatorCommand({
      command: `printf '{"status":"PASS","findings":[],"subject_digest":"%s","evidence_refs":[]}' "$LOOPCHART_SUBJECT_DIGEST"`,
      cwd: dir,
      env: { LOOPCHART_SUBJECT_DIGEST: DIGEST },
      logPath: logPath(),
      defaultFamily: 'fresh',
    });
    expect(leg.subject_digest).toBe(DIGEST);
  });

  it('names a validator that printed nothing', async () => {
    const error = await validatorError('echo only on stderr >&2; exit 3');
    expect(error.code).toBe('rpi.validator-output-missing');
    expect(error.exitCode).toBe(3);
    expect(error.outputTail).toContain('only on stderr');
  });

  it('names output that is not JSON', async () => {
    expect((await validatorError("echo 'PASS, looks good'")).code).toBe('rpi.validator-output-not-json');
  });

  it('names every shape problem of the record with its round-shape code', async () => {
    const error = await validatorError(printing({ status: 'FAIL', findings: [], subject_digest: 'ABC' }));
    expect(error.code).toBe('rpi.validator-record-invalid');
    const codes = error.findings.map((f) => f.code);
    expect(codes).toEqual(
      expect.arrayContaining([
        'round.fail-without-findings',
        'round.evidence-refs-missing',
        'round.digest-invalid',
      ]),
    );
  });

  it('refuses a JSON value that is not a leg', async () => {
    const error = await validatorError("echo '[1, 2]'");
    expect(error.code).toBe('rpi.validator-record-invalid');
    expect(error.findings.length).toBeGreaterThan(0);
  });

  it('refuses a PASS from a command that did not exit 0', async () => {
    const pass = { status: 'PASS', findings: [], subject_digest: DIGEST, evidence_refs: [] };
    expect((await validatorError(printing(pass, 2))).code).toBe('rpi.validator-exit-contradicts');
  });
});

describe('runStageCommand', () => {
  it('reports exit 0 as done and anything else as returned nothing', async () => {
    const ok = await runStageCommand({ command: 'echo built', cwd: dir, logPath: logPath() });
    expect(ok).toMatchObject({ done: true, exitCode: 0, detail: 'exit 0' });
    expect(readFileSync(ok.logPath, 'utf8')).toContain('built');
    const nothing = await runStageCommand({ command: 'exit 7', cwd: dir, logPath: logPath() });
    expect(nothing).toMatchObject({ done: false, exitCode: 7, detail: 'exit 7' });
  });

  it('reports a command ended by a signal as returned nothing', async () => {
    const killed = await runStageCommand({ command: 'kill -TERM $$', cwd: dir, logPath: logPath() });
    expect(killed.done).toBe(false);
    expect(killed.exitCode).toBeNull();
    expect(killed.detail).toBe('signal SIGTERM');
  });
});
