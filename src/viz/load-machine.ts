/**
 * Finding the machines a diagram command draws: a name from the machine registry
 * (machines/index.ts), or a JavaScript module a host wrote with its own variant of a machine
 * (`./my-machine.js`), loaded with a dynamic import.
 */
import { basename, extname, resolve } from 'node:path';
import { pathToFileURL } from 'node:url';
import type { AnyStateMachine } from 'xstate';
import { machines } from '../../machines/index.js';
import { InputError } from '../common/errors.js';
import { assertMachine } from '../graph/state-nodes.js';

/** A machine and the name diagrams and output files use for it. */
export interface NamedMachine {
  /** Registry name, or for a module: its file stem (default export) or the export name. */
  readonly name: string;
  readonly machine: AnyStateMachine;
  /** Where it came from: `registry` or the module's absolute path. */
  readonly source: string;
}

/** A machine name that is neither registered nor a module path (code `viz.machine.unknown`). */
export class UnknownMachineError extends InputError {
  constructor(name: string) {
    super(
      'viz.machine.unknown',
      `unknown machine "${name}"; registered machines: ${registeredMachineNames().join(', ')} ` +
        '(or give a module path such as ./my-machine.js)',
    );
  }
}

/** A machine module that cannot be imported or exports no machine (code `viz.machine.module`). */
export class MachineModuleError extends InputError {
  constructor(path: string, reason: string) {
    super('viz.machine.module', `machine module ${path}: ${reason}`);
  }
}

/** The names of the registered machines, in registry order. */
export function registeredMachineNames(): string[] {
  return Object.keys(machines);
}

/**
 * The registered machine called `name`.
 *
 * @throws UnknownMachineError when no machine has that name
 */
export function registeredMachine(name: string): NamedMachine {
  const machine = (machines as Record<string, AnyStateMachine>)[name];
  if (machine === undefined || !Object.hasOwn(machines, name)) throw new UnknownMachineError(name);
  return { name, machine, source: 'registry' };
}

/** Every registered machine, in registry order. */
export function registeredMachines(): NamedMachine[] {
  return registeredMachineNames().map(registeredMachine);
}

/** True when a command-line argument names a file rather than a registered machine. */
export function looksLikeModulePath(argument: string): boolean {
  return /[\\/]/.test(argument) || /\.(?:[cm]?js|[cm]?ts)$/.test(argument);
}

function isMachine(value: unknown): value is AnyStateMachine {
  try {
    assertMachine(value);
    return true;
  } catch {
    return false;
  }
}

/**
 * Imports a module and returns its machines: the default export when it is a machine, else every
 * named export that is one (in the module's export order, duplicates of the same object once).
 *
 * @param path the module's path, relative to `cwd`
 * @param cwd where relative paths start; defaults to the process's working directory
 * @throws MachineModuleError when the file cannot be imported or exports no XState machine
 */
export async function loadMachineModule(path: string, cwd = process.cwd()): Promise<NamedMachine[]> {
  const absolute = resolve(cwd, path);
  let module: Record<string, unknown>;
  try {
    module = (await import(pathToFileURL(absolute).href)) as Record<string, unknown>;
  } catch (error) {
    const message = error instanceof Error ? error.message.split('\n')[0] : String(error);
    const hint = /\.[cm]?ts$/.test(absolute) ? ' (compile TypeScript to JavaScript first)' : '';
    throw new MachineModuleError(path, `cannot be imported: ${message}${hint}`);
  }
  const stem = basename(absolute, extname(absolute));
  if (isMachine(module.default)) return [{ name: stem, machine: module.default, source: absolute }];
  const found: NamedMachine[] = [];
  const seen = new Set<unknown>();
  for (const [exportName, value] of Object.entries(module)) {
    if (exportName === 'default' || !isMachine(value) || seen.has(value)) continue;
    seen.add(value);
    found.push({ name: exportName, machine: value, source: absolute });
  }
  if (found.length === 0) {
    const exports = Object.keys(module);
    throw new MachineModuleError(
      path,
      `exports no XState machine (exports: ${exports.length > 0 ? exports.join(', ') : 'none'}); ` +
        'export the result of createMachine() or setup().createMachine() as default or by name',
    );
  }
  return found;
}

/**
 * Resolves command-line machine arguments: registered names and module paths, in the order given;
 * no argument means every registered machine.
 *
 * @throws UnknownMachineError for a name that is neither registered nor a path
 * @throws MachineModuleError for a module that cannot be imported or exports no machine
 * @throws InputError (`viz.machine.duplicate`) when two arguments give machines the same name
 */
export async function resolveMachineArguments(
  argumentsGiven: readonly string[],
  cwd = process.cwd(),
): Promise<NamedMachine[]> {
  if (argumentsGiven.length === 0) return registeredMachines();
  const result: NamedMachine[] = [];
  for (const argument of argumentsGiven) {
    if (Object.hasOwn(machines, argument)) result.push(registeredMachine(argument));
    else if (looksLikeModulePath(argument)) result.push(...(await loadMachineModule(argument, cwd)));
    else throw new UnknownMachineError(argument);
  }
  const names = new Set<string>();
  for (const { name } of result) {
    if (names.has(name))
      throw new InputError(
        'viz.machine.duplicate',
        `two machines are named "${name}"; their output files would overwrite each other`,
      );
    names.add(name);
  }
  return result;
}
