/**
 * The import rules of docs/architecture.md ("Rules of the house"), checked by `npm run depcheck` (and so by
 * `npm run check` and `.ci/run`). Type-only imports count for circles (they still tie two files together) but not
 * for the layer rules: a type says nothing about who runs what.
 *
 * Named exceptions are listed in each rule with the reason.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment: 'No import circles.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'modules-through-services',
      severity: 'error',
      comment:
        'A module reaches another module only through its service (and the API shapes of its schemas): never its ' +
        'repository, routes or internal files.',
      from: { path: '^src/modules/([^/]+)/' },
      to: {
        path: '^src/modules/[^/]+/',
        pathNot: ['^src/modules/$1/', '\\.(service|schemas)\\.ts$'],
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'modules-meet-at-their-root',
      severity: 'error',
      comment:
        'Another module is reached at its root folder (its service and schemas), never inside its part folders ' +
        '(runs/results/, test-cases/listing/, …), type-only imports included: the parts are its own business, and ' +
        'the loop check of .dependency-cruiser.folders.cjs follows folders, so an arrow that lands in a part folder ' +
        'would reach the module only through what that part imports.',
      from: { path: '^src/modules/([^/]+)/' },
      to: { path: '^src/modules/[^/]+/[^/]+/', pathNot: '^src/modules/$1/' },
    },
    {
      name: 'services-below-http',
      severity: 'error',
      comment:
        'Services, repositories and the rest of a module know nothing of HTTP: only route files import src/http. ' +
        'The caller identity lives in src/auth.',
      from: {
        path: '^src/modules/',
        pathNot: ['\\.routes\\.ts$', '\\.schemas\\.ts$', '^src/modules/index\\.ts$'],
      },
      to: { path: '^src/http/' },
    },
    {
      name: 'schemas-below-http',
      severity: 'error',
      comment:
        'API shapes use the shared TypeBox schemas of http/schemas.ts (error body, params) and nothing else of http.',
      from: { path: '\\.schemas\\.ts$' },
      to: { path: '^src/http/', pathNot: '^src/http/schemas\\.ts$' },
    },
    {
      name: 'lower-layers-stay-low',
      severity: 'error',
      comment:
        'db/, lib/, auth/ and errors.ts sit below every module and below http: they import none of them.',
      from: { path: '^src/(db|lib|auth)/|^src/errors\\.ts$' },
      to: { path: '^src/(modules|http|cli|jobs|outbox)/|^src/(app|context|main)\\.ts$' },
    },
    {
      name: 'outbox-below-modules',
      severity: 'error',
      comment:
        'The outbox (src/outbox/: the jobs table, its claims and wakers, the types of a job handler) is a primitive ' +
        'that modules enqueue into and src/jobs/ runs: it knows no module, no runner, no http, no app, so any ' +
        'module can use it without a circle.',
      from: { path: '^src/outbox/' },
      // The handler types name the app's parts a job is handed (file storages, the test-case change hook): types only.
      to: {
        path: '^src/(modules|http|cli|jobs)/|^src/(app|context|main)\\.ts$',
        dependencyTypesNot: ['type-only'],
      },
    },
    {
      name: 'modules-below-jobs',
      severity: 'error',
      comment:
        'src/jobs/ (the runner and the registry) sits above the modules and learns their job handlers from ' +
        'modules/index.ts; a module reaching into it (even for a type) would tie the two folders into the loop ' +
        'this rule was written to end. What a module needs to write a job is in src/outbox/.',
      from: { path: '^src/modules/' },
      to: { path: '^src/jobs/' },
    },
    {
      name: 'only-repositories-query',
      severity: 'error',
      comment:
        'Only repositories (and db/ with its migrations) build queries: a value import of kysely anywhere else is ' +
        'a query outside its repository. Type-only imports of Kysely types are fine anywhere.',
      from: {
        path: '^src/',
        pathNot: ['\\.repository\\.ts$', '^src/db/'],
      },
      to: { path: '(^|/)node_modules/kysely/', dependencyTypesNot: ['type-only'] },
    },
    {
      name: 'repositories-own-their-module',
      severity: 'error',
      comment:
        "A repository queries its own module's tables and imports no other module's files. The reads that join " +
        "other modules' tables for speed (runs/**/*.repository.ts: run lists, run test cases, results' authors; reports.repository.ts: every report; api-keys.repository.ts: " +
        'the project and membership of the key statement) are written as SQL joins, not imports, and are listed ' +
        'in docs/architecture.md.',
      from: { path: '^src/modules/([^/]+)/.+\\.repository\\.ts$' },
      to: {
        path: '^src/modules/[^/]+/',
        pathNot: ['^src/modules/$1/'],
        dependencyTypesNot: ['type-only'],
      },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // The rules are about the application's layers; tests may reach into anything they test.
    exclude: { path: '(^test/|\\.test\\.ts$)' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default'],
    },
  },
};
