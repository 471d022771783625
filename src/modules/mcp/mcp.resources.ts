import { TCase } from '../test-cases/test-cases.schemas.js';
import { getTestCase } from '../test-cases/test-cases.service.js';
import { Run } from '../runs/runs.schemas.js';
import { getRun } from '../runs/runs.service.js';
import { RunReport } from '../reports/reports.schemas.js';
import { runReport } from '../reports/reports.service.js';
import { notFound } from '../../errors.js';
import { clean, type ToolEnv } from './mcp.tools.js';

/** Test cases and runs as MCP resources: what a client attaches to a conversation by address. */
export const RESOURCE_TEMPLATES = [
  {
    uriTemplate: 'casebook://project/{projectCode}/tcase/{tcase}',
    name: 'test-case',
    title: 'Test case',
    description: 'A test case by project code and id, sequence number or legacy id (JSON, as get_test_case).',
    mimeType: 'application/json',
  },
  {
    uriTemplate: 'casebook://project/{projectCode}/run/{runId}',
    name: 'run',
    title: 'Test run',
    description: 'A test run with its report: counts, pass rate, failures and changes (JSON).',
    mimeType: 'application/json',
  },
];

const TCASE_URI = /^casebook:\/\/project\/([^/]{1,64})\/tcase\/([^/]{1,255})$/;
const RUN_URI = /^casebook:\/\/project\/([^/]{1,64})\/run\/([1-9]\d{0,9})$/;

/** Reads a resource with the caller's access; an address that names nothing is the API's 404. */
export async function readResource(env: ToolEnv, uri: string) {
  const { db, ctx, actor } = env;
  const tcase = TCASE_URI.exec(uri);
  if (tcase) {
    const found = await getTestCase(
      db,
      ctx.files,
      actor,
      decodeURIComponent(tcase[1]),
      decodeURIComponent(tcase[2]),
    );
    return json(uri, clean(TCase, found));
  }
  const run = RUN_URI.exec(uri);
  if (run) {
    const project = decodeURIComponent(run[1]);
    const runId = Number(run[2]);
    const found = await getRun(db, actor, project, runId, {});
    const report = await runReport(db, actor, project, runId);
    return json(uri, { run: clean(Run, found), report: clean(RunReport, report) });
  }
  throw notFound(`no resource at "${uri}": resources are casebook://project/<code>/tcase/<id> or …/run/<id>`);
}

const json = (uri: string, value: unknown) => ({
  contents: [{ uri, mimeType: 'application/json', text: JSON.stringify(value) }],
});
