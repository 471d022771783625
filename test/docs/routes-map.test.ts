import fs from 'node:fs';
import { describe, expect, it } from 'vitest';
import { generateRouteMap, ROUTES_FILE } from '../../scripts/route-map.js';

describe('docs/routes.md, the map from each route to its file', () => {
  it('lists every route the service answers with the file that declares it now (else: npm run docs:routes)', async () => {
    const fresh = await generateRouteMap();
    expect(
      fs.readFileSync(ROUTES_FILE, 'utf8') === fresh,
      'docs/routes.md is stale: run `npm run docs:routes`',
    ).toBe(true);
  });

  it('names the result endpoint the upload CLI calls and the file that declares it', async () => {
    const map = await generateRouteMap();
    const row = map
      .split('\n')
      .find((l) => l.includes('`POST /api/public/v0/project/:project/run/:run/result/batch`'));
    expect(row).toMatch(/src\/modules\/runs\/.*results\.routes\.ts/);
  });
});
