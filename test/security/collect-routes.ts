import type { FastifyInstance } from 'fastify';

/**
 * Every route of the built application as `METHOD /path`, read from Fastify's own route tree
 * (`printRoutes`), so a route added anywhere shows up here without anyone listing it. HEAD routes that
 * Fastify adds for each GET are left out: they share the GET's handler and access rule.
 */
export function collectRoutes(app: FastifyInstance): string[] {
  const tree = app.printRoutes({ commonPrefix: false });
  const routes: string[] = [];
  const stack: string[] = [];
  for (const line of tree.split('\n')) {
    const m = /^((?:│ {3}| {4})*)(?:├── |└── )(.*?)(?: \(([A-Z, ]+)\))?$/.exec(line);
    if (!m) continue;
    const depth = m[1].length / 4;
    stack.length = depth;
    stack.push(m[2]);
    if (!m[3]) continue;
    const path = stack.join('');
    for (const method of m[3].split(',').map((s) => s.trim())) {
      if (method !== 'HEAD') routes.push(`${method} ${path}`);
    }
  }
  return [...new Set(routes)].sort();
}
