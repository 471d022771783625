/*
 * The face other modules use for a run's test cases and results (the MCP tools run them as the routes do):
 * the parts stay behind the module's root, and runs.service.ts cannot re-export them (results/ imports it).
 */
export { recordResult, recordResultBatch } from './results/results.service.js';
export { getRunTcase, listRunTcases } from './run-tcases/run-tcases.service.js';
export { linkResults } from './failures/failures.service.js';
