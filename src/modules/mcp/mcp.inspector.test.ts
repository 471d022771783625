import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { promisify } from 'node:util';
import { beforeAll, expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject } from '../../../test/helpers/factories.js';
import { createFolder, createTcase } from '../../../test/helpers/tcase-factories.js';
import { createRun } from '../../../test/helpers/run-factories.js';
import { fixture, importFile } from '../../../test/helpers/import-factories.js';

const run = promisify(execFile);
/**
 * The MCP Inspector's command line (@modelcontextprotocol/inspector-cli). Its `mcp-inspector-cli --cli` launcher
 * only starts `build/index.js` in a second process; this runs that script itself, one process per call.
 */
const INSPECTOR = createRequire(import.meta.url).resolve(
  '@modelcontextprotocol/inspector-cli/build/index.js',
);

/** A third-party MCP client against the endpoint, not the SDK client the other tests drive: SQLite is enough. */
describeEachDb(
  'MCP endpoint: the MCP Inspector CLI lists and calls every tool',
  (t) => {
    let url: string;
    const args: Record<string, Record<string, unknown>> = {};

    async function inspector(method: string, extra: string[] = []) {
      const { stdout } = await run(
        process.execPath,
        [
          INSPECTOR,
          url,
          '--transport',
          'http',
          '--header',
          `Authorization: Bearer ${t.ownerKey}`,
          '--method',
          method,
          ...extra,
        ],
        // 1.0.3 looks for its package.json relative to the working directory: run it from its own folder.
        { timeout: 30_000, cwd: path.dirname(INSPECTOR) },
      );
      return JSON.parse(stdout) as any;
    }

    beforeAll(async () => {
      url = new URL('/api/mcp', await t.app.listen({ port: 0, host: '127.0.0.1' })).toString();
      const project = await createProject(t);
      const p = `/project/${project.code}`;
      const folderId = await createFolder(t, project, ['Smoke']);
      const tcase = await createTcase(t, project, { folderId, tags: ['smoke'] });
      const step = (
        await t.post(`${p}/shared-step`, { title: 'Sign in', subSteps: [{ description: 'Open' }] })
      ).body;
      const pre = (await t.post(`${p}/shared-precondition`, { title: 'Basket', text: 'A basket' })).body;
      const runId = (await createRun(t, project, { tcaseIds: [tcase.id] })).id;
      const toClose = (await createRun(t, project, { tcaseIds: [tcase.id] })).id;
      const runTcaseId = (await t.get(`${p}/run/${runId}/tcase`)).body.tcases[0].id;
      const imported = await importFile(t, project.code, fixture('qasphere-documented.csv'));
      const code = { projectCode: project.code };
      const inRun = { ...code, runId };
      Object.assign(args, {
        list_projects: {},
        get_project: code,
        get_test_case: { marker: `${project.code}-${tcase.seq}` },
        list_test_cases: { ...code, limit: 10 },
        create_test_case: {
          ...code,
          title: 'From the inspector',
          priority: 'low',
          type: 'standalone',
          folderId,
        },
        update_test_case: { ...code, tcaseOrLegacyId: tcase.id, title: 'Renamed by the inspector' },
        list_folders: { ...code, limit: 10 },
        upsert_folders: { ...code, folders: [{ path: ['Inspector'], comment: null }] },
        list_test_cases_tags: code,
        list_custom_fields: code,
        list_requirements: code,
        list_shared_preconditions: code,
        get_shared_precondition: { ...code, sharedPreconditionId: pre.id },
        list_shared_steps: code,
        get_shared_step: { ...code, sharedStepId: step.id },
        list_runs: code,
        get_run: inRun,
        create_run: {
          ...code,
          title: 'Inspector run',
          type: 'static',
          queryPlans: [{ priorities: ['medium'] }],
        },
        close_run: { ...code, runId: toClose },
        list_run_test_cases: inRun,
        get_run_test_case: { ...inRun, tcaseId: runTcaseId },
        add_test_result: { ...inRun, tcaseId: runTcaseId, status: 'passed' },
        add_test_results: { ...inRun, items: [{ tcaseId: runTcaseId, status: 'failed' }] },
        get_run_report: inRun,
        list_flaky_test_cases: code,
        list_failing_test_cases: code,
        list_slowest_test_cases: code,
        get_pass_rate_trend: code,
        get_requirement_coverage: code,
        get_import_status: { ...code, importId: imported.id },
      });
    });

    it('tools/list names every tool, and tools/call of each with arguments from a seeded project is no error', async () => {
      const listed = await inspector('tools/list');
      const names: string[] = listed.tools.map((x: { name: string }) => x.name);
      expect(names.length).toBeGreaterThanOrEqual(30);
      // A tool without arguments here fails the test, so a new tool is called too.
      expect(names.filter((name) => !args[name])).toEqual([]);

      const failures: string[] = [];
      const queue = [...names];
      const worker = async () => {
        for (let name = queue.shift(); name !== undefined; name = queue.shift()) {
          const toolArgs = Object.entries(args[name]!).flatMap(([k, v]) => [
            '--tool-arg',
            `${k}=${typeof v === 'string' ? v : JSON.stringify(v)}`,
          ]);
          const answer = await inspector('tools/call', ['--tool-name', name, ...toolArgs]);
          if (answer.isError || !Array.isArray(answer.content))
            failures.push(`${name}: ${JSON.stringify(answer)}`);
        }
      };
      // Two at a time: each call is a Node process; the machine running CI has two cores.
      await Promise.all([worker(), worker()]);
      expect(failures).toEqual([]);
      // 31 Node processes: a few seconds on an idle machine, far more on a shared one.
    }, 240_000);
  },
  { only: 'sqlite' },
);
