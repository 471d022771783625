// What the test plans feature offers the others (web-features-through-their-face): the project's plans, which a
// milestone's page lists.
export { plansQuery, type Plan } from './api';
