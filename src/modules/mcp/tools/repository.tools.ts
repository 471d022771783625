import { Type } from 'typebox';
import { Project, ProjectList } from '../../projects/projects.schemas.js';
import * as projects from '../../projects/projects.service.js';
import {
  CreatedTcase,
  CreateTcaseBody,
  TCase,
  TCaseList,
  TcaseListQuery,
  TcaseParams,
  UpdateTcaseBody,
} from '../../test-cases/test-cases.schemas.js';
import * as testCases from '../../test-cases/test-cases.service.js';
import {
  BulkFoldersBody,
  BulkFoldersResponse,
  FolderList,
  FolderListQuery,
} from '../../folders/folders.schemas.js';
import * as folders from '../../folders/folders.service.js';
import { TagList, TagListQuery } from '../../tags/tags.schemas.js';
import * as tags from '../../tags/tags.service.js';
import { CustomFieldList } from '../../custom-fields/custom-fields.schemas.js';
import * as customFields from '../../custom-fields/custom-fields.service.js';
import { RequirementList, RequirementListQuery } from '../../requirements/requirements.schemas.js';
import * as requirements from '../../requirements/requirements.service.js';
import { SharedStep, SharedStepList, SharedStepListQuery } from '../../shared-steps/shared-steps.schemas.js';
import * as sharedSteps from '../../shared-steps/shared-steps.service.js';
import {
  SharedPrecondition,
  SharedPreconditionList,
  SharedPreconditionListQuery,
} from '../../shared-preconditions/shared-preconditions.schemas.js';
import * as sharedPreconditions from '../../shared-preconditions/shared-preconditions.service.js';
import { SharedItemParams } from '../../shared-items/shared-items.schemas.js';
import { args, MessageBody, ProjectCode, tool, type McpTool } from '../mcp.tools.js';

/*
 * The fifteen tools of the standalone QA Sphere MCP server at its last release, under its names and argument
 * names, so prompts and agents written for it keep working. Each runs the service of the route it used to call.
 */

const write = 'test-runner' as const;

/** QA Sphere's marker: the project code and the case's sequence number, e.g. BDI-123. */
const Marker = Type.String({
  pattern: '^[A-Za-z0-9]{1,64}-\\d+$',
  description:
    'Test case marker PROJECT_CODE-SEQUENCE (e.g., BDI-123), as in a case URL /project/BDI/tcase/123',
});

/** Pages of the listings default to 20 rows here, as QA Sphere's tools did: a whole project does not fit a prompt. */
const limitOf = (max: number) =>
  Type.Integer({
    minimum: 0,
    maximum: max,
    default: 20,
    description: `rows to return (0-${max}, default 20); 0 returns only the total`,
  });

