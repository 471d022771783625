/**
 * Folder loops between modules (accounts → auth → accounts through different files), on the graph of
 * src/modules alone: routes import http/ and http/ imports the services it authenticates with, a loop of
 * layers by design that would hide the loops between modules. `npm run depcheck` runs this and the main rules.
 * @type {import('dependency-cruiser').IConfiguration}
 */
const main = require('./.dependency-cruiser.cjs');

module.exports = {
  forbidden: [
    {
      name: 'no-circular-module-folders',
      severity: 'error',
      comment: 'A module folder never reaches back to itself through another module.',
      scope: 'folder',
      from: { path: '^src/modules/[^/]+$' },
      to: { circular: true },
    },
  ],
  options: { ...main.options, includeOnly: '^src/modules/' },
};
