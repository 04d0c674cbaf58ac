/**
 * loopchart: bounded agent repair loops as XState statecharts.
 *
 * The public API, by layer. docs/api.md is the overview; every export is documented where it is
 * defined.
 */

export * from '../machines/crank.js';
export * from '../machines/cybernetic-loop.js';
// Statecharts
export * from '../machines/index.js';
export * from '../machines/loop-implementation/index.js';
export * from '../machines/loop-protocol.js';
export * from '../machines/rpi.js';
// Shared
export * from './common/errors.js';
export * from './common/finding.js';
export type { JsonValue } from './common/json-value.js';
// RPI under the convergence law, crank, the cybernetic loop, the loop protocol: pure cores
export * from './convergence/index.js';
export * from './crank/index.js';
export * from './cybernetic/index.js';
export { type Checkpoint, createCheckpoint, loadCheckpoint } from './effects/checkpoint.js';
export { type ChildCommandOptions, type ChildRunResult, runChildCommand } from './effects/child-process.js';
export { CommandFailedError } from './effects/command-error.js';
export { createLogDir, type Gate, type GateSetResult, runGateSet } from './effects/gates.js';
// Effects a host can reuse when it implements its own actors
export { createGitPort, type GitPort, type GitPortOptions } from './effects/git.js';
export { cleanupJobs, jobsFilePath, parseJobsFile, recordActionLine, recordJob } from './effects/jobs.js';
export { computeSubjectManifest, manifestDigest, type SubjectManifest } from './effects/manifest.js';
// The loop engine (pi-gauntlet loop-implementation): pure protocol core
export * from './gauntlet/action-records.js';
export * from './gauntlet/allowance.js';
export * from './gauntlet/amendment.js';
export * from './gauntlet/child-contract.js';
export * from './gauntlet/commits.js';
export * from './gauntlet/decisions.js';
export * from './gauntlet/dispatch.js';
export * from './gauntlet/escalation.js';
export * from './gauntlet/evidence.js';
export * from './gauntlet/history.js';
export * from './gauntlet/human-stop.js';
export * from './gauntlet/ledger.js';
export * from './gauntlet/reference-child.js';
export * from './gauntlet/repair.js';
export * from './gauntlet/rules.js';
export * from './gauntlet/seed.js';
export * from './gauntlet/spec.js';
export * from './gauntlet/stagnation.js';
export * from './gauntlet/targeting.js';
export * from './gauntlet/types.js';
export * from './gauntlet/unreachable.js';
export * from './gauntlet/validate.js';
export * from './gauntlet/verify.js';
// Tools over machines: model-based testing and diagrams
export * from './graph/assertion-tally.js';
export * from './graph/controlled-actors.js';
export * from './graph/coverage.js';
export * from './graph/coverage-format.js';
export * from './graph/coverage-report.js';
export * from './graph/coverage-report-schema.js';
export * from './graph/errors.js';
export type { TransitionKind } from './graph/labels.js';
export * from './graph/machine-model.js';
export { models } from './graph/models/index.js';
export { loopImplementationModel, loopProjection } from './graph/models/loop-implementation.js';
export * from './graph/path-suite.js';
export * from './graph/path-suite-schema.js';
export * from './graph/run-path.js';
export * from './graph/run-path-suite.js';
export * from './graph/states.js';
export * from './graph/stepping-clock.js';
export * from './graph/transitions.js';
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
// Hosts: runners that wire machines to real effects, persistence and transcripts
export * from './host/runner.js';
export { runScriptedChild } from './host/scripted-child.js';
export { type LoopStatus, type NextStep, readLoopStatus } from './host/status.js';
export * from './host/transcript.js';
export { acquireWorktreeLock, WorktreeLockedError } from './host/worktree-lock.js';
export * from './loop-protocol/index.js';
export type { CoverageOverlay } from './viz/coverage-overlay.js';
export * from './viz/diagram-format.js';
export * from './viz/dot.js';
export * from './viz/element-ids.js';
export * from './viz/errors.js';
export * from './viz/load-machine.js';
export * from './viz/machine-json.js';
export * from './viz/mermaid.js';
export * from './viz/svg.js';
export * from './viz/viewer/page.js';
export * from './viz/viewer/run-view.js';
export * from './viz/viewer/serve.js';
export * from './viz/viewer/transcript-page.js';
