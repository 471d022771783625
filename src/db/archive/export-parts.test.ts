import { expect, it } from 'vitest';
import { describeEachDb } from '../../../test/helpers/test-app.js';
import { createProject } from '../../../test/helpers/factories.js';
import { createFolder, createTcase, uploadFile } from '../../../test/helpers/tcase-factories.js';
import { addResult, createRun } from '../../../test/helpers/run-factories.js';
import { fileIdsOfProject } from './export-parts.js';

describeEachDb('the files a project archive carries', (t) => {
  it('finds the files linked from every kind of HTML, and from no other project', async () => {
    const P = await createProject(t);
    const p = `/project/${P.code}`;
    const link = async (name: string) => {
      const id = await uploadFile(t, `${name}.txt`, name);
      return { id, html: `<p>See <a href="http://casebook.test/api/public/v0/file/${id}">${name}</a></p>` };
    };
    const ok = (res: { status: number; body: any }) => {
      expect(res.status, JSON.stringify(res.body)).toBe(201);
      return res.body;
    };
    const [listed, precondition, step, expected, subStep, shared, result, run, plan, log] = await Promise.all(
      [
        'listed',
        'precondition',
        'step',
        'expected',
        'sub-step',
        'shared',
        'result',
        'run',
        'plan',
        'log',
      ].map(link),
    );
    const sharedStep = ok(
      await t.post(`${p}/shared-step`, {
        title: 'Sign in',
        subSteps: [{ description: '<p>Open</p>', expected: subStep.html }],
      }),
    );
    ok(await t.post(`${p}/shared-precondition`, { title: 'Basket', text: shared.html }));
    const folder = await createFolder(t, P, ['Files']);
    const c = await createTcase(t, P, {
      folderId: folder,
      title: 'Pay',
      files: [listed.id],
      precondition: { text: precondition.html },
      steps: [
        { description: step.html, expected: '<p>Fine</p>' },
        { description: '<p>Then</p>', expected: expected.html },
        { sharedStepId: sharedStep.id },
      ],
    });
    const runId = (await createRun(t, P, { tcaseIds: [c.id], description: run.html })).id;
    await addResult(t, P, runId, c.id, 'failed', { comment: result.html });
    ok(await t.post(`${p}/run/${runId}/log`, { comment: log.html }));
    ok(
      await t.post(`${p}/plan`, {
        title: 'Release',
        description: plan.html,
        runs: [{ title: 'Plan run', queryPlans: [{ tcaseIds: [c.id] }] }],
      }),
    );
    // Another project's file never counts.
    const Q = await createProject(t);
    const elsewhere = await link('elsewhere');
    await createTcase(t, Q, {
      folderId: await createFolder(t, Q, ['Q']),
      title: 'Q',
      comment: elsewhere.html,
    });

    const found = await fileIdsOfProject(t.db, P.id);
    expect([...found].sort()).toEqual(
      [listed, precondition, step, expected, subStep, shared, result, run, plan, log].map((f) => f.id).sort(),
    );
  });
});
