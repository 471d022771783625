// What the runs feature offers the others (web-features-through-their-face): the query-plan builder and its
// preview, which a test plan's runs are built with too; the pass rate the run lists, plans and milestones show.
export { PlanBuilder } from './list/PlanBuilder';
export { Preview } from './list/Preview';
export type { QueryPlan } from './api';
export { passRateOf } from './list/order';
export { projectAssignableQuery } from './api';
// Failure triage's "link this defect to all" offers the same trackers and reads an issue id the way the recorder does.
export { projectIntegrationsQuery } from './api';
export { issueIdFromUrl } from './run-page/recorder-draft';
// A due date with its overdue mark, as the runs pages write it (My work too).
export { DueDate } from './due/DueDate';
