/** What other features use of projects: the project and its counts (the dashboard, the project's home). */
export { projectCountsQuery, projectQuery } from './api';
