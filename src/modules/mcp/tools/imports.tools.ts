import { ImportParams, ImportStatus } from '../../imports/imports.schemas.js';
import * as imports from '../../imports/imports.service.js';
import { args, ProjectCode, tool, type McpTool } from '../mcp.tools.js';

/** Following an import the web application or the API started (uploads stay with the API: a model sends no files). */
export const importTools: McpTool[] = [
  tool({
    name: 'get_import_status',
    description:
      'Where an import of test cases is: its status, rows done of the total, what it created and the rows it refused.',
    input: args({
      projectCode: ProjectCode,
      importId: { ...ImportParams.properties.id, description: 'the import id' },
    }),
    minRole: 'viewer',
    argsLike: 'query',
    output: ImportStatus,
    run: ({ db, actor }, a) => imports.getImport(db, actor, a.projectCode, a.importId),
  }),
];
