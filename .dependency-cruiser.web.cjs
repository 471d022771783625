/**
 * The web application's import rules (docs/architecture.md, "The web application"), checked by `npm run depcheck`
 * beside the server's. The layers, from the top: main.tsx → app/ (router, shell) → features/<area>/ → routing/
 * (the layout routes, the role guard, the tabs' shape) → the shared homes session/ (who is signed in),
 * components/ (shared pieces), lib/ (plain helpers: keys, the shortcut switch) → api/ (the client, query keys,
 * shared queries). An arrow only ever points down, or across to a feature's face.
 * Type-only imports count too: a feature's types are as much its internals as its code.
 * @type {import('dependency-cruiser').IConfiguration}
 */
module.exports = {
  forbidden: [
    {
      name: 'web-no-circular',
      severity: 'error',
      comment: 'No import circles.',
      from: {},
      to: { circular: true },
    },
    {
      name: 'web-only-web',
      severity: 'error',
      comment:
        'The browser application talks to the service over HTTP only: it imports its own files and packages, ' +
        'never the server (src/), the tests or the build scripts.',
      from: { path: '^web/src/' },
      to: { pathNot: ['^web/src/', '(^|/)node_modules/'] },
    },
    {
      name: 'web-features-through-their-face',
      severity: 'error',
      comment:
        "A feature uses another feature only through that feature's index.ts (what it offers the others), never " +
        'its pages, components, api.ts or other internals. What several features read lives in a shared home ' +
        '(api/queries.ts, session/, components/), not in one of them.',
      from: { path: '^web/src/features/([^/]+)/' },
      to: {
        path: '^web/src/features/',
        pathNot: ['^web/src/features/$1/', '^web/src/features/[^/]+/index\\.ts$'],
      },
    },
    {
      name: 'web-app-through-routes',
      severity: 'error',
      comment:
        'app/ composes the features: it reaches one only through its routes.tsx (its pages, their guards and ' +
        'tabs) or its index.ts, never a page or an api.ts. A page is found from its address in its feature folder.',
      from: { path: '^web/src/(app/|main\\.tsx$)' },
      to: {
        path: '^web/src/features/',
        pathNot: ['^web/src/features/[^/]+/(routes\\.tsx|index\\.ts)$'],
      },
    },
    {
      name: 'web-routing-below-features',
      severity: 'error',
      comment:
        'routing/ (the layout routes every feature hangs its pages under, the role guard, the tab shape) sits ' +
        'below the features and above the shared homes: it imports api/, lib/, session/ and components/ only. ' +
        "The layouts' components are the shell's, attached by app/router.tsx.",
      from: { path: '^web/src/routing/' },
      to: { path: '^web/src/', pathNot: ['^web/src/(api|lib|session|components|routing)/'] },
    },
    {
      name: 'web-app-on-top',
      severity: 'error',
      comment:
        'app/ (router, shell, providers) is above the features: nothing but main.tsx and app/ itself imports it. ' +
        'A feature that needs something of the shell finds it in a shared home instead (the shortcut switch is ' +
        'lib/shortcuts.ts, the session is session/).',
      from: { path: '^web/src/', pathNot: ['^web/src/app/', '^web/src/main\\.tsx$'] },
      to: { path: '^web/src/(app/|main\\.tsx$)' },
    },
    {
      name: 'web-shared-below-features',
      severity: 'error',
      comment:
        'The shared homes (api/, lib/, session/, components/) serve every feature and import none of them, nor routing/.',
      from: { path: '^web/src/(api|lib|session|components)/' },
      to: { path: '^web/src/(features|routing)/' },
    },
    {
      name: 'web-session-and-components-over-api',
      severity: 'error',
      comment:
        'session/ and components/ build on api/ and lib/ only; session/ knows no components, nor they it.',
      from: { path: '^web/src/(session|components)/' },
      to: { path: '^web/src/', pathNot: ['^web/src/(api|lib)/', '^web/src/$1/'] },
    },
    {
      name: 'web-api-stays-low',
      severity: 'error',
      comment:
        'api/ (the client, the query keys, shared queries) imports nothing of the application but api/.',
      from: { path: '^web/src/api/' },
      to: { path: '^web/src/', pathNot: '^web/src/api/' },
    },
    {
      name: 'web-lib-stays-low',
      severity: 'error',
      comment:
        'lib/ holds plain helpers and hooks (keys, the shortcut switch, forms): it imports nothing of the ' +
        "application but api/ (a form reads the API's error body).",
      from: { path: '^web/src/lib/' },
      to: { path: '^web/src/', pathNot: '^web/src/(lib|api)/' },
    },
  ],
  options: {
    doNotFollow: { path: 'node_modules' },
    // Unit tests may reach into what they test.
    exclude: { path: '\\.test\\.tsx?$' },
    tsPreCompilationDeps: true,
    // web/tsconfig.json has no path aliases: relative imports resolve without it (dependency-cruiser would read
    // its `include` against the working directory).
    enhancedResolveOptions: {
      extensions: ['.ts', '.tsx', '.d.ts', '.js'],
      exportsFields: ['exports'],
      conditionNames: ['import', 'browser', 'default'],
    },
  },
};
