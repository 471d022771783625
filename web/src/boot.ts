/**
 * The first script of every page (its own small file, `async` in index.html's head; see vite.config.ts): starts
 * the requests the opened page makes first, so the service answers them while the browser is still loading and
 * running the application. The API client takes these answers (web/src/api/preload.ts) instead of asking again.
 *
 * No imports, so that it runs at once. The addresses below must be exactly those the application's queries ask
 * for (named beside each); test/web/preload.test.ts fails when one drifts (the page would then ask twice).
 */
import type { Preloaded } from './api/preload';

const API = '/api/public/v0';
const projectsPath = `${API}/project`; // projectsQuery (features/projects/api.ts)

/** Which of the early pages (vite.config.ts EARLY_PAGES) the address opens, and the API paths it asks for first. */
function pageOf(pathname: string, search: string): { page?: string; requests: string[] } {
  if (pathname === '/') return { page: 'projects', requests: [projectsPath] };
  const home = /^\/project\/([^/]+)\/?$/.exec(pathname);
  if (home)
    return dashboardOf(`${API}/project/${encodeURIComponent(decodeURIComponent(home[1]).toUpperCase())}`);
  const m = /^\/project\/([^/]+)\/(?:run\/(\d+)|repository)\/?$/.exec(pathname);
  if (!m) return { requests: [] };
  const project = `${API}/project/${encodeURIComponent(decodeURIComponent(m[1]))}`;
  const folders = `${project}/tcase/folders?sortField=pos&sortOrder=asc`; // projectFoldersQuery (api/queries.ts)
  const tags = `${project}/tag?sortField=title`; // projectTagsQuery (api/queries.ts)
  const run = m[2];
  if (run)
    return {
      page: 'run',
      requests: [
        `${project}/run/${run}/tcase`, // runTestCasesQuery (features/runs/api.ts)
        `${project}/run/${run}?include=milestone&include=statusCounts`, // runQuery
        folders,
        `${API}/settings/preferences/status`, // statusesQuery
        tags, // the tag filter
        `${project}/run/${run}/log`, // runLogsQuery
        `${project}/integration`, // projectIntegrationsQuery: the recorder's issue links
      ],
    };
  return {
    page: 'repository',
    requests: [
      folders,
      tags,
      `${project}/custom-field`, // customFieldsQuery (features/repository/api.ts): the field filters
      // firstListPage (features/repository/api.ts), when the address has no filter
      ...(search === ''
        ? [`${project}/tcase?sortField=seq&sortOrder=asc&offset=0&limit=100&include=tags`]
        : []),
    ],
  };
}

/** The project's home, its dashboard: the queries of features/reports/dashboard/queries.ts, in the route's loader. */
function dashboardOf(project: string) {
  const report = `${project}/report`;
  return {
    page: 'dashboard',
    requests: [
      project, // projectQuery (features/projects/api.ts)
      `${project}/tcase/count`, // projectCountsQuery
      `${project}/run?closed=false&include=milestone&include=statusCounts`, // projectCountsQuery
      `${project}/milestone?archived=false`, // milestonesProgressQuery (features/reports/api.ts)
      `${API}/settings/preferences/status`, // statusesQuery
      `${report}/trend?by=run`, // trendQuery, by run
      ...['folders', 'flaky', 'failing', 'slowest', 'coverage', 'defects'].map((r) => `${report}/${r}`),
    ],
  };
}

/** Starts downloading (and compiling) the pages' code, each file once, so the router's imports find it ready. */
function preloadFiles(pages: string[]): void {
  const data = document.querySelector('script[data-pages]')?.getAttribute('data-pages');
  const byPage = data ? (JSON.parse(data) as Record<string, string[]>) : {};
  for (const file of new Set(pages.flatMap((page) => byPage[page] ?? []))) {
    const link = document.createElement('link');
    if (file.endsWith('.css')) {
      link.rel = 'preload';
      link.as = 'style';
    } else link.rel = 'modulepreload';
    link.crossOrigin = '';
    link.href = `/${file}`;
    document.head.append(link);
  }
}

/**
 * A page's first Intl call loads the browser's locale data (~40 ms of main thread in a fresh tab here); React Aria
 * makes it during the page's first render (its default locale, a collator, counts formatted as numbers). Made now,
 * while the main thread waits for the application's code to arrive, it is off the critical path.
 */
function warmIntl(): void {
  try {
    Intl.DateTimeFormat.supportedLocalesOf([navigator.language]);
    new Intl.NumberFormat().format(1);
    // The folder tree's type-to-select compares with a collator (React Aria's useCollator).
    new Intl.Collator(navigator.language, { usage: 'search', sensitivity: 'base' }).compare('a', 'b');
  } catch {
    // An unknown locale: React Aria falls back to en-US and pays the cost then.
  }
}

// The chosen colour theme before anything is drawn (lib/theme.ts keeps it under this key; none = the system's).
try {
  const theme = localStorage.getItem('casebook.theme'); // THEME_KEY (lib/theme.ts)
  if (theme === 'light' || theme === 'dark') document.documentElement.dataset.theme = theme;
} catch {
  // storage refused: the system's theme
}

/** Pages that are open without a session (a shared report link among them): nothing to ask for. */
const OPEN = /^\/(sign-in|invite\/|reset-password|shared\/)/;

function preload(preloads: Map<string, Preloaded>, path: string): Promise<Response> {
  const url = new URL(path, location.origin).href;
  const response = fetch(url, { credentials: 'same-origin' });
  // Handled here too: a failed connection reaches the query that takes this answer, not the page as an
  // unhandled rejection when no query takes it in time.
  response.catch(() => undefined);
  preloads.set(url, { at: performance.now(), response });
  return response;
}

if (!OPEN.test(location.pathname) && typeof fetch === 'function') {
  const preloads = new Map<string, Preloaded>();
  window.casebookPreloads = preloads;
  const { pathname, search } = location;
  try {
    const { page, requests } = pageOf(pathname, search);
    // The page's own data only for someone signed in: a signed-out visit is sent to sign-in, and must not
    // leave refused requests behind.
    preload(preloads, `${API}/users/me`) // meQuery (features/auth/session.ts)
      .then((me) => {
        // Every page's header lists the projects (its project switcher).
        if (me.ok) for (const path of new Set([...requests, projectsPath])) void preload(preloads, path);
      })
      .catch(() => undefined);
    preloadFiles(page ? ['shell', page] : ['shell']);
    setTimeout(warmIntl, 0);
  } catch {
    // An address the application will refuse anyway (a malformed escape): nothing to start.
  }
}
