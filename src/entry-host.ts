/**
 * `loopchart/host`: runners that wire the machines to real effects (git, processes, gates, files),
 * persistence and transcripts, and the effects a host can reuse when it implements its own
 * actors (layers 3 and 4). Node only (Linux: process groups and /proc). Loads no diagram or
 * model-testing code.
 */

export { anySignal, EffectAbortedError } from './effects/abort.js';
export { type Checkpoint, createCheckpoint, loadCheckpoint } from './effects/checkpoint.js';
export { type ChildCommandOptions, type ChildRunResult, runChildCommand } from './effects/child-process.js';
export { CommandFailedError } from './effects/command-error.js';
export { createLogDir, type Gate, type GateSetResult, runGateSet } from './effects/gates.js';
export { createGitPort, type GitPort, type GitPortOptions } from './effects/git.js';
export { cleanupJobs, jobsFilePath, parseJobsFile, recordActionLine, recordJob } from './effects/jobs.js';
export { computeSubjectManifest, manifestDigest, type SubjectManifest } from './effects/manifest.js';
export * from './host/child-script.js';
export * from './host/crank-runner.js';
export * from './host/cybernetic-runner.js';
export { DEMO_SCRIPT, prepareDemoRepository } from './host/demo.js';
export { type DispatchRecord, dispatchRecordSchema } from './host/dispatch-record.js';
export {
  type HistoryRead,
  type HistoryReadInput,
  historyCacheRoot,
  readLoopHistory,
} from './host/history-facts.js';
export { createLoopActors, openHostSession } from './host/loop-actors.js';
export * from './host/loop-protocol-runner.js';
export { projectLoopRecord } from './host/loop-transcript.js';
export * from './host/rpi-runner.js';
export { defaultLedgerPath } from './host/run-paths.js';
export * from './host/runner.js';
export { runScriptedChild } from './host/scripted-child.js';
export { type LoopStatus, type NextStep, readLoopStatus } from './host/status.js';
export * from './host/transcript.js';
export { acquireWorktreeLock, WorktreeLockedError } from './host/worktree-lock.js';
