import { createRoute, lazyRouteComponent } from '@tanstack/react-router';
import { projectFoldersQuery, statusesQuery } from '../../api/queries';
import { projectRoute } from '../../routing/layouts';
import { runQuery, runTestCasesQuery } from './api';
import { validateRunPageSearch, validateRunsPageSearch } from './search';

const runRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'run/$runId',
  validateSearch: validateRunPageSearch,
  // Filters change the address, and every change runs the loader again: it only starts what is not cached yet,
  // so a filter never refetches the run's 10,000 cases (the page keeps them current through its changes cursor).
  // A failure (an unknown run) is the page's to show, not the loader's.
  loader: ({ context, params }) => {
    const id = Number(params.runId);
    if (!Number.isInteger(id)) return;
    const qc = context.queryClient;
    const started: Promise<unknown>[] = [
      qc.ensureQueryData(runQuery(params.code, id)),
      qc.ensureQueryData(runTestCasesQuery(params.code, id)),
      qc.ensureQueryData(projectFoldersQuery(params.code)),
      qc.ensureQueryData(statusesQuery()),
    ];
    for (const p of started) p.catch(() => undefined);
  },
  component: lazyRouteComponent(() => import('./RunPage'), 'RunPage'),
});
const runsRoute = createRoute({
  getParentRoute: () => projectRoute,
  path: 'runs',
  staticData: { tab: { label: 'Runs', order: 30, segments: ['runs', 'run'] } },
  validateSearch: validateRunsPageSearch,
  component: lazyRouteComponent(() => import('./list/RunsPage'), 'RunsPage'),
});

export const projectPages = [runRoute, runsRoute] as const;