export const repositoryTools: McpTool[] = [
  tool({
    name: 'list_projects',
    description: 'List the projects of this Casebook (QA Sphere API) that you can see.',
    input: args({}),
    minRole: 'viewer',
    argsLike: 'query',
    output: ProjectList,
    run: async ({ db, actor }) => ({ projects: await projects.listProjects(db, actor) }),
  }),
  tool({
    name: 'get_project',
    description: 'Get a project by its code (e.g., BDI): title, overview and links.',
    input: args({ projectCode: ProjectCode }),
    minRole: 'viewer',
    argsLike: 'query',
    output: Project,
    run: ({ db, actor }, a) => projects.resolveProject(db, actor, a.projectCode),
  }),
  tool({
    name: 'get_test_case',
    description:
      'Get a test case by its marker PROJECT_CODE-SEQUENCE (e.g., BDI-123): steps, precondition, tags, ' +
      'requirements, custom fields.',
    input: args({ marker: Marker }),
    minRole: 'viewer',
    argsLike: 'query',
    output: TCase,
    run: ({ db, ctx, actor }, a) => {
      const cut = a.marker.lastIndexOf('-');
      return testCases.getTestCase(db, ctx.files, actor, a.marker.slice(0, cut), a.marker.slice(cut + 1));
    },
  }),
  tool({
    name: 'list_test_cases',
    description:
      'List the test cases of a project with filters (folders, tags, priorities, types, search, custom fields), ' +
      'sorting and offset/limit. Call get_project first for the project context.',
    input: args(TcaseListQuery, {
      projectCode: ProjectCode,
      limit: limitOf(5000),
      customFields: Type.Optional(
        Type.Record(Type.String(), Type.Array(Type.String()), {
          description: 'custom field system name (without cf_) → allowed values',
        }),
      ),
    }),
    minRole: 'viewer',
    argsLike: 'query',
    output: TCaseList,
    run: ({ db, ctx, actor }, a) => {
      const { projectCode, customFields: byField, ...query } = a;
      const cf = Object.fromEntries(Object.entries(byField ?? {}).map(([k, v]) => [`cf_${k}`, v]));
      return testCases.listTestCases(db, ctx.files, actor, projectCode, { ...query, ...cf });
    },
  }),
  tool({
    name: 'create_test_case',
    description:
      'Create a standalone or template test case in a folder (use upsert_folders for folder ids). Steps may ' +
      'reference shared steps and the precondition a shared precondition.',
    input: args({ projectCode: ProjectCode }, CreateTcaseBody),
    minRole: write,
    argsLike: 'body',
    output: CreatedTcase,
    run: ({ db, ctx, actor }, a) => {
      const { projectCode, ...body } = a;
      return testCases.createTestCase(db, actor, projectCode, body, ctx.tcasesChanged);
    },
  }),
  tool({
    name: 'update_test_case',
    description:
      'Update a test case by id, sequence number or legacy id; fields left out keep their values. A versioned ' +
      'change makes a new version.',
    input: args(
      {
        projectCode: ProjectCode,
        tcaseOrLegacyId: {
          ...TcaseParams.properties.id,
          description: 'test case id, sequence number or legacy id',
        },
      },
      UpdateTcaseBody,
    ),
    minRole: write,
    argsLike: 'body',
    output: MessageBody,
    run: ({ db, ctx, actor }, a) => {
      const { projectCode, tcaseOrLegacyId, ...body } = a;
      return testCases.updateTestCase(db, actor, projectCode, tcaseOrLegacyId, body, ctx.tcasesChanged);
    },
  }),
  tool({
    name: 'list_folders',
    description: "List a project's test case folders, with offset/limit and sorting.",
    input: args(FolderListQuery, { projectCode: ProjectCode, limit: limitOf(5000) }),
    minRole: 'viewer',
    argsLike: 'query',
    output: FolderList,
    run: ({ db, actor }, a) => {
      const { projectCode, ...query } = a;
      return folders.listFolders(db, actor, projectCode, query);
    },
  }),
  tool({
    name: 'upsert_folders',
    description:
      'Create folders by path (root to leaf, created as needed) or update the leaf folder’s comment. Answers one ' +
      'array of folder ids per path.',
    input: args({ projectCode: ProjectCode }, BulkFoldersBody),
    minRole: write,
    argsLike: 'body',
    output: BulkFoldersResponse,
    run: ({ db, actor }, a) => folders.bulkUpsertFolders(db, actor, a.projectCode, { folders: a.folders }),
  }),
  tool({
    name: 'list_test_cases_tags',
    description: "List a project's tags, optionally with how many test cases use each (include tcaseCount).",
    input: args({ projectCode: ProjectCode }, TagListQuery),
    minRole: 'viewer',
    argsLike: 'query',
    output: TagList,
    run: async ({ db, actor }, a) => {
      const { projectCode, ...query } = a;
      return { tags: await tags.listTags(db, actor, projectCode, query) };
    },
  }),
  tool({
    name: 'list_custom_fields',
    description: 'List the custom fields available in a project, with their types, options and defaults.',
    input: args({ projectCode: ProjectCode }),
    minRole: 'viewer',
    argsLike: 'query',
    output: CustomFieldList,
    run: async ({ db, actor }, a) => ({
      customFields: await customFields.listProjectCustomFields(db, actor, a.projectCode),
    }),
  }),
  tool({
    name: 'list_requirements',
    description: "List a project's requirements, optionally with how many test cases cover each.",
    input: args({ projectCode: ProjectCode }, RequirementListQuery),
    minRole: 'viewer',
    argsLike: 'query',
    output: RequirementList,
    run: async ({ db, actor }, a) => {
      const { projectCode, ...query } = a;
      return { requirements: await requirements.listRequirements(db, actor, projectCode, query) };
    },
  }),
  tool({
    name: 'list_shared_preconditions',
    description: "List a project's shared preconditions (latest versions).",
    input: args({ projectCode: ProjectCode }, SharedPreconditionListQuery),
    minRole: 'viewer',
    argsLike: 'query',
    output: Type.Object({ sharedPreconditions: SharedPreconditionList }),
    run: async ({ db, actor }, a) => {
      const { projectCode, ...query } = a;
      const list = await sharedPreconditions.listSharedPreconditions(db, actor, projectCode, query);
      return { sharedPreconditions: list };
    },
  }),
  tool({
    name: 'get_shared_precondition',
    description: 'Get a shared precondition by id at its latest version.',
    input: args({ projectCode: ProjectCode, sharedPreconditionId: SharedItemParams.properties.id }),
    minRole: 'viewer',
    argsLike: 'query',
    output: SharedPrecondition,
    run: ({ db, actor }, a) =>
      sharedPreconditions.getSharedPrecondition(db, actor, a.projectCode, a.sharedPreconditionId),
  }),
  tool({
    name: 'list_shared_steps',
    description: "List a project's shared steps (latest versions) with their sub-steps.",
    input: args({ projectCode: ProjectCode }, SharedStepListQuery),
    minRole: 'viewer',
    argsLike: 'query',
    output: SharedStepList,
    run: async ({ db, actor }, a) => {
      const { projectCode, ...query } = a;
      return { sharedSteps: await sharedSteps.listSharedSteps(db, actor, projectCode, query) };
    },
  }),
  tool({
    name: 'get_shared_step',
    description: 'Get a shared step by id at its latest version, with its sub-steps.',
    input: args({ projectCode: ProjectCode, sharedStepId: SharedItemParams.properties.id }),
    minRole: 'viewer',
    argsLike: 'query',
    output: SharedStep,
    run: ({ db, actor }, a) => sharedSteps.getSharedStep(db, actor, a.projectCode, a.sharedStepId),
  }),
];
