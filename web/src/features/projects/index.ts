/** What other features use of projects: the list (custom fields' project limits), a project and its counts (the dashboard, the project's home). */
export { projectCountsQuery, projectQuery, projectsQuery } from './api';
