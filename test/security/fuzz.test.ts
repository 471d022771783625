import { beforeAll, expect, it } from 'vitest';
import { fc } from '@fast-check/vitest';
import { sql } from 'kysely';
import { describeEachDb } from '../helpers/test-app.js';
import { createApiKey } from '../../src/modules/api-keys/api-keys.service.js';
import { collectRoutes } from './collect-routes.js';
import { failureSignature } from '../../src/lib/failure-signature.js';
import { populateProject, type ProjectData } from './fixtures.js';
import { clientFor } from './matrix.js';
import { hostileRequest, operationsFrom, sweep, type HostileRequest, type Operation } from './fuzz-gen.js';

/**
 * docs/api-decisions.md#hostile-input: every route of the OpenAPI document (and the routes it hides), sent hostile values as the
 * tenant's owner. No answer may be a 5xx, every error answers the D7 body, and a refused write leaves
 * the main tables as they were. Each route gets a deterministic sweep (every parameter and body field with
 * the values found when the hostile-input rules were written) and RUNS_PER_ROUTE random requests; a time limit bounds each database.
 * The seed is fixed in CI and printed (with the failing request) on failure; FUZZ_SEED replays it,
 * FUZZ_ROUTES=<regex> picks routes, FUZZ_TIME_MS raises the time limit.
 */

const RUNS_PER_ROUTE = Number(process.env.FUZZ_RUNS ?? 10);
const TIME_LIMIT_MS = Number(process.env.FUZZ_TIME_MS ?? 50_000);
const SEED = process.env.FUZZ_SEED
  ? Number(process.env.FUZZ_SEED)
  : process.env.CI
    ? 20261124
    : Math.floor(Math.random() * 2 ** 31);

/** FUZZ_ROUTES=<regex> fuzzes only the matching `METHOD /path` (to replay one route). */
const ONLY = process.env.FUZZ_ROUTES ? new RegExp(process.env.FUZZ_ROUTES) : undefined;

/** Tables a refused request must not change (audit events aside: a refusal may be audited). */
const WATCHED = [
  'projects',
  'project_members',
  'folders',
  'tcases',
  'tcase_versions',
  'steps',
  'shared_steps',
  'shared_preconditions',
  'requirements',
  'runs',
  'run_tcases',
  'results',
  'result_links',
  'result_files',
  'run_logs',
  'plans',
  'milestones',
  'configurations',
  'files',
  'users',
  'api_keys',
  'invitations',
  'integrations',
  'integration_projects',
  'tags',
  'custom_fields',
  'statuses',
  'failure_signatures',
  'known_failures',
];

/** The signature of the populated project's failed result (fixtures.ts: its comment is `<p>broken</p>`). */
const FIXTURE_SIGNATURE = failureSignature('<p>broken</p>').signature;

const ENDING = /\/(close|archive|deactivate|transfer-ownership|logout)$/;
const rank = (op: Operation) =>
  op.method === 'GET' ? 0 : op.method === 'DELETE' ? 3 : ENDING.test(op.path) ? 2 : 1;

