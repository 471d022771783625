import { execFileSync, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import { describeEachDb } from '../helpers/test-app.js';

/**
 * docs/monitoring: the Grafana dashboard and the Prometheus alert rules name only metrics a live scrape has, and
 * promtool (Debian's prometheus package; .ci/run installs it) accepts the rules and the scrape's text.
 */

const DOCS = path.resolve(import.meta.dirname, '..', '..', 'docs', 'monitoring');
const RULES = path.join(DOCS, 'casebook-alerts.yml');
const DASHBOARD = path.join(DOCS, 'casebook-dashboard.json');
const TOKEN = 'monitoring-token-0123456789';

const promtool = (() => {
  try {
    execFileSync('sh', ['-c', 'command -v promtool'], { stdio: 'ignore' });
    return true;
  } catch {
    return false;
  }
})();
if (!promtool)
  console.log('[casebook] promtool checks: SKIPPED (promtool is not installed; .ci/run installs it)');

/** Metric names an expression uses: ours and prom-client's (histograms by their family name). */
function metricNames(expr: string): string[] {
  const names = expr.match(/\b(?:casebook|process|nodejs)_[a-z0-9_]+/g) ?? [];
  return names.map((n) => n.replace(/_(bucket|sum|count)$/, ''));
}

describeEachDb(
  'the monitoring files in docs/',
  (t) => {
    const scrape = async () => {
      // Something of each kind counted: an answer, an error answer.
      expect((await t.get('/project')).status).toBe(200);
      expect((await t.get('/project/NOSUCH')).status).toBe(404);
      const res = await t.get('/metrics', { key: null, headers: { authorization: `Bearer ${TOKEN}` } });
      expect(res.status).toBe(200);
      return res.text;
    };

    it('name only metrics a live scrape has, in the dashboard and in the alert rules', async () => {
      const text = await scrape();
      const families = new Set([...text.matchAll(/^# TYPE (\S+) /gm)].map((m) => m[1]));
      const dashboard = JSON.parse(fs.readFileSync(DASHBOARD, 'utf8')) as {
        panels: { targets: { expr: string }[] }[];
      };
      const exprs = dashboard.panels.flatMap((p) => p.targets.map((x) => x.expr));
      exprs.push(
        ...[...fs.readFileSync(RULES, 'utf8').matchAll(/expr: (.+(?:\n {10}.+)*)/g)].map((m) => m[1]),
      );
      const used = new Set(exprs.flatMap(metricNames));
      expect(used.size).toBeGreaterThan(10);
      // The pool's gauges are PostgreSQL's alone.
      const missing = [...used].filter(
        (n) => !families.has(n) && !(t.dbName === 'sqlite' && n.includes('pool')),
      );
      expect(missing).toEqual([]);
    });

    it.runIf(promtool)('pass promtool: the alert rules, and the metrics of a live scrape', async () => {
      const rules = spawnSync('promtool', ['check', 'rules', RULES], { encoding: 'utf8' });
      expect(rules.status, rules.stdout + rules.stderr).toBe(0);
      const metrics = spawnSync('promtool', ['check', 'metrics'], {
        input: await scrape(),
        encoding: 'utf8',
      });
      const said = (metrics.stdout + metrics.stderr).trim();
      // 0: clean; 3: lint problems only (1 would be text it cannot parse). prom-client's own gauges named
      // nodejs_active_*_total are the one lint problem allowed: their names are prom-client's, not ours.
      expect([0, 3], said).toContain(metrics.status);
      const problems = said.split('\n').filter((l) => l && !/^nodejs_active_\w+_total non-counter/.test(l));
      expect(problems).toEqual([]);
    });
  },
  { env: { CASEBOOK_METRICS_TOKEN: TOKEN } },
);

describe('promtool', () => {
  it.skipIf(promtool)('is not installed here: the promtool checks above were skipped', () => undefined);
});
