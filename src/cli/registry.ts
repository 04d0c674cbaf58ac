/**
 * Every `loopchart` command, registered once and loaded only when it runs.
 *
 * To add a command:
 *
 * 1. write `src/cli/<name>.ts` exporting a {@link CliCommand} (import the type from `./command.js`,
 *    never from `./commands.js`); its `--help` shows usage, options and at least one example;
 * 2. add one entry below: `{ name, summary, load: async () => (await import('./<name>.js')).<export> }`.
 *
 * The name and summary are repeated here so `loopchart help`, did-you-mean and shell completion
 * work without loading any command module (`loopchart --help` loads no machine, no zod schema and
 * no viz); test/cli/registry.test.ts checks that each entry matches the module it loads. This file
 * imports no command statically: a static import would load that command for every invocation.
 */
import type { CliCommand } from './command.js';

/** One registered command: what `loopchart help` lists, and how to load the module that runs it. */
export interface CommandEntry {
  readonly name: string;
  /** One line for `loopchart help`; the same text as the loaded command's `summary`. */
  readonly summary: string;
  /** Loads the command's module (a dynamic import) and returns the command. */
  load(): Promise<CliCommand>;
}

/** The commands in the order `loopchart help` lists them. */
export const COMMANDS: readonly CommandEntry[] = [
  {
    name: 'run',
    summary: 'run the loop on a worktree (fresh or resumed) until it finishes or stops for a human',
    load: async () => (await import('./run.js')).runCommand,
  },
  {
    name: 'status',
    summary: 'show the ledger and the step or stop the loop would take next (reads only)',
    load: async () => (await import('./status.js')).statusCommand,
  },
  {
    name: 'check',
    summary: 'parse and check a ledger and its spec; findings with line numbers (exit 2 on findings)',
    load: async () => (await import('./check.js')).checkCommand,
  },
  {
    name: 'demo',
    summary: 'create a sample repository and run the whole loop on it with the scripted child',
    load: async () => (await import('./demo.js')).demoCommand,
  },
  {
    name: 'scripted-child',
    summary: 'a child that replays a JSON script of per-target behaviours (for demos and tests)',
    load: async () => (await import('./scripted-child.js')).scriptedChildCommand,
  },
  {
    name: 'child',
    summary:
      'child tools an agent calls inside a dispatch: show, record, seed, spend, check, commit, return, verdict, review',
    load: async () => (await import('./child.js')).childCommand,
  },
  {
    name: 'prompt',
    summary: 'print the prompt an agent gets for a dispatch (role, task, tools, rules)',
    load: async () => (await import('./prompt.js')).promptCommand,
  },
  {
    name: 'generate',
    summary: 'regenerate visualizations/ and schemas/ from the code (--check: report stale files)',
    load: async () => (await import('./generate.js')).generateCommand,
  },
  {
    name: 'cyber',
    summary: 'restore one invariant with bounded candidate patches, or roll the scope back and say why',
    load: async () => (await import('./cyber.js')).cyberCommand,
  },
  {
    name: 'report',
    summary: "render a run's final report from its transcript (any machine)",
    load: async () => (await import('./report.js')).reportCommand,
  },
  {
    name: 'loop',
    summary: 'run a bounded loop under its entry contract, or design / audit the contract only',
    load: async () => (await import('./loop.js')).loopCommand,
  },
  {
    name: 'rpi',
    summary: 'Plan, Implement, Validate and repair under the convergence law',
    load: async () => (await import('./rpi.js')).rpiCommand,
  },
  {
    name: 'crank',
    summary: "Run RPI once per lane of the caller's wave, then the wave acceptance once",
    load: async () => (await import('./crank.js')).crankCommand,
  },
  {
    name: 'serve',
    summary:
      'serve loop runs, rpi runs and crank lanes to a Restate server as a fleet worker (Restate SDK endpoint)',
    load: async () => (await import('./serve.js')).serveCommand,
  },
  {
    name: 'submit',
    summary: 'submit a loop run, an rpi run or a crank wave to a fleet of workers over the Restate ingress',
    load: async () => (await import('./submit.js')).submitCommand,
  },
  {
    name: 'answer',
    summary: "answer a fleet run's human stop over the Restate ingress",
    load: async () => (await import('./answer.js')).answerCommand,
  },
  {
    name: 'runs',
    summary: "list a fleet's runs and their status over the Restate ingress",
    load: async () => (await import('./runs.js')).runsCommand,
  },
  {
    name: 'reserve',
    summary:
      'reserve a paid or external action of an rpi run or crank lane once, fleet-wide, before launching it',
    load: async () => (await import('./reserve.js')).reserveCommand,
  },
  {
    name: 'viz',
    summary:
      'draw machines as SVG, DOT, Mermaid or JSON, or export them as XState JSON or SCXML (registered or from a module)',
    load: async () => (await import('./viz.js')).vizCommand,
  },
  {
    name: 'paths',
    summary: "export a machine's model-based path suite as JSON (what a test generator consumes)",
    load: async () => (await import('./paths.js')).pathsCommand,
  },
  {
    name: 'view',
    summary: 'replay a run transcript on its diagram: one self-contained HTML page (--serve: on 127.0.0.1)',
    load: async () => (await import('./view.js')).viewCommand,
  },
  {
    name: 'explore',
    summary: 'click through a machine on 127.0.0.1: events, guards, projection, paths, coverage',
    load: async () => (await import('./explore.js')).exploreCommand,
  },
];