describeEachDb('hostile-input fuzzing of every route', (t) => {
  let fx: ProjectData;
  let ops: Operation[];
  let snapshot: () => Promise<string>;
  /** /scim/v2 takes only a provisioning key, and answers SCIM's error body (docs/api-decisions.md#scim-provisioning). */
  let scimKey: string;

  beforeAll(async () => {
    fx = await populateProject(clientFor(t, t.ownerKey));
    scimKey = (await createApiKey(t.db, t.tenantId, { userId: t.ownerId, name: 'fuzz IdP', kind: 'scim' }))
      .key;
    const doc = (await t.get('/openapi.json', { key: null })).body;
    // Reads first, state-ending actions and deletions last: a request the fuzzer sends that succeeds
    // (closing the run, archiving the project) must not keep the later routes from reaching their code.
    ops = operationsFrom(doc, collectRoutes(t.app)).sort((a, b) => rank(a) - rank(b));
    const existing = new Set((await t.db.introspection.getTables()).map((x) => x.name));
    const tables = WATCHED.filter((name) => existing.has(name));
    expect(tables).toEqual(WATCHED);
    // One statement for all counts: cheap enough to run around every refused write.
    const query = sql.raw(`select ${tables.map((n) => `(select count(*) from ${n}) as ${n}`).join(', ')}`);
    snapshot = async () => JSON.stringify((await query.execute(t.db)).rows[0]);
  });

  /** Working values for path parameters, from the populated project; unknown ones name nothing. */
  const valid = (name: string): string => {
    const known: Record<string, string | number> = {
      project: fx.project.code,
      run: fx.runId,
      tcase: fx.tcaseId,
      milestone: fx.milestoneId,
      plan: fx.planId,
      folder: fx.folderId,
      integrationId: fx.integrationId,
      result: fx.resultId,
      signature: FIXTURE_SIGNATURE,
    };
    return String(Object.hasOwn(known, name) ? known[name] : 999_999);
  };

  /** Working body fields by name (links to a custom integration, existing test cases and folders). */
  const known = () => ({
    integrationId: fx.customIntegrationId,
    url: 'https://bugs.example.com/1',
    tcaseId: fx.tcaseId,
    folderId: fx.folderId,
    milestoneId: fx.milestoneId,
    status: 'failed',
  });

  it(
    'answers no 5xx, only D7 errors, and changes nothing when it refuses',
    { timeout: 120_000 },
    async () => {
      expect(ops.length).toBeGreaterThan(100);
      const started = Date.now();
      let sent = 0;
      const failures: string[] = [];
      for (const [i, op] of ops.entries()) {
        if (ONLY && !ONLY.test(`${op.method} ${op.path}`)) continue;
        if (Date.now() - started > TIME_LIMIT_MS) {
          console.warn(`fuzz [${t.dbName}]: time limit reached, ${ops.length - i} routes not fuzzed`);
          break;
        }
        const scim = op.path.startsWith('/scim/');
        const check = async (req: HostileRequest) => {
          const write = req.method !== 'GET';
          const before = write ? await snapshot() : '';
          const res = await t.app.inject({
            method: req.method as any,
            url: req.url,
            headers: {
              authorization: scim ? `Bearer ${scimKey}` : `ApiKey ${t.ownerKey}`,
              ...req.headers,
            },
            payload: req.payload,
          });
          sent++;
          const where = `${req.method} ${req.url.slice(0, 200)} (${req.what}) → ${res.statusCode} ${res.body.slice(0, 300)}`;
          expect(res.statusCode, where).toBeLessThan(500);
          if (res.statusCode >= 400) {
            const body = res.json();
            // The MCP endpoint speaks JSON-RPC: past authentication (a D7 401 like any route), what its transport
            // refuses is a JSON-RPC error, which is what MCP clients read (docs/api-decisions.md, MCP).
            const error = op.path === '/api/mcp' && body.jsonrpc === '2.0' ? body.error : body;
            // SCIM answers its own error body; only what the router refuses before any route runs (a path
            // parameter over the length limit) keeps the D7 body.
            if (scim && body.code === undefined) {
              expect(body.schemas, where).toEqual(['urn:ietf:params:scim:api:messages:2.0:Error']);
              expect(typeof body.detail, where).toBe('string');
            } else {
              expect(typeof error.message, where).toBe('string');
              expect(typeof error.code, where).toBe(
                op.path === '/api/mcp' && body.jsonrpc ? 'number' : 'string',
              );
            }
            if (write) expect(await snapshot(), `refused write changed the tables: ${where}`).toBe(before);
          }
        };
        for (const req of sweep(op, valid, known())) {
          try {
            await check(req);
          } catch (err) {
            failures.push(
              `${op.method} ${op.path} [sweep]: ${String((err as Error).message).split('\n')[0]}`,
            );
          }
        }
        try {
          await fc.assert(fc.asyncProperty(hostileRequest(op, valid), check), {
            numRuns: RUNS_PER_ROUTE,
            seed: SEED + i,
            endOnFailure: true,
          });
        } catch (err) {
          // Every failing route is reported, with the seed that replays the run (FUZZ_SEED=<seed>).
          const cause = (err as { cause?: Error }).cause?.message ?? String((err as Error).message);
          failures.push(`${op.method} ${op.path} [random, seed ${SEED}]: ${cause.split('\n')[0]}`);
        }
      }
      if (failures.length > 0) console.error(`fuzz [${t.dbName}] seed ${SEED}:\n${failures.join('\n')}`);
      expect(failures, `fuzz seed ${SEED}`).toEqual([]);
      console.info(`fuzz [${t.dbName}]: ${sent} requests over ${ops.length} routes, seed ${SEED}`);
    },
  );
});
