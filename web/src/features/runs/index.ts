// What the runs feature offers the others (web-features-through-their-face): the query-plan builder and its
// preview, which a test plan's runs are built with too.
export { PlanBuilder } from './list/PlanBuilder';
export { Preview } from './list/Preview';
export type { QueryPlan } from './api';
